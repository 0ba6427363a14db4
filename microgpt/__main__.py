"""`python -m microgpt`: the command line."""

import sys

from microgpt.cli import main

sys.exit(main())
