"""A verdict's words: every finding (microgpt.course.findings) said as a reader reads it, in one place.

word(finding) gives a finding's lines, joined by "\\n " (a verdict's lines are indented by one space under its
first); a line that ends a sentence ends with a full stop, or with its question mark, or with a colon before what it
introduces. A place is said in the reader's terms (row 7 (head 1), column 2), a number with what it is where a size
names it (-0.1429 (-1/T)), a factor as a reader writes it (7/6 times the engine's (7/6 is T/(T - 1) here)).
"""

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from microgpt.course import findings as f
from microgpt.course.factors import Named, factors, fraction, named
from microgpt.course.findings import RTOL

RTOL_SHOWN = f"{RTOL:.0e}"  # RTOL as the verdicts print it: 1e-13

PLURALS = {"entry": "entries", "unit": "units", "position": "positions", "logit": "logits", "row": "rows"}


def plural(word: str) -> str:
    return PLURALS.get(word, word + "s")


def sentence(text: str) -> str:
    """A line of a verdict ends with a full stop, or with its question mark."""
    return text if text.endswith((".", "?", ":")) else text + "."


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _or(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _is(words: Sequence[Any]) -> str:
    return "is" if len(words) == 1 else "are"


def spans(indices: Sequence[int]) -> str:
    """0, 1, 2, 5, 7 -> "0 to 2, 5 and 7": runs of three or more as ranges."""
    runs: list[list[int]] = []
    for i in sorted(indices):
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    said = [item for r in runs for item in ([f"{r[0]} to {r[-1]}"] if len(r) > 2 else map(str, r))]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def some(name: str, indices: Sequence[int], of: int) -> str:
    """ "position 3", "positions 4 to 6", or "30 of the 64 units" when a list of them would be long."""
    if len(indices) == 1:
        return f"{name} {indices[0]}"
    runs = spans(indices)
    if runs.count(",") + runs.count(" and ") > 4:
        return f"{len(indices)} of the {of} {plural(name)}"
    return f"{plural(name)} {runs}"


def cases(numbers: Sequence[int]) -> str:
    """ "case 3", "cases 2 to 5 and 7"."""
    return f"case {numbers[0]}" if len(numbers) == 1 else f"cases {spans(numbers)}"


def place(layout: f.Layout, facts: dict[str, Any], part: str, index: f.Index) -> str:
    """An entry's place as the reader would say it: "row 7 (head 1), column 2"."""
    axes = layout.axes[part]
    return ", ".join(f"{axes[k]} {i}{layout.note(facts, part, k, i)}" for k, i in enumerate(index))


def _at(n: f.Naming, index: f.Index) -> str:
    """Where an entry is: a vector's entry as Python indexes it (dx[1], dqs[3][1]: "entry 1" reads as the first),
    else as place() says it."""
    if n.layout.axes[n.part][-1] == "entry":
        return f"{n.part}" + "".join(f"[{i}]" for i in index)
    return place(n.layout, n.facts, n.part, index)


def value_name(x: float, sizes: dict[str, Any], defaults: dict[str, Any]) -> str:
    """A number as a diagnosis shows it: -0.1429, with what it is when that is a size's (-1/T)."""
    fits = [g for g in factors(x, sizes, defaults) if not g.hard_coded and g.name not in ("2", "1/2")]
    return f"{x:.4g}" + (f" ({'-' if x < 0 else ''}{fits[0].name})" if fits else "")


def _value(n: f.Naming, x: float) -> str:
    return value_name(x, n.sizes, n.defaults)


def said_times(factor: Named) -> tuple[str, str]:
    """A factor in words, and an aside on what it is: ("7 times the engine's (7 is T here)", ""), ("half the
    engine's", ""), ("4/7 times the engine's", "4/7 is T/7: T is 4 in this case and 7 in the page's step. ...")."""
    c = factor.value
    if abs(c + 1) <= 1e-7:
        return "the engine's with its sign flipped", ""
    a, minus = abs(c), ("minus " if c < 0 else "")
    said = "twice" if abs(a - 2) <= 1e-12 else "half" if abs(a - 0.5) <= 1e-12 else f"{fraction(a)} times"
    words = f"{minus}{said} the engine's"
    if factor.hard_coded is not None:  # the page's size where this case's belongs: a number written into the code
        size, page, here = factor.hard_coded.hard_coded, fraction(factor.page), fraction(factor.here)
        return words, (
            f"{fraction(a)} is {factor.hard_coded.name}: {size} is {here} in this case and {page} in the page's step."
            f" Is {page} written where {size} belongs?"
        )
    if factor.sizes:
        words += f" ({fraction(a)} is {' or '.join(factor.sizes)} here)"
    return words, ""


def times(c: float, sizes: dict[str, Any], defaults: dict[str, Any]) -> tuple[str, str]:
    """said_times() of the factor c, named among these sizes."""
    return said_times(named(c, sizes, defaults))


def _aside(text: str) -> str:
    return f".\n {text}" if text else ""


def _results(r: f.Results) -> str:
    """The results wrong, in the piece's order: "dqs and dks", or "every result"."""
    if len(r.wrong) == len(r.of) > 2:
        return "every result"
    return _and([p for p in r.of if p in r.wrong])


def _group(g: f.Groups, key: int) -> str:
    n, grouping = g.naming, g.grouping
    own_axis = grouping.name == n.layout.axes[n.part][grouping.axis]
    note = n.layout.note(n.facts, n.part, grouping.axis, key) if own_axis else ""
    return f"{grouping.name} {key}{note}"


def _groups(g: f.Groups) -> str:
    """One group by its name and note, or several: "positions 4 to 6"."""
    return _group(g, g.keys[0]) if len(g.keys) == 1 else some(g.grouping.name, g.keys, g.count)


def only_used_by(only: Sequence[str], wrong: Sequence[str]) -> str:
    """What, in the rule, only the wrong results use: where a slip that spares the others must be ("" if nothing)."""
    if not only:
        return ""
    them = "it uses" if len(wrong) == 1 else "they use"
    listed = only[0] if len(only) == 1 else "; ".join(only[:-1]) + "; or " + only[-1]
    which = f", one of these {len(only)}" if len(only) > 1 else ""
    return f"So the slip is in something {them} and the others do not{which}: {sentence(listed)}"


GUESSES = {guess: f"{guess.value}?" for guess in f.Guess}

# ---------------------------------------------------------------- each kind of finding

Wording = Callable[[Any], str]
_WORDS: dict[type, Wording] = {}
F = TypeVar("F", bound=f.Finding)


def _words(kind: type[F]) -> Callable[[Callable[[F], str]], Callable[[F], str]]:
    def register(function: Callable[[F], str]) -> Callable[[F], str]:
        _WORDS[kind] = function
        return function

    return register


def word(finding: f.Finding) -> str:
    """A finding's words: its lines, joined by "\\n "."""
    for kind in type(finding).__mro__:
        if kind in _WORDS:
            return _WORDS[kind](finding)
    raise TypeError(f"no words for {type(finding).__name__}")


@_words(f.SharedRows)
def _(x: f.SharedRows) -> str:
    which = "all its rows are" if x.rows is None else f"rows {x.rows[0]} and {x.rows[1]} are"
    return (
        f"{x.part}: {which} one and the same list object, so adding into one row adds into all.\n"
        " [[0.0] * n] * m repeats one row m times; make each row its own list: [[0.0] * n for _ in range(m)]."
    )


@_words(f.RowsOfOneList)
def _(x: f.RowsOfOneList) -> str:
    what = f"{x.name}'s rows are" if x.name else "the rows it makes are"
    then = (
        " Made so, yours agrees with the engine on every case."
        if x.right
        else " Made so, yours still differs from the engine's: that is not the only slip."
    )
    return (
        f"{what} one and the same list, in your line {x.line.line}:{_quoted(x.line)}\n"
        f" {x.code} repeats one row, so what is written into one row is in all of them.\n"
        f" Make each row its own list: {x.fix}.{then}"
    )


@_words(f.SwappedInCode)
def _(x: f.SwappedInCode) -> str:
    return (
        f"{x.a} and {x.b} are in each other's place, in your line {x.line.line}:{_quoted(x.line)}\n"
        " Exchanged, yours agrees with the engine on every case."
    )


@_words(f.Swapped)
def _(x: f.Swapped) -> str:
    what = "the numbers" if x.numbers else "the shape"
    return (
        f"{x.a} and {x.b} are swapped: your {x.a} has {what} of the engine's {x.b}, and your {x.b} of its {x.a}.\n"
        f" Return them in this order: {', '.join(x.order)}."
    )


@_words(f.Exchanged)
def _(x: f.Exchanged) -> str:
    also = _and(x.also)
    return (
        f"{x.a} and {x.b} have each other's numbers: your {x.a} is the engine's {x.b}, and your {x.b} its {x.a}."
        f"\n {also} {_is(x.also)} wrong too, so returning them in the other order would not be enough:"
        f" are the two exchanged before {also} {'uses' if len(x.also) == 1 else 'use'} them?"
    )


@_words(f.Reordered)
def _(x: f.Reordered) -> str:
    return (
        f"Your results are the engine's, in another order: yours are its {', '.join(x.theirs)}.\n"
        f" Return them in this order: {', '.join(x.order)}."
    )


@_words(f.KnownSlip)
def _(x: f.KnownSlip) -> str:
    return f"{_results(x.results)}: {x.hint}" if len(x.results.of) > 1 else x.hint


@_words(f.NotAList)
def _(x: f.NotAList) -> str:
    return f"{x.what} should be a list of {x.length}, not a {x.type}."


@_words(f.WrongLength)
def _(x: f.WrongLength) -> str:
    entries = "1 entry" if x.length == 1 else f"{x.length} entries"
    said = f"{x.what} has {entries} where the engine's has {x.engine} (its shape: {x.shape})."
    if x.filtered:
        said += (
            "\n That is one entry for each nonzero entry of the engine's: a filter (an if in the"
            " comprehension)\n where a mask belongs? Keep every entry, with 0 where the engine's is 0."
        )
    return said


@_words(f.NotANumber)
def _(x: f.NotANumber) -> str:
    return f"{x.what} is a {x.type}: return plain numbers (floats)."


@_words(f.NotFinite)
def _(x: f.NotFinite) -> str:
    return f"{x.what} is {x.value}."


@_words(f.PartsCount)
def _(x: f.PartsCount) -> str:
    return f"return {len(x.parts)} things, in this order: {', '.join(x.parts)}."


@_words(f.LengthIsASize)
def _(x: f.LengthIsASize) -> str:
    return (
        f"On {cases(x.cases)}, {x.part} has {x.size} entries, whatever its right length:\n"
        f" is {_possessive(x.part)} list made, or its loop run, over {x.size} where another size belongs?"
    )


def _possessive(what: str) -> str:
    """dz's; each row of d(table): its."""
    return "its" if " " in what else f"{what}'s"


LENGTHS = {
    "one": "holds one entry:\n is an append, or the return, indented where it runs once (after the loop, or in it)?",
    "one short": "is one entry short: a loop that stops one early?",
    "one more": "has one entry too many: a loop that runs one past the end?",
    "square": (
        "has the engine's length squared, an entry for every pair:\n"
        " two for clauses in one comprehension, or an append inside an inner loop?"
    ),
    "flat": "is one flat list: are the brackets that make each row a list left out?",
}


@_words(f.LengthPattern)
def _(x: f.LengthPattern) -> str:
    return f"On {cases(x.cases)}, {x.part} {LENGTHS[x.kind]}"


@_words(f.WrongShape)
def _(x: f.WrongShape) -> str:
    lines = [f"shape: {word(x.problem)}"]
    flat = x.pattern is not None and x.pattern.kind == "flat" and isinstance(x.problem, f.WrongLength)
    if flat and isinstance(x.problem, f.WrongLength) and " x " in x.problem.shape:  # a length against a row count
        rows, columns = x.problem.shape.split(" x ")[:2]
        p = x.problem
        lines = [f"shape: {p.what} is one flat list of {p.length} numbers; the engine's is {rows} rows of {columns}."]
    if x.size is not None:
        lines.append(word(x.size))
    if x.pattern is not None:
        lines.append(word(x.pattern))
    if x.raised_on:
        lines.append(f"On {cases(x.raised_on)}, your function raised {_or(x.errors)}.")
    return "\n ".join(lines)


@_words(f.OneList)
def _(x: f.OneList) -> str:
    return (
        f"{x.a} and {x.b} are one and the same list object, so what is written into one is in"
        f" both.\n a = b = [...] gives one list two names; make each its own list."
    )


@_words(f.AllHold)
def _(x: f.AllHold) -> str:
    return (
        f"{_and(x.holders)} all hold the numbers of the engine's {x.of}.\n"
        f" Is one list shared by them, or by what they are computed from (a = b = [...] gives one list two names),"
        f" so that what is written last is in all of them?"
    )


@_words(f.Copied)
def _(x: f.Copied) -> str:
    return (
        f"{x.part}: yours is the engine's {x.other}, number for number.\n"
        f" Is {x.part} computed from what {x.other} uses (a line copied, a name left unchanged,"
        " or one list with two names: a = b = [...])?"
    )


@_words(f.AllZero)
def _(x: f.AllZero) -> str:
    return f"{x.part}: every entry of yours is 0."


@_words(f.NearlyZero)
def _(x: f.NearlyZero) -> str:
    return f"{x.part}: every entry of yours is 0, or all but: {x.largest:.1e} at most."


@_words(f.ConstantFactor)
def _(x: f.ConstantFactor) -> str:
    words, aside = said_times(x.factor)
    return sentence(f"{x.part}: every entry is {words}{_aside(aside)}")


@_words(f.ConstantOffset)
def _(x: f.ConstantOffset) -> str:
    sign = "plus" if x.amount > 0 else "minus"
    return f"{x.naming.part}: every entry is the engine's {sign} {_value(x.naming, abs(x.amount))}."


@_words(f.Rounded)
def _(x: f.Rounded) -> str:
    return (
        f"{x.part}: every entry of yours is the engine's rounded to {x.decimals} decimals.\n"
        " Round only what you print: a gradient rounded is wrong in every digit after those."
    )


@_words(f.Estimate)
def _(x: f.Estimate) -> str:
    within = f"1e{round(math.log10(x.within))}"
    return (
        f"{x.part}: close, but not exact: every entry is within {within} × the largest entry of the engine's,\n"
        f" yet not within {RTOL_SHOWN}. A numerical estimate (finite differences)? The rule gives the exact numbers."
    )


@_words(f.FloorDivision)
def _(x: f.FloorDivision) -> str:
    return (
        f"{x.part}: yours are whole numbers where the engine's are fractions, each the engine's rounded down:\n"
        " a // (floor division) where / belongs?"
    )


@_words(f.WholeNumbers)
def _(x: f.WholeNumbers) -> str:
    if x.mask:
        said = "only 0s and 1s: a mask (or a local gradient) alone"
    else:
        said = f"only whole numbers ({_and([fraction(v) for v in x.values])}): counts, not gradients"
    return f"{x.part}: yours holds {said}.\n Multiply by the gradient that arrives, g."


@_words(f.TimesArgument)
def _(x: f.TimesArgument) -> str:
    how = f"times {x.argument}" if x.power > 0 else f"divided by {x.argument}"
    return (
        f"{x.part}: every entry is the engine's {how}, your argument, entry by entry:\n"
        f" a factor {x.argument} {'too many' if x.power > 0 else 'missing'}?"
    )


@_words(f.RunningSum)
def _(x: f.RunningSum) -> str:
    return (
        f"{x.part}: each entry of yours is the sum of the engine's up to it:\n"
        " is a running sum set to 0 once, before the loop, where each entry needs its own?"
    )


@_words(f.OneRow)
def _(x: f.OneRow) -> str:
    return (
        f"{x.part}: every row of yours is the same numbers, where the engine's rows differ: each is sum({x.summed})"
        f" times {x.times}.\n Is the whole sum of {x.summed} taken where the row's own entry of {x.summed} belongs?"
    )


@_words(f.SameFactor)
def _(x: f.SameFactor) -> str:
    words, aside = said_times(x.factor)
    each = "every entry of each is 0" if x.factor.value == 0 else f"each is {words}"
    said = f"{_and(x.wrong)}: {each}, and {_and(x.right)} {_is(x.right)} right."
    inside = aside or only_used_by(x.only, x.wrong)
    return said + (f"\n {inside}" if inside else "")


def _sum_of(part: str, names: Sequence[str], right: Sequence[str]) -> str:
    first = f"{_and(right)} {_is(right)} right, but " if right else ""
    return f"{part} is the sum of {_and(names)}.\n In yours, {first}"


@_words(f.TermInstead)
def _(x: f.TermInstead) -> str:
    right = [n for n in x.names if n != x.term]
    return sentence(f"{_sum_of(x.part, x.names, right)}in {x.term},\n {x.how}")


@_words(f.TermWeights)
def _(x: f.TermWeights) -> str:
    said, asides = [], []
    for name, weight in x.weights:
        many = " terms " in f"{name} "  # the average's other terms -w_t sum_(u != t) w_u gamma_u
        if weight.value == 0:
            said.append(f"{name} {'are' if many else 'is'} missing")
        elif abs(weight.value + 1) <= 1e-6:
            said.append(f"{name} {'have their' if many else 'has its'} sign flipped")
        else:
            words, aside = said_times(weight)
            said.append(f"{name} {'are' if many else 'is'} {words}")
            asides.append(aside)
    off = {name for name, _ in x.weights}
    right = [n for n in x.names if n not in off]
    aside = " ".join(a for a in asides if a)
    if len(x.names) > 2 and right:  # the term that differs first; its terms listed would hide it
        others = "its other terms are" if len(right) > 1 else f"its other term, {right[0]}, is"
        return sentence(f"{x.part}: in yours, {_and(said)};\n {others} right{_aside(aside)}")
    return sentence(f"{_sum_of(x.part, x.names, right)}{_and(said)}{_aside(aside)}")


@_words(f.OneTerm)
def _(x: f.OneTerm) -> str:
    how = {-1.0: "is missing", -2.0: "has its sign flipped", 1.0: "is counted twice"}[x.weight]
    edge = f" (the {x.edge})" if x.edge else ""
    return f"{x.part}: {x.what}; in yours, the term of {x.term}{edge} {how}."


@_words(f.TermsAtAnEnd)
def _(x: f.TermsAtAnEnd) -> str:
    each = x.each.format
    if x.last:  # missing: start on, and perhaps the terms that are 0 just before
        said = f"the terms of {each(k=x.start)} on are missing"
        if x.bound < x.start:
            said += (
                f" (the terms of {each(k=x.bound)} to {each(k=x.start - 1)} are 0 here, so the sum may stop as early"
                f" as {each(k=x.bound)})"
            )
    else:  # missing: those before start, and perhaps the terms that are 0 just after
        said = f"the terms before {each(k=x.start)} are missing"
        if x.bound > x.start:
            said += (
                f" (the terms of {each(k=x.start)} to {each(k=x.bound - 1)} are 0 here, so the sum may start as late"
                f" as {each(k=x.bound)})"
            )
    return f"{x.part}: {x.what}; in yours, {said}."


@_words(f.Shifted)
def _(x: f.Shifted) -> str:
    k, j = (1, 0) if x.step == 1 else (0, 1)
    sign = "-" if x.step == 1 else "+"
    name = x.axis
    return (
        f"{x.part}: shifted by one {name}: your {name} k holds the engine's {name} k{sign}1\n"
        f" (your {name} {k} is the engine's {name} {j}, and so on): an index off by one?"
    )


@_words(f.Reversed)
def _(x: f.Reversed) -> str:
    return (
        f"{x.part}: the engine's {plural(x.axis)} in the opposite order:"
        f" your {x.axis} 0 is its {x.axis} {x.length - 1}, and so on."
    )


@_words(f.PlusArgument)
def _(x: f.PlusArgument) -> str:
    c = x.factor.value
    if abs(c - 1) <= 1e-7:
        return f"{x.part}: yours is the engine's plus {x.argument}, your function's argument."
    if abs(c + 1) <= 1e-7:
        return f"{x.part}: yours is the engine's minus {x.argument}, your function's argument."
    _, aside = said_times(x.factor)
    return sentence(
        f"{x.part}: yours is the engine's plus {x.argument} (your argument) times {fraction(c)}{_aside(aside)}"
    )


@_words(f.OffsetButOne)
def _(x: f.OffsetButOne) -> str:
    n, sign = x.naming, ("plus", "minus")
    at = _at(n, x.index)
    said = (
        f"{n.part}: every entry but one is the engine's {sign[x.amount < 0]} {_value(n, abs(x.amount))};"
        f" at {at}, yours is the engine's {sign[x.there < 0]} {_value(n, abs(x.there))}."
    )
    if x.moved:
        said += f"\n The differences sum to 0: one amount moved between {at} and the others, spread evenly."
    return said


@_words(f.MeanSubtracted)
def _(x: f.MeanSubtracted) -> str:
    names = _and(x.arguments)
    return (
        f"{x.part}: yours is {names}, each times a number, plus one same amount at every entry ({x.amount:.4g});"
        f" the engine's is {names} alone, each times a number.\n Is a mean subtracted somewhere"
        f" ({_or([f'{a} - mean({a})' for a in x.arguments])}){x.note}?"
    )


@_words(f.NonzeroWhereZero)
def _(x: f.NonzeroWhereZero) -> str:
    g = x.groups.grouping
    if x.wrong_elsewhere:  # the other half of the story: wrong where the engine's is not 0 too, or right there
        if x.wrong_elsewhere == x.rest:
            said = f", and wrong at every other {g.name} too" if x.rest > 1 else f", and wrong at the other {g.name}"
        else:
            said = f", and wrong at {x.wrong_elsewhere} of the {x.elsewhere} {plural(g.name)} where it is not"
    elif x.rest:
        said = (
            f", and right at the other {x.rest} {plural(g.name)}"
            if x.rest > 1
            else f", and right at the other {g.name}"
        )
    else:
        said = ""
    why = f"\n The engine's is 0 there because {x.why[0].lower()}{sentence(x.why)[1:]}" if x.why else ""
    return f"{x.groups.naming.part}: nonzero at {_groups(x.groups)}, where the engine's is exactly 0{said}.{why}"


@_words(f.ZeroWhereNonzero)
def _(x: f.ZeroWhereNonzero) -> str:
    return f"{x.groups.naming.part}: yours is exactly 0 at {_groups(x.groups)}, where the engine's is not."


@_words(f.WhereSigns)
def _(x: f.WhereSigns) -> str:
    where = f"{x.argument} {x.sign}" + (" and the engine's is not 0" if x.moving else "")
    return f"{x.part}: wrong at exactly the {x.unit} where {where}, and right at the others."


@_words(f.Moved)
def _(x: f.Moved) -> str:
    n = x.naming
    said = f"{n.part}: the {_value(n, x.amount)} that belongs at {_at(n, x.at)} is at {_at(n, x.to)}"
    return said + (", its neighbour: an index off by one?" if x.near else ".")


def _there(how: f.There, n: f.Naming) -> str:
    if how.zero:
        return ", where yours is 0"
    if how.factor is not None:
        words, aside = said_times(how.factor)
        return f", where yours is {words}{_aside(aside)}"
    if how.plus is not None:
        return f", where yours is the engine's {'plus' if how.plus > 0 else 'minus'} {_value(n, abs(how.plus))}"
    return ""


@_words(f.RightAndWrong)
def _(x: f.RightAndWrong) -> str:
    bad, good, g = x.bad, x.good, x.bad.grouping
    what = f"only at {_group(bad, bad.keys[0])}" if len(bad.keys) == 1 else f"at {some(g.name, bad.keys, bad.count)}"
    if len(good.keys) == 1:
        right = _group(good, good.keys[0])
    else:
        right = f"the other {plural(g.name)}" if len(good.keys) > 4 else some(g.name, good.keys, good.count)
    if x.zeros.keys and len(good.keys) <= 4:  # right there too, where both are 0
        zeros = x.zeros.keys
        at = f"the other {plural(g.name)}" if len(zeros) > 4 else some(g.name, zeros, x.zeros.count)
        right += f", and 0 like the engine's at {at}"
    return sentence(f"{bad.naming.part}: wrong {what}{_there(x.how, bad.naming)}; right at {right}")


@_words(f.SomeResultsWrong)
def _(x: f.SomeResultsWrong) -> str:
    verb = ("is", "are")
    head = f"{_and(x.wrong)} {verb[len(x.wrong) > 1]} wrong and {_and(x.right)} {verb[len(x.right) > 1]} right."
    return f"{head}\n {only_used_by(x.only, x.wrong)}"


def _quoted(line: f.TheirLine) -> str:
    """A line of the reader's code, quoted under the sentence that names it."""
    return f"\n     {line.text}"


@_words(f.OneLine)
def _(x: f.OneLine) -> str:
    """The change, said as the reader's only where their code has it (microgpt.course.theirs): their expression
    where the rule's belongs, in their line; else as the rule's code changed, with their line for it quoted."""
    head = f"{_results(x.results)}: yours is what the rule gives with one change, in {x.role}:"
    guess = f": {GUESSES[x.guess]}" if x.guess is not None and x.guessed else ""
    theirs = x.theirs
    before, after = (theirs.before or x.before, theirs.after or x.after) if theirs else (x.before, x.after)
    if x.kind == "argument":
        how = sentence(f"as if {x.before} were {x.after}{guess}")
        return f"{_results(x.results)}: yours is what the rule gives with one change:\n {how}"
    if x.written:  # the page's number where a size belongs: said as theirs only where their code has it
        sizes = f"{x.size} is {x.here} in this case and {x.after} in the page's step."
        if theirs is not None and theirs.theirs:  # their expression (the number, or a size of theirs), their line
            sizes = f"{before} is {x.here} in this case and {x.after} in the page's step."
            where = f"in your line {theirs.line.line}"
            return f"{head}\n {theirs.theirs} where {before} belongs, {where}: {sizes}{_quoted(theirs.line)}"
        if x.number_in_code is False:  # no such number in their code: another size of that value, not a number
            return (
                f"{head}\n {x.after} where {x.before} belongs: {sizes}\n"
                f" No {x.after} is written in your code: is another size, {x.after} in the page's step too, used there?"
            )
        return f"{head}\n {x.after} where {x.before} belongs: {sizes} Is {x.after} written as a number?"
    if x.kind == "line":
        how = f"without the line {x.before}"
    elif x.left_out is not None:
        how = f"without {'the factor ' if x.left_out.factor else ''}{x.left_out.code}"
    elif theirs is not None and theirs.theirs:  # the reader's own expression, which the rule's makes right
        how = f"{theirs.theirs} where {before} belongs"
    else:
        how = f"{before} changed to {after}"
    if theirs is not None and theirs.theirs:  # found in their line: said as theirs, their line under it
        return f"{head}\n {how}, in your line {theirs.line.line}{guess or ':'}{_quoted(theirs.line)}"
    said = f"{head}\n {sentence(how + guess)}"
    if theirs is not None:
        said += f"\n In your code, that line is line {theirs.line.line}:{_quoted(theirs.line)}"
    return said


@_words(f.Substituted)
def _(x: f.Substituted) -> str:
    if x.kept_from is not None:
        kept = f" That is its value in case {x.kept_from}: is it kept from an earlier call?"
    elif x.rounded_down:
        kept = (
            f" On every case it misses, yours is {x.name} rounded down to a whole number:"
            " is a whole-number function (math.isqrt, int(), //) used where the exact value belongs?"
        )
    else:
        kept = f" So the slip is in {x.name}, in what it is computed from, or in a factor multiplied with it."
    theirs, computed = _apart(x.theirs, x.computed)
    return (
        f"{_results(x.results)}: yours is what the rule gives with another value for"
        f" {x.name}, {x.role}:\n {theirs} where the engine's is {computed}.{kept}"
    )


@_words(f.SomeRaised)
def _(x: f.SomeRaised) -> str:
    right = cases(x.right) if x.right else "no case"
    return (
        f"Right on {right}, wrong on {cases(x.wrong)}, and on {cases(x.raised)} your function raised {_or(x.errors)}."
    )


def _apart(a: float, b: float) -> tuple[str, str]:
    """Two numbers to 4 significant digits, or to as many more (up to 10) as show them different."""
    for digits in range(4, 11):
        shown = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if shown[0] != shown[1]:
            break
    return shown


def _sizes(sizes: Sequence[tuple[str, Sequence[Any]]]) -> str:
    return " and ".join(f"{s} is {_or([str(v) for v in values])}" for s, values in sizes)


def _ones(x: f.Cases) -> str:
    return "one" if len(x.wrong) == 1 else "ones"


@_words(f.WithTrait)
def _(x: f.WithTrait) -> str:
    with_ = _or(x.traits)
    said = f"Right on {cases(x.right)}, wrong on {cases(x.wrong)}, the only {_ones(x)} with {with_}"
    if x.sizes:  # a size sets them apart too: both are facts, and neither is guessed as the cause
        return f"{said}, and the only {_ones(x)} where {_sizes(x.sizes)}."
    return f"{said}."


@_words(f.PageSizes)
def _(x: f.PageSizes) -> str:
    if len(x.sizes) == 1:
        asked = f"is {x.sizes[0][0]} written as a number ({x.page[0]})"
    else:
        asked = f"is one of them written as a number ({_and([f'{s} = {v}' for (s, _), v in zip(x.sizes, x.page)])})"
    return (
        f"Right on {cases(x.right)}, wrong on {cases(x.wrong)}, where {_sizes(x.sizes)}:\n"
        f" {asked}, or a value kept from an earlier call?"
    )


@_words(f.LargerSizes)
def _(x: f.LargerSizes) -> str:
    right, wrong = cases(x.right), cases(x.wrong)
    if len(x.sizes) == 1:
        ((s, most),) = x.larger
        return (
            f"Right on {right}, wrong on {wrong}, where {_sizes(x.sizes)}, more than anywhere it is right:\n"
            f" is a list cut at {most} entries, or {s} written as a number?"
        )
    one = len(x.larger) == 1
    most_ = _and([f"{s} = {most}" for s, most in x.larger])
    return (
        f"Right on {right}, wrong on {wrong}, the only {_ones(x)} where {_sizes(x.sizes)};"
        f" {_and([s for s, _ in x.larger])} {'is' if one else 'are'} more there than anywhere it is right:\n"
        f" is a list cut at {'that size' if one else 'one of those sizes'}, or"
        f" {'it' if one else 'one of them'} written as a number ({most_})?"
    )


@_words(f.OwnSizes)
def _(x: f.OwnSizes) -> str:
    return f"Right on {cases(x.right)}, wrong on {cases(x.wrong)}, the only {_ones(x)} where {_sizes(x.sizes)}."


@_words(f.KeptBetweenCalls)
def _(x: f.KeptBetweenCalls) -> str:
    kept = "does your function keep something from an earlier call (a global, a default argument, a cache)?"
    if not x.same_sizes:
        return f"Right on {cases(x.right)}, wrong on {cases(x.wrong)}, and no one size sets those apart:\n {kept}"
    has = "has" if len(x.wrong) == 1 else "have"
    return f"Right on case 1, wrong on {cases(x.wrong)}, which {has} its sizes:\n {kept}"


@_words(f.LargestDifference)
def _(x: f.LargestDifference) -> str:
    lead = f"{x.naming.part}: the largest" if x.first else "The largest"
    if x.tolerance:  # the tolerance named as such: RTOL times the part's largest entry, both shown
        allowed = f"; the tolerance is {x.tolerance:.1e}, which is {RTOL_SHOWN} × {x.scale:.2g}"
        allowed += ", the size of the largest entry"
    else:
        allowed = "; the engine's is 0 everywhere, so only 0 agrees"
    said = f"{lead} difference is at {_at(x.naming, x.index)}: yours is {x.mine:.10g}, the engine's {x.engine:.10g}"
    return f"{said}\n (off by {abs(x.mine - x.engine):.1e}{allowed})."


@_words(f.CouldNotSay)
def _(x: f.CouldNotSay) -> str:
    return f"{x.part} differs from the engine's (the checker could not say how or where: {x.error})."


@_words(f.ChangedArguments)
def _(x: f.ChangedArguments) -> str:
    where = ""
    if x.at is not None:
        at, (was, now) = "".join(f"[{i}]" for i in x.at), _apart(x.was, x.now)
        where = f" ({x.arguments[0]}{at} was {was}, and is now {now})"
    which = f"argument {x.arguments[0]}" if len(x.arguments) == 1 else f"arguments {', '.join(x.arguments)}"
    return f"{x.function} changed its {which}{where}.\n Compute new lists instead: the caller's lists are still in use."


@_words(f.Raised)
def _(x: f.Raised) -> str:
    message = f": {x.message}" if x.message else ""
    lines = [f"{x.function} raised {x.error}{message}"]
    for line, function, source in x.frames:
        lines.append(f"at line {line}, in {function}" + (f": {source}" if source else ""))
    return "\n ".join(lines)


@_words(f.NotWritten)
def _(x: f.NotWritten) -> str:
    return f"✗ {x.function} is not written yet: line {x.line} raises NotImplementedError"


@_words(f.Accepted)
def _(x: f.Accepted) -> str:
    of = " of its part" if x.parts > 1 else ""
    return (
        f"✓ {x.function} agrees with the engine on all {x.cases} cases, every entry to within {RTOL_SHOWN}"
        f" × the largest entry{of}"
    )


@_words(f.Missed)
def _(x: f.Missed) -> str:
    return f"✗ case {x.case} of {x.of} ({x.label}):"
