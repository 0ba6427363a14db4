"""The command line (`python -m microgpt`): its arguments, what it prints, and how it runs a model.

None of it is taught on the site: the GPT a learner reads is the modules one folder up. What the
command line shares with the site (bounds, files, checkpoints, stop signals) is in microgpt/runtime/.
"""
