"""`python -m microgpt` and the `microgpt` command: the command line, with no traceback from its first line.

The package's __init__.py imports nothing, so this is the first of microgpt's code that runs: from
its first line, a stop signal while Python loads the command line is one line and the signal's exit
status, as later. Before it (while Python itself starts, and, for the `microgpt` command, while the
script pip wrote imports this module) Python's own defaults apply: see README.md, "Stopping".
"""

import sys

# The stop signals of microgpt/cli/stopping.py, named here again: this module must not wait for that one to load.
# Named, not imported: this module imports nothing more at its top (not even signal), since the script pip
# writes for the `microgpt` command imports it before main() runs, and a Ctrl-C meanwhile is Python's traceback.
STOP_SIGNAL_NAMES = ("SIGINT", "SIGTERM", "SIGHUP")


class StoppedWhileStarting(BaseException):
    """SIGTERM or SIGHUP before the command line's own handlers are in place (Ctrl-C raises KeyboardInterrupt)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def main() -> None:
    """The command line; the `microgpt` command's entry point."""
    try:
        stop_signals_raise()
        from microgpt.cli.main import run

        run()  # exits; it catches stop signals itself once its handlers are in place
    except KeyboardInterrupt:  # before they are, or in the instant after they are taken down
        stopped_while_starting(None)
    except StoppedWhileStarting as e:
        stopped_while_starting(e.signum)


def stop_signals_raise() -> None:
    """SIGTERM and SIGHUP raise an exception from now on, as Ctrl-C already does, instead of ending
    the process silently; one that is ignored (a job started with nohup) stays ignored."""
    import signal

    def handler(signum: int, frame: object) -> None:
        raise StoppedWhileStarting(signum)

    for name in STOP_SIGNAL_NAMES[1:]:
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, handler)


def stopped_while_starting(signum: int | None) -> None:
    """Say which signal stopped the program, and end it by that signal; None: Ctrl-C (KeyboardInterrupt)."""
    said = False
    while True:  # a second signal while this loads is one more reason to stop, not a traceback
        try:
            import signal

            for other in STOP_SIGNAL_NAMES:
                if hasattr(signal, other):
                    signal.signal(getattr(signal, other), signal.SIG_IGN)
            signum = signal.SIGINT if signum is None else signum
            if not said:
                said = True
                name = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
                if sys.stderr is not None:
                    sys.stderr.write(f"microgpt: stopped by {name}\n")
            from microgpt.cli.stopping import exit_status, exit_with

            exit_with(exit_status(signum))  # ends by the signal, as a run does
        except (KeyboardInterrupt, StoppedWhileStarting):
            continue
        except (OSError, ValueError):  # stderr cannot be written: exit all the same
            continue


if __name__ == "__main__":
    main()
