"""The capstone: gpt()'s backward over a whole document from the chapter's pieces, on floats, and training with it.

The pieces a reader's checker accepted are kept here (keep()), for the rest of this Python session; every
piece a reader has not written is the solution's, from microgpt.course.pieces. Pieces the reader wrote in
an earlier session (the page keeps their code) are offered (offer()) and run again, through their checker,
the first time the capstone is asked for its pieces.

When the backward and the engine's disagree, first_difference() runs the solution beside each of the
reader's pieces, on the inputs that piece was given, and says which piece's output differs first, where
and how (as its checker would say it).
"""

import contextlib
import copy
import dis
import inspect
import math
import textwrap
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from microgpt.course import pieces as solutions
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.train import cyclic_gc_paused, train_step

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
HELPERS = {  # the pieces a piece calls by name, which pieces() hands it: the reader's where they wrote one
    "attention_head_backward": ("softmax_backward",),
    "attention_backward": ("linear_backward", "softmax_backward", "attention_head_backward"),
}
_yours: dict[str, Callable] = {}
_offered: dict[str, Callable[[], object]] = {}  # name -> what runs the reader's earlier piece again
_asked = [False]  # whether anything asked for the pieces since take_asked()
Floats = list[list[float]]


def offer(name: str, run_again: Callable[[], object]) -> None:
    """A piece the reader wrote before: run_again() runs its code and its checker, which keeps it if it passes.

    It runs the first time the pieces are asked for, unless the reader's checker has kept a piece of that
    name by then (the newer one wins).
    """
    if name not in NAMES:
        raise ValueError(f"no piece named {name!r}")
    if name not in _yours:
        _offered[name] = run_again


def _take_offers() -> None:
    _asked[0] = True
    while _offered:
        _, run_again = _offered.popitem()
        run_again()


def take_asked() -> bool:
    """Whether the pieces were asked for (yours(), whose(), pieces(), a backward) since the last call."""
    asked, _asked[0] = _asked[0], False
    return asked


def piece(name: str) -> Callable:
    """The piece of this name in use now, the reader's or the solution's (nothing offered is run)."""
    return _yours.get(name, getattr(solutions, name))


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


def pieces() -> dict[str, Callable]:
    """Each piece: the reader's where their checker accepted one, else the solution's.

    A piece that calls others (attention_backward calls linear_backward, softmax_backward and
    attention_head_backward, imported from the solutions in its exercise) is handed the ones in use here,
    so that the reader's run inside it too.
    """
    _take_offers()
    found: dict[str, Callable] = {}
    for name in NAMES:  # in the chapter's order: a piece's helpers come before it
        helpers = {helper: found[helper] for helper in HELPERS.get(name, ())}
        found[name] = _calling(piece(name), helpers)
        if name in _yours and _watch is not None:  # first_difference(): the solution beside it
            found[name] = _watch.watched(name, found[name], _calling(getattr(solutions, name), helpers))
    return found


def _calling(backward: Callable, helpers: dict[str, Callable]) -> Callable:
    """The same function, but the helpers it calls by these global names are the given ones."""
    code = getattr(backward, "__code__", None)
    if code is None or not helpers:
        return backward
    globals_ = {**backward.__globals__, **helpers}
    return types.FunctionType(code, globals_, code.co_name, backward.__defaults__, backward.__closure__)


def yours() -> list[str]:
    """The names of the pieces the reader wrote, in the chapter's order."""
    _take_offers()
    return [name for name in NAMES if name in _yours]


def whose() -> str:
    """Which pieces are the reader's, in one line."""
    mine = ", ".join(yours()) or "none yet"  # yours() runs what was offered first
    theirs = ", ".join(name for name in NAMES if name not in _yours) or "none"
    return f"yours: {mine}\nthe solutions': {theirs}"


def float_linear(x: list[float], w: Floats) -> list[float]:
    return [sum(wi * xi for wi, xi in zip(row, x)) for row in w]


def float_rmsnorm(x: list[float]) -> list[float]:
    scale = (sum(xi * xi for xi in x) / len(x) + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def float_softmax(z: list[float]) -> list[float]:
    e = [math.exp(v - max(z)) for v in z]
    return [v / sum(e) for v in e]


def float_attention(xs: Floats, sd: dict[str, Floats], n_head: int) -> Floats:
    """Causal attention over every position at once, as gpt() computes it one position at a time."""
    d_h = len(xs[0]) // n_head
    qs, ks, vs = ([float_linear(x, sd[f"layer0.attn_w{c}"]) for x in xs] for c in "qkv")
    outs = []
    for i, q in enumerate(qs):
        mixed: list[float] = []
        for h in range(n_head):
            hs = slice(h * d_h, (h + 1) * d_h)
            w = float_softmax([sum(a * b for a, b in zip(q[hs], k[hs])) / d_h**0.5 for k in ks[: i + 1]])
            mixed += [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
        outs.append(float_linear(mixed, sd["layer0.attn_wo"]))
    return outs


def loss_and_grads(config: GPTConfig, sd: dict[str, Floats], tokens: list[int]) -> tuple[float, dict[str, Floats]]:
    """The mean loss of one document and every matrix's gradient: gpt()'s forward and backward on floats, no graph."""
    if config.n_layer != 1:
        raise ValueError(f"the capstone follows a one-block model, not n_layer={config.n_layer}")
    p = pieces()
    T = len(tokens) - 1
    emb = [[a + b for a, b in zip(sd["wte"][tok], sd["wpe"][i])] for i, tok in enumerate(tokens[:T])]
    x0 = [float_rmsnorm(e) for e in emb]
    attn_in = [float_rmsnorm(x) for x in x0]
    x1 = [[a + b for a, b in zip(o, x)] for o, x in zip(float_attention(attn_in, sd, config.n_head), x0)]
    mlp_in = [float_rmsnorm(x) for x in x1]
    hidden = [float_linear(x, sd["layer0.mlp_fc1"]) for x in mlp_in]
    relu = [[max(0.0, v) for v in h] for h in hidden]
    x2 = [[a + b for a, b in zip(float_linear(r, sd["layer0.mlp_fc2"]), x)] for r, x in zip(relu, x1)]
    probs = [float_softmax(float_linear(x, sd["lm_head"])) for x in x2]
    loss = sum(-math.log(pr[tokens[i + 1]]) for i, pr in enumerate(probs)) / T

    grads = {name: [[0.0] * len(row) for row in m] for name, m in sd.items()}

    def add(name: str, dw: Floats) -> None:
        grads[name] = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(grads[name], dw)]

    dx1s = []
    for i in range(T):  # backwards through the output end and the MLP, position by position
        dz = p["cross_entropy_backward"](probs[i], tokens[i + 1], T)
        dw, dx2 = p["linear_backward"](x2[i], sd["lm_head"], dz)
        add("lm_head", dw)
        dw, drelu = p["linear_backward"](relu[i], sd["layer0.mlp_fc2"], dx2)  # mlp_out's gradient is x2's
        add("layer0.mlp_fc2", dw)
        dw, dmlp_in = p["linear_backward"](mlp_in[i], sd["layer0.mlp_fc1"], p["relu_backward"](hidden[i], drelu))
        add("layer0.mlp_fc1", dw)
        dx1s.append([a + b for a, b in zip(dx2, p["rmsnorm_backward"](x1[i], dmlp_in))])  # the residual add
    mats = [sd[f"layer0.attn_w{c}"] for c in "qkvo"]
    dxs, *dws = p["attention_backward"](attn_in, *mats, config.n_head, dx1s)  # attn_out's gradient is x1's
    for c, dw in zip("qkvo", dws):
        add(f"layer0.attn_w{c}", dw)
    dembs = []
    for i in range(T):
        dx0 = [a + b for a, b in zip(dx1s[i], p["rmsnorm_backward"](x0[i], dxs[i]))]
        dembs.append(p["rmsnorm_backward"](emb[i], dx0))
    add("wte", p["embedding_backward"](len(sd["wte"]), tokens[:T], dembs))
    add("wpe", p["embedding_backward"](len(sd["wpe"]), list(range(T)), dembs))
    return loss, grads


def floats(model: Model) -> dict[str, Floats]:
    """The model's parameters as plain numbers."""
    return {name: [[v.data for v in row] for row in m] for name, m in model.state_dict.items()}


def manual_step(model: Model, optimizer: Adam, tokens: list[int]) -> float:
    """One training step with the manual backward: its gradients go into .grad, and Adam steps as usual."""
    loss, grads = loss_and_grads(model.config, floats(model), tokens)
    for name, m in model.state_dict.items():
        for row, grow in zip(m, grads[name]):
            for v, gv in zip(row, grow):
                v.grad = gv  # type: ignore[assignment]  # Value.grad starts as the int 0, and holds floats after
    optimizer.step()
    return loss


# ---------------------------------------------------------------- which piece differs


class _Watch:
    """While first_difference() runs the backward: each of the reader's pieces, called, runs the solution on
    the same inputs too, and the first call whose answers differ is kept, said as that piece's checker says it."""

    def __init__(self, sd: dict[str, Floats], T: int) -> None:
        self.matrices = {id(m): name.removeprefix("layer0.") for name, m in sd.items()}
        self.T = T
        self.calls: dict[str, int] = {}  # calls so far, by piece (and by matrix, for linear_backward)
        self.found = ""

    def watched(self, name: str, backward: Callable, solution: Callable) -> Callable:
        def watching(*args: Any) -> Any:
            given = copy.deepcopy(args)  # what the piece was given, before it could change it
            call = self.call(name, args)
            try:
                answer = backward(*args)
            except Exception as error:
                self.found = self.found or f"{name} raised {type(error).__name__} in its call for {call}: {error}"
                raise
            if not self.found:
                self.found = _differs(name, given, answer, solution(*copy.deepcopy(given)), call)
            return answer

        return watching

    def call(self, name: str, args: tuple) -> str:
        """Which call of a piece this is, in loss_and_grads()'s words (it makes them in this order)."""
        matrix = self.matrices.get(id(args[1]), "a matrix") if name == "linear_backward" else ""
        key = f"{name} {matrix}"
        k = self.calls[key] = self.calls.get(key, -1) + 1
        T = self.T
        if name == "linear_backward":  # each matrix once a position, in order
            return f"{matrix} at position {k}"
        if name == "rmsnorm_backward":  # the MLP's, position by position; then attention's and the first, in turn
            if k < T:
                return f"the RMSNorm before the MLP at position {k}"
            j = k - T
            return f"{'the RMSNorm before attention' if j % 2 == 0 else 'the first RMSNorm'} at position {j // 2}"
        if name == "softmax_backward":  # inside each head, position by position
            return f"head {k // T} at position {k % T}"
        if name == "attention_head_backward":
            return f"head {k}"
        if name == "attention_backward":
            return f"all {T} positions"
        if name == "embedding_backward":
            return "wte" if k == 0 else "wpe"
        return f"position {k}"  # cross_entropy_backward and relu_backward: once a position


def _differs(name: str, args: tuple, answer: Any, expected: Any, call: str) -> str:
    """How a piece's answer differs from the solution's on the same inputs, as its checker says it; or ""."""
    from microgpt.course import checkers
    from microgpt.course.checking import Case, as_parts, miss_in

    piece = checkers.PIECES[name]
    try:
        mine = as_parts(answer, piece.parts)
    except ValueError as error:
        miss: tuple[str, bool] | None = (str(error), True)
    else:
        miss = miss_in(piece, Case(call, args, as_parts(expected, piece.parts)), mine)
    if miss is None:
        return ""
    said = miss[0].replace("the engine's", "the solution's")  # the checker's words, but here the solution is the one
    return f"{name} is the first of your pieces to differ from the solution,\n in its call for {call}:\n {said}"


_watch: _Watch | None = None


@contextlib.contextmanager
def _watching(sd: dict[str, Floats], T: int, yours: dict[str, Callable] | None) -> Iterator[_Watch]:
    """Watch the reader's pieces (or these, in their place, for this call only) while the block runs."""
    global _watch
    saved = dict(_yours)
    _yours.update(yours or {})
    _watch = _Watch(sd, T)
    try:
        yield _watch
    finally:
        _watch = None
        _yours.clear()
        _yours.update(saved)


def first_difference(
    config: GPTConfig, sd: dict[str, Floats], tokens: list[int], yours: dict[str, Callable] | None = None
) -> str:
    """Which of the reader's pieces first gives something else than the solution on the same inputs, in the
    backward of one document: where and how, as its checker would say it.

    yours: pieces to use in place of the reader's kept ones, for this call only (to try one without keeping it).
    """
    _take_offers()
    if not yours and not _yours:
        return "no piece of yours is in use yet: every piece is the solution's"
    with _watching(sd, len(tokens) - 1, yours) as watch:
        try:
            loss_and_grads(config, sd, tokens)
        except Exception:
            if not watch.found:  # not a piece of the reader's that raised
                raise
    return watch.found or "every piece of yours gives what the solution gives, on the inputs it was given here"


@dataclass
class Training:
    """Two copies of one model trained side by side: one with the engine's backward, one with loss_and_grads.

    rows: each step's (engine loss, manual loss, engine seconds, manual seconds), a step's time covering its
    forward pass, its backward and Adam's update. first_difference: when the losses part, which of the
    reader's pieces first gave something else than the solution, at which step; "" while they agree.
    """

    rows: list[tuple[float, float, float, float]]
    first_difference: str = ""


def side_by_side(config: GPTConfig, docs: list[list[int]], steps: int, seed: int = 42) -> Training:
    """Train two copies of one model, made from the same seed, one with the engine's backward and one with
    the manual one; if their losses part, find the piece that made them part."""
    engine, manual = Model.init(config, seed), Model.init(config, seed)
    opt_e, opt_m = Adam(engine.params, total_steps=steps), Adam(manual.params, total_steps=steps)
    training = Training([])
    before: list[tuple[dict[str, Floats], list[int]]] = []  # the manual copy before each step, and its document
    for k in range(steps):
        tokens = docs[k % len(docs)]
        before.append((floats(manual), tokens))
        start = time.perf_counter()
        with cyclic_gc_paused():
            loss_e = train_step(engine, opt_e, tokens)
        middle = time.perf_counter()
        loss_m = manual_step(manual, opt_m, tokens)
        training.rows.append((loss_e, loss_m, middle - start, time.perf_counter() - middle))
        if abs(loss_e - loss_m) > 1e-9 and not training.first_difference:
            training.first_difference = _which_step(config, before)
    return training


def _which_step(config: GPTConfig, before: list[tuple[dict[str, Floats], list[int]]]) -> str:
    """The first step whose backward, on the manual copy's parameters then, had a piece of the reader's differ."""
    for k, (sd, tokens) in enumerate(before, 1):
        found = first_difference(config, sd, tokens)
        if found.startswith(tuple(NAMES)):
            return f"at step {k}, {found}"
    return "no piece of yours gave something else than the solution on the inputs it was given"
