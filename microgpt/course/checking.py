"""How an exercise's checker judges a reader's backward: the known slips first, then what the numbers say.

A piece has cases (real inputs with the engine's answer) and named wrong variants (what a learner's
slip gives). A reader's answer that is off in some part is compared with each variant's same part;
the one it matches names the slip. An answer no slip explains is described from its numbers
(microgpt.course.diagnosis): where it is wrong in the reader's terms, and how. One tolerance decides
all of it: TOL, stated in the success line.
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

from microgpt.course.diagnosis import TOL, TOL_SHOWN, Layout, Part, agrees, diagnose, shared_rows, swapped

__all__ = ["TOL", "TOL_SHOWN", "Case", "Frame", "Piece", "Slip", "Verdict", "check", "take_verdicts"]


@dataclass
class Case:
    """One call of the reader's function: where its numbers come from, its arguments, the engine's answer."""

    label: str
    args: tuple
    engine: tuple  # one entry per part of the answer
    zero_why: str | dict[str, str] = ""  # why some of the engine's entries are exactly 0 (by part, or for all)
    kept: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # slips' answers, made once


@dataclass
class Slip:
    """A wrong answer a learner often gives, and what to tell them when theirs matches it."""

    wrong: Callable[..., Any]  # takes the case's arguments, returns a whole (wrong) answer
    hint: str


@dataclass
class Piece:
    """An exercise: the function's name, the names of its answer's parts, its cases and its slips.

    layout names each part's axes, so that a place in it is said in the reader's terms; terms(*args) gives,
    for a part, ways to split the engine's answer into terms (a sum's terms, attention's paths), so that a
    term missing or with its sign flipped can be told; sizes(*args) names a call's sizes (T, d_h), so that a
    factor can be named; facts(*args) gives what else names a place (the true token); first names the parts
    compared before the others (where a slip shows most plainly). The first case is the page's step: its
    sizes are the ones an answer would write as numbers.
    """

    name: str
    parts: tuple[str, ...]
    cases: Callable[[], list[Case]]
    slips: dict[str, Slip]
    layout: Layout
    first: tuple[str, ...] = ()
    terms: Callable[..., dict[str, list[dict[str, Any]]]] = field(default=lambda *args: {})
    sizes: Callable[..., dict[str, Any]] = field(default=lambda *args: {})  # a call's sizes by name ("T": 7)
    facts: Callable[..., dict[str, Any]] = field(default=lambda *args: {})  # what else names a place
    arguments: tuple[str, ...] = ()  # the names of the function's arguments, in order


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
    """The lines that say the reader's function raised, and where in their code, outermost call first."""
    frames = readers_frames(error)
    message = f": {error}" if str(error) else ""
    lines = [f"{name} raised {type(error).__name__}{message}"]
    lines += [f"at line {f.line}, in {f.function}" + (f": {f.source}" if f.source else "") for f in frames]
    return "\n ".join(lines), frames


def _not_written(error: BaseException) -> tuple[str, tuple[Frame, ...]] | None:
    """A blank body's NotImplementedError, raised by the reader's own code: one line that says so."""
    frames = readers_frames(error)
    if not isinstance(error, NotImplementedError) or not frames:
        return None
    last = frames[-1]
    text = f"✗ {last.function} is not written yet: line {last.line} raises NotImplementedError"
    return text, frames


def as_parts(answer: Any, parts: Sequence[str]) -> tuple:
    """The answer as a tuple of parts (one part: the answer itself)."""
    if len(parts) == 1:
        return (answer,)
    if not isinstance(answer, (tuple, list)) or len(answer) != len(parts):
        raise ValueError(f"return {len(parts)} things, in this order: {', '.join(parts)}")
    return tuple(answer)


def shape_problem(mine: Any, engine: Any, what: str) -> str | None:  # noqa: PLR0911 (one return per problem)
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
    """What is wrong with backward's answers, or None: the first case it misses, unless the numbers of that one
    say nothing but their largest difference and a later case's say where and how (then that case's).

    An error the reader's function raises is told at once, with the reader's frames; so are arguments it
    changed and an answer with the wrong number of parts.
    """
    cases = piece.cases()
    first = None
    for k, case in enumerate(cases, 1):
        where = f"✗ case {k} of {len(cases)} ({case.label}):\n "
        args = copy.deepcopy(case.args)
        try:
            answer = backward(*args)
        except Exception as error:  # the reader's code: say what it raised, and where in their code
            if first:
                return first
            blank = _not_written(error)
            if blank:
                return blank
            lines, frames = _raised(name, error)
            return f"{where}{lines}", frames
        if args != case.args:
            return first or f"{where}{name} changed its arguments; compute new lists instead"
        try:
            mine = as_parts(answer, piece.parts)
        except ValueError as error:
            return first or f"{where}{error}"
        miss = miss_in(piece, case, mine)
        if miss and miss[1]:
            return where + miss[0]
        first = first or (where + miss[0] if miss else None)
    return first


def miss_in(piece: Piece, case: Case, mine: tuple) -> tuple[str, bool] | None:
    """What is wrong with an answer (as a tuple of parts) to one case, or None when every part agrees; and
    whether that says where and how (False: only the largest difference could be said).

    In this order: rows that are one list object, two results swapped, a known slip, a shape, then what
    the numbers say (microgpt.course.diagnosis) and the largest difference.
    """
    order = sorted(range(len(piece.parts)), key=lambda j: piece.parts[j] not in piece.first)
    missing = [j for j in order if not agrees(mine[j], case.engine[j])]
    if not missing:
        return None
    for j in missing:  # before any number: adding into one row of such a list adds into all of them
        alias = shared_rows(piece.parts[j], mine[j])
        if alias:
            return alias, True
    pair = swapped(piece.parts, mine, case.engine)
    if pair:
        return pair, True
    wrongs = [_slip_answer(piece, name, case) for name in piece.slips]
    for index in missing:
        about = f"{piece.parts[index]}: " if len(piece.parts) > 1 else ""
        for slip, wrong in zip(piece.slips.values(), wrongs):  # a known slip, even one that changes the shape
            if wrong is not None and agrees(mine[index], wrong[index]):
                return f"{about}{slip.hint}", True
    index = missing[0]
    problem = shape_problem(mine[index], case.engine[index], piece.parts[index])
    if problem:
        return f"shape: {problem}", True
    said = []
    for index in missing:  # the first part whose numbers say where and how; else the first part's largest difference
        part, a, b = piece.parts[index], mine[index], case.engine[index]
        if shape_problem(a, b, part):
            continue
        why = case.zero_why if isinstance(case.zero_why, str) else case.zero_why.get(part, "")
        if "terms" not in case.kept:
            case.kept["terms"] = piece.terms(*case.args)
        terms = case.kept["terms"].get(part, [])
        page = piece.sizes(*piece.cases()[0].args)
        sizes, facts = piece.sizes(*case.args), piece.facts(*case.args)
        given = dict(zip(piece.arguments, case.args))
        said.append(
            diagnose(Part(part, a, b, piece.layout, sizes, page, facts=facts, zero_why=why, terms=terms, given=given))
        )
        if said[-1][1]:
            return said[-1]
    return said[0]


def _slip_answer(piece: Piece, name: str, case: Case) -> tuple | None:
    """A known slip's answer to a case, as parts (made once per case); None where the slip cannot run on it."""
    key = f"slip {name}"
    if key not in case.kept:
        try:
            case.kept[key] = as_parts(piece.slips[name].wrong(*copy.deepcopy(case.args)), piece.parts)
        except Exception:  # noqa: BLE001 (a slip that cannot happen on this case names nothing)
            case.kept[key] = None
    return case.kept[key]
