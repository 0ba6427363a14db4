"""How a run stops: Ctrl-C (SIGINT), SIGTERM and SIGHUP ask microgpt to stop, and it stops where nothing is lost.

Three rules, used by the command line and by the file writer:

- `stop_at_once()`: where nothing is left to save (start-up, sampling), a stop signal raises `Stopped`.
- `stop_when_safe()`: while a model trains and is saved, a stop signal only records a request; the
  loop stops after the current step, the checkpoint is saved, and later signals change nothing.
- `signals_held()`: while a file is being replaced, stop signals wait until it is done, whatever
  handler is installed, so no signal can leave a temporary file or half a rename behind.
"""

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn

# SIGTERM is what `timeout`, docker and systemd send; SIGHUP what a closed terminal or ssh session sends.
# Ctrl-\ (SIGQUIT) is left alone: it still stops the program at once, without saving.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

Handler = Callable[[int, FrameType | None], None]


class Stopped(BaseException):
    """A stop signal arrived where there is nothing to save.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` swallows it.
    """

    def __init__(self, signum: int):
        super().__init__(signal_name(signum))
        self.signum = signum


def signal_name(signum: int) -> str:
    return "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name


def exit_status(signum: int) -> int:
    """The shell's convention for a program stopped by a signal: 128 + its number (130, 143)."""
    return 128 + signum


def exit_with(status: int) -> NoReturn:
    """End the process with `status`. A status that stands for a stop signal ends it by that signal
    itself, once everything is saved and said: the shell still shows 128 + its number, and it also
    knows the program was stopped, so a Ctrl-C ends a shell loop that runs microgpt (bash stops a loop
    only for a child that died of SIGINT), as it ends one running any C program. Elsewhere than on
    POSIX (Windows' os.kill would end the process with the signal's number as its status) it exits
    with the status."""
    for signum in STOP_SIGNALS:
        if status == exit_status(signum) and os.name == "posix":
            try:  # what is still buffered for stdout goes out first, if stdout can take it
                if sys.stdout is not None:
                    sys.stdout.flush()
            except (OSError, ValueError):
                pass  # the run is saved and its stop was said on stderr: nothing else is lost
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
    sys.exit(status)


class StopRequest:
    """The first stop signal that arrived, if any; true once one has."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __bool__(self) -> bool:
        return self.signum is not None


@contextmanager
def stop_at_once() -> Iterator[None]:
    """Until the block ends, a stop signal raises Stopped wherever the program is."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Stopped(signum)

    with _handling(handler):
        yield


@contextmanager
def stop_when_safe() -> Iterator[StopRequest]:
    """Until the block ends, a stop signal only records a request, which the caller checks when it is safe."""
    request = StopRequest()

    def handler(signum: int, frame: FrameType | None) -> None:
        if request.signum is None:  # the first one says why the run stopped; the rest are ignored
            request.signum = signum

    with _handling(handler):
        yield request


@contextmanager
def signals_held() -> Iterator[None]:
    """Block the stop signals until the block ends; one that arrived meanwhile is delivered then.

    Blocking (not a handler) makes this hold whatever handler is installed, even Python's default
    KeyboardInterrupt. Where signals cannot be blocked (Windows), this does nothing.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextmanager
def _handling(handler: Handler) -> Iterator[None]:
    """Install handler for every stop signal for the duration of the block, then restore what was there.

    A signal that is ignored stays ignored: a job started in the background with `&` ignores Ctrl-C,
    and should go on doing so. Outside the main thread signals cannot be handled, and nothing changes.
    """
    previous: dict[signal.Signals, signal.Handlers | Handler | int | None] = {}
    try:
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, old in previous.items():
            # None: a handler installed from outside Python, which cannot be put back; the default is closest
            signal.signal(signum, signal.SIG_DFL if old is None else old)
