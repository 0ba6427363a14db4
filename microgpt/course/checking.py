"""How an exercise's checker judges a reader's backward: the known slips first, then what the numbers say.

A piece has cases (real inputs with the engine's answer) and named wrong variants (what a learner's
slip gives). The reader's function runs on every case. Where it misses, the verdict names the first case
it misses, and then what is wrong there, in this order: rows that are one list, results swapped, a known
slip (only if the answer is that slip's on every case it misses), a shape; what the numbers say
(microgpt.course.diagnosis: a factor, a term, a shift, a numerical estimate); the one line of the rule
that, changed, gives the reader's answer on every case (microgpt.course.variants); where the answer is
wrong (positions, heads, the parts of the rule only the wrong results use); and which sizes differ
between the cases it passes and those it misses. Nothing is said from a degenerate case alone (one
position, one score: there the scores' gradient is 0 whatever the rule). One tolerance decides all of
it: RTOL of each part's largest entry, stated in the success line.
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

from microgpt.course import variants
from microgpt.course.diagnosis import (
    CRISP,
    LOCATED,
    RTOL,
    RTOL_SHOWN,
    TERMS,
    Diagnosis,
    Family,
    Layout,
    Part,
    agrees,
    any_factor,
    copied,
    entries,
    largest_difference,
    one_list_for_several,
    reordered,
    scales,
    sentence,
    shape,
    shared_rows,
    swapped,
    times,
)
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

    The page's Python (microgpt.course.runtime) hands the fields to the page as they are, so the page
    shows the checker's verdict without reading printed text: ok, the text, whether the capstone kept the
    function as the reader's piece, and, when the reader's function raised, the frames of their code.
    """

    piece: str
    ok: bool
    text: str
    frames: tuple[Frame, ...] = ()  # innermost last, as Python prints them
    kept: bool = False  # accepted and kept as the reader's own piece (microgpt.course.capstone)
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
        raise ValueError(f"return {len(parts)} things, in this order: {', '.join(parts)}.")
    return tuple(answer)


def shape_problem(mine: Any, engine: Any, what: str) -> str | None:  # noqa: PLR0911 (one return per problem)
    """Why mine cannot be compared with engine (a number where a list belongs, a length), or None."""
    if isinstance(engine, (list, tuple)):
        if not isinstance(mine, (list, tuple)):
            return f"{what} should be a list of {len(engine)}, not a {type(mine).__name__}."
        if len(mine) != len(engine):
            rows = engine and isinstance(engine[0], (list, tuple))
            size = f"{len(engine)} x {len(engine[0])}" if rows else str(len(engine))
            said = f"{what} has {len(mine)} entries where the engine's has {len(engine)} (its shape: {size})."
            nonzero = sum(1 for v in engine if not isinstance(v, (list, tuple)) and v != 0)
            if not rows and 0 < nonzero < len(engine) and len(mine) == nonzero:
                said += (
                    "\n That is one entry for each nonzero entry of the engine's: a filter (an if in the"
                    " comprehension)\n where a mask belongs? Keep every entry, with 0 where the engine's is 0."
                )
            return said
        for i, (a, b) in enumerate(zip(mine, engine)):
            problem = shape_problem(a, b, f"{what}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(mine, bool) or not isinstance(mine, (int, float)):
        return f"{what} is a {type(mine).__name__}: return plain numbers (floats)."
    if not math.isfinite(mine):
        return f"{what} is {mine}."
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


# ---------------------------------------------------------------- running the reader's function


@dataclass
class Run:
    """The reader's function on one case: its answer as parts, or what went wrong before any number."""

    case: Case
    number: int  # the case's number, from 1
    mine: tuple | None = None  # None: it raised, or its answer has the wrong number of parts
    error: BaseException | None = None
    problem: str = ""  # said at once: arguments changed, the wrong number of parts
    wrong: list[int] = field(default_factory=list)  # the parts that differ from the engine's, by index

    @property
    def ok(self) -> bool:
        return self.mine is not None and not self.problem and not self.wrong


def _changed_arguments(piece: Piece, name: str, given: tuple, kept: tuple) -> str:
    """Which arguments the function changed, and the first entry it changed."""
    changed = [k for k, (a, b) in enumerate(zip(given, kept)) if a != b]
    if not changed:
        return ""
    names = [piece.arguments[k] if k < len(piece.arguments) else f"argument {k + 1}" for k in changed]
    where = ""
    first, was = given[changed[0]], kept[changed[0]]
    for (index, a), (_, b) in zip(entries(first), entries(was)):
        if a != b:
            at = "".join(f"[{i}]" for i in index)
            where = f" ({names[0]}{at} was {b:.4g}, and is now {a:.4g})" if isinstance(a, float) else ""
            break
    which = f"argument {names[0]}" if len(names) == 1 else f"arguments {', '.join(names)}"
    return f"{name} changed its {which}{where}.\n Compute new lists instead: the caller's lists are still in use."


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
    except ValueError as error:
        run.problem = run.problem or str(error)
        return run
    run.wrong = [j for j, (a, b) in enumerate(zip(run.mine, case.engine)) if not agrees(a, b, case.scales[j])]
    return run


def _judge(piece: Piece, backward: Callable[..., Any]) -> Verdict:
    name = getattr(backward, "__name__", "your function")
    cases = piece.cases()
    runs = [_run(piece, backward, name, k, case) for k, case in enumerate(cases, 1)]
    missed = [run for run in runs if not run.ok]
    if not missed:
        of = " of its part" if len(piece.parts) > 1 else ""
        text = f"✓ {name} agrees with the engine on all {len(cases)} cases, every entry to within {RTOL_SHOWN}"
        return Verdict(piece.name, True, f"{text} × the largest entry{of}")
    first = missed[0]
    where = f"✗ case {first.number} of {len(cases)} ({first.case.label}):\n "
    pattern = _pattern(piece, runs)
    if first.error is not None:  # the reader's code: say what it raised, and where in their code
        blank = _not_written(first.error)
        if blank:
            return Verdict(piece.name, False, blank[0], blank[1])
        said, frames = _raised(name, first.error)
        error = (type(first.error).__name__, str(first.error))
        return Verdict(piece.name, False, where + said + (f"\n {pattern}" if pattern else ""), frames, error=error)
    if first.problem:
        return Verdict(piece.name, False, where + first.problem)
    try:
        lines = describe(piece, runs, first, pattern)
    except Exception as error:  # noqa: BLE001 (a fault in saying how must not hide that the answer is wrong)
        j = first.wrong[0]
        lines = [
            f"{piece.parts[j]} differs from the engine's (the checker could not say how or where:"
            f" {type(error).__name__})."
        ]
    return Verdict(piece.name, False, where + "\n ".join(lines))


def miss_in(piece: Piece, case: Case, mine: tuple) -> tuple[str, bool] | None:
    """What is wrong with an answer (as parts) to one case, or None when every part agrees; and whether that says
    where and how (False: only the largest difference could be said)."""
    run = Run(case, 1, mine)
    run.wrong = [j for j, (a, b) in enumerate(zip(mine, case.engine)) if not agrees(a, b, case.scales[j])]
    if not run.wrong:
        return None
    lines = describe(piece, [run], run, "")
    return "\n ".join(lines), not lines[0].startswith(tuple(f"{p}: the largest difference" for p in piece.parts))


# ---------------------------------------------------------------- saying what is wrong


def describe(piece: Piece, runs: list[Run], first: Run, pattern: str) -> list[str]:
    """The lines that say what is wrong with the first case missed: how (if anything says it), where, by how much."""
    case, mine = first.case, first.mine
    assert mine is not None
    order = sorted(first.wrong, key=lambda j: piece.parts[j] not in piece.first)
    for j in order:  # before any number: adding into one row of such a list adds into all of them
        alias = shared_rows(piece.parts[j], mine[j])
        if alias:
            return [alias]
    pair = swapped(piece.parts, mine, case.engine, case.scales)
    pair = pair or reordered(piece.parts, mine, case.engine, case.scales)
    if pair:
        return [pair]
    known = _known_slip(piece, runs, first)
    if known:
        return [known]
    for j in order:
        problem = shape_problem(mine[j], case.engine[j], piece.parts[j])
        if problem:
            size = _length_is_a_size(piece, runs, j)
            if size:  # a length that is another size of the call on every case: no number written is guessed
                raised = [r for r in runs if r.error is not None]
                if not raised:
                    return [f"shape: {problem}", size]
                errors = _and(list(dict.fromkeys(type(r.error).__name__ for r in raised))).replace(" and ", " or ")
                return [
                    f"shape: {problem}",
                    size,
                    f"On {_cases([r.number for r in raised])}, your function raised {errors}.",
                ]
            return [f"shape: {problem}"] + ([pattern] if pattern else [])
    parts = {j: _part(piece, case, mine, j) for j in order}
    shared = one_list_for_several(piece.parts, mine, case.engine, case.scales)
    if shared:
        return [shared]
    said = copied(piece.parts, mine, case.engine, case.scales)
    if not said and not case.degenerate:
        others = [r for r in runs if r is not first and r.wrong and _comparable(r) and not r.case.degenerate]
        said = _same_factor(piece, first, parts)  # several results off by one factor: which, and where
        for j in order:
            said = said or _everywhere(piece, parts[j], others, j, CRISP)
        # = where += belongs keeps a sum's last term: said as that, not as the terms it loses
        said = said or _one_line(piece, runs, first, kinds=ACCUMULATE)
        guess = None
        for j in order if not said else ():
            guess = guess or _everywhere(piece, parts[j], others, j, TERMS)
        if guess and guess.endswith("?"):  # a guess at the cause: one changed line that gives the answer on every
            said = said or _one_line(piece, runs, first)  # case is exact, and wins over it
        said = said or guess or _one_line(piece, runs, first)
        said = said or _substituted(piece, runs, first)
    missed = [r for r in runs if r is not first and r.wrong and _comparable(r) and not r.case.degenerate]
    for j in order:
        said = said or _located(piece, parts[j], missed, j)
    said = said or _only_some_parts(piece, first)
    lines = [said] if said else []
    if pattern and not (said and said.endswith("?")):
        lines.append(pattern)
    lines.append(largest_difference(parts[order[0]], first=not lines))
    return lines


def _located(piece: Piece, part: Part, missed: list[Run], j: int) -> str | None:
    """Where the part is wrong on the first case missed. A factor is said only if every other case where the part
    is wrong has one constant factor too (what one case shows by chance, a query alone, is not said as a rule)."""
    for diagnosis in LOCATED:
        said = diagnosis(part)
        if not said:
            continue
        if diagnosis is any_factor and not all(
            any_factor(_part(piece, r.case, r.mine, j)) for r in missed if j in r.wrong and r.mine is not None
        ):
            continue
        return said
    return None


def _length_is_a_size(piece: Piece, runs: list[Run], j: int) -> str | None:
    """A part whose length is, on every case it returned with the wrong length, another size of that call
    (len(g) where len(x) belongs): a list made over the wrong size."""
    lengths = {r.number: len(r.mine[j]) for r in runs if r.mine is not None and isinstance(r.mine[j], (list, tuple))}
    short = [r for r in runs if r.number in lengths and lengths[r.number] != len(r.case.engine[j])]
    if not short:
        return None
    names: set[str] | None = None
    for r in short:
        sizes = piece.sizes(*r.case.args)
        fits = {s for s, v in sizes.items() if isinstance(v, int) and v == lengths[r.number]}
        names = fits if names is None else names & fits
    if not names:
        return None
    name = sorted(names)[0]
    cases = _cases([r.number for r in short])
    return (
        f"On {cases}, {piece.parts[j]} has {name} entries, whatever its right length:\n"
        f" is {piece.parts[j]}'s list made, or its loop run, over {name} where another size belongs?"
    )


def _everywhere(piece: Piece, part: Part, others: list[Run], j: int, diagnoses: Sequence[Diagnosis]) -> str | None:
    """The first diagnosis that fits this part here and on every other case where the part is wrong too: what
    one case's numbers show by chance (a sum that happens to be 0 there) is not said."""
    for diagnosis in diagnoses:
        said = diagnosis(part)
        if said and all(
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


def _known_slip(piece: Piece, runs: list[Run], first: Run) -> str | None:
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
            if not all(agrees(a, b, s) for a, b, s in zip(run.mine, wrong, run.case.scales)):
                fits = False
                break
            telling = telling or not run.case.degenerate
        if fits and telling:
            about = f"{_results(piece, first.wrong)}: " if len(piece.parts) > 1 else ""
            return f"{about}{slip.hint}"
    return None


def _same_factor(piece: Piece, first: Run, parts: dict[int, Part]) -> str | None:
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
    words, aside = times(ratios[0], p.sizes, p.defaults)
    wrong = _and([piece.parts[j] for j in sorted(first.wrong)])
    right = [piece.parts[j] for j in range(len(piece.parts)) if j not in first.wrong]
    each = "every entry of each is 0" if ratios[0] == 0 else f"each is {words}"
    lines = f"{wrong}: {each}, and {_and(right)} {'is' if len(right) == 1 else 'are'} right."
    inside = aside or _used_only_by(piece, first)
    return lines + (f"\n {inside}" if inside else "")


def _results(piece: Piece, wrong: Sequence[int]) -> str:
    """The parts wrong, in the piece's order: "dqs and dks", or "every result"."""
    if len(wrong) == len(piece.parts) > 2:
        return "every result"
    return _and([piece.parts[j] for j in sorted(wrong)])


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _rule(piece: Piece) -> variants.Rule | None:
    page = piece.cases()[0]
    try:
        return variants.rule(piece.name, piece.parts, piece.sizes(*page.args), page.args)
    except Exception:  # noqa: BLE001 (no rule to change: then no line can be named)
        return None


def _used_only_by(piece: Piece, first: Run) -> str:
    """What, in the rule, only the wrong parts use: where a slip that spares the others must be."""
    rule = _rule(piece)
    wrong = frozenset(piece.parts[j] for j in first.wrong)
    if rule is None or not wrong or len(wrong) == len(piece.parts):
        return ""
    roles = rule.only_for(wrong)
    if not roles:
        return ""
    them = "it uses" if len(wrong) == 1 else "they use"
    listed = roles[0] if len(roles) == 1 else "; ".join(roles[:-1]) + "; or " + roles[-1]
    which = f", one of these {len(roles)}" if len(roles) > 1 else ""
    return f"So the slip is in something {them} and the others do not{which}: {sentence(listed)}"


def _only_some_parts(piece: Piece, first: Run) -> str | None:
    """Which parts are right and which wrong, and what only the wrong ones use."""
    if len(piece.parts) < 2 or len(first.wrong) == len(piece.parts):
        return None
    inside = _used_only_by(piece, first)
    if not inside:
        return None
    wrong = [piece.parts[j] for j in first.wrong]
    right = [p for j, p in enumerate(piece.parts) if j not in first.wrong]
    verb = ("is", "are")
    head = f"{_and(wrong)} {verb[len(wrong) > 1]} wrong and {_and(right)} {verb[len(right) > 1]} right."
    return f"{head}\n {inside}"


CAP = 150  # changes tried that reach more parts than the wrong ones, at most (a verdict's time stays bounded)


ACCUMULATE = frozenset({"accumulate"})  # the changes of a sum's += (to = or -=), tried before a sum's terms


def _one_line(piece: Piece, runs: list[Run], first: Run, kinds: frozenset[str] = frozenset()) -> str | None:
    """The one line of the rule that, changed, gives the reader's answer on every case it runs on (only changes of
    these kinds, if any are given).

    A changed rule is tried on the cheapest case first, right or wrong (it must give the reader's answer on every
    one), so that most changes are set aside at little cost; it must give it on a case the reader misses that is
    not degenerate. Only the changes whose line reaches exactly the wrong parts are tried, then (at most CAP) those
    whose line reaches more."""
    telling = [
        r for r in runs if r.mine is not None and r.wrong and not r.case.degenerate and not r.problem and _comparable(r)
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
    order = sorted((r for r in runs if r.mine is not None and not r.problem and _comparable(r)), key=_cost)
    with cyclic_gc_paused():  # (the rule's tree and its changes are many objects, none of them garbage)
        for change in exact + wider:  # (a reader's code that ran on a case, written as the changed rule, runs there)
            fits, told = True, False
            for run in order:
                gave = _gives(change, piece, run)
                if gave is False:
                    fits = False
                    break
                told = told or (gave is True and run in telling)
            if fits and told:
                return _said(change, piece, first, wrong)
    return None


def _cost(run: Run) -> int:
    """How many numbers a case's answer has: the cost of running a rule on it, roughly."""
    return sum(len(entries(e)) for e in run.case.engine)


def _substituted(piece: Piece, runs: list[Run], first: Run) -> str | None:
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
        theirs, computed = values[id(shown)], sub.run(None, *_frozen(shown.case))[1]
        earlier = [r for r in runs if r.ok and r.number < shown.number]
        first_value = sub.run(None, *_frozen(earlier[0].case))[1] if earlier else None
        # kept from an earlier call only if it is that value on every case missed, not on one by chance
        if first_value is not None and all(abs(v - first_value) <= 1e-9 * abs(v) for v in values.values()):
            kept = f" That is its value in case {earlier[0].number}: is it kept from an earlier call?"
        elif _rounded_down(sub, telling, values):
            kept = (
                f" On every case it misses, yours is {sub.name} rounded down to a whole number:"
                " is a whole-number function (math.isqrt, int(), //) used where the exact value belongs?"
            )
        else:
            kept = f" So the slip is in {sub.name}, in what it is computed from, or in a factor multiplied with it."
        return (
            f"{_results(piece, sorted(shown.wrong))}: yours is what the rule gives with another value for"
            f" {sub.name}, {sub.role}:\n {theirs:.4g} where the engine's is {computed:.4g}.{kept}"
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
    for a in (start, *hints, 2 * start, start / 2, 10 * start, start / 10, -start):
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
            agrees(x, m, s) for x, m, s in zip(out, run.mine, run.case.scales)
        ):
            return b
    return None


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
    return all(agrees(a, b, s) for a, b, s in zip(out, run.mine, run.case.scales))


def _said(change: variants.Change, piece: Piece, first: Run, wrong: frozenset[str]) -> str:
    parts = _results(piece, [j for j, p in enumerate(piece.parts) if p in wrong])
    where = f", in {change.role}"
    if change.kind == "argument":
        how, where = f"as if {change.before} were {change.after}", ""
    elif change.kind == "line":
        how = f"without the line {change.before}"
    elif change.kind == "size" and change.after.lstrip("-").isdigit():
        here = piece.sizes(*first.case.args).get(change.size)
        how = f"{change.after} where {change.before} belongs: {change.size} is {here} in this case"
        how += f" and {change.after} in the page's step. Is {change.after} written as a number?"
    else:
        how = change.how or f"{change.after} where {change.before} belongs"
    if change.gloss and not how.endswith("?"):
        how += f": {change.gloss}"
    return f"{parts}: yours is what the rule gives with one change{where}:\n {sentence(how)}"


def _pattern(piece: Piece, runs: list[Run]) -> str:
    """Right on the page's step, wrong on others: which sizes differ between the cases it gets right and those it
    misses (a size written as a number), or that none do (a value kept from an earlier call)."""
    if not runs[0].ok:
        return ""
    good = [r for r in runs if r.ok and not r.case.degenerate]  # right on a degenerate case says nothing
    bad = [r for r in runs if not r.ok]
    if not bad:
        return ""
    raised = [r for r in bad if r.error is not None]
    if raised and len(raised) < len(bad):  # some raised, some returned: say which raised, and guess nothing
        errors = list(dict.fromkeys(type(r.error).__name__ for r in raised))
        returned = [r for r in bad if r.error is None]
        return (
            f"Right on {_cases([r.number for r in good]) if good else 'no case'}, wrong on"
            f" {_cases([r.number for r in returned])}, and on {_cases([r.number for r in raised])} your function"
            f" raised {_and(errors).replace(' and ', ' or ')}."
        )
    sizes = {r.number: piece.sizes(*r.case.args) for r in runs}
    names = [s for s in sizes[1] if all(isinstance(sizes[r.number].get(s), int) for r in runs)]

    def values(group: list[Run], s: str) -> str:
        return _and([str(v) for v in sorted({sizes[r.number][s] for r in group})]).replace(" and ", " or ")

    apart = [s for s in names if not {sizes[r.number][s] for r in bad} & {sizes[r.number][s] for r in good}]
    steady = [s for s in apart if {sizes[r.number][s] for r in good} == {sizes[1][s]}]  # the page's, where right
    right, wrong = _cases([r.number for r in good]), _cases([r.number for r in bad])
    ones = "one" if len(bad) == 1 else "ones"
    traits = list(dict.fromkeys(r.case.trait for r in bad))  # each trait once, in the cases' order
    if all(traits) and not any(r.case.trait in traits for r in good):  # a trait only the cases missed have
        with_ = _and(traits).replace(" and ", " or ") if len(traits) > 1 else traits[0]
        if apart:  # a size sets them apart too: both are facts, and neither is guessed as the cause
            said = " and ".join(f"{s} is {values(bad, s)}" for s in apart)
            return (
                f"Right on {right}, wrong on {wrong}, the only {ones} with {with_}, and the only {ones} where {said}."
            )
        return f"Right on {right}, wrong on {wrong}, the only {ones} with {with_}."
    if steady and len(steady) == len(apart):  # a size that is the page's wherever the answer is right, and another
        # wherever it is wrong (and no other size sets the cases apart: which one is written would be a guess)
        said = " and ".join(f"{s} is {values(bad, s)}" for s in steady)
        if len(steady) == 1:
            asked = f"is {steady[0]} written as a number ({sizes[1][steady[0]]})"
        else:
            asked = f"is one of them written as a number ({_and([f'{s} = {sizes[1][s]}' for s in steady])})"
        return f"Right on {right}, wrong on {wrong}, where {said}:\n {asked}, or a value kept from an earlier call?"
    above = [s for s in apart if min(sizes[r.number][s] for r in bad) > max(sizes[r.number][s] for r in good)]
    if (
        above and len(apart) == 1
    ):  # wrong wherever a size is larger than anywhere it is right: cut short at the page's size?
        s = above[0]
        most = max(sizes[r.number][s] for r in good)
        return (
            f"Right on {right}, wrong on {wrong}, where {s} is {values(bad, s)}, more than anywhere it is right:\n"
            f" is a list cut at {most} entries, or {s} written as a number?"
        )
    if above:  # several sizes set them apart: each said, and the ones larger there asked about, none picked
        said = " and ".join(f"{s} is {values(bad, s)}" for s in apart)
        larger = _and(above)
        most = _and([f"{s} = {max(sizes[r.number][s] for r in good)}" for s in above])
        return (
            f"Right on {right}, wrong on {wrong}, the only {ones} where {said}; {larger}"
            f" {'is' if len(above) == 1 else 'are'} more there than anywhere it is right:\n"
            f" is a list cut at {'that size' if len(above) == 1 else 'one of those sizes'}, or"
            f" {'it' if len(above) == 1 else 'one of them'} written as a number ({most})?"
        )
    if apart:  # sizes it is wrong at and never right at, though right at several: an edge it does not handle
        said = " and ".join(f"{s} is {values(bad, s)}" for s in apart)
        return f"Right on {right}, wrong on {wrong}, the only {ones} where {said}."
    same = [r for r in bad if all(sizes[r.number][s] == sizes[1][s] for s in names)]
    kept = "does your function keep something from an earlier call (a global, a default argument, a cache)?"
    if not same:
        return f"Right on {right}, wrong on {wrong}, and no one size sets those apart:\n {kept}"
    twin = _cases([r.number for r in same])
    return f"Right on case 1, wrong on {twin}, which {'has' if len(same) == 1 else 'have'} its sizes:\n {kept}"


def _cases(numbers: list[int]) -> str:
    from microgpt.course.diagnosis import spans

    return f"case {numbers[0]}" if len(numbers) == 1 else f"cases {spans(numbers)}"
