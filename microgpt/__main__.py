"""`python -m microgpt` and the `microgpt` command: the command line, with no traceback from its first line.

The package's __init__.py imports nothing, so this is the first of microgpt's code that runs: from
its first line, a stop signal while Python loads the command line is one line and the signal's exit
status, as later. Before it (while Python itself starts, and, for the `microgpt` command, while the
script pip wrote imports this module) Python's own defaults apply: see README.md, "Stopping".
"""

import signal
import sys
from types import FrameType

# The stop signals of microgpt/cli/stopping.py, named here again: this module must not wait for that one to load.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


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
        stopped_while_starting(signal.SIGINT)
    except StoppedWhileStarting as e:
        stopped_while_starting(e.signum)


def stop_signals_raise() -> None:
    """SIGTERM and SIGHUP raise an exception from now on, as Ctrl-C already does, instead of ending
    the process silently; one that is ignored (a job started with nohup) stays ignored."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise StoppedWhileStarting(signum)

    for signum in STOP_SIGNALS:
        if signum != signal.SIGINT and signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, handler)


def stopped_while_starting(signum: int) -> None:
    said = False
    while True:  # a second signal while this loads is one more reason to stop, not a traceback
        try:
            for other in STOP_SIGNALS:
                signal.signal(other, signal.SIG_IGN)
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
