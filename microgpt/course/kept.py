"""The pieces of gpt()'s backward a reader wrote, kept for the capstone for the rest of this Python session.

A piece's checker (microgpt.course.checkers) keeps a function it accepted (keep()); the capstone
(microgpt.course.capstone) uses it wherever the backward needs that piece, and the solution's (from
microgpt.course.pieces) where the reader wrote none. Pieces the reader wrote in an earlier session (the page
keeps their code) are offered (offer()) and run again, through their checker, the first time the capstone
asks for the pieces (take_offers()).
"""

import contextlib
import dis
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator

from microgpt.course import pieces as solutions

NAMES = (
    "cross_entropy_backward",
    "linear_backward",
    "relu_backward",
    "rmsnorm_backward",
    "softmax_backward",
    "attention_head_backward",
    "attention_backward",
    "embedding_backward",
)
HELPERS = {  # the pieces a piece calls by name, which the capstone hands it: the reader's where they wrote one
    "attention_head_backward": ("softmax_backward",),
    "attention_backward": ("linear_backward", "softmax_backward", "attention_head_backward"),
}
_yours: dict[str, Callable] = {}
_offered: dict[str, Callable[[], object]] = {}  # name -> what runs the reader's earlier piece again
_asked = [False]  # whether anything asked for the pieces since take_asked()


def offer(name: str, run_again: Callable[[], object]) -> None:
    """A piece the reader wrote before: run_again() runs its code and its checker, which keeps it if it passes.

    It runs the first time the pieces are asked for, unless the reader's checker has kept a piece of that
    name by then (the newer one wins).
    """
    if name not in NAMES:
        raise ValueError(f"no piece named {name!r}")
    if name not in _yours:
        _offered[name] = run_again


def take_offers() -> None:
    """Run what was offered (each through its checker), now that the pieces are asked for."""
    _asked[0] = True
    while _offered:
        _, run_again = _offered.popitem()
        run_again()


def take_asked() -> bool:
    """Whether the pieces were asked for (yours(), whose(), the capstone's pieces) since the last call."""
    asked, _asked[0] = _asked[0], False
    return asked


def piece(name: str) -> Callable:
    """The piece of this name in use now, the reader's or the solution's (nothing offered is run)."""
    return _yours.get(name, getattr(solutions, name))


def is_yours(name: str) -> bool:
    """Whether the piece of this name in use now is one the reader wrote."""
    return name in _yours


def keep(name: str, backward: Callable) -> None:
    """Use the reader's backward for this piece from now on (its checker accepted it)."""
    if name not in NAMES:
        raise ValueError(f"no piece named {name!r}")
    code = getattr(backward, "__code__", None)
    if code is None:
        _yours[name] = backward
        _offered.pop(name, None)
    elif not _is_solution(backward, getattr(solutions, name)):
        _offered.pop(name, None)
        # a copy with its own globals: the page's Python clears a block's namespace once the block has run
        _yours[name] = types.FunctionType(
            code, dict(backward.__globals__), name, backward.__defaults__, backward.__closure__
        )


@contextlib.contextmanager
def in_place_of_yours(tried: dict[str, Callable]) -> Iterator[None]:
    """Use these pieces as the reader's, in place of any kept under the same names, while the block runs; the
    reader's kept pieces come back after."""
    saved = dict(_yours)
    _yours.update(tried)
    try:
        yield
    finally:
        _yours.clear()
        _yours.update(saved)


@contextlib.contextmanager
def solutions_only() -> Iterator[None]:
    """Use the solution for every piece while the block runs; the reader's kept pieces come back after."""
    saved = dict(_yours)
    _yours.clear()
    try:
        yield
    finally:
        _yours.update(saved)


def _is_solution(backward: Callable, solution: Callable) -> bool:
    """Is this the page's solution, run as the page shows it? By its source where Python can find it
    (the page's Python records each block's lines), else by its instructions."""
    try:
        return textwrap.dedent(inspect.getsource(backward)) == textwrap.dedent(inspect.getsource(solution))
    except (OSError, TypeError):
        return _instructions(backward.__code__) == _instructions(solution.__code__)


def _instructions(code: types.CodeType) -> list:
    """What a function does, instruction by instruction, without line numbers: equal for equal source."""
    inner = [_instructions(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    ops = [
        # a code object's address, and a jump's offset (NOPs for line events move it), differ between compilations
        (i.opname, None if isinstance(i.argval, types.CodeType) or i.opcode in JUMPS else i.argval)
        for i in dis.get_instructions(code)
        if i.opname != "NOP"
    ]
    return ops + inner


JUMPS = set(dis.hasjump) if hasattr(dis, "hasjump") else set(dis.hasjrel) | set(dis.hasjabs)


def yours() -> list[str]:
    """The names of the pieces the reader wrote, in the chapter's order."""
    take_offers()
    return [name for name in NAMES if name in _yours]


def whose() -> str:
    """Which pieces are the reader's, in one line."""
    mine = ", ".join(yours()) or "none yet"  # yours() runs what was offered first
    theirs = ", ".join(name for name in NAMES if name not in _yours) or "none"
    return f"yours: {mine}\nthe solutions': {theirs}"
