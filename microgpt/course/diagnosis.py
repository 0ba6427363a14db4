"""Where and how a reader's answer differs from the engine's, found from the numbers alone.

A checker (microgpt.course.checking) names the slips its piece knows, and the one line of the rule that,
changed, gives the reader's answer (microgpt.course.variants). These functions look at one part of one
answer: where it is wrong, in the reader's own terms (position 3, row 7 (head 1), logit 12 (the true
token)), and how (a constant factor, a term of a sum missing or written another way, a shift by one, the
causal limit, a floor division, a numerical estimate, a rounding, a mean subtracted, results in another order
or one list for several), before the largest difference is shown as a pair of numbers. Each returns a finding
(microgpt.course.findings), None where it does not fit, or UNTOLD where these numbers cannot tell; the words
are microgpt.course.wording's.

An answer's part is a nested list; an entry's place in it is an index tuple, and each axis has a name
("position", "row", "column", "logit") given by the piece, so that a place is said as a reader would say it.

Two numbers agree when they are within RTOL of the part's scale, its largest entry: a re-ordered sum
differs from the engine's in its last bits (about 1e-16 of that), a numerical estimate (finite
differences) by 1e-11 or more.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from microgpt.course import findings as f
from microgpt.course.factors import named, nice
from microgpt.course.findings import RTOL, UNTOLD, Finding, Grouping, Index, Layout, Naming

CLOSE = 1e-5  # every entry within this (relatively), yet not within RTOL: close, but not exact
ROUNDING = 1e-15  # a difference this small (relatively) is a sum's last bits; a numerical estimate's are larger

__all__ = ["RTOL", "UNTOLD", "Family", "Grouping", "Instead", "Layout", "Part", "agrees", "entries", "shape"]


@dataclass
class Family:
    """A sum written as its terms, one per index of what it sums over (the rows i of w^T g).

    what: the sum in words ("dx[j] sums w[i][j] g[i] over the rows i"); each: one term's name, given its
    index ("row {k}"); terms: each term's contribution to the part, shaped like it.
    """

    what: str
    each: str
    terms: list[Any]


@dataclass(frozen=True)
class Instead:
    """A term of a split (Part.terms) written another way, as a slip in that one term writes it: with a factor
    left out, or with one index where another belongs. It sits in the split beside the terms, and is tried in
    place of its term (the other terms as they are).

    term: the name of the term it replaces; how: what is changed in it ("a factor is left out, w_t: yours is
    -sum_(u != t) w_u gamma_u"); values: the term so written, shaped like the part.
    """

    term: str
    how: str
    values: Any


PLURALS = {"entry": "entries", "unit": "units", "position": "positions", "logit": "logits", "row": "rows"}


def plural(word: str) -> str:
    return PLURALS.get(word, word + "s")


# ---------------------------------------------------------------- entries, shapes, agreement


def entries(value: Any, index: Index = ()) -> list[tuple[Index, float]]:
    """Every number of a nested list with its index tuple, in order."""
    if isinstance(value, (list, tuple)):
        return [e for k, item in enumerate(value) for e in entries(item, (*index, k))]
    return [(index, value)]


def shape(value: Any) -> tuple[int, ...] | None:
    """The lengths of a rectangular nested list, outermost first; () for a number; None if ragged."""
    if not isinstance(value, (list, tuple)):
        return ()
    inner = {shape(item) for item in value}
    if len(inner) > 1:
        return None
    rest = inner.pop() if inner else ()
    return None if rest is None else (len(value), *rest)


def _numbers(value: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v in entries(value))


def largest(value: Any) -> float:
    """The largest |entry| of a nested list of numbers (0 when it has none)."""
    return max((abs(v) for _, v in entries(value)), default=0.0)


def scales(engine: Sequence[Any]) -> list[float]:
    """Each part's scale: its largest |entry|, or where a part is all 0 the whole answer's (0 if that is too:
    then only exact zeros agree)."""
    whole = max((largest(part) for part in engine), default=0.0)
    return [largest(part) or whole for part in engine]


def agrees(mine: Any, engine: Any, scale: float) -> bool:
    """Same shape, every entry within RTOL * scale of the engine's."""
    if shape(mine) != shape(engine) or not _numbers(mine):
        return False
    tol = RTOL * scale
    return all(abs(a - b) <= tol for (_, a), (_, b) in zip(entries(mine), entries(engine)))


# ---------------------------------------------------------------- the diagnoses


@dataclass
class Part:
    """One part of an answer, both ways, with what is needed to speak about it."""

    name: str
    mine: Any
    engine: Any
    layout: Layout
    sizes: dict[str, Any]
    defaults: dict[str, Any]
    facts: dict[str, Any] = field(default_factory=dict)
    zero_why: str = ""
    given: dict[str, Any] = field(default_factory=dict)  # the function's arguments by name, for "plus x"
    terms: list[dict[str, Any]] = field(default_factory=list)  # ways to split the engine's into terms
    families: list[Family] = field(default_factory=list)  # sums the engine's is, term by term
    scale: float | None = None  # the part's scale (its largest entry, unless given)

    def __post_init__(self) -> None:
        self.facts = {**self.sizes, **self.facts}  # what names a place: the sizes (d_h for a head), and the rest
        self.m = entries(self.mine)
        self.e = entries(self.engine)
        if self.scale is None:
            self.scale = largest(self.engine)
        self.tol = RTOL * self.scale
        self.wrong = [k for k, ((_, a), (_, b)) in enumerate(zip(self.m, self.e)) if abs(a - b) > self.tol]
        self.big = 1e-6 * (self.scale or 1.0)  # an entry this large says something about a ratio
        self.naming = Naming(self.name, self.layout, self.facts, self.sizes, self.defaults)

    def index(self, k: int) -> Index:
        return self.e[k][0]

    def named(self, c: float) -> f.Named:
        return named(c, self.sizes, self.defaults)

    def close(self, a: float, b: float) -> bool:
        return abs(a - b) <= self.tol + 1e-9 * abs(b)


def shared_rows(name: str, mine: Any) -> f.SharedRows | None:
    """Rows of a part that are one list object ([[0.0] * n] * m): adding into one adds into all."""
    if not isinstance(mine, list) or len(mine) < 2 or not all(isinstance(r, list) for r in mine):
        return None
    first: dict[int, int] = {}
    shared = [k for k, row in enumerate(mine) if first.setdefault(id(row), k) != k]
    if not shared:
        return None
    if len(set(map(id, mine))) == 1:
        return f.SharedRows(name, None)
    return f.SharedRows(name, (first[id(mine[shared[0]])], shared[0]))


def swapped(
    parts: Sequence[str], mine: Sequence[Any], engine: Sequence[Any], scale: Sequence[float]
) -> f.Swapped | f.Exchanged | None:
    """Two results returned in each other's place: (dx, dw) for (dw, dx)."""
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            a, b = parts[i], parts[j]
            if agrees(mine[i], engine[i], scale[i]) and agrees(mine[j], engine[j], scale[j]):
                continue
            same_numbers = agrees(mine[i], engine[j], scale[j]) and agrees(mine[j], engine[i], scale[i])
            other_shapes = shape(engine[i]) != shape(engine[j]) and (
                shape(mine[i]) == shape(engine[j]) and shape(mine[j]) == shape(engine[i])
            )
            if same_numbers or other_shapes:
                also = [
                    parts[k] for k in range(len(parts)) if k not in (i, j) and not agrees(mine[k], engine[k], scale[k])
                ]
                if also:  # the return order alone does not explain a third wrong result: not said as the slip
                    if not same_numbers:
                        continue
                    return f.Exchanged(a, b, tuple(also))
                return f.Swapped(a, b, same_numbers, tuple(parts))
    return None


def _same_as(j: int, mine: Sequence[Any], engine: Sequence[Any], scale: Sequence[float]) -> list[int]:
    """The engine's parts (not all 0) that your part j is, number for number."""
    return [i for i in range(len(engine)) if largest(engine[i]) and agrees(mine[j], engine[i], scale[i])]


def reordered(
    parts: Sequence[str], mine: Sequence[Any], engine: Sequence[Any], scale: Sequence[float]
) -> f.Reordered | None:
    """Every result the engine's, but in another order (more than two moved: a pair is said as swapped)."""
    if len(parts) < 3:
        return None
    order = []
    for j in range(len(parts)):
        if agrees(mine[j], engine[j], scale[j]):
            order.append(j)
            continue
        same = _same_as(j, mine, engine, scale)
        if len(same) != 1:
            return None
        order.append(same[0])
    moved = [j for j, i in enumerate(order) if i != j]
    if sorted(order) != list(range(len(parts))) or len(moved) < 3:
        return None
    return f.Reordered(tuple(parts[i] for i in order), tuple(parts))


def one_list_for_several(
    parts: Sequence[str], mine: Sequence[Any], engine: Sequence[Any], scale: Sequence[float]
) -> f.OneList | f.AllHold | None:
    """Several results that are one list object, or all one same result of the engine's: one list with several
    names (a = b = [...]), so what is written last through any name is in all of them."""
    for a in range(len(parts)):
        for b in range(a + 1, len(parts)):
            if isinstance(mine[a], list) and mine[a] is mine[b]:
                return f.OneList(parts[a], parts[b])
    for i in range(len(parts)):
        holders = [j for j in range(len(parts)) if i in _same_as(j, mine, engine, scale)]
        if len(holders) < 3:  # two: said as one copied from the other, a shared list among the guesses
            continue
        if any(agrees(engine[j], engine[i], scale[i]) for j in holders if j != i):
            continue  # the engine's are equal too: nothing is told by yours being so
        return f.AllHold(tuple(parts[j] for j in holders), parts[i])
    return None


def copied(parts: Sequence[str], mine: Sequence[Any], engine: Sequence[Any], scale: Sequence[float]) -> f.Copied | None:
    """A part of yours that is the engine's other part (dk computed as dq): one part copied from another."""
    for j, part in enumerate(parts):
        if agrees(mine[j], engine[j], scale[j]) or not largest(engine[j]):
            continue
        for i, other in enumerate(parts):
            if i != j and largest(engine[i]) and agrees(mine[j], engine[i], scale[i]):
                return f.Copied(part, other)
    return None


def floor_division(p: Part) -> f.FloorDivision | None:
    """Whole numbers where the engine's are fractions, each the engine's rounded down: // where / belongs."""
    if not p.wrong or not all(p.m[k][1] == math.floor(p.e[k][1]) for k in p.wrong):
        return None
    if not any(p.m[k][1] != 0 for k in p.wrong):  # all 0: nothing says a division rounded them
        return None
    return f.FloorDivision(p.name)


def _ratio(p: Part, ks: Sequence[int]) -> float | None:
    """The one factor c with mine = c * engine at these entries (0 where the engine's is 0), or None."""
    big = [k for k in ks if abs(p.e[k][1]) > p.big]
    if not big:
        return None
    c = p.m[big[0]][1] / p.e[big[0]][1]
    if all(abs(p.m[k][1] - c * p.e[k][1]) <= p.tol + 1e-9 * abs(p.m[k][1]) for k in ks):
        return c
    return None


def all_zero(p: Part) -> f.AllZero | None:
    if p.wrong and all(v == 0 for _, v in p.m):
        return f.AllZero(p.name)
    return None


def running_sum(p: Part) -> f.RunningSum | None:
    """Each entry of a list the sum of the engine's up to it: a running sum kept from one entry to the next."""
    if not p.wrong or len(p.e) < 3 or any(len(index) != 1 for index, _ in p.e):
        return None
    total = 0.0
    for (_, a), (_, b) in zip(p.m, p.e):
        total += b
        if not p.close(a, total):
            return None
    return f.RunningSum(p.name)


def constant_factor(p: Part, named_only: bool = True) -> f.ConstantFactor | f.NearlyZero | None:
    """Every entry the same multiple of the engine's; named_only: only a factor that is a size, 2, 1/2 or -1."""
    if all(v == 0 for _, v in p.m):
        return None
    c = _ratio(p, range(len(p.e)))
    if c is None or abs(c - 1) <= 1e-9:
        return None
    if abs(c) <= 1e-9:  # 0 but for rounding: said where nothing more telling is (a sum that cancels)
        return None if named_only else f.NearlyZero(p.name, largest(p.mine))
    factor = p.named(c)
    if not factor.said:
        return None if named_only else f.LocatedFactor(p.name, factor)  # the one line that makes it may say more
    return f.ConstantFactor(p.name, factor)


def any_factor(p: Part) -> f.ConstantFactor | f.NearlyZero | None:
    """Every entry the same multiple of the engine's, whatever the multiple."""
    return constant_factor(p, named_only=False)


def constant_offset(p: Part) -> f.ConstantOffset | None:
    """Every entry off by one same amount."""
    d = [a - b for (_, a), (_, b) in zip(p.m, p.e)]
    if len(d) < 2 or not p.wrong or max(d) - min(d) > p.tol:
        return None
    return f.ConstantOffset(p.naming, d[0])


def _solve(gram: list[list[float]], rhs: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None when the terms are (nearly) dependent."""
    n = len(rhs)
    a = [row[:] + [r] for row, r in zip(gram, rhs)]
    scale = max(abs(gram[i][i]) for i in range(n)) or 1.0
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) <= 1e-10 * scale:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                k = a[r][col] / a[col][col]
                a[r] = [x - k * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def _one_term_instead(p: Part) -> f.TermInstead | None:
    """The answer as the engine's terms, one of them written another way (an Instead of the split), the others
    as they are: one term of a sum with a factor left out, or an index where another belongs."""
    mine = [v for _, v in p.m]
    for split in p.terms:
        names = [n for n, v in split.items() if not isinstance(v, Instead)]
        columns = {n: [v for _, v in entries(split[n])] for n in names}
        for alt in (v for v in split.values() if isinstance(v, Instead)):
            other = [v for _, v in entries(alt.values)]
            if len(other) != len(mine) or any(len(c) != len(mine) for c in columns.values()):
                continue
            if max(abs(a - b) for a, b in zip(other, columns[alt.term])) <= p.tol:
                continue  # written that way, the term is the same here: it tells nothing
            kept = [col for n, col in columns.items() if n != alt.term]
            total = [math.fsum(col[i] for col in kept) + other[i] for i in range(len(mine))]
            if max(abs(a - b) for a, b in zip(total, mine)) > p.tol + 1e-9 * max(map(abs, mine)):
                continue
            return f.TermInstead(p.name, tuple(names), alt.term, alt.how)
    return None


def terms(p: Part) -> Finding | None:
    """The answer as the engine's terms with other weights: a term missing, its sign flipped, or scaled; or one
    term written another way (a factor left out, an index where another belongs)."""
    instead = _one_term_instead(p)
    if instead:
        return instead
    mine = [v for _, v in p.m]
    for split in p.terms:
        split = {n: v for n, v in split.items() if not isinstance(v, Instead)}
        names = list(split)
        columns = [[v for _, v in entries(split[n])] for n in names]
        if any(len(c) != len(mine) for c in columns):
            continue
        if len(names) * 2 > len(mine):  # too few entries to tell the terms apart: nothing said either way
            return UNTOLD
        gram = [[math.fsum(a * b for a, b in zip(ci, cj)) for cj in columns] for ci in columns]
        c = _solve(gram, [math.fsum(a * b for a, b in zip(ci, mine)) for ci in columns])
        if c is None:
            continue
        fitted = [math.fsum(ck * col[i] for ck, col in zip(c, columns)) for i in range(len(mine))]
        if max(abs(a - b) for a, b in zip(fitted, mine)) > p.tol + 1e-9 * max(map(abs, mine)):
            continue
        c = [0.0 if abs(ck) <= 1e-6 else ck for ck in c]
        off = [(n, ck) for n, ck in zip(names, c) if abs(ck - 1) > 1e-6]
        if not off or len({round(ck, 6) for ck in c}) == 1 or not all(nice(ck, p.sizes, p.defaults) for ck in c):
            continue
        return f.TermWeights(p.name, tuple(names), tuple((n, p.named(ck)) for n, ck in off))
    return None


def one_term(p: Part) -> f.OneTerm | f.Untold | None:
    """A sum with one of its terms missing, flipped or doubled."""
    d = [a - b for (_, a), (_, b) in zip(p.m, p.e)]
    for family in p.families:
        columns = [[v for _, v in entries(t)] for t in family.terms]
        if any(len(c) != len(d) for c in columns):
            continue
        if len(columns) < 2:  # one term: a missing term is the whole sum, said elsewhere
            return UNTOLD
        for k, col in enumerate(columns):
            if max(map(abs, col), default=0.0) <= p.big:
                continue
            for c in (-1.0, -2.0, 1.0):  # missing, its sign flipped, counted twice
                if all(abs(x - c * y) <= p.tol for x, y in zip(d, col)):
                    edge = "last" if k == len(columns) - 1 else "first" if k == 0 else ""
                    return f.OneTerm(p.name, family.what, family.each.format(k=k), edge, c)
    return None


def terms_at_an_end(p: Part) -> f.TermsAtAnEnd | f.Untold | None:
    """A sum with a run of its terms at one end missing: a loop that starts late or stops early.

    Where every term that is not 0 here is in such a run (the whole sum missing, the terms left out 0 here:
    g[0] = 0 for a loop that keeps row 0 only), the run is not ruled out, and not shown: UNTOLD."""
    d = [a - b for (_, a), (_, b) in zip(p.m, p.e)]
    untold = False
    for family in p.families:
        columns = [[v for _, v in entries(t)] for t in family.terms]
        if len(columns) < 3 or any(len(c) != len(d) for c in columns):
            continue
        n = len(columns)
        counts = [max(map(abs, col), default=0.0) > p.big for col in columns]  # the terms that are not 0 here
        telling = sum(counts)
        for m in range(2, n):
            for run, last in ((range(n - m, n), True), (range(m), False)):
                total = [sum(columns[k][i] for k in run) for i in range(len(d))]
                if not all(abs(x + y) <= p.tol for x, y in zip(d, total)):
                    continue
                if sum(counts[k] for k in run) >= telling:  # the whole sum missing: said as that elsewhere
                    untold = untold or telling > 0
                    continue
                if max(map(abs, total)) > p.big:
                    return _terms_missing(p, family, counts, m, last)
    return UNTOLD if untold else None


def _terms_missing(p: Part, family: Family, counts: list[bool], m: int, last: bool) -> f.TermsAtAnEnd:
    """The run of m terms at one end missing, named by where it starts; terms that are 0 here next to it may be
    missing too (the run's start is then not known), and are said as that, not counted."""
    n = len(counts)
    if last:  # missing: n - m on, and perhaps the terms that are 0 just before
        start = earliest = n - m
        while earliest > 0 and not counts[earliest - 1]:
            earliest -= 1
        return f.TermsAtAnEnd(p.name, family.what, family.each, start, earliest, True)
    latest = m  # missing: those before m, and perhaps the terms that are 0 just after
    while latest < n and not counts[latest]:
        latest += 1
    return f.TermsAtAnEnd(p.name, family.what, family.each, m, latest, False)


def _groups(p: Part, at_least: int = 2) -> list[tuple[Grouping, dict[int, list[int]]]]:
    """Each grouping of the part's entries (the piece's own first, then each axis), as group -> entries;
    only those with at_least this many groups."""
    axes = p.layout.axes[p.name]
    found = []
    for g in (*p.layout.groupings.get(p.name, ()), *(Grouping(k, a, plural(a)) for k, a in enumerate(axes))):
        groups: dict[int, list[int]] = {}
        for k, (index, _) in enumerate(p.e):
            groups.setdefault(g.key(p.facts, index[g.axis]), []).append(k)
        if len(groups) >= at_least:
            found.append((g, groups))
    return found


def _some(p: Part, g: Grouping, keys: Sequence[int], groups: dict[int, list[int]]) -> f.Groups:
    return f.Groups(p.naming, g, tuple(keys), len(groups))


def nonzero_where_zero(p: Part) -> f.NonzeroWhereZero | None:
    """Nonzero in groups where the engine's is exactly 0 (the causal limit, a row not read, a unit off)."""
    axes = [(g, groups) for g, groups in _groups(p, at_least=1) if g.axis == 0 and g.name == p.layout.axes[p.name][0]]
    for g, groups in axes[:1]:  # along the first axis: positions, rows, units
        zero = [key for key, ks in groups.items() if all(p.e[k][1] == 0 for k in ks)]
        bad = [key for key in zero if any(abs(p.m[k][1]) > p.tol for k in groups[key])]
        if not bad:
            return None
        others = [key for key in groups if key not in zero]
        also = [key for key in others if any(abs(p.m[k][1] - p.e[k][1]) > p.tol for k in groups[key])]
        rest = [key for key in groups if key not in bad]  # right wherever it is not wrong: counted from these
        return f.NonzeroWhereZero(_some(p, g, bad, groups), len(also), len(others), len(rest), p.zero_why)
    return None


def zero_where_nonzero(p: Part) -> f.ZeroWhereNonzero | None:
    """Exactly 0 in groups along the first axis where the engine's is not: a position, row or unit left out."""
    axes = [(g, groups) for g, groups in _groups(p, at_least=2) if g.axis == 0 and g.name == p.layout.axes[p.name][0]]
    for g, groups in axes[:1]:
        bad = [
            key
            for key, ks in groups.items()
            if all(p.m[k][1] == 0 for k in ks) and any(abs(p.e[k][1]) > p.tol for k in ks)
        ]
        if not bad or len(bad) == len(groups):
            return None
        return f.ZeroWhereNonzero(_some(p, g, bad, groups))
    return None


def shifted(p: Part) -> f.Shifted | f.Untold | None:
    """Equal to the engine's at the neighbouring index along an axis: an index off by one.

    Every entry with a neighbour there must match it, and the entries it puts right must be most of the
    wrong ones (the rest at the edge, where nothing was shifted in).
    """
    axes = p.layout.axes[p.name]
    where = {index: v for index, v in p.e}
    wrong = {p.m[k][0] for k in p.wrong}
    untold = False  # a shift nothing contradicts, but too little shows it (one row read, at the edge)
    for axis, name in enumerate(axes):
        for step in (1, -1):
            pairs = {
                index: (v, where[moved])
                for index, v in p.m
                if (moved := (*index[:axis], index[axis] - step, *index[axis + 1 :])) in where
            }
            if not all(abs(a - b) <= p.tol for a, b in pairs.values()):
                continue
            explained = [index for index in wrong if index in pairs]
            if len(explained) < max(2, len(wrong) // 2) or not any(abs(b) > p.big for _, b in pairs.values()):
                untold = True
                continue
            return f.Shifted(p.name, name, step)
    return UNTOLD if untold else None


def moved(p: Part) -> f.Moved | None:
    """One amount in the wrong entry: what belongs at one place is at another (often its neighbour).

    Which place it belongs at: the one a fact names (the true token), else the one where the engine's
    entry has the amount's sign and is the larger (the place that holds it).
    """
    if len(p.wrong) != 2:
        return None
    a, b = p.wrong
    da, db = p.m[a][1] - p.e[a][1], p.m[b][1] - p.e[b][1]
    if abs(da + db) > 1e-7 * max(abs(da), abs(db)):
        return None
    noted = [k for k in (a, b) if any(p.layout.note(p.facts, p.name, ax, i) for ax, i in enumerate(p.e[k][0]))]

    def holds(k: int) -> tuple[bool, float]:
        amount = p.e[k][1] - p.m[k][1]
        return (p.e[k][1] * amount > 0, abs(p.e[k][1]))

    src = noted[0] if len(noted) == 1 else max((a, b), key=holds)
    dst = b if src == a else a
    amount = p.e[src][1] - p.m[src][1]
    near = sum(abs(x - y) for x, y in zip(p.e[src][0], p.e[dst][0])) == 1
    return f.Moved(p.naming, amount, p.index(src), p.index(dst), near)


def right_and_wrong(p: Part) -> f.RightAndWrong | None:
    """Right in some groups (positions, heads, rows) and wrong in others; and how, where it is wrong."""
    wrong = set(p.wrong)
    for g, groups in _groups(p):
        bad = [key for key, ks in groups.items() if wrong & set(ks)]
        good = [key for key in groups if key not in bad and any(p.e[k][1] != 0 for k in groups[key])]
        if not bad or not good:  # (a group where both are 0 shows nothing: right there is no evidence)
            continue
        there = [k for key in bad for k in groups[key] if k in wrong]
        zeros = [key for key in groups if key not in bad and key not in good]  # right there too, where both are 0
        return f.RightAndWrong(
            _some(p, g, bad, groups), _some(p, g, good, groups), _some(p, g, zeros, groups), _how_there(p, there)
        )
    return None


def _how_there(p: Part, there: list[int]) -> f.There:
    """How the wrong entries differ, if one rule says it: 0, one factor, or one amount off."""
    if all(p.m[k][1] == 0 for k in there):
        return f.There(zero=True)
    c = _ratio(p, there) if len(there) > 1 else None  # one entry has any ratio
    if c is not None and abs(c - 1) > 1e-7:
        return f.There(factor=p.named(c))
    d = [p.m[k][1] - p.e[k][1] for k in there]
    if len(d) > 1 and max(d) - min(d) <= p.tol:
        return f.There(plus=d[0])
    return f.There()


def reversed_order(p: Part) -> f.Reversed | None:
    """The engine's entries in the opposite order along an axis: a loop or a list run backwards."""
    lengths = shape(p.engine) or ()
    for axis, name in enumerate(p.layout.axes[p.name]):
        n = lengths[axis] if axis < len(lengths) else 0
        if n < 3:
            continue
        where = {index: v for index, v in p.e}
        flipped = [(v, where[(*i[:axis], n - 1 - i[axis], *i[axis + 1 :])]) for i, v in p.m]
        if all(abs(a - b) <= p.tol for a, b in flipped):
            return f.Reversed(p.name, name, n)
    return None


def plus_an_argument(p: Part) -> f.PlusArgument | None:
    """Yours minus the engine's is one of the function's own arguments (or a multiple of it): something added."""
    d = [a - b for (_, a), (_, b) in zip(p.m, p.e)]
    for name, value in p.given.items():
        if shape(value) != shape(p.engine):
            continue
        v = [x for _, x in entries(value)]
        big = [k for k, x in enumerate(v) if abs(x) > 1e-9]
        if not big:
            continue
        c = d[big[0]] / v[big[0]]
        if abs(c) > 1e-9 and all(abs(dk - c * x) <= p.tol + 1e-9 * abs(dk) for dk, x in zip(d, v)):
            if abs(abs(c) - 1) > 1e-7 and not nice(c, p.sizes, p.defaults):
                continue
            return f.PlusArgument(p.name, name, p.named(c))
    return None


def close_not_exact(p: Part) -> f.Estimate | None:
    """Within a hair of the engine's everywhere, but not to the last bits: a numerical estimate. Its differences
    are beyond a sum's rounding at most entries that are not 0, even where they are within the tolerance (an
    answer right but at one entry is no estimate)."""
    if not p.wrong or not p.scale:
        return None
    gap = max(abs(a - b) for (_, a), (_, b) in zip(p.m, p.e)) / p.scale
    moving = [k for k, (_, b) in enumerate(p.e) if abs(b) > p.big]
    noisy = [k for k, ((_, a), (_, b)) in enumerate(zip(p.m, p.e)) if abs(a - b) > ROUNDING * p.scale]
    if gap > CLOSE or len(noisy) * 2 < max(2, len(moving)):
        return None
    return f.Estimate(p.name, 10.0 ** math.ceil(math.log10(gap)))


def rounded(p: Part) -> f.Rounded | None:
    """Every entry of yours the engine's rounded to a few decimals (round(x, 6)): rounded for printing."""
    if not p.wrong:
        return None
    for k in range(13):
        unit = 10.0**-k
        if all(round(a, k) == a and abs(a - b) <= unit / 2 * (1 + 1e-9) + p.tol for (_, a), (_, b) in zip(p.m, p.e)):
            if all(round(b, k) == b for _, b in p.e):
                return None  # the engine's are so rounded too: nothing is told
            return f.Rounded(p.name, k)
    return None


def offset_but_one(p: Part) -> f.OffsetButOne | None:
    """Every entry but one off by one same amount, and that one by another: an amount moved onto one entry (or
    off it) and spread over the others, or a constant added everywhere but there."""
    d = [a - b for (_, a), (_, b) in zip(p.m, p.e)]
    if len(d) < 3 or not p.wrong:
        return None
    for k in range(len(d)):
        rest = d[:k] + d[k + 1 :]
        c = rest[0]
        if max(rest) - min(rest) > p.tol or abs(c) <= p.tol or abs(d[k] - c) <= p.tol or abs(d[k]) <= p.tol:
            continue
        return f.OffsetButOne(p.naming, c, p.index(k), d[k], abs(math.fsum(d)) <= p.tol * len(d))
    return None


def mean_subtracted(p: Part) -> f.MeanSubtracted | None:
    """Yours is the function's arguments, each times a number, plus one same amount at every entry, where the
    engine's has no such amount: a mean subtracted (x - mean(x), as LayerNorm does) where the rule has none."""
    mine, engine = [v for _, v in p.m], [v for _, v in p.e]
    n = len(mine)
    names = [a for a, v in p.given.items() if isinstance(v, list) and len(v) == n and _numbers(v) and not _nested(v)]
    if not names or n < 2 * (len(names) + 1) or not p.wrong:
        return None
    columns = [[float(x) for x in p.given[a]] for a in names] + [[1.0] * n]

    def fit(values: list[float], cols: list[list[float]]) -> list[float] | None:
        gram = [[math.fsum(a * b for a, b in zip(ci, cj)) for cj in cols] for ci in cols]
        c = _solve(gram, [math.fsum(a * b for a, b in zip(ci, values)) for ci in cols])
        if c is None:
            return None
        fitted = [math.fsum(ck * col[i] for ck, col in zip(c, cols)) for i in range(n)]
        close = max(abs(a - b) for a, b in zip(fitted, values)) <= p.tol + 1e-9 * max(map(abs, values))
        return c if close else None

    if fit(engine, columns[:-1]) is None:
        return None  # the engine's is not a sum of the arguments alone: nothing is told
    c = fit(mine, columns)
    if c is None or abs(c[-1]) <= p.big:
        return None
    return f.MeanSubtracted(p.name, tuple(names), c[-1], p.facts.get("a mean", ""))


def _nested(value: list) -> bool:
    return any(isinstance(v, (list, tuple)) for v in value)


def whole_numbers(p: Part) -> f.WholeNumbers | None:
    """Only small whole numbers where the engine's are fractions: a mask, a local gradient or a count, without
    the gradient g it should carry."""
    values = {v for _, v in p.m}
    if not p.wrong or not all(float(v).is_integer() and abs(v) <= 64 for v in values) or values <= {0}:
        return None
    fractions = [v for _, v in p.e if v != 0]
    if sum(not float(v).is_integer() for v in fractions) * 2 < len(fractions):  # the engine's are whole too
        return None
    return f.WholeNumbers(p.name, tuple(sorted(values)[:4]), values <= {0, 1})


def times_an_argument(p: Part) -> f.TimesArgument | None:
    """Yours is the engine's times one of the function's arguments, entry by entry: a factor too many (or too few)."""
    if len(p.wrong) < 2:
        return None
    for name, value in p.given.items():
        if shape(value) != shape(p.engine):
            continue
        a = [x for _, x in entries(value)]
        for power in (1, -1):
            if any(x == 0 for x in a) and power < 0:
                continue
            if all(p.close(m, e * x**power) for (_, m), (_, e), x in zip(p.m, p.e, a)):
                return f.TimesArgument(p.name, name, power)
    return None


def where_signs(p: Part) -> f.WhereSigns | None:
    """Wrong exactly where an argument of the same shape is positive, or negative: the test that went wrong."""
    wrong = {p.e[k][0] for k in p.wrong}
    if not wrong or len(wrong) == len(p.e):
        return None
    moving = {index for index, v in p.e if v != 0}
    for name, value in p.given.items():
        if shape(value) != shape(p.engine):
            continue
        for sign, test in (("< 0", lambda x: x < 0), ("> 0", lambda x: x > 0)):
            there = {index for index, x in entries(value) if test(x)}
            if there and (wrong == there or wrong == there & moving):
                unit = plural(p.layout.axes[p.name][-1])
                return f.WhereSigns(p.name, unit, name, sign, wrong != there)
    return None


def _flat(values: list) -> bool:
    return all(isinstance(v, (int, float)) for v in values)


def one_row_everywhere(p: Part) -> f.OneRow | None:
    """Every row of yours the same numbers where the engine's rows differ, each the sum of one argument times
    another (sum(g) times x: a sum taken where each row's own entry belongs)."""
    rows = p.mine
    if not (isinstance(rows, list) and len(rows) > 1 and all(isinstance(r, list) and r for r in rows)):
        return None
    if any(len(r) != len(rows[0]) for r in rows) or not _numbers(rows):
        return None
    if not all(p.close(a, b) for r in rows[1:] for a, b in zip(r, rows[0])):
        return None
    if all(p.close(a, b) for r in p.engine[1:] for a, b in zip(r, p.engine[0])):
        return None  # the engine's rows are one row too: nothing to tell
    for name, value in p.given.items():  # the row as a number times an argument
        if not (isinstance(value, list) and len(value) == len(rows[0]) and _flat(value)):
            continue
        k = max(range(len(value)), key=lambda j: abs(value[j]))
        if value[k] == 0:
            continue
        c = rows[0][k] / value[k]
        if not all(p.close(a, c * v) for a, v in zip(rows[0], value)):
            continue
        for other, u in p.given.items():  # the number as the sum of another argument
            if other != name and isinstance(u, list) and len(u) == len(rows) and _flat(u):
                total = math.fsum(u)
                if abs(c - total) <= 1e-9 * max(abs(c), abs(total)) and total != 0:
                    return f.OneRow(p.name, other, name)
    return None  # the same row, but not told how: said, if at all, by what finds the line


Diagnosis = Callable[[Part], Finding | None]

# said only if it holds on every case missed: crisp first, then the sums' terms (after the one line changed)
CRISP: tuple[Diagnosis, ...] = (all_zero, constant_factor, constant_offset, rounded, close_not_exact, floor_division)
CRISP += (whole_numbers, times_an_argument, one_row_everywhere, running_sum)
TERMS: tuple[Diagnosis, ...] = (
    one_term,
    terms_at_an_end,
    terms,
    shifted,
    reversed_order,
    plus_an_argument,
    offset_but_one,
)
TERMS += (mean_subtracted,)
# where, on the first case missed
LOCATED: tuple[Diagnosis, ...] = (any_factor, nonzero_where_zero, where_signs, zero_where_nonzero)
LOCATED += (moved, right_and_wrong)
PRECISE = CRISP + TERMS


def told(finding: Finding | None) -> bool:
    """A finding that says something (not None, not UNTOLD)."""
    return finding is not None and finding.tells != f.Tells.UNTOLD


def first_fit(p: Part, diagnoses: Sequence[Diagnosis]) -> Finding | None:
    for diagnosis in diagnoses:
        found = diagnosis(p)
        if told(found):
            return found
    return None


def largest_difference(p: Part, first: bool) -> f.LargestDifference:
    """The entry furthest from the engine's, and by how much (first: the verdict's first line about the part)."""
    k = max(p.wrong, key=lambda k: abs(p.m[k][1] - p.e[k][1]))
    assert p.scale is not None
    return f.LargestDifference(p.naming, p.index(k), p.m[k][1], p.e[k][1], p.tol, p.scale, first)


def diagnose(p: Part) -> tuple[list[Finding], bool]:
    """What is wrong with a part of equal shape, from its numbers alone: the first diagnosis that fits, then the
    largest difference; and whether a diagnosis fitted (else the largest difference is all there is to say)."""
    found = first_fit(p, PRECISE) or first_fit(p, LOCATED)
    return [*([found] if found else []), largest_difference(p, first=not found)], found is not None
