"""What a number in a wrong answer could be: a size of the case, its root, one off, a ratio of two, or the page's size
where this case's belongs; and a ratio as a reader writes it (2, 1/2, 4/7).

A checker (microgpt.course.checking) finds a number (every entry of yours 7/6 times the engine's) and asks here
what it is (T/(T - 1)); the verdict's words (microgpt.course.wording) say it.
"""

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any


def fraction(x: float) -> str:
    """A ratio as a reader would write it: 2, 1/2, 4/7, or 0.2593."""
    f = Fraction(x).limit_denominator(64)
    if f.denominator > 1 and abs(float(f) - x) <= 1e-9 * max(1.0, abs(x)):
        return f"{f.numerator}/{f.denominator}"
    if abs(x - round(x)) <= 1e-9 * max(1.0, abs(x)):
        return str(round(x))
    return f"{x:.4g}"


@dataclass(frozen=True)
class Factor:
    """A number a factor could be: a size of the case, its root, a ratio of two sizes, or the page's size."""

    value: float
    name: str  # "T", "√d_h", "T/len(p)", "2"
    hard_coded: str = ""  # for the page's size where this case's belongs: the size's name


def _factors(sizes: dict[str, Any], defaults: dict[str, Any]) -> list[Factor]:
    """What a factor could be, the likeliest first: the case's sizes, their roots, one off, ratios of two."""
    found = [Factor(2.0, "2"), Factor(0.5, "1/2")]
    numeric = {k: float(v) for k, v in sizes.items() if isinstance(v, (int, float)) and v > 0}
    for name, s in numeric.items():
        found += [Factor(s, name), Factor(1 / s, f"1/{name}")]
        if not name.startswith("√") and f"√{name}" not in numeric:
            found += [Factor(math.sqrt(s), f"√{name}"), Factor(1 / math.sqrt(s), f"1/√{name}")]
    for name, s in numeric.items():
        d = defaults.get(name)
        if isinstance(d, (int, float)) and d > 0 and d != s:  # the page's size, written where this case's belongs
            found += [Factor(s / d, f"{name}/{fraction(d)}", name), Factor(d / s, f"{fraction(d)}/{name}", name)]
    for name, s in numeric.items():  # a size one off: T - 1 where T belongs
        if isinstance(sizes[name], int) and s > 1:
            found += [Factor(s / (s - 1), f"{name}/({name} - 1)"), Factor((s - 1) / s, f"({name} - 1)/{name}")]
            found += [Factor(s / (s + 1), f"{name}/({name} + 1)"), Factor((s + 1) / s, f"({name} + 1)/{name}")]
    for a, sa in numeric.items():
        for b, sb in numeric.items():
            if a != b and not a.startswith("√") and not b.startswith("√"):
                found.append(Factor(sa / sb, f"{a}/{b}"))
    return found


def factors(c: float, sizes: dict[str, Any], defaults: dict[str, Any]) -> list[Factor]:
    """What the factor |c| could be, the likeliest first (2, T, √d_h, T/7 ...); [] when nothing fits."""
    fits, names = [], set()
    for f in _factors(sizes, defaults):
        if abs(abs(c) - f.value) <= 1e-7 * f.value and f.name not in names:
            fits.append(f)
            names.add(f.name)
    return fits


@dataclass(frozen=True)
class Named:
    """A factor and what it is: the sizes it equals (not 2 or 1/2, which say themselves), or the page's size where
    this case's belongs."""

    value: float
    sizes: tuple[str, ...]  # the names of the sizes (or ratios, roots) it equals, the likeliest first
    hard_coded: Factor | None  # the page's size written where this case's belongs, if it is that
    here: Any = None  # that size's value in this case
    page: Any = None  # and in the page's step

    @property
    def said(self) -> bool:
        """Is it named: a sign, 2, 1/2, a size, or the page's size where this case's belongs?"""
        plain = any(abs(abs(self.value) - f) <= 1e-12 for f in (0.5, 1.0, 2.0))
        return plain or bool(self.sizes) or self.hard_coded is not None


def named(c: float, sizes: dict[str, Any], defaults: dict[str, Any]) -> Named:
    """The factor c, with the sizes it is."""
    if abs(c + 1) <= 1e-7:
        return Named(c, (), None)
    fits = [f for f in factors(abs(c), sizes, defaults) if f.name not in ("2", "1/2")]
    hard = [f for f in fits if f.hard_coded]
    if not hard:
        return Named(c, tuple(f.name for f in fits), None)
    size = hard[0].hard_coded
    return Named(c, tuple(f.name for f in fits), hard[0], sizes[size], defaults[size])


def nice(c: float, sizes: dict[str, Any], defaults: dict[str, Any]) -> bool:
    """A weight a slip gives a term: 0, a sign, or a factor that is a size."""
    return abs(c) <= 1e-6 or abs(abs(c) - 1) <= 1e-6 or bool(factors(c, sizes, defaults))
