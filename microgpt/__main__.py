"""`python -m microgpt` and the `microgpt` command: the command line, with no traceback from its first line.

The package's __init__.py imports nothing, so this is the first of microgpt's code that runs. It
loads microgpt/runtime/signals.py, the one module that handles signals, which then loads and runs
the command line: from here on a stop signal is one line and the signal's exit status. Before it
(while Python itself starts, and, for the `microgpt` command, while the script pip wrote imports this
module) Python's own defaults apply: see README.md, "Stopping". This module imports nothing at its
top, so that the script's import is as short as it can be.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see the docstring
if TYPE_CHECKING:
    from collections.abc import Callable


def main() -> None:
    """The command line; the `microgpt` command's entry point."""
    interrupted = False
    while True:
        try:
            from microgpt.runtime.signals import run_program  # here, where a Ctrl-C while it loads is caught

            break
        except KeyboardInterrupt:  # a Ctrl-C while that module loads: it reports it once it has loaded
            interrupted = True
    run_program(load_command_line, interrupted)


def load_command_line() -> Callable[[], int]:
    from microgpt.cli.main import main  # only once run_program handles the signals it must catch while this loads

    return main


if __name__ == "__main__":
    main()
