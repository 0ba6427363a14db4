"""`python -m microgpt`: the command line."""

import sys

try:
    from microgpt.cli import run
except KeyboardInterrupt:  # Ctrl-C while Python loads the command line (microgpt/__init__.py has run by now)
    sys.stderr.write("microgpt: stopped by Ctrl-C (SIGINT)\n")
    sys.exit(130)

run()
