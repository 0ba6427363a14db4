"""The capstone: gpt()'s backward over a whole document from the chapter's pieces, on floats, and training with it.

Every piece is the one in use now (microgpt.course.kept): the reader's where their checker accepted one,
else the solution's. When the backward and the engine's disagree, first_difference() runs the solution beside
each of the reader's pieces, on the inputs that piece was given, and says which piece differs first, where
and how (microgpt.course.watch). A piece of the reader's that raises, or returns an answer of the wrong
shape, stops the backward with a PieceError that names the piece and its call, before any other code could
fail on what it returned.
"""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from microgpt.course import kept
from microgpt.course.kept import HELPERS, NAMES
from microgpt.course.kept import whose as whose  # the page asks the capstone whose pieces it uses
from microgpt.course.kept import yours as yours
from microgpt.course.watch import Guard, PieceError, Watch, calling, copied
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.train import cyclic_gc_paused, train_step

Floats = list[list[float]]
_watch: Watch | None = None  # while first_difference() runs the backward


def pieces() -> dict[str, Callable]:
    """Each piece: the reader's where their checker accepted one, else the solution's.

    A piece that calls others (attention_backward calls linear_backward, softmax_backward and
    attention_head_backward, imported from the solutions in its exercise) is handed the ones in use here,
    so that the reader's run inside it too. Each of the reader's is guarded: if it raises, or returns an
    answer of the wrong shape, a PieceError names it and its call.
    """
    kept.take_offers()
    found: dict[str, Callable] = {}
    guard = _watch or Guard()
    for name in NAMES:  # in the chapter's order: a piece's helpers come before it
        helpers = {helper: found[helper] for helper in HELPERS.get(name, ())}
        found[name] = calling(kept.piece(name), helpers)
        if kept.is_yours(name):
            found[name] = guard.wrapped(name, found[name])
    return found


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
                v.grad = gv
    optimizer.step()
    return loss


# ---------------------------------------------------------------- which piece differs

ALL_CLEAR = "every piece of yours gives what the solution gives, on the inputs it was given here"
GRADIENTS_RTOL = 1e-11  # the backward's gradients are the solution's if each is within this of its matrix's largest


def first_difference(
    config: GPTConfig, sd: dict[str, Floats], tokens: list[int], yours: dict[str, Callable] | None = None
) -> str:
    """Which of the reader's pieces first gives an answer that differs from the solution's on the same inputs, in
    the backward of one document: where and how, as its checker would say it (or which raised, returned the
    wrong shape, passed another piece wrong arguments, or changed its arguments).

    yours: pieces to use in place of the reader's kept ones, for this call only (to try one without keeping it).
    """
    if not yours and not kept.yours():
        return "no piece of yours is in use yet: every piece is the solution's"
    return _found(config, sd, tokens, yours or {}) or ALL_CLEAR


def _found(config: GPTConfig, sd: dict[str, Floats], tokens: list[int], tried: dict[str, Callable]) -> str:
    """What first_difference() finds, or "" when nothing differs and the gradients are the solution's."""
    global _watch
    sd = {name: copied(m) for name, m in sd.items()}  # a piece that changes its arguments changes this copy
    with kept.in_place_of_yours(tried):
        _watch = watch = Watch(sd, len(tokens) - 1)
        try:
            _, grads = loss_and_grads(config, sd, tokens)
        except Exception as error:  # a PieceError; or, once something is found, what the rest of the backward raised
            if watch.found or isinstance(error, PieceError):
                return watch.found or str(error)
            raise
        finally:
            _watch = None
    if watch.found:
        return watch.found
    with kept.solutions_only():
        _, theirs = loss_and_grads(config, sd, tokens)
    apart = _apart(grads, theirs)
    return (watch.suspect or apart) if apart else ""


def _apart(grads: dict[str, Floats], theirs: dict[str, Floats]) -> str:
    """Where the gradients differ from the solution's backward's, if anywhere: the largest difference."""
    gaps = []
    for name, matrix in theirs.items():
        tolerance = GRADIENTS_RTOL * max(abs(v) for row in matrix for v in row)
        for r, (mine, row) in enumerate(zip(grads[name], matrix)):
            gaps += [
                (abs(a - b), name, r, c, b) for c, (a, b) in enumerate(zip(mine, row)) if not abs(a - b) <= tolerance
            ]
    if not gaps:
        return ""
    gap, name, r, c, b = max(gaps)
    return (
        "no piece of yours gives an answer that differs from the solution's on the inputs it was given here,\n"
        f" yet the gradients differ from the solution's: by {gap:.1e} at {name}[{r}][{c}],"
        f" where the solution's is {b:.6g}."
    )


@dataclass
class Training:
    """Two copies of one model trained side by side: one with the engine's backward, one with loss_and_grads.

    rows: each step's (engine loss, manual loss, engine seconds, manual seconds), a step's time covering its
    forward pass, its backward and Adam's update. first_difference: when the losses part, which of the
    reader's pieces first gave an answer that differs from the solution's, at which step; "" while they agree.
    A piece of the reader's that raises or returns the wrong shape ends the training at that step (its row's
    manual loss is nan), and first_difference names it.
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
    kept.take_offers()  # pieces kept from an earlier visit go through their checkers now, before any step is timed
    for k in range(steps):
        tokens = docs[k % len(docs)]
        before.append((floats(manual), tokens))
        start = time.perf_counter()
        with cyclic_gc_paused():
            loss_e = train_step(engine, opt_e, tokens)
        middle = time.perf_counter()
        try:
            loss_m = manual_step(manual, opt_m, tokens)
        except PieceError as error:  # the reader's piece cannot go on: say which (watched, for its call), and stop
            training.rows.append((loss_e, math.nan, middle - start, time.perf_counter() - middle))
            training.first_difference = f"at step {k + 1}, {_found(config, *before[-1], {}) or error}"
            break
        training.rows.append((loss_e, loss_m, middle - start, time.perf_counter() - middle))
        if abs(loss_e - loss_m) > 1e-9 and not training.first_difference:
            training.first_difference = _which_step(config, before)
    return training


def _which_step(config: GPTConfig, before: list[tuple[dict[str, Floats], list[int]]]) -> str:
    """The first step whose backward, on the manual copy's parameters then, had a piece of the reader's differ."""
    for k, (sd, tokens) in enumerate(before, 1):
        found = _found(config, sd, tokens, {})
        if found:
            return f"at step {k}, {found}"
    return (
        "no piece of yours gave an answer that differs from the solution's on the inputs it was given,\n"
        f" and the gradients were the solution's at every step (within {GRADIENTS_RTOL:.0e} of each matrix's largest)"
    )
