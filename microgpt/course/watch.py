"""The reader's pieces inside the capstone's backward: what stops it, and which piece differs first.

Guard: in every backward, each piece of the reader's that raises, or returns an answer of the wrong shape,
stops it with a PieceError naming the piece and its call, before any other code could fail on what it
returned. A piece is judged on the inputs it was given: when the solution cannot use those inputs either,
the piece of the reader's that gave them is named instead.

Watch: in capstone.first_difference(), each piece of the reader's, called, runs beside the solution on the
same inputs, and the first thing that differs is kept, in words:
- a piece's answer differs from the solution's (said as its checker says it);
- a piece of the reader's calls another with arguments the solution would not pass (the caller is named,
  never the piece called: a piece given wrong inputs is not judged on them);
- a piece changes its arguments, or an answer it returned earlier.
Each call is named as loss_and_grads() makes it ("head 1 at position 6"): a call a piece of the reader's
makes is named by the solution's call with the same arguments, found by running the solution on the
caller's inputs first.
"""

import functools
import math
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from microgpt.course import pieces as solutions
from microgpt.course.checkers import PIECES
from microgpt.course.checking import Case, as_parts, miss_in, readers_frames, shape_problem
from microgpt.course.diagnosis import agrees, entries, shape
from microgpt.course.kept import HELPERS

ARGUMENTS_RTOL = 1e-9  # a call's arguments are the solution's if each entry is within this of its argument's largest


class PieceError(Exception):
    """A piece of the reader's raised, or returned an answer of the wrong shape (or passed another piece
    arguments it could not use), inside the capstone's backward: the message names it and its call."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def stopped(name: str, what: str, call: str) -> PieceError:
    """The error that stops the backward at a piece of the reader's, in words."""
    return PieceError(name, f"{name}, a piece of yours, {what}, in its call {call}.")


# The shape of each piece's answer, from its arguments: (rows, columns) or (length,) for each part
SHAPES: dict[str, Callable[..., tuple[tuple[int, ...], ...]]] = {
    "cross_entropy_backward": lambda p, target, T: ((len(p),),),
    "linear_backward": lambda x, w, g: ((len(g), len(x)), (len(x),)),
    "relu_backward": lambda h, g: ((len(h),),),
    "rmsnorm_backward": lambda x, g: ((len(x),),),
    "softmax_backward": lambda w, gamma: ((len(w),),),
    "attention_head_backward": lambda qs, ks, vs, gs: ((len(qs), len(qs[0])),) * 3,
    "attention_backward": lambda xs, wq, wk, wv, wo, n_head, gs: (
        (len(xs), len(xs[0])),
        *((len(w), len(w[0])) for w in (wq, wk, wv, wo)),
    ),
    "embedding_backward": lambda rows, used, grads: ((rows, len(grads[0])),),
}


def calling(backward: Callable, helpers: dict[str, Callable]) -> Callable:
    """The same function, but the helpers it calls by these global names are the given ones."""
    code = getattr(backward, "__code__", None)
    if code is None or not helpers:
        return backward
    globals_ = {**backward.__globals__, **helpers}
    return types.FunctionType(code, globals_, code.co_name, backward.__defaults__, backward.__closure__)


def solution(name: str, helpers: dict[str, Callable] | None = None) -> Callable:
    """The solution's piece, calling these helpers in place of the solutions' (none: the solutions')."""
    return calling(getattr(solutions, name), helpers or {})


# ---------------------------------------------------------------- every backward: the guard


class Guard:
    """Stops the backward at the first piece of the reader's that raises or returns the wrong shape."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}  # each piece's calls so far, to name a call
        self.running: list[tuple[str, int, tuple]] = []  # the reader's pieces running now (callers first): calls

    def wrapped(self, name: str, backward: Callable) -> Callable:
        @functools.wraps(backward)
        def guarded(*args: Any) -> Any:
            k = self.counts[name] = self.counts.get(name, 0) + 1
            self.running.append((name, k, args))
            try:
                answer = backward(*args)
            except PieceError:
                raise
            except Exception as error:
                raise self._stop(name, k, args, raised(error)) from error
            finally:
                self.running.pop()
            problem = shape_of(name, args, answer)
            if problem:
                raise self._stop(name, k, args, problem)
            return answer

        return guarded

    def _stop(self, name: str, k: int, args: tuple, what: str) -> PieceError:
        """The piece that failed; or, if the solution cannot use its arguments either, the reader's piece that
        gave them."""
        if self.running and not usable(name, args):
            caller, its_k, its_args = self.running[-1]
            gave = f"gave {name} arguments the solution's {name} cannot use either ({sizes(name, args)})"
            return stopped(caller, gave, _numbered(caller, its_k, its_args))
        return stopped(name, what, _numbered(name, k, args))


def _numbered(name: str, k: int, args: tuple) -> str:
    """A call named by its number, and its sizes: "number 3 (T = 7, d_h = 4)"."""
    try:
        sizes = PIECES[name].sizes(*args)
    except Exception:  # noqa: BLE001 (arguments it cannot size: the call is named by its number alone)
        return f"number {k}"
    said = ", ".join(f"{s} = {v}" for s, v in sizes.items() if isinstance(v, int))
    return f"number {k} ({said})"


def raised(error: BaseException) -> str:
    """What a piece raised, and where in the reader's code: "raised IndexError (...) at line 4"."""
    frames = readers_frames(error)
    at = f" at line {frames[-1].line}" if frames else ""
    said = f" ({error})" if str(error) else ""
    return f"raised {type(error).__name__}{said}{at}"


def shape_of(name: str, args: tuple, answer: Any, expected: Any = None) -> str:
    """Why the answer cannot be the piece's answer to these arguments (its parts, a length), or "".

    expected: the solution's answer to the same arguments, whose shape is the right one; else the shape is
    the one SHAPES gives."""
    parts = PIECES[name].parts
    try:
        mine = as_parts(answer, parts)
    except ValueError as error:
        count = len(answer) if isinstance(answer, (tuple, list)) else 1
        return f"returned {count} things where {str(error).removeprefix('return ')}"
    if expected is None:
        try:
            shapes = SHAPES[name](*args)
        except Exception:  # noqa: BLE001 (arguments too broken to have a shape)
            return f"was called with arguments it cannot answer ({sizes(name, args)})"
    else:
        shapes = tuple(shape(e) or () for e in as_parts(expected, parts))
    for part, m, s in zip(parts, mine, shapes):
        problem = None if _fits(m, s) else shape_problem(m, _zeros(s), part)
        if problem:
            return "returned an answer of the wrong shape: " + problem.rstrip(".").replace(
                "the engine's", "the solution's"
            )
    return ""


def _fits(value: Any, shape: tuple[int, ...]) -> bool:
    """Quickly: is value a nested list of this shape, of finite numbers? (False: shape_problem() says why, if it
    is not.)"""
    if not shape:
        return type(value) in NUMBERS and math.isfinite(value)
    if not isinstance(value, (list, tuple)) or len(value) != shape[0]:
        return False
    if len(shape) == 1:
        return set(map(type, value)) <= NUMBERS and math.isfinite(sum(value))
    return all(_fits(row, shape[1:]) for row in value)


NUMBERS = {float, int}  # (not bool: True is not a gradient)


def _zeros(shape: tuple[int, ...]) -> Any:
    return [_zeros(shape[1:]) for _ in range(shape[0])] if shape else 0.0


def usable(name: str, args: tuple) -> bool:
    """Can the solution use these arguments: does it return, without raising, an answer of the shape they call for?"""
    try:
        return not shape_of(name, args, solution(name)(*copied(args)))
    except Exception:  # noqa: BLE001 (the solution raised on them, or they have no shape to call for)
        return False


def sizes(name: str, args: tuple) -> str:
    """Each argument's size in words: "w: 7 entries, gamma: 1 entry"."""
    return ", ".join(f"{arg}: {_size(value)}" for arg, value in zip(PIECES[name].arguments, args))


def _size(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(row, (list, tuple)) for row in value):
            widths = sorted({len(row) for row in value})
            return f"{len(value)} x {widths[0]}" if len(widths) == 1 else f"{len(value)} rows of {widths} entries"
        return f"{len(value)} {'entry' if len(value) == 1 else 'entries'}"
    return repr(value)


def copied(value: Any) -> Any:
    """A copy of nested lists and tuples (their numbers are shared: they cannot change)."""
    if isinstance(value, list):
        return [copied(v) for v in value]
    if isinstance(value, tuple):
        return tuple(copied(v) for v in value)
    return value


def close(mine: Any, theirs: Any, rtol: float) -> bool:
    """The same nesting and lengths, and each number within rtol of the largest of theirs."""
    if mine == theirs:  # (at C's speed: most calls of a right piece)
        return True
    pairs: list[tuple[Any, Any]] = []
    if not _pair(mine, theirs, pairs):
        return False
    scale = max((abs(b) for _, b in pairs if isinstance(b, (int, float)) and math.isfinite(b)), default=0.0)
    return all(a == b or (a != a and b != b) or abs(a - b) <= rtol * scale for a, b in pairs)  # nan is nan


def _pair(a: Any, b: Any, pairs: list[tuple[Any, Any]]) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_pair(x, y, pairs) for x, y in zip(a, b))
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    if numbers:
        pairs.append((a, b))
        return True
    return a == b


# ---------------------------------------------------------------- first_difference(): the watch


@dataclass
class Call:
    """A call of a piece: its name in loss_and_grads()'s words, and its arguments."""

    name: str
    label: str
    args: tuple


@dataclass
class Scope:
    """Where calls of pieces are made: the backward itself, or one call of a piece that calls others.

    For a call of the reader's piece: theirs, the calls the solution makes on the same inputs (named), to
    name each call the reader's piece makes by the solution's with the same arguments; wrong, the first call
    it made with arguments the solution's would not pass, in words. For the backward itself and the
    solution's runs: T and the matrices, to name calls by counting them.
    """

    name: str
    label: str
    T: int
    matrices: dict[int, str] = field(default_factory=dict)  # id -> the matrix's name
    theirs: list[Call] | None = None
    counts: dict[str, int] = field(default_factory=dict)
    wrong: str = ""

    def named(self, name: str, args: tuple) -> str:
        """The next call of this piece in this scope, named by counting (the solution's order)."""
        matrix = self.matrices.get(id(args[1]), "a matrix") if name == "linear_backward" else ""
        k = self.counts[name + matrix] = self.counts.get(name + matrix, -1) + 1
        T = self.T
        if name == "linear_backward":  # each matrix once a position, in order
            return f"{matrix} at position {k}"
        if name == "softmax_backward":  # inside one head, position by position; else each head in turn
            return (
                f"{self.label} at position {k}"
                if self.name == "attention_head_backward"
                else f"head {k // T} at position {k % T}"
            )
        if name == "rmsnorm_backward":  # the MLP's, position by position; then attention's and the first, in turn
            if k < T:
                return f"the RMSNorm before the MLP at position {k}"
            j = k - T
            return f"{'the RMSNorm before attention' if j % 2 == 0 else 'the first RMSNorm'} at position {j // 2}"
        if name == "attention_head_backward":
            return f"head {k}"
        if name == "attention_backward":
            return f"all {T} positions"
        if name == "embedding_backward":
            return "wte" if k == 0 else "wpe"
        return f"position {k}"  # cross_entropy_backward and relu_backward: once a position

    def place(self, name: str, args: tuple) -> tuple[str, str]:
        """The call, named; and "", or how its arguments differ from those of the solution's call."""
        if self.theirs is None:
            return self.named(name, args), ""
        k = self.counts[name] = self.counts.get(name, -1) + 1  # (the reader's calls are counted apart)
        theirs = [call for call in self.theirs if call.name == name]
        same = theirs[k] if k < len(theirs) else None
        if same is not None and _same_arguments(args, same.args):
            return same.label, ""
        match = next((call for call in theirs if _same_arguments(args, call.args)), None)
        if match is not None:
            return match.label, ""
        if same is None:
            its = f"your {self.name}'s call number {k + 1}"
            return its, f"it calls {name} more than the {len(theirs)} times the solution's does"
        how = how_arguments_differ(name, args, same.args)
        return same.label, f"its call of {name} for {same.label} is not the solution's:\n {how}"


def _same_arguments(mine: tuple, theirs: tuple) -> bool:
    return len(mine) == len(theirs) and all(close(a, b, ARGUMENTS_RTOL) for a, b in zip(mine, theirs))


def how_arguments_differ(name: str, mine: tuple, theirs: tuple) -> str:
    """The first argument that differs from the solution's, and how: its shape, or its largest difference."""
    for arg, a, b in zip(PIECES[name].arguments, mine, theirs):
        problem = shape_problem(a, b, arg)
        if problem:
            return problem.replace("the engine's", "the solution's")
        if not close(a, b, ARGUMENTS_RTOL):
            (index, x), (_, y) = max(zip(entries(a), entries(b)), key=lambda e: abs(e[0][1] - e[1][1]))
            at = "".join(f"[{i}]" for i in index)
            return f"{arg}{at} is {x:.10g} where the solution's is {y:.10g}."
    return f"it makes {len(mine)} arguments where the solution's makes {len(theirs)}."


class Watch:
    """While first_difference() runs the backward: each of the reader's pieces, called, beside the solution on
    the same inputs; the first thing that differs is kept in found, in words (and in suspect, the first answer
    a piece changed after returning it: harmless unless the gradients differ)."""

    def __init__(self, sd: dict[str, list[list[float]]], T: int) -> None:
        matrices = {id(m): name.removeprefix("layer0.") for name, m in sd.items()}
        self.scopes = [Scope("", "", T, matrices)]  # the scopes calls are made in now, innermost last
        self.found = ""
        self.suspect = ""  # an answer changed after it was returned: it matters if anything differs after
        self.answers: dict[str, tuple[str, Any, Any]] = {}  # each piece's last answer: its call, it, a copy

    def wrapped(self, name: str, backward: Callable) -> Callable:
        @functools.wraps(backward)
        def watched(*args: Any) -> Any:
            if self.found:  # the first is found: the rest of the backward only runs to its end
                return backward(*args)
            scope = self.scopes[-1]
            label, wrong = scope.place(name, args)
            given = copied(args)  # what the piece was given, before it could change it
            expected, theirs = self._solutions(name, label, given)
            earlier = self._earlier(name)
            inner = Scope(name, label, _positions(name, given), theirs=theirs)
            self.scopes.append(inner)
            try:
                answer = backward(*args)
            except PieceError:
                raise
            except Exception as error:
                raise self._stop(name, label, wrong, scope, inner, raised(error)) from error
            finally:
                self.scopes.pop()
            self._keep(self._changed(name, label, args, given))
            self.suspect = self.suspect or self._changed_answer(name, label, earlier)
            if wrong:  # given wrong inputs, a piece is not judged on them: the caller passed them
                scope.wrong = scope.wrong or wrong
                if shape_of(name, given, answer):
                    raise self._stop(name, label, wrong, scope, inner, "")
            elif expected is not None:
                problem = shape_of(name, given, answer, expected)
                if problem:
                    raise self._stop(name, label, wrong, scope, inner, problem)
                if not self.found:
                    self._keep(self._differs(inner, given, answer, expected))
            self.answers[name] = (label, answer, copied(answer))
            return answer

        return watched

    def _keep(self, found: str) -> None:
        """Keep what was found, unless something was found before; an answer changed earlier comes first."""
        if found:
            self.found = self.found or self.suspect or found

    def _solutions(self, name: str, label: str, given: tuple) -> tuple[Any, list[Call]]:
        """The solution's answer to these arguments (None if it cannot answer them), and the calls it makes of
        other pieces, named."""
        calls: list[Call] = []
        scope = Scope(name, label, _positions(name, given))
        if name == "attention_backward":
            scope.matrices = {id(m): f"attn_w{c}" for m, c in zip(given[1:5], "qkvo")}

        def recording(helper: str) -> Callable:
            run = solution(helper, {h: recording(h) for h in HELPERS.get(helper, ())})

            def record(*args: Any) -> Any:
                calls.append(Call(helper, scope.named(helper, args), copied(args)))
                return run(*args)

            return record

        try:
            answer = solution(name, {h: recording(h) for h in HELPERS.get(name, ())})(*given)  # it changes none
        except Exception:  # noqa: BLE001 (inputs the solution cannot use: a caller of the reader's passed them)
            return None, calls
        return answer, calls

    def _earlier(self, name: str) -> tuple[str, Any, Any] | None:
        """The piece's last answer, if it is still as it was returned (else its caller changed it: not this piece)."""
        last = self.answers.get(name)
        return last if last is not None and last[1] == last[2] else None  # (a copy shares its numbers: nan is nan)

    def _changed(self, name: str, label: str, args: tuple, given: tuple) -> str:
        """What the call changed of its arguments, in words; or ""."""
        for arg, now, was in zip(PIECES[name].arguments, args, given):
            if now != was:  # (a copy shares its numbers: an unchanged nan is the same nan)
                return (
                    f"{name}, a piece of yours, changed its argument {arg} in its call for {label}"
                    f"{_entry(arg, was, now)}.\n Compute new lists instead: a caller may still use the lists it passed."
                )
        return ""

    def _changed_answer(self, name: str, label: str, earlier: tuple[str, Any, Any] | None) -> str:
        """Whether the call changed the answer the piece returned before, in words; or ""."""
        if earlier is None or earlier[1] == earlier[2]:
            return ""
        return (
            f"{name}, a piece of yours, changed the answer it returned in its call for {earlier[0]},\n"
            f" during its call for {label}{_entry('it', earlier[2], earlier[1])}.\n"
            " Return new lists from each call: a caller may still use an answer it was given."
        )

    def _differs(self, scope: Scope, given: tuple, answer: Any, expected: Any) -> str:
        """How a piece's answer differs from the solution's on the same inputs, as its checker says it; or "".
        A piece that called another with arguments the solution's would not pass is told so instead."""
        piece = PIECES[scope.name]
        if answer == expected:  # (at C's speed: most calls of a right piece)
            return ""
        mine = as_parts(answer, piece.parts)
        case = Case(scope.label, given, as_parts(expected, piece.parts))
        if all(agrees(m, e, scale) for m, e, scale in zip(mine, case.engine, case.scales)):
            return ""
        if scope.wrong:
            return _first(scope.name, scope.label, scope.wrong)
        miss = miss_in(piece, case, mine)
        if miss is None:
            return ""
        return _first(scope.name, scope.label, miss[0].replace("the engine's", "the solution's"))  # here: the solution

    def _stop(self, name: str, label: str, wrong: str, scope: Scope, inner: Scope, what: str) -> PieceError:
        """The piece to blame for a call that raised or gave the wrong shape: the caller, if it passed wrong
        arguments; else the piece, or (for one that calls others) the call it made with wrong arguments."""
        if wrong:  # (the first call it made with wrong arguments)
            error = PieceError(scope.name, _first(scope.name, scope.label, scope.wrong or wrong))
        elif inner.wrong:
            error = PieceError(name, _first(name, label, inner.wrong))
        else:
            error = stopped(name, what, f"for {label}")
        self._keep(str(error))
        return error


def _positions(name: str, given: tuple) -> int:
    """T, for a scope whose calls are named by position and head: attention's (0 elsewhere: unused)."""
    return len(given[0]) if name == "attention_backward" else 0


def _first(name: str, label: str, said: str) -> str:
    return f"{name} is the first of your pieces to differ from the solution,\n in its call for {label}:\n {said}"


def _entry(arg: str, was: Any, now: Any) -> str:
    """The first entry that changed, in words ("" if it cannot be said by entry)."""
    for (index, a), (_, b) in zip(entries(was), entries(now)):
        if a != b and not (a != a and b != b):
            at = "".join(f"[{i}]" for i in index)
            return f" ({arg}{at} was {a:.4g}, and is now {b:.4g})" if isinstance(b, (int, float)) else ""
    return ""
