"""How an exercise's checker judges a reader's backward: the known slips first, then what the numbers say.

A piece has cases (real inputs with the engine's answer) and named wrong variants (what a learner's
slip gives). The reader's function runs on every case. Where it misses, the verdict names the first case
it misses, and then what is wrong there. What can be said is found as findings (microgpt.course.findings):
rows that are one list, results swapped, a known slip (only if the answer is that slip's on every case it
misses), a shape; what the numbers say (microgpt.course.diagnosis: a factor, a term, a shift, a numerical
estimate); the one line of the rule that, changed, gives the reader's answer on every case
(microgpt.course.variants, with the reader's own line where their source shows it: microgpt.course.theirs);
where the answer is wrong (positions, heads, the parts of the rule only the wrong results use); and which
sizes differ between the cases it passes and those it misses. The verdict says the finding that tells most
(choose, on each finding's Tells), and microgpt.course.wording says it. Nothing is said from a degenerate
case alone (one position, one score: there the scores' gradient is 0 whatever the rule). One tolerance
decides all of it: RTOL of each part's largest entry, stated in the success line.
"""

import contextlib
import copy
import dataclasses
import linecache
import math
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from microgpt.course import findings as f
from microgpt.course import theirs, variants
from microgpt.course.diagnosis import (
    CRISP,
    LOCATED,
    RTOL,
    TERMS,
    Diagnosis,
    Family,
    Layout,
    Part,
    agrees,
    any_factor,
    copied,
    entries,
    largest,
    largest_difference,
    one_list_for_several,
    reordered,
    scales,
    shape,
    shared_rows,
    swapped,
    told,
)
from microgpt.course.factors import named
from microgpt.course.findings import Finding, Results, Tells
from microgpt.course.wording import RTOL_SHOWN, sentence, word
from microgpt.train import cyclic_gc_paused

__all__ = ["RTOL", "RTOL_SHOWN", "Case", "Cases", "Frame", "Piece", "Slip", "Verdict", "check", "take_verdicts"]


@dataclass
class Case:
    """One call of the reader's function: where its numbers come from, its arguments, the engine's answer.

    degenerate: a case where different rules give the same numbers (one position, one score: the scores'
    gradient is 0 whatever the rule), so nothing is concluded from it alone.
    """

    label: str
    args: tuple
    engine: tuple  # one entry per part of the answer
    zero_why: str | dict[str, str] = ""  # why some of the engine's entries are exactly 0 (by part, or for all)
    degenerate: bool = False
    trait: str = ""  # what sets this case apart from others of its sizes ("h a hair either side of 0"), if anything
    kept: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # slips' answers, made once

    @property
    def scales(self) -> list[float]:
        """Each part's scale: the tolerance is RTOL of it."""
        if "scales" not in self.kept:
            self.kept["scales"] = scales(self.engine)
        return self.kept["scales"]


class Cases:
    """A piece's cases, made the first time a checker asks for them and kept for the interpreter's life, or handed
    in by another interpreter that made them (the page's fresh Python after a Stop: microgpt.course.runner).

    Making them (real steps recorded, the engine's answers) is most of a checker's first run.
    """

    def __init__(self, make: Callable[[], list[Case]]) -> None:
        self.make = make
        self.made: list[Case] | None = None

    def __call__(self) -> list[Case]:
        if self.made is None:
            self.made = self.make()
        return self.made


@dataclass
class Slip:
    """A wrong answer a learner often gives, and what to tell them when theirs matches it."""

    wrong: Callable[..., Any]  # takes the case's arguments, returns a whole (wrong) answer
    hint: str

    def __post_init__(self) -> None:
        self.hint = sentence(self.hint)


@dataclass
class Piece:
    """An exercise: the function's name, the names of its answer's parts, its cases and its slips.

    layout names each part's axes, so that a place in it is said in the reader's terms; terms(*args) gives,
    for a part, ways to split the engine's answer into terms (a sum's terms, attention's paths), so that a
    term missing or with its sign flipped can be told; families(*args) the sums a part is, term by term
    (w^T g over the rows i); sizes(*args) names a call's sizes (T, d_h), so that a factor can be named;
    facts(*args) gives what else names a place (the true token); first names the parts compared before
    the others (where a slip shows most plainly). The first case is the page's step: its sizes are the ones
    an answer would write as numbers.
    """

    name: str
    parts: tuple[str, ...]
    cases: Callable[[], list[Case]]
    slips: dict[str, Slip]
    layout: Layout
    first: tuple[str, ...] = ()
    terms: Callable[..., dict[str, list[dict[str, Any]]]] = field(default=lambda *args: {})
    families: Callable[..., dict[str, list[Family]]] = field(default=lambda *args: {})
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

    The page's Python (microgpt.course.runner) hands the fields to the page as they are, so the page
    shows the checker's verdict without reading printed text: ok, the text, whether the capstone kept the
    function as the reader's piece, and, when the reader's function raised, the frames of their code.
    """

    piece: str
    ok: bool
    text: str
    frames: tuple[Frame, ...] = ()  # innermost last, as Python prints them
    kept: bool = False  # accepted and kept as the reader's own piece (microgpt.course.kept)
    # the exception the reader's function raised, as Python names it (type, message), so that the page can say it
    # in its status line; None when it raised none, and for a body not written yet (the text says that one)
    error: tuple[str, str] | None = None

    def __str__(self) -> str:
        return self.text

    def as_dict(self) -> dict[str, Any]:
        return {
            "piece": self.piece,
            "ok": self.ok,
            "text": self.text,
            "kept": self.kept,
            "frames": [vars(frame) for frame in self.frames],
            "error": None if self.error is None else {"type": self.error[0], "message": self.error[1]},
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
    frames: list[Frame] = []
    for s in traceback.extract_tb(error.__traceback__):
        if not _theirs(s.filename):
            continue
        if frames and (frames[-1].file, frames[-1].line) == (s.filename, s.lineno or 0):
            continue  # a comprehension's own frame on its line (Python 3.11): the line is said once, as 3.12 says it
        frames.append(
            Frame(s.filename, s.lineno or 0, s.name, (s.line or linecache.getline(s.filename, s.lineno or 0)).strip())
        )
    if isinstance(error, SyntaxError) and error.filename and error.lineno:  # where the parser stopped
        frames.append(Frame(error.filename, error.lineno, "<module>", (error.text or "").strip()))
    return tuple(frames)


def _raised(name: str, error: BaseException) -> tuple[f.Raised, tuple[Frame, ...]]:
    """That the reader's function raised, and where in their code, outermost call first."""
    frames = readers_frames(error)
    said = tuple((frame.line, frame.function, frame.source) for frame in frames)
    return f.Raised(name, type(error).__name__, str(error), said), frames


def _not_written(error: BaseException) -> tuple[f.NotWritten, tuple[Frame, ...]] | None:
    """A blank body's NotImplementedError, raised by the reader's own code: one line that says so."""
    frames = readers_frames(error)
    if not isinstance(error, NotImplementedError) or not frames:
        return None
    return f.NotWritten(frames[-1].function, frames[-1].line), frames


def as_parts(answer: Any, parts: Sequence[str]) -> tuple:
    """The answer as a tuple of parts (one part: the answer itself)."""
    if len(parts) == 1:
        return (answer,)
    if not isinstance(answer, (tuple, list)) or len(answer) != len(parts):
        raise ValueError(word(f.PartsCount(tuple(parts))))
    return tuple(answer)


def shape_finding(mine: Any, engine: Any, what: str) -> f.ShapeProblem | None:  # noqa: PLR0911 (one per problem)
    """Why mine cannot be compared with engine (a number where a list belongs, a length), or None."""
    if isinstance(engine, (list, tuple)):
        if not isinstance(mine, (list, tuple)):
            return f.NotAList(what, len(engine), type(mine).__name__)
        if len(mine) != len(engine):
            rows = engine and isinstance(engine[0], (list, tuple))
            size = f"{len(engine)} x {len(engine[0])}" if rows else str(len(engine))
            nonzero = sum(1 for v in engine if not isinstance(v, (list, tuple)) and v != 0)
            filtered = not rows and 0 < nonzero < len(engine) and len(mine) == nonzero
            return f.WrongLength(what, len(mine), len(engine), size, filtered)
        for i, (a, b) in enumerate(zip(mine, engine)):
            problem = shape_finding(a, b, f"{what}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(mine, bool) or not isinstance(mine, (int, float)):
        return f.NotANumber(what, type(mine).__name__)
    if not math.isfinite(mine):
        return f.NotFinite(what, mine)
    return None


def shape_problem(mine: Any, engine: Any, what: str) -> str | None:
    """shape_finding(), in words."""
    found = shape_finding(mine, engine, what)
    return None if found is None else word(found)


def flat(values: Any) -> list[float]:
    """Every number of a nested list, in order."""
    if isinstance(values, (list, tuple)):
        return [v for item in values for v in flat(item)]
    return [values]


def largest_gap(a: Any, b: Any) -> float:
    """The largest |a - b| entry by entry; inf when the shapes differ."""
    fa, fb = flat(a), flat(b)
    if len(fa) != len(fb) or shape_finding(a, b, "") is not None:
        return math.inf
    return max((abs(u - v) for u, v in zip(fa, fb)), default=0.0)


def check(piece: Piece, backward: Callable[..., Any]) -> Verdict:
    """Run backward on every case of piece: a verdict of one line (✓), or what is wrong and where (✗)."""
    verdict = _judge(piece, backward)
    _made.append(verdict)
    return verdict


# ---------------------------------------------------------------- running the reader's function


@dataclass
class Run:
    """The reader's function on one case: its answer as parts, or what went wrong before any number."""

    case: Case
    number: int  # the case's number, from 1
    mine: tuple | None = None  # None: it raised, or its answer has the wrong number of parts
    error: BaseException | None = None
    problem: Finding | None = None  # said at once: arguments changed, the wrong number of parts
    wrong: list[int] = field(default_factory=list)  # the parts that differ from the engine's, by index

    @property
    def ok(self) -> bool:
        return self.mine is not None and self.problem is None and not self.wrong


def _changed_arguments(piece: Piece, name: str, given: tuple, kept: tuple) -> f.ChangedArguments | None:
    """Which arguments the function changed, and the first entry it changed."""
    changed = [k for k, (a, b) in enumerate(zip(given, kept)) if a != b]
    if not changed:
        return None
    names = tuple(piece.arguments[k] if k < len(piece.arguments) else f"argument {k + 1}" for k in changed)
    first, was = given[changed[0]], kept[changed[0]]
    for (index, a), (_, b) in zip(entries(first), entries(was)):
        if a != b:
            if isinstance(a, float):
                return f.ChangedArguments(name, names, index, b, a)
            break
    return f.ChangedArguments(name, names)


def _run(piece: Piece, backward: Callable[..., Any], name: str, number: int, case: Case) -> Run:
    run = Run(case, number)
    args = copy.deepcopy(case.args)
    try:
        answer = backward(*args)
    except Exception as error:  # the reader's code: kept, and said with their lines if it is the first miss
        run.error = error
        return run
    run.problem = _changed_arguments(piece, name, args, case.args)
    try:
        run.mine = as_parts(answer, piece.parts)
    except ValueError:
        run.problem = run.problem or f.PartsCount(piece.parts)
        return run
    run.wrong = [j for j, (a, b) in enumerate(zip(run.mine, case.engine)) if not agrees(a, b, case.scales[j])]
    return run


def _said(*found: Finding) -> str:
    return "\n ".join(word(x) for x in found)


def _judge(piece: Piece, backward: Callable[..., Any]) -> Verdict:
    name = getattr(backward, "__name__", "your function")
    cases = piece.cases()
    runs = [_run(piece, backward, name, k, case) for k, case in enumerate(cases, 1)]
    missed = [run for run in runs if not run.ok]
    if not missed:
        return Verdict(piece.name, True, word(f.Accepted(name, len(cases), len(piece.parts))))
    first = missed[0]
    head = f.Missed(first.number, len(cases), first.case.label)
    pattern = _pattern(piece, runs)
    after = (pattern,) if pattern else ()
    if first.error is not None:  # the reader's code: say what it raised, and where in their code
        blank = _not_written(first.error)
        if blank:
            return Verdict(piece.name, False, word(blank[0]), blank[1])
        raised, frames = _raised(name, first.error)
        error = (type(first.error).__name__, str(first.error))
        return Verdict(piece.name, False, _said(head, raised, *after), frames, error=error)
    if first.problem is not None:
        return Verdict(piece.name, False, _said(head, first.problem))
    try:
        found = describe(piece, runs, first, pattern, backward)
    except Exception as error:  # noqa: BLE001 (a fault in saying how must not hide that the answer is wrong)
        found = [f.CouldNotSay(piece.parts[first.wrong[0]], type(error).__name__)]
    return Verdict(piece.name, False, _said(head, *found))


def miss_in(piece: Piece, case: Case, mine: tuple) -> tuple[str, bool] | None:
    """What is wrong with an answer (as parts) to one case, or None when every part agrees; and whether that says
    where and how (False: only the largest difference could be said)."""
    run = Run(case, 1, mine)
    run.wrong = [j for j, (a, b) in enumerate(zip(mine, case.engine)) if not agrees(a, b, case.scales[j])]
    if not run.wrong:
        return None
    found = describe(piece, [run], run, None)
    return _said(*found), not isinstance(found[0], f.LargestDifference)


# ---------------------------------------------------------------- choosing what to say


Source = tuple[Tells, Callable[[], Finding | None]]


def choose(sources: Sequence[Source]) -> Finding | None:
    """The finding that tells most (the least Tells), of those the sources find. Each source is given with the most
    it could tell, in that order: a source is asked only while it could tell more than the best found so far."""
    best: Finding | None = None
    for could, find in sources:
        if best is not None and best.tells <= could:
            break
        found = find()
        if found is not None and told(found) and (best is None or found.tells < best.tells):
            best = found
    return best


def _first(found: Iterator[Finding | None]) -> Finding | None:
    return next((x for x in found if told(x)), None)


def describe(
    piece: Piece,
    runs: list[Run],
    first: Run,
    pattern: f.Cases | None,
    backward: Callable[..., Any] | None = None,
) -> list[Finding]:
    """What to say about the first case missed: how (if anything says it), where, by how much, chosen on what each
    finding tells; backward: the reader's function, whose source names a changed line as theirs."""
    case, mine = first.case, first.mine
    assert mine is not None
    order = sorted(first.wrong, key=lambda j: piece.parts[j] not in piece.first)
    parts: dict[int, Part] = {}

    def part(j: int) -> Part:
        if j not in parts:
            parts[j] = _part(piece, case, mine, j)
        return parts[j]

    telling = not case.degenerate
    objects = (piece.parts, mine, case.engine, case.scales)
    others = [r for r in runs if r is not first and r.wrong and _comparable(r) and not r.case.degenerate]
    sources: list[Source] = [
        (Tells.OBJECTS, lambda: _first(shared_rows(piece.parts[j], mine[j]) for j in order)),
        (Tells.OBJECTS, lambda: _rows_of_one_list(piece, runs, first, backward)),
        (Tells.OBJECTS, lambda: swapped(*objects) or reordered(*objects)),
        (Tells.SLIP, lambda: _known_slip(piece, runs, first)),
        (Tells.SHAPE, lambda: _wrong_shape(piece, runs, first, order)),
        (Tells.SHARING, lambda: one_list_for_several(*objects)),
        (Tells.SHARING, lambda: copied(*objects)),
    ]
    if telling:
        sources += [
            (Tells.WHOLE, lambda: _same_factor(piece, first, {j: part(j) for j in first.wrong})),
            (Tells.WHOLE, lambda: _first(_everywhere(piece, part(j), others, j, CRISP) for j in order)),
            (Tells.RESTARTED, lambda: _one_line(piece, runs, first, kinds=ACCUMULATE)),  # before the terms it loses
            (Tells.TERMS, lambda: _first(_everywhere(piece, part(j), others, j, TERMS) for j in order)),
            (Tells.LINE, lambda: _one_line(piece, runs, first)),
            (Tells.VALUE, lambda: _substituted(piece, runs, first)),
        ]
    sources += [
        (Tells.PLACE, lambda: _first(_located(piece, part(j), others, j) for j in order)),
        (Tells.PARTS, lambda: _only_some_parts(piece, first)),
    ]
    said = choose(sources)
    if backward is not None and (said is None or said.tells >= Tells.PLACE):  # only where, or nothing: their code
        said = _swapped_in_code(piece, runs, backward) or said  # may have two things in each other's place
    if isinstance(said, f.Estimate) and telling:  # a guess at how the numbers were made: what was done, if found
        said = (
            _first(find() for find in (lambda: _one_line(piece, runs, first), lambda: _substituted(piece, runs, first)))
            or said
        )
    if isinstance(said, f.OneLine) and backward is not None:
        said = _with_their_line(piece, runs, said, backward)
    if said is not None and said.ALONE:  # the answer's objects, its shape, a known slip: no number follows
        cases_apart = isinstance(said, f.WrongShape) and not said.asks  # nothing says why: the cases might
        return [said, *([pattern] if pattern and cases_apart else [])]
    lines: list[Finding] = [said] if said else []
    if pattern and not (said and said.asks):  # a finding that asks about a cause is not followed by another
        lines.append(pattern)
    lines.append(largest_difference(part(order[0]), first=not lines))
    return lines


def _wrong_shape(piece: Piece, runs: list[Run], first: Run, order: list[int]) -> f.WrongShape | None:
    """A part of the wrong shape; and if its length is another size on every case, that, and what other cases
    raised."""
    assert first.mine is not None
    for j in order:
        problem = shape_finding(first.mine[j], first.case.engine[j], piece.parts[j])
        if problem:
            size = _length_is_a_size(piece, runs, j)
            pattern = None if size is not None else _length_pattern(piece, runs, j)
            raised = [r for r in runs if r.error is not None]
            if (size is None and pattern is None) or not raised:
                return f.WrongShape(problem, size, pattern=pattern)
            errors = tuple(dict.fromkeys(type(r.error).__name__ for r in raised))
            return f.WrongShape(problem, size, tuple(r.number for r in raised), errors, pattern)
    return None


def _located(piece: Piece, part: Part, missed: list[Run], j: int) -> Finding | None:
    """Where the part is wrong on the first case missed. A factor is said only if every other case where the part
    is wrong has one constant factor too (what one case shows by chance, a query alone, is not said as a rule)."""
    for diagnosis in LOCATED:
        said = diagnosis(part)
        if not told(said):
            continue
        if diagnosis is any_factor and not all(
            any_factor(_part(piece, r.case, r.mine, j)) for r in missed if j in r.wrong and r.mine is not None
        ):
            continue
        return said
    return None


def _first_wrong_length(mine: Any, engine: Any, depth: int = 0) -> tuple[int, Any, int] | None:
    """The length of the first list of mine (outermost first, then row by row) whose length is not the engine's
    there, with the engine's list there and its depth (0: the part, 1: a row); None if there is none."""
    if not isinstance(engine, (list, tuple)) or not isinstance(mine, (list, tuple)):
        return None
    if len(mine) != len(engine):
        return len(mine), engine, depth
    for a, b in zip(mine, engine):
        found = _first_wrong_length(a, b, depth + 1)
        if found is not None:
            return found
    return None


def _wrong_lengths(piece: Piece, runs: list[Run], j: int) -> tuple[str, dict[int, tuple[int, Any]]]:
    """What has the wrong length (part j, or its rows), and on each case where it does: that length, and the engine's
    list there (nothing, if it is the part on some cases and its rows on others)."""
    found: dict[int, tuple[int, Any]] = {}
    depths = set()
    for r in runs:
        if r.mine is not None:
            wrong = _first_wrong_length(r.mine[j], r.case.engine[j])
            if wrong is not None:
                found[r.number] = wrong[:2]
                depths.add(wrong[2])
    if depths not in ({0}, {1}):
        return piece.parts[j], {}
    return piece.parts[j] if depths == {0} else f"each row of {piece.parts[j]}", found


def _length_is_a_size(piece: Piece, runs: list[Run], j: int) -> f.LengthIsASize | None:
    """A part whose length is, on every case it returned with the wrong length, another size of that call
    (len(g) where len(x) belongs): a list made over the wrong size."""
    what, lengths = _wrong_lengths(piece, runs, j)
    if len(lengths) < 2:  # one case's sizes may match by chance (T = 4 = the page's d_h)
        return None
    names: set[str] | None = None
    for number, (length, _) in lengths.items():
        sizes = piece.sizes(*runs[number - 1].case.args)
        fits = {s for s, v in sizes.items() if isinstance(v, int) and v == length}
        names = fits if names is None else names & fits
    if not names:
        return None
    return f.LengthIsASize(what, sorted(names)[0], tuple(lengths))


def _length_pattern(piece: Piece, runs: list[Run], j: int) -> f.LengthPattern | None:
    """How a part's wrong length stands to the engine's, the same on every case where it is wrong: one entry, one
    short or one too many, the length squared (a pair of loops), every entry of the rows in one flat list."""
    what, lengths = _wrong_lengths(piece, runs, j)
    if not lengths:
        return None

    def rows_flat(length: int, engine: Any) -> bool:
        return (
            bool(engine) and all(isinstance(row, (list, tuple)) for row in engine) and length == sum(map(len, engine))
        )

    for kind, fits in (
        ("flat", rows_flat),
        ("one", lambda length, engine: length == 1),
        ("square", lambda length, engine: len(engine) > 1 and length == len(engine) ** 2),
        ("one short", lambda length, engine: length == len(engine) - 1),
        ("one more", lambda length, engine: length == len(engine) + 1),
    ):
        if all(fits(length, engine) for length, engine in lengths.values()):
            return f.LengthPattern(what, kind, tuple(lengths))
    return None


def _everywhere(piece: Piece, part: Part, others: list[Run], j: int, diagnoses: Sequence[Diagnosis]) -> Finding | None:
    """The first diagnosis that fits this part here and on every other case where the part is wrong too: what
    one case's numbers show by chance (a sum that happens to be 0 there) is not said."""
    for diagnosis in diagnoses:
        said = diagnosis(part)
        if told(said) and all(
            diagnosis(_part(piece, r.case, r.mine, j)) is not None
            for r in others
            if j in r.wrong and r.mine is not None
        ):
            return said
    return None


def _part(piece: Piece, case: Case, mine: tuple, j: int) -> Part:
    name, args = piece.parts[j], case.args
    why = case.zero_why if isinstance(case.zero_why, str) else case.zero_why.get(name, "")
    if "terms" not in case.kept:
        case.kept["terms"] = piece.terms(*args), piece.families(*args)
    terms, families = case.kept["terms"]
    page = piece.sizes(*piece.cases()[0].args)
    return Part(
        name,
        mine[j],
        case.engine[j],
        piece.layout,
        piece.sizes(*args),
        page,
        facts=piece.facts(*args),
        zero_why=why,
        terms=terms.get(name, []),
        families=families.get(name, []),
        given=dict(zip(piece.arguments, args)),
        scale=case.scales[j],
    )


def _slip_answer(piece: Piece, name: str, case: Case) -> tuple | None:
    """A known slip's answer to a case, as parts (made once per case); None where the slip cannot run on it."""
    key = f"slip {name}"
    if key not in case.kept:
        try:
            case.kept[key] = as_parts(piece.slips[name].wrong(*copy.deepcopy(case.args)), piece.parts)
        except Exception:  # noqa: BLE001 (a slip that cannot happen on this case names nothing)
            case.kept[key] = None
    return case.kept[key]


def _results(piece: Piece, wrong: Sequence[int]) -> Results:
    return Results(tuple(piece.parts[j] for j in sorted(wrong)), piece.parts)


def _known_slip(piece: Piece, runs: list[Run], first: Run) -> f.KnownSlip | None:
    """A known slip, if the reader's answer is that slip's, every part of it, on every case it misses (and on one
    that is not degenerate, at least)."""
    cheapest = sorted(runs, key=_cost)  # a slip that does not fit shows it soonest where it costs least
    for slip_name, slip in piece.slips.items():
        fits, telling = True, False
        for run in cheapest:
            if run.mine is None or not run.wrong:
                continue
            wrong = _slip_answer(piece, slip_name, run.case)
            if wrong is None:
                continue
            if not all(gives(b, a, s) for a, b, s in zip(run.mine, wrong, run.case.scales)):
                fits = False
                break
            telling = telling or not run.case.degenerate
        if fits and telling:
            return f.KnownSlip(_results(piece, first.wrong), slip.hint)
    return None


def _same_factor(piece: Piece, first: Run, parts: dict[int, Part]) -> f.SameFactor | None:
    """Several parts wrong by one same factor (a sign), the others right: say which, and what only they use."""
    if len(piece.parts) < 2 or len(first.wrong) < 2 or len(first.wrong) == len(piece.parts):
        return None
    ratios = []
    for j in first.wrong:
        p = parts[j]
        big = [k for k in range(len(p.e)) if abs(p.e[k][1]) > p.big]
        if not big:
            return None
        c = p.m[big[0]][1] / p.e[big[0]][1]
        if not all(abs(p.m[k][1] - c * p.e[k][1]) <= p.tol + 1e-9 * abs(p.m[k][1]) for k in range(len(p.e))):
            return None
        ratios.append(c)
    if max(ratios) - min(ratios) > 1e-9 * max(map(abs, ratios)):
        return None
    p = parts[first.wrong[0]]
    wrong = tuple(piece.parts[j] for j in sorted(first.wrong))
    right = tuple(piece.parts[j] for j in range(len(piece.parts)) if j not in first.wrong)
    return f.SameFactor(wrong, right, named(ratios[0], p.sizes, p.defaults), _used_only_by(piece, first))


def _rule(piece: Piece) -> variants.Rule | None:
    page = piece.cases()[0]
    try:
        return variants.rule(piece.name, piece.parts, piece.sizes(*page.args), page.args)
    except Exception:  # noqa: BLE001 (no rule to change: then no line can be named)
        return None


def _used_only_by(piece: Piece, first: Run) -> tuple[str, ...]:
    """What, in the rule, only the wrong parts use: where a slip that spares the others must be."""
    rule = _rule(piece)
    wrong = frozenset(piece.parts[j] for j in first.wrong)
    if rule is None or not wrong or len(wrong) == len(piece.parts):
        return ()
    return tuple(rule.only_for(wrong))


def _only_some_parts(piece: Piece, first: Run) -> f.SomeResultsWrong | None:
    """Which parts are right and which wrong, and what only the wrong ones use."""
    if len(piece.parts) < 2 or len(first.wrong) == len(piece.parts):
        return None
    only = _used_only_by(piece, first)
    if not only:
        return None
    wrong = tuple(piece.parts[j] for j in first.wrong)
    right = tuple(p for j, p in enumerate(piece.parts) if j not in first.wrong)
    return f.SomeResultsWrong(wrong, right, only)


CAP = 150  # changes tried that reach more parts than the wrong ones, at most (a verdict's time stays bounded)


ACCUMULATE = frozenset({"accumulate"})  # the changes of a sum's += (to = or -=), tried before a sum's terms


def _one_line(piece: Piece, runs: list[Run], first: Run, kinds: frozenset[str] = frozenset()) -> f.OneLine | None:
    """The one line of the rule that, changed, gives the reader's answer on every case it runs on (only changes of
    these kinds, if any are given).

    A changed rule is tried on the cheapest case first, right or wrong (it must give the reader's answer on every
    one), so that most changes are set aside at little cost; it must give it on a case the reader misses that is
    not degenerate. Only the changes whose line reaches exactly the wrong parts are tried, then (at most CAP) those
    whose line reaches more."""
    telling = [
        r
        for r in runs
        if r.mine is not None and r.wrong and not r.case.degenerate and r.problem is None and _comparable(r)
    ]
    if not telling or not _comparable(first):
        return None
    rule = _rule(piece)
    if rule is None:
        return None
    screen = min(telling, key=_cost)
    wrong = frozenset(piece.parts[j] for j in screen.wrong)
    changes = [c for c in rule.changes if not kinds or c.kind in kinds]
    exact = [c for c in changes if c.reach == wrong]
    wider = [c for c in changes if c.reach > wrong][:CAP]
    order = sorted((r for r in runs if r.mine is not None and r.problem is None and _comparable(r)), key=_cost)
    with cyclic_gc_paused():  # (the rule's tree and its changes are many objects, none of them garbage)
        for change in exact + wider:  # (a reader's code that ran on a case, written as the changed rule, runs there)
            fits, told_here = True, False
            for run in order:
                gave = _gives(change, piece, run)
                if gave is False:
                    fits = False
                    break
                told_here = told_here or (gave is True and run in telling)
            if fits and told_here:
                return _changed(change, piece, first, wrong)
    return None


def _cost(run: Run) -> int:
    """How many numbers a case's answer has: the cost of running a rule on it, roughly."""
    return sum(len(entries(e)) for e in run.case.engine)


def _substituted(piece: Piece, runs: list[Run], first: Run) -> f.Substituted | None:
    """A number the rule computes once (r, the average, the scale) that, given another value, makes the rule give
    the reader's answer on every case missed: the slip is in that number, or in what it is made of."""
    rule = _rule(piece)
    telling = [r for r in runs if r.wrong and _comparable(r) and not r.case.degenerate]
    if rule is None or not telling:
        return None
    screen = min(telling, key=_cost)
    wrong = frozenset(piece.parts[j] for j in screen.wrong)
    for sub in reversed(rule.substitutions):  # the last first: a value made from an earlier one changes with it
        if not sub.reach >= wrong:
            continue
        values: dict[int, float] = {}
        for r in [screen, *(r for r in telling if r is not screen)]:
            value = _value_for(sub, piece, r, list(values.values()))
            if value is None:
                break
            values[id(r)] = value
        if len(values) < len(telling):
            continue
        shown = first if id(first) in values else screen
        theirs_, computed = values[id(shown)], sub.run(None, *_frozen(shown.case))[1]
        earlier = [r for r in runs if r.ok and r.number < shown.number]
        first_value = sub.run(None, *_frozen(earlier[0].case))[1] if earlier else None
        # kept from an earlier call only if it is that value on every case missed, not on one by chance
        kept = first_value is not None and all(abs(v - first_value) <= 1e-9 * abs(v) for v in values.values())
        return f.Substituted(
            _results(piece, shown.wrong),
            sub.name,
            sub.role,
            theirs_,
            computed,
            earlier[0].number if kept else None,
            not kept and _rounded_down(sub, telling, values),
        )
    return None


def _rounded_down(sub: variants.Substitution, telling: list[Run], values: dict[int, float]) -> bool:
    """The value found on every case missed is the rule's value rounded down (and that value is not whole)."""
    for r in telling:
        exact = sub.run(None, *_frozen(r.case))[1]
        found = values[id(r)]
        if exact == math.floor(exact) or abs(found - math.floor(exact)) > 1e-9 * max(abs(exact), 1.0):
            return False
    return True


def _value_for(sub: variants.Substitution, piece: Piece, run: Run, hints: Sequence[float] = ()) -> float | None:
    """The value of the substituted number that makes the rule give the reader's answer on this run, or None.

    Found by the secant method on the entry where the answer is furthest from the engine's, from the value the
    rule computes, from values found on other cases (hints), and from a few multiples; then checked on every
    entry."""
    assert run.mine is not None
    mine = [v for part in run.mine for _, v in entries(part)]
    engine = [v for part in run.case.engine for _, v in entries(part)]
    k = max(range(len(mine)), key=lambda i: abs(mine[i] - engine[i]))

    def gap(value: float) -> float:
        out = as_parts(sub.run(value, *_frozen(run.case))[0], piece.parts)
        return [v for part in out for _, v in entries(part)][k] - mine[k]

    start = sub.run(None, *_frozen(run.case))[1]
    for a in (start, *hints, 2 * start, start / 2, 10 * start, start / 10, 100 * start, start / 100, -start):
        try:
            b = a * 1.01 + 1e-6
            fa, fb = gap(a), gap(b)
            for _ in range(40):
                if fb == fa or abs(fb) <= RTOL * max(abs(mine[k]), 1e-300):
                    break
                a, b, fa = b, b - fb * (b - a) / (fb - fa), fb
                fb = gap(b)
            out = as_parts(sub.run(b, *_frozen(run.case))[0], piece.parts)
        except (ArithmeticError, ValueError, TypeError):
            continue
        if abs(b - start) > RTOL * abs(start) and all(
            gives(x, m, s) for x, m, s in zip(out, run.mine, run.case.scales)
        ):
            return b
    return None


def gives(other: Any, mine: Any, scale: float) -> bool:
    """Does another rule's answer (a slip's, a changed rule's) give the reader's part, to rounding? Rounding is
    measured at the larger of the engine's scale and the reader's answer's own: an answer far larger than the
    engine's carries rounding of its own size, and Pythons round a sum differently (3.12's sum() is compensated),
    so that a finding must not rest on the last bits of numbers larger than the tolerance's scale."""
    own = largest(mine) if _finite_numbers(mine) else 0.0
    return agrees(other, mine, max(scale, own))


def _finite_numbers(value: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for _, v in entries(value))


def _frozen(case: Case) -> tuple:
    """The case's arguments with every list made a tuple (made once per case)."""
    if "frozen" not in case.kept:
        case.kept["frozen"] = tuple(_freeze(a) for a in case.args)
    return case.kept["frozen"]


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, (list, tuple)) else value


def _comparable(run: Run) -> bool:
    return run.mine is not None and all(shape(a) == shape(b) for a, b in zip(run.mine, run.case.engine))


def _gives(change: variants.Change, piece: Piece, run: Run) -> bool | None:
    """Does the changed rule give the reader's answer on this run? None: it cannot run there.

    The arguments are the case's own, frozen (lists made tuples): a change that would write into one raises
    instead, and cannot change the case for the next."""
    try:
        out = as_parts(change.run(*_frozen(run.case)), piece.parts)
    except Exception:  # noqa: BLE001 (a changed rule that fails here says nothing about this run)
        return None
    assert run.mine is not None
    return all(gives(a, b, s) for a, b, s in zip(out, run.mine, run.case.scales))


def _changed(change: variants.Change, piece: Piece, first: Run, wrong: frozenset[str]) -> f.OneLine:
    here = piece.sizes(*first.case.args).get(change.size) if change.written else None
    return f.OneLine(
        Results(tuple(p for p in piece.parts if p in wrong), piece.parts),
        change.kind,
        change.role,
        change.before,
        change.after,
        left_out=change.how,
        guess=change.gloss,
        size=change.size,
        written=change.written,
        here=here,
        code=change.code,
        writes=change.writes,
    )


def _right_everywhere(piece: Piece, runs: list[Run]) -> Callable[[Callable[..., Any]], bool]:
    """Is a function (the reader's, changed) right on every case? The cheapest cases first."""
    order = sorted(runs, key=_cost)

    def right(function: Callable[..., Any]) -> bool:
        for run in order:
            try:
                answer = as_parts(function(*copy.deepcopy(run.case.args)), piece.parts)
            except Exception:  # noqa: BLE001 (their function, changed: raising is not right)
                return False
            if not all(agrees(a, b, s) for a, b, s in zip(answer, run.case.engine, run.case.scales)):
                return False
        return True

    return right


def _swapped_in_code(piece: Piece, runs: list[Run], backward: Callable[..., Any]) -> f.SwappedInCode | None:
    """Two of the reader's expressions that, exchanged, make their function right on every case."""
    try:
        return theirs.swapped_pair(backward, _right_everywhere(piece, runs))
    except Exception:  # noqa: BLE001 (reading the reader's code must not hide what the numbers say)
        return None


def _rows_of_one_list(
    piece: Piece, runs: list[Run], first: Run, backward: Callable[..., Any] | None
) -> f.RowsOfOneList | None:
    """A [row] * m in the reader's code that, made m lists, changes their answer on the first case missed."""
    if backward is None or first.mine is None:
        return None
    mine = first.mine

    def changes(function: Callable[..., Any]) -> bool:
        try:
            answer = as_parts(function(*copy.deepcopy(first.case.args)), piece.parts)
        except Exception:  # noqa: BLE001 (their function, changed: raising is a change)
            return True
        return not all(agrees(a, b, s) for a, b, s in zip(answer, mine, first.case.scales))

    try:
        return theirs.rows_of_one_list(backward, changes, _right_everywhere(piece, runs))
    except Exception:  # noqa: BLE001 (reading the reader's code must not hide what the numbers say)
        return None


def _with_their_line(piece: Piece, runs: list[Run], said: f.OneLine, backward: Callable[..., Any]) -> f.OneLine:
    """The changed line, with the reader's own line for it, and their expression there where it is found."""
    rule = _rule(piece)
    if rule is None:
        return said
    line = theirs.RuleLine(
        said.kind, said.before, said.after, said.code, said.writes, tuple(rule.outputs), rule.arguments, rule.defined
    )
    right = _right_everywhere(piece, runs)
    try:
        found = theirs.their_change(backward, line, right)
    except Exception:  # noqa: BLE001 (reading the reader's code must not hide what the numbers say)
        found = None
    if said.written and (found is None or not found.theirs):  # the page's number, but not written in their code
        return dataclasses.replace(said, number_in_code=theirs.writes_number(backward, said.after))
    return said if found is None else dataclasses.replace(said, theirs=found)


def _pattern(piece: Piece, runs: list[Run]) -> f.Cases | None:
    """Right on the page's step, wrong on others: which sizes differ between the cases it gets right and those it
    misses (a size written as a number), or that none do (a value kept from an earlier call)."""
    if not runs[0].ok:
        return None
    good = [r for r in runs if r.ok and not r.case.degenerate]  # right on a degenerate case says nothing
    bad = [r for r in runs if not r.ok]
    if not bad:
        return None
    right, wrong = tuple(r.number for r in good), tuple(r.number for r in bad)
    raised = [r for r in bad if r.error is not None]
    if raised and len(raised) < len(bad):  # some raised, some returned: say which raised, and guess nothing
        errors = tuple(dict.fromkeys(type(r.error).__name__ for r in raised))
        returned = tuple(r.number for r in bad if r.error is None)
        return f.SomeRaised(right, returned, tuple(r.number for r in raised), errors)
    sizes = {r.number: piece.sizes(*r.case.args) for r in runs}
    names = [s for s in sizes[1] if all(isinstance(sizes[r.number].get(s), int) for r in runs)]

    def values(group: list[Run], s: str) -> tuple[Any, ...]:
        return tuple(sorted({sizes[r.number][s] for r in group}))

    apart = [s for s in names if not {sizes[r.number][s] for r in bad} & {sizes[r.number][s] for r in good}]
    steady = [s for s in apart if {sizes[r.number][s] for r in good} == {sizes[1][s]}]  # the page's, where right
    traits = tuple(dict.fromkeys(r.case.trait for r in bad))  # each trait once, in the cases' order
    if all(traits) and not any(r.case.trait in traits for r in good):  # a trait only the cases missed have
        # a size that sets them apart too is a fact beside it, and neither is guessed as the cause
        return f.WithTrait(right, wrong, traits, tuple((s, values(bad, s)) for s in apart))
    if steady and len(steady) == len(apart):  # a size that is the page's wherever the answer is right, and another
        # wherever it is wrong (and no other size sets the cases apart: which one is written would be a guess)
        return f.PageSizes(right, wrong, tuple((s, values(bad, s)) for s in steady), tuple(sizes[1][s] for s in steady))
    above = [s for s in apart if min(sizes[r.number][s] for r in bad) > max(sizes[r.number][s] for r in good)]
    if above:  # wrong wherever a size is larger than anywhere it is right: cut short at the page's size?
        larger = tuple((s, max(sizes[r.number][s] for r in good)) for s in above)
        return f.LargerSizes(right, wrong, tuple((s, values(bad, s)) for s in apart), larger)
    if apart:  # sizes it is wrong at and never right at, though right at several: an edge it does not handle
        return f.OwnSizes(right, wrong, tuple((s, values(bad, s)) for s in apart))
    same = tuple(r.number for r in bad if all(sizes[r.number][s] == sizes[1][s] for s in names))
    if not same:
        return f.KeptBetweenCalls(right, wrong)
    return f.KeptBetweenCalls((1,), same, same_sizes=True)
