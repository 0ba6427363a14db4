"""`python -m microgpt` and the `microgpt` command: the command line, with no traceback from its first line.

The package's __init__.py imports nothing, so this is the first of microgpt's code that loads
anything: a Ctrl-C while Python loads the command line is one line and exit 130, as later.
"""

import sys


def main() -> None:
    """The command line; the `microgpt` command's entry point."""
    try:
        from microgpt.cli.main import run

        run()  # exits; it catches stop signals itself once its handlers are in place
    except KeyboardInterrupt:  # before they are, or in the instant after they are taken down
        stopped_while_starting()


def stopped_while_starting() -> None:
    said = False
    while True:  # a second Ctrl-C while this loads is one more reason to stop, not a traceback
        try:
            if not said:
                said = True
                if sys.stderr is not None:
                    sys.stderr.write("microgpt: stopped by Ctrl-C (SIGINT)\n")
            import signal

            from microgpt.cli.stopping import exit_status, exit_with

            exit_with(exit_status(signal.SIGINT))  # ends by the signal, as a run does
        except KeyboardInterrupt:
            continue
        except OSError:  # stderr cannot be written: exit all the same
            continue


if __name__ == "__main__":
    main()
