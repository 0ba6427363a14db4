"""How a run stops: Ctrl-C (SIGINT), SIGTERM and SIGHUP ask microgpt to stop, and it stops where nothing is lost.

Three rules, used by the command line and by the file writer:

- `stop_at_once()`: where nothing is left to save (start-up, sampling), a stop signal raises `Stopped`.
- `stop_when_safe()`: while a model trains and is saved, a stop signal only records a request, and
  is acknowledged at once; the loop stops after the current step, the checkpoint is saved, and later
  signals change nothing.
- `signals_held()`: while a file is being replaced, every signal that can wait (all but SIGKILL and
  SIGSTOP) waits until it is done, whatever handler is installed, so no signal can leave a
  temporary file or half a rename behind.

And `exit_with()` ends the process with the status the README promises, whatever happened to
stdout and stderr on the way.
"""

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn, TextIO

# SIGTERM is what `timeout`, docker and systemd send; SIGHUP what a closed terminal or ssh session sends.
# Ctrl-\ (SIGQUIT) is left alone: it still stops the program at once, without saving (during the save,
# once the file is in place: see signals_held).
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
    """End the process with `status`, and with no other, whatever stdout and stderr can still take.

    A status that stands for a stop signal ends the process by that signal itself, once everything
    is saved and said: the shell still shows 128 + its number, and it also knows the program was
    stopped, so a Ctrl-C ends a shell loop that runs microgpt (bash stops a loop only for a child
    that died of SIGINT), as it ends one running any C program. Elsewhere than on POSIX (Windows'
    os.kill would end the process with the signal's number as its status) it exits with the status.
    """
    _ignore_stop_signals()  # the run is over: nothing may cut the exit short with a traceback
    settled = [_flush_or_let_go(stream) for stream in (sys.stdout, sys.stderr)]
    for signum in STOP_SIGNALS:
        if status == exit_status(signum) and os.name == "posix":
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
    if not all(settled):
        os._exit(status)  # Python's own last flush would fail, and exit 120 instead
    sys.exit(status)


def _flush_or_let_go(stream: TextIO | None) -> bool:
    """Flush what the stream still holds; if it cannot be written, point it at the null device.

    Python flushes stdout and stderr once more as it exits, and a failure then would turn the exit
    status into 120 (a full disk, a closed descriptor, a reader gone from `2>&1 | head`). False if
    even that failed.
    """
    if stream is None:
        return True
    try:
        stream.flush()
        return True
    except (OSError, ValueError):  # ValueError: the stream is closed, and Python will not flush it
        pass
    try:
        point_at_devnull(stream.fileno())
        stream.flush()  # what it held goes nowhere, so Python's last flush succeeds
        return True
    except (OSError, ValueError, AttributeError):  # AttributeError, ValueError: no file descriptor
        return False


def point_at_devnull(fd: int) -> None:
    """Make the descriptor fd write to the null device (a closed fd is opened anew)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    if devnull != fd:  # fd was closed, and the null device took its number: it is in place already
        os.dup2(devnull, fd)
        os.close(devnull)


def _ignore_stop_signals() -> None:
    try:
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals cannot be handled here, nor can they reach us
        pass


class StopRequest:
    """The first stop signal that arrived, if any; true once one has."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __bool__(self) -> bool:
        return self.signum is not None


@contextmanager
def stop_at_once() -> Iterator[None]:
    """Until the block ends, the first stop signal raises Stopped wherever the program is; later ones
    are ignored, so that a second Ctrl-C cannot interrupt the program while it stops."""
    stopping = StopRequest()

    def handler(signum: int, frame: FrameType | None) -> None:
        if stopping.signum is None:
            stopping.signum = signum
            raise Stopped(signum)

    with _handling(handler):
        yield


@contextmanager
def stop_when_safe(acknowledge: Callable[[int], None] | None = None) -> Iterator[StopRequest]:
    """Until the block ends, a stop signal only records a request, which the caller checks when it is safe.

    acknowledge(signum) is called at once, from the signal handler, for the first one: a step may take
    many seconds, and the reader should know at once that the key was heard.
    """
    request = StopRequest()

    def handler(signum: int, frame: FrameType | None) -> None:
        if request.signum is None:  # the first one says why the run stopped; the rest are ignored
            request.signum = signum
            if acknowledge is not None:
                try:
                    acknowledge(signum)
                except Exception:  # saying so must never cost the run (a stream written to mid-write, ...)
                    pass

    with _handling(handler):
        yield request


@contextmanager
def signals_held() -> Iterator[None]:
    """Block every signal that can be blocked until the block ends; one that arrived meanwhile is delivered then.

    Not only the stop signals: SIGQUIT (Ctrl-\\), SIGUSR1 or SIGALRM would otherwise end the process
    at once, by default, and leave the temporary file behind. Only SIGKILL and SIGSTOP cannot wait.
    Blocking (not a handler) makes this hold whatever handler is installed, even Python's default
    KeyboardInterrupt. Where signals cannot be blocked (Windows), this does nothing.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
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
