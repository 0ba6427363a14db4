"""The site's course tools: the traces its graphs and diagrams draw, the exercises' checkers, the Train widget's run.

None of it is taught on the site: the GPT a learner reads is the modules one folder up.
"""
