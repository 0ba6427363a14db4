"""How microgpt stops: Ctrl-C (SIGINT), SIGTERM and SIGHUP ask it to stop, and it stops where nothing is lost.

This module is the one place that handles signals. Its rules, used by the command line and by the
file writer:

- `run_program()`: from the first line of `microgpt/__main__.py` to the exit, a stop signal is one
  line and the signal's exit status, however far the program has got (even while it loads).
- `stop_at_once()`: where nothing is left to save (start-up, sampling), a stop signal raises `Stopped`.
- `stop_when_safe()`: while a model trains and is saved, a stop signal only records a request, and
  is acknowledged at once; the loop stops after the current step, the checkpoint is saved, and later
  signals change nothing.
- `signals_held()`: while a file is being replaced, every signal that can wait (all but SIGKILL and
  SIGSTOP) waits until it is done, whatever handler is installed, so no signal can leave a
  temporary file or half a rename behind.

And `exit_with()` ends the process with the status the README promises, whatever happened to
stdout and stderr on the way.

A signal that is ignored when microgpt starts (SIGHUP under `nohup`, Ctrl-C in a background job)
stays ignored throughout. This module is imported before anything else of the command line, so it
imports only what Python has loaded already (typing's names are for the type checker alone).
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing, which Python has not loaded yet
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType
    from typing import NoReturn, TextIO

    Handler = Callable[[int, FrameType | None], None]

# SIGTERM is what `timeout`, docker and systemd send; SIGHUP what a closed terminal or ssh session sends.
# Ctrl-\ (SIGQUIT) is left alone: it still stops the program at once, without saving (during the save,
# once the file is in place: see signals_held).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


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


def stopped_line(signum: int) -> str:
    """What microgpt says when a stop signal ends it where there was nothing to save."""
    return f"microgpt: stopped by {signal_name(signum)}"


def run_program(load_main: Callable[[], Callable[[], int]], interrupted: bool = False) -> NoReturn:
    """Load the program (load_main() imports it and returns its main()), run it, and exit with its status.

    From the first instant, SIGTERM and SIGHUP raise Stopped, as Ctrl-C raises KeyboardInterrupt,
    instead of ending the process silently: a stop signal while the program loads, or outside the
    handling main() does itself, is one line and the signal's status. interrupted: a Ctrl-C came
    while this module itself was loading.
    """
    try:
        if interrupted:
            raise KeyboardInterrupt
        _stop_signals_raise()
        main = load_main()
        with stop_at_once():
            status = main()
    except (Stopped, KeyboardInterrupt) as e:  # KeyboardInterrupt: Ctrl-C, before the handlers are in place
        status = _stopped(e.signum if isinstance(e, Stopped) else signal.SIGINT)
    exit_with(status)


def _stop_signals_raise() -> None:
    """SIGTERM and SIGHUP raise Stopped from now on, as Ctrl-C raises KeyboardInterrupt; one that is ignored
    stays ignored."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Stopped(signum)

    for signum in STOP_SIGNALS:
        if signum != signal.SIGINT and signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, handler)


def _stopped(signum: int) -> int:
    """Say which signal stopped the program, once, and return its exit status; a second signal meanwhile
    is one more reason to stop, not a traceback."""
    said = False
    while True:
        try:
            _ignore_stop_signals()
            if not said:
                said = True
                if sys.stderr is not None:
                    sys.stderr.write(stopped_line(signum) + "\n")
            return exit_status(signum)
        except (KeyboardInterrupt, Stopped):
            continue
        except (OSError, ValueError):  # stderr cannot be written: exit all the same
            return exit_status(signum)


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

    with _handling(handler) as installed:
        _safe_handlers.append((handler, installed))
        try:
            yield request
        finally:
            _safe_handlers.pop()


# The handlers of the stop_when_safe blocks open now, innermost last, with the signals each was installed for:
# they only record and acknowledge, so signals_held lets them hear a stop signal while a file is written.
_safe_handlers: list[tuple[Handler, tuple[int, ...]]] = []


@contextmanager
def signals_held() -> Iterator[None]:
    """Block every signal that can be blocked until the block ends; one that arrived meanwhile is delivered then.

    Not only the stop signals: SIGQUIT (Ctrl-\\), SIGUSR1 or SIGALRM would otherwise end the process
    at once, by default, and leave the temporary file behind. Only SIGKILL and SIGSTOP cannot wait.
    Blocking (not a handler) makes this hold whatever handler is installed, even Python's default
    KeyboardInterrupt. Where signals cannot be blocked (Windows), this does nothing.

    Inside stop_when_safe (the command line saving what it trained), a stop signal is still heard at
    once, however long the write takes (a large checkpoint, a slow disk): a thread of its own waits for
    it while it is held, and hands it to that block's handler, which only records it and says so.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    watcher = _Watcher(*_safe_handlers[-1]) if _safe_handlers and hasattr(signal, "sigtimedwait") else None
    try:
        yield
    finally:
        if watcher is not None:
            watcher.stop()
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _Watcher:
    """A thread that takes the stop signals while they are held and hands each to a stop_when_safe handler.

    It is started with every signal blocked, as the thread that starts it has them, so a stop signal
    stays pending until sigtimedwait takes it here; one that comes after the watcher stops is delivered
    to the handler as usual when the signals are let through.
    """

    POLL = 0.05  # seconds between looks at whether the write is done: the longest stop() waits

    def __init__(self, handler: Handler, signums: tuple[int, ...]):
        import threading  # only now: this module loads before the command line, and threading is not loaded yet

        self.done = threading.Event()
        self.thread: threading.Thread | None = threading.Thread(
            target=self._watch, args=(handler, signums), name="microgpt: stop signals during a save", daemon=True
        )
        try:
            self.thread.start()
        except RuntimeError:  # no threads here (a browser's Python): the signal waits for the write, as others do
            self.thread = None

    def _watch(self, handler: Handler, signums: tuple[int, ...]) -> None:
        while signums and not self.done.is_set():
            try:
                info = signal.sigtimedwait(signums, self.POLL)
            except OSError:
                return
            if info is not None:
                handler(info.si_signo, None)

    def stop(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()


@contextmanager
def _handling(handler: Handler) -> Iterator[tuple[int, ...]]:
    """Install handler for every stop signal for the duration of the block, then restore what was there;
    the block is given the signals it was installed for.

    A signal that is ignored stays ignored: a job started in the background with `&` ignores Ctrl-C,
    and should go on doing so. Outside the main thread signals cannot be handled, and nothing changes.
    """
    previous: dict[int, signal.Handlers | Handler | int | None] = {}
    try:
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield tuple(previous)
    finally:
        for signum, old in previous.items():
            # None: a handler installed from outside Python, which cannot be put back; the default is closest
            signal.signal(signum, signal.SIG_DFL if old is None else old)
