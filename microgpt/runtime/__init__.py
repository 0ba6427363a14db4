"""What every runner of the model relies on, whoever runs it: bounds and costs, files and checkpoints, stop signals.

The command line (microgpt/cli/), the site's Train widget (microgpt/course/live.py) and the site's build
(tools/mgsite/) use these modules; they import nothing from those, nor does anything the site teaches
import them: the GPT a learner reads is the modules one folder up.
"""
