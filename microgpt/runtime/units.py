"""Numbers as a person reads them: counts, sizes in bytes and durations, however large they get.

A crafted checkpoint or a mistyped flag can make a count of hundreds of digits: it is shown by its
order of magnitude, never as a wall of digits nor as a float that overflowed.
"""

import math

YEAR = 365 * 86400


def number(n: int, separator: str = "") -> str:
    """n in digits, or its order of magnitude when the digits would be a wall (a crafted checkpoint's)."""
    return f"{n:{separator}}" if n < 10**24 else f"about 10^{math.floor(math.log10(n))}"


def typed(n: int) -> str:
    """n as a person types it on the command line: its digits, with no separators, or, when they would be a
    wall (the command line reads up to 4,000), how many there are."""
    digits = str(abs(n))
    if len(digits) > 60:
        return f"a number of {len(digits):,} digits"
    return f"-{digits}" if n < 0 else digits


def counted(n: int, thing: str) -> str:
    """'1 step', '5,163 documents': a count and what it counts, in the plural but for one."""
    return f"{n:,} {thing}" if n == 1 else f"{n:,} {thing}s"


def size(n: float) -> str:
    """n bytes in decimal units, to three significant digits: 1,600,000 -> '1.6 MB'."""
    for power, unit in enumerate(("bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")):
        if n < 1000 ** (power + 1):
            return f"{n / 1000**power:.3g} {unit}"
    return f"{number(int(n))} bytes"


def duration(seconds: float) -> str:
    """A time in the largest unit that keeps it at 1 or more: '0.09 s', '45 s', '3.2 h', '12 days'."""
    units = (("years", YEAR), ("days", 86400), ("h", 3600), ("min", 60))
    unit, length = next(((unit, length) for unit, length in units if seconds >= length), ("s", 1))
    n = seconds / length
    if n >= 10**6:
        return f"about 10^{math.floor(math.log10(n))} {unit}"
    return f"{n:.2g} {unit}" if n < 10 else f"{n:,.0f} {unit}"


def repeated(count: int, each: float, plus: float = 0.0) -> str:
    """How long `count` runs of `each` seconds take, and `plus` seconds besides (duration()), for any whole
    count: even one of 400 digits, whose product with a float would overflow."""
    if count <= 0 or each <= 0:
        return duration(plus)
    log = math.log10(count) + math.log10(each)  # math.log10 takes a whole number of any size
    if log < 15:
        return duration(count * each + plus)
    return f"about 10^{math.floor(log - math.log10(YEAR))} years"
