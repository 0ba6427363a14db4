"""What the tests of the GPT chapter's backward rules share (against central differences, and against
PyTorch): the rules as the pages show them, and random inputs for them. A helper, not a test."""

from __future__ import annotations

import random
from collections.abc import Callable

from microgpt.course import pieces
from microgpt.course.capstone import NAMES

RULES = NAMES  # every piece of the capstone, written once in microgpt/course/capstone.py


def shown_rules() -> dict[str, Callable]:
    """Each rule as the chapter's pages show it: they embed these functions as the exercises' solutions."""
    return {name: getattr(pieces, name) for name in RULES}


def vector(rng: random.Random, n: int, std: float = 1.0) -> list[float]:
    return [rng.gauss(0, std) for _ in range(n)]
