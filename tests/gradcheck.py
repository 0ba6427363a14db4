"""Central differences: the yardstick every gradient in the test suite is measured against."""

from collections.abc import Callable, Sequence


def central_difference(f: Callable[..., float], xs: Sequence[float], i: int, h: float = 1e-6) -> float:
    """d f / d xs[i] ≈ (f(.., x+h, ..) - f(.., x-h, ..)) / 2h, with error O(h²)."""
    up, down = list(xs), list(xs)
    up[i] += h
    down[i] -= h
    return (f(*up) - f(*down)) / (2 * h)
