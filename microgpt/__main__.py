"""`python -m microgpt`: the command line."""

import sys

try:
    from microgpt.cli import run
except KeyboardInterrupt:  # Ctrl-C while Python loads the command line (microgpt/__init__.py has run by now)
    sys.stderr.write("microgpt: stopped by Ctrl-C (SIGINT)\n")
    from microgpt.stopping import exit_with  # loaded with the package: ends by SIGINT, as a run would

    exit_with(130)

run()
