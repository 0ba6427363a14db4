"""How an exercise's checker judges a reader's backward: shapes first, then the engine, then the known slips.

A piece has cases (real inputs with the engine's answer) and named wrong variants (what a learner's
slip gives). A reader's answer that is off in some part is compared with each variant's same part;
the one it matches names the slip. One tolerance decides both: TOL, stated in the success line.
"""

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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


def check(piece: Piece, backward: Callable[..., Any]) -> str:
    """Run backward on every case of piece; one line of verdict (✓), or what is wrong and where (✗)."""
    name = getattr(backward, "__name__", "your function")
    cases = piece.cases()
    for k, case in enumerate(cases, 1):
        where = f"✗ case {k} of {len(cases)} ({case.label}):\n "
        args = copy.deepcopy(case.args)
        try:
            answer = backward(*args)
        except Exception as error:  # the reader's code: report any error in one line
            return f"{where}{name} raised {type(error).__name__}: {error}"
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
    return f"✓ {name} agrees with the engine on all {len(cases)} cases, within {TOL_SHOWN} in every entry"
