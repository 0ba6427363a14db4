"""Numbers on the command line: written in ASCII digits, and read as a person wrote them.

Python's int() and float() read more than anyone types as a number: digits of other scripts (`٣`,
`३`, `３`), underscores (`1_000`), surrounding spaces, `nan` and `infinity`. The command line takes
a number only as the help shows one, so that what a script passes is what microgpt reads. Each
option's range is checked where its bounds are known (see main.py), and a refusal says the range.
"""

import argparse
import math
import re
import sys
from collections.abc import Callable

WHOLE = re.compile(r"[+-]?[0-9]+")
DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
# Python reads at most 4,300 digits into an int (sys.get_int_max_str_digits); no bound comes near this
MOST_DIGITS = 4000


def _rounded_down(x: float) -> str:
    """x to two significant digits, rounded toward zero, as typed: 1.7976931348623157e308 -> '1.7e308'."""
    mantissa, exponent = f"{x:.16e}".split("e")
    return f"{mantissa[:3]}e{int(exponent)}"


# The positive numbers a float holds, each end written so that, typed back, it is read as a number within:
# the largest float is 1.797...e308, so a refusal that said 1.8e308 would offer what is read as infinity
LARGEST = _rounded_down(sys.float_info.max)
SMALLEST = repr(math.ulp(0.0))


def whole_number(kind: str = "a whole number") -> Callable[[str], int]:
    """argparse's type for a whole number, ASCII digits and a sign at most; kind says its range in a refusal
    ('a whole number from 1 to 1,000,000,000')."""

    def read(text: str) -> int:
        if not WHOLE.fullmatch(text):
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: {kind} in ASCII digits (0-9) is expected")
        if len(text) > MOST_DIGITS:
            raise argparse.ArgumentTypeError(f"a number of {len(text):,} digits: {kind} is expected")
        return int(text)

    return read


def positive_number(example: str) -> Callable[[str], float]:
    """argparse's type for a positive number in ASCII digits, with a decimal point or an exponent (0.01, 1e-3),
    that a float holds (1e999 is refused, not read as infinity)."""

    def read(text: str) -> float:
        if not DECIMAL.fullmatch(text):
            raise argparse.ArgumentTypeError(
                f"invalid value {text!r}: a positive number in ASCII digits (0-9), such as {example}, is expected"
            )
        value = float(text)
        if not 0 < value < math.inf:  # negative or zero, or beyond what a float holds either way
            raise argparse.ArgumentTypeError(
                f"invalid value {text!r}: a positive number from {SMALLEST} to {LARGEST}, such as {example}, "
                "is expected"
            )
        return value

    return read
