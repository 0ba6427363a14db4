"""`python -m microgpt`: the command line."""

import sys

try:
    from microgpt.cli import run
except KeyboardInterrupt:  # Ctrl-C while Python was still loading microgpt: nothing has started
    sys.stderr.write("microgpt: stopped by Ctrl-C (SIGINT)\n")
    sys.exit(130)

run()
