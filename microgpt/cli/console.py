"""What the user sees: samples and messages, escaped so that they are safe to print, and the progress line.

Nothing printed here can fail the program in a way that loses work: a stdout that cannot be
written raises StdoutFailed (one error line), a stderr that cannot be written is given up on.
"""

import math
import os
import sys
import time
from collections import deque
from typing import TextIO

from microgpt.runtime.signals import point_at_devnull
from microgpt.runtime.units import duration
from microgpt.train import Progress


class StdoutFailed(Exception):
    """Standard output cannot be written (a full disk, /dev/full, a closed descriptor)."""


def printable(text: str) -> str:
    """text with every character that is not printable written as its Python escape (\\n, \\x1b, \\u2028).

    Control characters, line and paragraph separators, format characters and lone surrogates:
    escaped, so a line stays one line and nothing in the data can drive the terminal.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def say(line: str) -> None:
    """Print one line on stdout, escaped (see printable) and fit for stdout's encoding (e.g. cp1252)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    write_stdout(printable(line).encode(encoding, "backslashreplace").decode(encoding) + "\n")


def write_stdout(text: str) -> None:
    """Write text to stdout and flush it, so a reader (`| head`) sees it at once and a failure shows now.

    A reader that went away raises BrokenPipeError; any other failure raises StdoutFailed, whether
    stdout is buffered (the flush fails) or not (the write does: `python -u`, PYTHONUNBUFFERED).
    """
    stream = sys.stdout
    if stream is None:
        raise StdoutFailed("cannot write to standard output: it is closed")
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as e:  # ValueError: the stream was closed
        raise StdoutFailed(f"cannot write to standard output: {getattr(e, 'strerror', None) or e}") from None


def note(line: str) -> None:
    """One line on stderr; a stderr that cannot be written (closed, full, a reader gone) must not stop the program."""
    if sys.stderr is None:  # closed when Python started: print() would write to stdout instead
        return
    try:
        print(printable(line), file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def write_now(stream: TextIO, text: str) -> None:
    """Write text straight to the stream's file descriptor, past its buffer: from a signal handler, a
    write to the stream itself could land in the middle of one it interrupted (a RuntimeError for a
    reentrant call). Anything that fails is given up on; the program goes on."""
    try:
        data = text.encode(getattr(stream, "encoding", None) or "utf-8", "backslashreplace")
        os.write(stream.fileno(), data)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture), closed, a reader gone
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError, RuntimeError):
            pass


def silence_stdout() -> None:
    """Point stdout at the null device, so Python's final flush at exit cannot fail a second time."""
    try:
        point_at_devnull(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture it), or no stdout at all
        pass


class ProgressLine:
    """Step, loss, speed and time left: redrawn on one line on a terminal, else a line every tenth of the run.

    If stderr cannot be written (closed, full, a reader gone), the training goes on without it.
    """

    def __init__(self, stream: TextIO | None, steps: int, window: int = 50):
        self.stream, self.steps = stream, steps
        self.broken = stream is None
        self.live = stream is not None and _isatty(stream)
        self.every = max(1, steps // 10)
        self.recent: deque[float] = deque(maxlen=window)  # one document's loss is noisy: show a running mean
        self.start = time.perf_counter()
        self.last_draw, self.width, self.pending = 0.0, 0, ""

    def update(self, p: Progress) -> None:
        self.recent.append(p.loss)
        elapsed = time.perf_counter() - self.start
        rate = p.step / elapsed if elapsed > 0 else 0.0
        line = (
            f"step {p.step:{len(str(p.steps))}d}/{p.steps} | loss {p.loss:.4f} | "
            f"avg of last {len(self.recent)} {sum(self.recent) / len(self.recent):.4f} | "
            f"{rate:.1f} steps/s | ETA {time_left(p.steps - p.step, rate)}"
        )
        now = time.perf_counter()
        if self.live:
            if p.step in (1, p.steps) or now - self.last_draw >= 0.1:
                self._write("\r" + line.ljust(self.width))
                self.width, self.last_draw, self.pending = len(line), now, ""
            else:
                self.pending = line
        elif p.step == 1 or p.step % self.every == 0 or p.step == p.steps:
            self._write(line + "\n")
            self.pending = ""
        else:
            self.pending = line

    def finish(self) -> None:
        """Show the last step reached, and end the line."""
        if self.live:
            if self.pending:
                self._write("\r" + self.pending.ljust(self.width))
            if self.width or self.pending:
                self._write("\n")
        elif self.pending:
            self._write(self.pending + "\n")

    def interject(self, line: str) -> None:
        """Say one line now, even from a signal handler in the middle of a write; on a terminal, below the
        progress line, which is drawn again under it."""
        if self.broken or self.stream is None:
            return
        text = printable(line) + "\n"
        if self.live and self.width:
            text, self.width = "\n" + text, 0
        write_now(self.stream, text)

    def _write(self, text: str) -> None:
        if self.broken or self.stream is None:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # ValueError: the stream was closed
            self.broken = True


def time_left(steps: int, rate: float) -> str:
    """How long `steps` more steps take at `rate` steps a second: '4:05' (minutes and seconds) under
    100 hours, else in the largest unit; --steps may be any whole number, even one of 300 digits."""
    if not steps or not rate:
        return "0:00"
    log10 = math.log10(steps) - math.log10(rate)  # no float division: steps may be too large for a float
    if log10 < math.log10(100 * 3600):
        seconds = int(steps / rate)
        return f"{seconds // 60}:{seconds % 60:02d}"
    if log10 < 15:
        return duration(steps / rate)
    return f"about 10^{math.floor(log10 - math.log10(365 * 86400))} years"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False
