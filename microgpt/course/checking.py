"""How an exercise's checker judges a reader's backward: shapes first, then the engine, then the known slips.

A piece has cases (real inputs with the engine's answer) and named wrong variants (what a learner's
slip gives). A reader's answer that is off in some part is compared with each variant's same part;
the one it matches names the slip. One tolerance decides both: TOL, stated in the success line.
"""

import contextlib
import copy
import linecache
import math
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOL = 1e-9  # an entry agrees when it is within this of the other, absolutely
TOL_SHOWN = "1e-9"  # TOL as the success line prints it


@dataclass
class Case:
    """One call of the reader's function: where its numbers come from, its arguments, the engine's answer."""

    label: str
    args: tuple
    engine: tuple  # one entry per part of the answer


@dataclass
class Slip:
    """A wrong answer a learner often gives, and what to tell them when theirs matches it."""

    wrong: Callable[..., Any]  # takes the case's arguments, returns a whole (wrong) answer
    hint: str


@dataclass
class Piece:
    """An exercise: the function's name, the names of its answer's parts, its cases and its slips.

    first names the parts compared before the others (where a slip shows most plainly); entry_note says
    what an entry of a case's answer is (the case's arguments and the entry's index), or "".
    """

    name: str
    parts: tuple[str, ...]
    cases: Callable[[], list[Case]]
    slips: dict[str, Slip]
    first: tuple[str, ...] = ()
    entry_note: Callable[[tuple, int], str] = field(default=lambda args, i: "")


@dataclass(frozen=True)
class Frame:
    """One frame of the reader's own code in a traceback: where it was when an error went through it."""

    file: str  # the name the code was compiled under: a page's block, or the reader's script
    line: int
    function: str
    source: str  # the line's text, or "" where Python cannot find it


@dataclass
class Verdict:
    """What a checker says about a reader's function: printed, it is the text the page shows.

    The page's Python (microgpt.course.runtime) hands the fields to the page as they are, so the page
    shows the checker's verdict without reading printed text: ok, the text, whether the capstone kept the
    function as the reader's piece, and, when the reader's function raised, the frames of their code.
    """

    piece: str
    ok: bool
    text: str
    frames: tuple[Frame, ...] = ()  # innermost last, as Python prints them
    kept: bool = False  # accepted and kept as the reader's own piece (microgpt.course.capstone)

    def __str__(self) -> str:
        return self.text

    def as_dict(self) -> dict[str, Any]:
        return {
            "piece": self.piece,
            "ok": self.ok,
            "text": self.text,
            "kept": self.kept,
            "frames": [vars(frame) for frame in self.frames],
        }


_made: list[Verdict] = []  # every verdict since the last take_verdicts()


def take_verdicts() -> list[Verdict]:
    """The verdicts made since the last call, in order; the list starts again empty."""
    made = _made[:]
    _made.clear()
    return made


@contextlib.contextmanager
def set_apart() -> Iterator[None]:
    """Verdicts made inside the block are not handed out by take_verdicts() (a piece run again, unseen)."""
    made = len(_made)
    try:
        yield
    finally:
        del _made[made:]


# Where this package and Python's own modules live: a frame in those files is not the reader's code
_NOT_THEIRS = tuple(
    {str(Path(__file__).resolve().parent.parent)}
    | {str(Path(sysconfig.get_paths()[key]).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
)


def _theirs(file: str) -> bool:
    """Is this file the reader's? A page's block ("<example>") or their own script, not a library."""
    return not Path(file).is_absolute() or not str(Path(file).resolve()).startswith(_NOT_THEIRS)


def readers_frames(error: BaseException) -> tuple[Frame, ...]:
    """The frames of an exception's traceback that ran the reader's own code, outermost first."""
    frames = [
        Frame(s.filename, s.lineno or 0, s.name, (s.line or linecache.getline(s.filename, s.lineno or 0)).strip())
        for s in traceback.extract_tb(error.__traceback__)
        if _theirs(s.filename)
    ]
    if isinstance(error, SyntaxError) and error.filename and error.lineno:  # where the parser stopped
        frames.append(Frame(error.filename, error.lineno, "<module>", (error.text or "").strip()))
    return tuple(frames)


def _raised(name: str, error: BaseException) -> tuple[str, tuple[Frame, ...]]:
    """The lines that say the reader's function raised, and where in their code."""
    frames = readers_frames(error)
    lines = [f"{name} raised {type(error).__name__}: {error}"]
    lines += [f"at line {f.line}, in {f.function}" + (f": {f.source}" if f.source else "") for f in frames]
    return "\n ".join(lines), frames


def as_parts(answer: Any, parts: Sequence[str]) -> tuple:
    """The answer as a tuple of parts (one part: the answer itself)."""
    if len(parts) == 1:
        return (answer,)
    if not isinstance(answer, (tuple, list)) or len(answer) != len(parts):
        raise ValueError(f"return {len(parts)} things, in this order: {', '.join(parts)}")
    return tuple(answer)


def shape_problem(mine: Any, engine: Any, what: str) -> str | None:
    """Why mine cannot be compared with engine (a number where a list belongs, a length), or None."""
    if isinstance(engine, (list, tuple)):
        if not isinstance(mine, (list, tuple)):
            return f"{what} should be a list of {len(engine)}, not a {type(mine).__name__}"
        if len(mine) != len(engine):
            rows = engine and isinstance(engine[0], (list, tuple))
            size = f"{len(engine)} x {len(engine[0])}" if rows else str(len(engine))
            return f"{what} has {len(mine)} entries where the engine's has {len(engine)} (its shape: {size})"
        for i, (a, b) in enumerate(zip(mine, engine)):
            problem = shape_problem(a, b, f"{what}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(mine, bool) or not isinstance(mine, (int, float)):
        return f"{what} is a {type(mine).__name__}: return plain numbers (floats)"
    if not math.isfinite(mine):
        return f"{what} is {mine}"
    return None


def flat(values: Any) -> list[float]:
    """Every number of a nested list, in order."""
    if isinstance(values, (list, tuple)):
        return [v for item in values for v in flat(item)]
    return [values]


def largest_gap(a: Any, b: Any) -> float:
    """The largest |a - b| entry by entry; inf when the shapes differ."""
    fa, fb = flat(a), flat(b)
    if len(fa) != len(fb) or shape_problem(a, b, "") is not None:
        return math.inf
    return max((abs(u - v) for u, v in zip(fa, fb)), default=0.0)


def check(piece: Piece, backward: Callable[..., Any]) -> Verdict:
    """Run backward on every case of piece: a verdict of one line (✓), or what is wrong and where (✗)."""
    verdict = _judge(piece, backward)
    _made.append(verdict)
    return verdict


def _judge(piece: Piece, backward: Callable[..., Any]) -> Verdict:
    name = getattr(backward, "__name__", "your function")
    text = _first_miss(piece, backward, name)
    if isinstance(text, tuple):  # the reader's function raised
        return Verdict(piece.name, False, text[0], text[1])
    if text is None:
        cases = len(piece.cases())
        text = f"✓ {name} agrees with the engine on all {cases} cases, within {TOL_SHOWN} in every entry"
        return Verdict(piece.name, True, text)
    return Verdict(piece.name, False, text)


def _first_miss(piece: Piece, backward: Callable[..., Any], name: str) -> str | tuple[str, tuple[Frame, ...]] | None:
    """What is wrong on the first case where backward misses (with the reader's frames, if it raised), or None."""
    cases = piece.cases()
    for k, case in enumerate(cases, 1):
        where = f"✗ case {k} of {len(cases)} ({case.label}):\n "
        args = copy.deepcopy(case.args)
        try:
            answer = backward(*args)
        except Exception as error:  # the reader's code: say what it raised, and where in their code
            lines, frames = _raised(name, error)
            return f"{where}{lines}", frames
        if args != case.args:
            return f"{where}{name} changed its arguments; compute new lists instead"
        try:
            mine = as_parts(answer, piece.parts)
        except ValueError as error:
            return f"{where}{error}"
        order = sorted(range(len(piece.parts)), key=lambda j: piece.parts[j] not in piece.first)
        for index in order:
            part, a, b = piece.parts[index], mine[index], case.engine[index]
            problem = shape_problem(a, b, part)
            if problem is None and largest_gap(a, b) <= TOL:
                continue
            about = f"{part}: " if len(piece.parts) > 1 else ""
            for slip in piece.slips.values():  # a known slip, even one that changes the shape (a transpose)
                wrong = as_parts(slip.wrong(*copy.deepcopy(case.args)), piece.parts)[index]
                if largest_gap(a, wrong) <= TOL:
                    return f"{where}{about}{slip.hint}"
            if problem:
                return f"{where}shape: {problem}"
            fa, fb = flat(a), flat(b)
            i = max(range(len(fa)), key=lambda j: abs(fa[j] - fb[j]))
            gap = abs(fa[i] - fb[i])
            note = (
                " (counting row by row)"
                if isinstance(b, (list, tuple)) and b and isinstance(b[0], (list, tuple))
                else ""
            )
            note += piece.entry_note(case.args, i)
            return (
                f"{where}{part}: entry {i}{note} is {fa[i]:.10g}, the engine's is {fb[i]:.10g}:\n"
                f" off by {gap:.1e}, more than {TOL_SHOWN}"
            )
    return None
