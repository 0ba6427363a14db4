"""A checker for each piece of gpt()'s backward: real inputs from a real step, the engine's answer, the usual slips."""

import functools
import math
from typing import Any

from microgpt.course import pieces
from microgpt.course.checking import Case, Piece, Slip, check
from microgpt.course.exercises import Step, data, first_step, grad
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, attention, linear, rmsnorm, softmax


@functools.cache
def _step() -> Step:
    """The checkers' own recording of first_step(): a reader's block that changes the shared one (a second
    backward() doubles every .grad) cannot change the engine's answers the checkers compare with."""
    return first_step.__wrapped__()


SHOWN = (0, 3, 6)  # the positions of the step whose numbers the checkers use (of its 7)


def _values(rows: list[list[float]]) -> list[list[Value]]:
    return [[Value(v) for v in row] for row in rows]


def _matrix(name: str) -> list[list[float]]:
    return [data(row) for row in _step().model.state_dict[name]]


def _vjp(forward, inputs: list, g: list[float]) -> list:
    """The engine's gradient of L = g . forward(inputs) at each input (a list of Values or of rows of Values)."""
    out = forward(*inputs)
    sum(gi * oi for gi, oi in zip(g, out)).backward()
    return [[grad(row) for row in x] if isinstance(x[0], list) else grad(x) for x in inputs]


def _neg(a: Any) -> Any:
    return [_neg(v) for v in a] if isinstance(a, list) else -a


def _transpose(m: list[list[float]]) -> list[list[float]]:
    return [list(col) for col in zip(*m)]


# ---------------------------------------------------------------- softmax with cross-entropy


def _cross_entropy_cases() -> list[Case]:
    step = _step()
    T = len(step.positions)
    return [
        Case(
            f"position {i}, T = {T}",
            (data(step.positions[i].probs), step.positions[i].target, T),
            (grad(step.positions[i].logits),),
        )
        for i in SHOWN
    ]


def _ce_dz_dp(p, target, T):
    return [-1 / (T * pj) if j == target else 0.0 for j, pj in enumerate(p)]


CROSS_ENTROPY = Piece(
    "cross_entropy_backward",
    ("dz",),
    _cross_entropy_cases,
    entry_note=lambda args, i: " (the true token)" if i == args[1] else "",
    slips={
        "sign": Slip(
            lambda p, t, T: _neg(pieces.cross_entropy_backward(p, t, T)),
            "wrong sign: the gradient is (p - y) / T, not (y - p) / T",
        ),
        "no 1/T": Slip(
            lambda p, t, T: pieces.cross_entropy_backward(p, t, 1),
            "a constant factor: T times too large. The loss is the mean over T positions,\n"
            " so each position's share is divided by T",
        ),
        "no y": Slip(
            lambda p, t, T: [pj / T for pj in p],
            "the true token's entry is 1/T too large: the -z[target] term gives -1 there,\n"
            " and the mean divides it by T like the rest: (p - y) / T",
        ),
        "-1 without /T": Slip(
            lambda p, t, T: [pj / T - (1.0 if j == t else 0.0) for j, pj in enumerate(p)],
            "the true token's -1 is not divided by T: the mean divides the whole of each position's gradient,\n"
            " (p - y) / T, so the true token's entry is (p - 1) / T",
        ),
        "target only": Slip(
            lambda p, t, T: [(pj - 1) / T if j == t else 0.0 for j, pj in enumerate(p)],
            "only the true token's entry: every other logit is in the sum inside log, so it gets p_j / T too",
        ),
        "dL/dp": Slip(
            _ce_dz_dp,
            "that is dL/dp, the gradient at the probabilities: go on through the softmax to the logits z",
        ),
    },
)


# ---------------------------------------------------------------- linear


def _linear_cases() -> list[Case]:
    step = _step()
    cases = []
    for i, name, x_of, g_of in (
        (3, "layer0.attn_wo", lambda p: _mixed(3), lambda p: grad(p.attn_out)),
        (3, "layer0.mlp_fc2", lambda p: data(p.relu), lambda p: grad(p.mlp_out)),
        (6, "lm_head", lambda p: data(p.x2), lambda p: grad(p.logits)),
        (0, "layer0.mlp_fc1", lambda p: data(p.mlp_in), lambda p: grad(p.hidden)),
    ):
        pos = step.positions[i]
        w, x, g = _matrix(name), x_of(pos), g_of(pos)
        label = f"{name.removeprefix('layer0.')} ({len(w)} x {len(w[0])}) at position {i}"
        dw, dx = _vjp(lambda w_, x_: linear(x_, w_), [_values(w), [Value(v) for v in x]], g)
        cases.append(Case(label, (w, x, g), (dw, dx)))
    return cases


def _lin(f):
    """A slip in one part: f(w, x, g, dw, dx) returns the wrong (dw, dx)."""
    return lambda w, x, g: f(w, x, g, *pieces.linear_backward(w, x, g))


LINEAR = Piece(
    "linear_backward",
    ("dw", "dx"),
    _linear_cases,
    {
        "dw sign": Slip(_lin(lambda w, x, g, dw, dx: (_neg(dw), dx)), "wrong sign"),
        "dx sign": Slip(_lin(lambda w, x, g, dw, dx: (dw, _neg(dx))), "wrong sign"),
        "dw transposed": Slip(
            _lin(lambda w, x, g, dw, dx: (_transpose(dw), dx)),
            "a transpose: that is x g^T. Entry [i][j] of dL/dw is g[i] * x[j], the shape of w",
        ),
        "dx with w, not w^T": Slip(
            _lin(lambda w, x, g, dw, dx: (dw, [sum(a * b for a, b in zip(row, g)) for row in w])),
            "a transpose: that is w g. dL/dx[j] sums w[i][j] * g[i] over the rows i: column j of w, so w^T g",
        ),
        "dx without g": Slip(
            _lin(lambda w, x, g, dw, dx: (dw, [sum(row[j] for row in w) for j in range(len(x))])),
            "g left out: each output's share is w[i][j] times the gradient g[i] arriving at that output",
        ),
        "dw without g": Slip(
            _lin(lambda w, x, g, dw, dx: ([list(x) for _ in g], dx)),
            "g left out: dL/dw[i][j] is x[j] times the gradient g[i] at output i",
        ),
    },
)


# ---------------------------------------------------------------- ReLU


def _relu_cases() -> list[Case]:
    step = _step()
    return [
        Case(f"mlp's hidden units at position {i}", (data(p.hidden), grad(p.relu)), (grad(p.hidden),))
        for i, p in ((i, step.positions[i]) for i in SHOWN)
    ]


RELU = Piece(
    "relu_backward",
    ("dh",),
    _relu_cases,
    {
        "mask inverted": Slip(
            lambda h, g: [gi if hi <= 0 else 0.0 for hi, gi in zip(h, g)],
            "the mask is the wrong way round: the gradient passes where the unit was on, h > 0",
        ),
        "no mask": Slip(lambda h, g: list(g), "no mask: a unit that was off (h <= 0) passes nothing back"),
        "mask on g": Slip(
            lambda h, g: [max(0.0, gi) for gi in g],
            "the mask is on g: which units pass depends on the forward input h, not on the gradient's sign",
        ),
        "times h": Slip(
            lambda h, g: [gi * hi if hi > 0 else 0.0 for hi, gi in zip(h, g)],
            "a factor h too many: relu's local gradient is 1 where h > 0 (the slope of h), not h",
        ),
        "sign": Slip(lambda h, g: _neg(pieces.relu_backward(h, g)), "wrong sign"),
    },
)


# ---------------------------------------------------------------- RMSNorm

EPS = 1e-5  # rmsnorm()'s epsilon


def _rmsnorm_cases() -> list[Case]:
    step = _step()
    p0, p3, p6 = (step.positions[i] for i in SHOWN)
    cases: list[Case] = []
    for label, x in (
        ("the embedding sum at position 0", data(p0.embedded)),
        ("x1, the stream after attention, at position 3", data(p3.x1)),
        ("x0 at position 6", data(p6.x0)),
    ):
        g = {0: grad(p0.x0), 1: grad(p3.mlp_in), 2: grad(p6.attn_in)}[len(cases)]
        cases.append(Case(f"{label}; x has {len(x)} entries", (x, g), (_vjp(rmsnorm, [[Value(v) for v in x]], g)[0],)))
    return cases


def _rms(x, g, *, c=1.0, power=3, eps=EPS, direct=True, mean=True, dot=True):
    """RMSNorm's backward with a slip or two: c scales the mean term; power is r's; dot=False uses g_i x_i."""
    n = len(x)
    r = (math.fsum(v * v for v in x) / n + eps) ** -0.5
    gx = math.fsum(a * b for a, b in zip(g, x))
    out = []
    for gi, xi in zip(g, x):
        term = -c * r**power * (gx if dot else gi * xi) / n * xi
        out.append((r * gi if direct else 0.0) + (term if mean else 0.0))
    return out


RMSNORM = Piece(
    "rmsnorm_backward",
    ("dx",),
    _rmsnorm_cases,
    {
        "sign": Slip(lambda x, g: _neg(_rms(x, g)), "wrong sign: every entry is the engine's times -1"),
        "direct only": Slip(
            lambda x, g: _rms(x, g, mean=False),
            "a missing term: you have only the direct path, r * g_i.\n"
            " Each x_i also changes the mean square ms, and through ms the scale r of every output",
        ),
        "mean term only": Slip(
            lambda x, g: _rms(x, g, direct=False),
            "a missing term: you have the path through the mean square, but not the direct one, r * g_i",
        ),
        "no 1/n": Slip(
            lambda x, g: _rms(x, g, c=len(x)),
            "a constant factor: the mean term is n times too large: ms divides by n, so its derivative does too",
        ),
        "no 2": Slip(
            lambda x, g: _rms(x, g, c=0.5),
            "a constant factor: the mean term is half the engine's.\n"
            " d(ms)/dx_j is 2 x_j / n: the 2 of x_j**2 is missing",
        ),
        "no half": Slip(
            lambda x, g: _rms(x, g, c=2.0),
            "a constant factor: the mean term is twice the engine's.\n"
            " d/dms (ms + eps)**-0.5 is -0.5 r**3: the 1/2 is missing",
        ),
        "r not cubed": Slip(
            lambda x, g: _rms(x, g, power=1),
            "the mean term's power: d/dms (ms + eps)**-0.5 is -0.5 * (ms + eps)**-1.5, so the term has r**3, not r",
        ),
        "per entry": Slip(
            lambda x, g: _rms(x, g, dot=False),
            "a per-entry product where a dot product belongs: r scales every output, so dL/dr sums g_i x_i over all i\n"
            " (g . x), the same number in every entry",
        ),
        "no epsilon": Slip(
            lambda x, g: _rms(x, g, eps=0.0),
            "close, but without eps: rmsnorm() adds 1e-5 to the mean square before the square root",
        ),
    },
)


# ---------------------------------------------------------------- the softmax inside attention


def _head_scores(i: int, h: int) -> list[float]:
    """The scores of head h at position i of the step, in floats: q . k_t / sqrt(d_h) for t = 0..i."""
    step = _step()
    d_h = step.model.config.head_dim
    x = data(step.positions[i].attn_in)
    q = [math.fsum(a * b for a, b in zip(row, x)) for row in _matrix("layer0.attn_wq")][h * d_h : (h + 1) * d_h]
    keys = [data(k)[h * d_h : (h + 1) * d_h] for k in step.keys[: i + 1]]
    return [math.fsum(a * b for a, b in zip(q, k)) / d_h**0.5 for k in keys]


def _mixed(i: int) -> list[float]:
    """What attn_wo reads at position i: every head's values mixed by its weights, in floats."""
    step = _step()
    d_h, out = step.model.config.head_dim, []
    for h in range(step.model.config.n_head):
        e = [math.exp(v) for v in _head_scores(i, h)]
        w = [v / math.fsum(e) for v in e]
        vs = [data(v)[h * d_h : (h + 1) * d_h] for v in step.values[: i + 1]]
        out += [math.fsum(wt * v[j] for wt, v in zip(w, vs)) for j in range(d_h)]
    return out


def _softmax_cases() -> list[Case]:
    step = _step()
    d_h = step.model.config.head_dim
    cases = []
    for i, h in ((6, 0), (3, 2), (6, 3)):
        s = [Value(v) for v in _head_scores(i, h)]
        w = softmax(s)
        # gamma = dL/dw: the head's share of the gradient at attention's output, through attn_wo, dotted with each value
        d_mixed = pieces.linear_backward(
            _matrix("layer0.attn_wo"), [0.0] * len(_matrix("layer0.attn_wo")[0]), grad(step.positions[i].attn_out)
        )[1]
        g = d_mixed[h * d_h : (h + 1) * d_h]
        gamma = [math.fsum(a * b for a, b in zip(g, data(v)[h * d_h : (h + 1) * d_h])) for v in step.values[: i + 1]]
        sum(gt * wt for gt, wt in zip(gamma, w)).backward()
        cases.append(Case(f"head {h} at position {i}: {i + 1} scores", (data(w), gamma), (grad(s),)))
    return cases


def _softmax_slip(w, gamma, *, weighted=True, diagonal=False, front=True):
    if diagonal:
        return [wt * (1 - wt) * gt for wt, gt in zip(w, gamma)]
    mean = sum(wu * gu for wu, gu in zip(w, gamma)) if weighted else sum(gamma) / len(gamma)
    return [(wt if front else 1.0) * (gt - mean) for wt, gt in zip(w, gamma)]


SOFTMAX = Piece(
    "softmax_backward",
    ("ds",),
    _softmax_cases,
    {
        "sign": Slip(lambda w, gm: _neg(pieces.softmax_backward(w, gm)), "wrong sign"),
        "diagonal only": Slip(
            lambda w, gm: _softmax_slip(w, gm, diagonal=True),
            "only the diagonal, w_t (1 - w_t) gamma_t: w_u depends on s_t too (-w_t w_u), so every gamma_u counts",
        ),
        "unweighted mean": Slip(
            lambda w, gm: _softmax_slip(w, gm, weighted=False),
            "the average subtracted is weighted by w: sum_u w_u gamma_u, not the plain mean of gamma",
        ),
        "no w in front": Slip(
            lambda w, gm: _softmax_slip(w, gm, front=False),
            "a factor w_t missing in front: dL/ds_t = w_t (gamma_t - sum_u w_u gamma_u)",
        ),
        "no mean": Slip(
            lambda w, gm: [wt * gt for wt, gt in zip(w, gm)],
            "a missing term: w_t gamma_t is the direct path only; every w_u depends on s_t through the sum in softmax",
        ),
    },
)


# ---------------------------------------------------------------- attention, whole

ATTENTION_MATRICES = ("attn_wq", "attn_wk", "attn_wv", "attn_wo")


def _attention_by_engine(xs, mats, n_head, gs):
    """dL/dx at each position and each matrix's gradient, from attention() in model.py, for L = sum_t gs[t] . out_t."""
    n_embd = len(xs[0])
    sd = {f"layer0.{name}": _values(m) for name, m in zip(ATTENTION_MATRICES, mats)}
    model = Model(GPTConfig(vocab_size=1, n_embd=n_embd, n_head=n_head, block_size=len(xs)), sd)
    x_values = [[Value(v) for v in x] for x in xs]
    keys: list = [[]]
    values: list = [[]]
    outs = [attention(x, 0, model, keys, values) for x in x_values]
    sum(gi * oi for g, out in zip(gs, outs) for gi, oi in zip(g, out)).backward()
    return ([grad(x) for x in x_values], *([grad(row) for row in sd[f"layer0.{name}"]] for name in ATTENTION_MATRICES))


def _attention_cases() -> list[Case]:
    step = _step()
    n_head = step.model.config.n_head
    mats = [_matrix(f"layer0.{name}") for name in ATTENTION_MATRICES]
    xs, gs = [data(p.attn_in) for p in step.positions], [grad(p.attn_out) for p in step.positions]
    cases = []
    for T in (len(xs), 3):
        args = (xs[:T], *mats, n_head, gs[:T])
        cases.append(
            Case(
                f"the step's {T} first positions" if T < len(xs) else f"the whole step, {T} positions",
                args,
                _attention_by_engine(xs[:T], mats, n_head, gs[:T]),
            )
        )
    return cases


def attention_with_slip(xs, wq, wk, wv, wo, n_head, gs, slip=""):
    """pieces.attention_backward with one named slip in it: the attention checker's wrong variants."""
    T, d_h = len(xs), len(xs[0]) // n_head
    scale = 1.0 if slip == "no scale" else 1 / math.sqrt(d_h)
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    dwo = [[0.0] * len(row) for row in wo]
    for i in range(T):
        heads, mixed = [], []
        for h in range(n_head):
            hs = slice(h * d_h, (h + 1) * d_h)
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / math.fsum(e) for et in e]
            heads.append((hs, w))
            mixed += [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
        dwo_i, dmixed = pieces.linear_backward(wo, mixed, gs[i])
        if slip != "dwo last only" or i == T - 1:
            dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dwo_i)]
        for hs, w in heads:
            g = dmixed[hs]
            gamma = [sum(a * b for a, b in zip(g, vs[t][hs])) for t in range(i + 1)]
            ds = _softmax_slip(w, gamma, diagonal=slip == "softmax diagonal")
            for t in range(i + 1):
                cached = slip != "no cache" or t == i  # the slip: keys and values only from their own query
                for j in range(d_h):
                    dqs[i][hs.start + j] += ds[t] * ks[t][hs][j] * scale
                    if cached:
                        dks[t][hs.start + j] += ds[t] * qs[i][hs][j] * scale
                        dvs[t][hs.start + j] += (1.0 if slip == "dv without w" else w[t]) * g[j]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for path, w_, ds_ in (("q", wq, dqs), ("k", wk, dks), ("v", wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = pieces.linear_backward(w_, xs[t], ds_[t])
            if slip != f"dw{path} last only" or t == T - 1:
                dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            if slip != f"no {path} path":
                dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(_transpose(dw_sum) if slip == f"dw{path} transposed" else dw_sum)
    if slip == "dwo transposed":
        dwo = _transpose(dwo)
    result = (dxs, grads[0], grads[1], grads[2], dwo)
    return tuple(_neg(part) for part in result) if slip == "sign" else result


def _att(slip: str):
    def wrong(xs, wq, wk, wv, wo, n_head, gs):
        return attention_with_slip(xs, wq, wk, wv, wo, n_head, gs, slip)

    return wrong


TRANSPOSED = "a transpose: dL/dW is g x^T, entry [i][j] = g[i] * x[j]"
NOT_SUMMED = "a sum over positions left out: the matrix is used at every position, so its gradient adds up over them"
ATTENTION_HINTS = {
    "sign": "wrong sign",
    "no scale": "a constant factor: the scores are q . k_t / sqrt(d_h), so dq and dk_t carry the same 1 / sqrt(d_h)",
    "no cache": (
        "a sum over positions left out: a key and a value made at position t are read again by the query of every\n"
        " later position (the KV cache); their gradients add up over all those reads"
    ),
    "no q path": "a use left out: x_t is used three times, to make q_t, k_t and v_t;\n"
    " dL/dx_t is missing the share through q_t, wq^T dq_t",
    "no k path": "a use left out: x_t is used three times, to make q_t, k_t and v_t;\n"
    " dL/dx_t is missing the share through k_t, wk^T dk_t",
    "no v path": "a use left out: x_t is used three times, to make q_t, k_t and v_t;\n"
    " dL/dx_t is missing the share through v_t, wv^T dv_t",
    "softmax diagonal": "the softmax's diagonal only, w_t (1 - w_t) gamma_t: every w_u depends on s_t too (-w_t w_u)",
    "dv without w": "dL/dv_t is w_t times g: the value enters the output weighted by w_t",
    "dwq transposed": TRANSPOSED,
    "dwk transposed": TRANSPOSED,
    "dwv transposed": TRANSPOSED,
    "dwo transposed": TRANSPOSED,
    "dwq last only": NOT_SUMMED,
    "dwk last only": NOT_SUMMED,
    "dwv last only": NOT_SUMMED,
    "dwo last only": NOT_SUMMED,
}

ATTENTION = Piece(
    "attention_backward",
    ("dxs", "dwq", "dwk", "dwv", "dwo"),
    _attention_cases,
    first=("dwq", "dwk", "dwv", "dwo"),  # a slip on one path shows in its matrix: name it there, not in dxs
    slips={slip: Slip(_att(slip), hint) for slip, hint in ATTENTION_HINTS.items()},
)


# ---------------------------------------------------------------- the embedding lookup


def _embedding_cases() -> list[Case]:
    step = _step()
    sd = step.model.state_dict
    grads = [grad(p.embedded) for p in step.positions]
    tokens = [p.token for p in step.positions]
    return [
        Case(
            f"wte: {len(sd['wte'])} rows, tokens {tokens}",
            (len(sd["wte"]), tokens, grads),
            ([grad(r) for r in sd["wte"]],),
        ),
        Case(
            f"wpe: {len(sd['wpe'])} rows, positions 0 to {len(grads) - 1}",
            (len(sd["wpe"]), list(range(len(grads))), grads),
            ([grad(r) for r in sd["wpe"]],),
        ),
    ]


def _assign(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = list(g)
    return d


def _concatenated(rows, used, grads):
    """d[i] += g on Python lists: the row gets longer instead of adding up."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = d[i] + list(g)
    return d


def _first_use(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    seen = set()
    for i, g in zip(used, grads):
        if i not in seen:
            d[i] = list(g)
            seen.add(i)
    return d


EMBEDDING = Piece(
    "embedding_backward",
    ("d(table)",),
    _embedding_cases,
    {
        "assign": Slip(
            _assign,
            "a row read twice keeps only its last position's gradient:\n"
            " add into the row entry by entry (d[i][j] += g[j]), never assign the row",
        ),
        "concatenated": Slip(
            _concatenated,
            "a row got longer: on Python lists, d[i] += g appends g's entries instead of adding them.\n"
            " Add entry by entry: d[i][j] += g[j]",
        ),
        "first use": Slip(
            _first_use,
            "a row read twice keeps only its first position's gradient: add every position's share into the row",
        ),
        "sign": Slip(lambda rows, used, grads: _neg(pieces.embedding_backward(rows, used, grads)), "wrong sign"),
        "all rows": Slip(
            lambda rows, used, grads: [[math.fsum(col) for col in zip(*grads)] for _ in range(rows)],
            "every row got the sum of all positions: a row gets only the positions that read it",
        ),
    },
)

PIECES = {p.name: p for p in (CROSS_ENTROPY, LINEAR, RELU, RMSNORM, SOFTMAX, ATTENTION, EMBEDDING)}


def check_cross_entropy_backward(backward) -> str:
    """Check cross_entropy_backward(p, target, T) -> dz on three positions of the step."""
    return _checked(CROSS_ENTROPY, backward)


def check_linear_backward(backward) -> str:
    """Check linear_backward(w, x, g) -> (dw, dx) on four matrices of the step."""
    return _checked(LINEAR, backward)


def check_relu_backward(backward) -> str:
    """Check relu_backward(h, g) -> dh on the MLP's hidden units at three positions."""
    return _checked(RELU, backward)


def check_rmsnorm_backward(backward) -> str:
    """Check rmsnorm_backward(x, g) -> dx on three of the step's RMSNorms."""
    return _checked(RMSNORM, backward)


def check_softmax_backward(backward) -> str:
    """Check softmax_backward(w, gamma) -> ds on three heads' weights."""
    return _checked(SOFTMAX, backward)


def check_attention_backward(backward) -> str:
    """Check attention_backward(xs, wq, wk, wv, wo, n_head, gs) -> (dxs, dwq, dwk, dwv, dwo) over the step."""
    return _checked(ATTENTION, backward)


def check_embedding_backward(backward) -> str:
    """Check embedding_backward(rows, used, grads) -> d(table) on wte and wpe."""
    return _checked(EMBEDDING, backward)


_last = {"yours": ""}  # the piece the last accepted check kept as the reader's own, or ""


def last_kept_as_yours() -> str:
    """The name of the piece the last check accepted and kept as the reader's own; "" when it kept none
    (a wrong answer, or the page's solution run as the page shows it). pieces.js remembers only that one."""
    return _last["yours"]


def _checked(piece: Piece, backward) -> str:
    verdict = check(piece, backward)
    _last["yours"] = ""
    if verdict.startswith("✓"):
        from microgpt.course import capstone  # the capstone uses what passed

        before = capstone.pieces()[piece.name]
        capstone.keep(piece.name, backward)
        if capstone.pieces()[piece.name] is not before:
            _last["yours"] = piece.name
    return verdict
