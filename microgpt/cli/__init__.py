"""The command line (`python -m microgpt`): its arguments, limits, files, checkpoints and stops.

None of it is taught on the site: the GPT a learner reads is the modules one folder up.
"""
