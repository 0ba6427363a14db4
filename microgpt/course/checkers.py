"""A checker for each piece of gpt()'s backward: real inputs from real steps, the engine's answer, the usual slips.

Each piece's cases come from the recorded steps (microgpt.course.recordings), so that together they
vary every size an answer could write as a number or cut short, below the chapter's and above it: T (1, 4,
7, 8 and 11), the vocabulary (6, 27 and 31), n_embd (6, 12, 16 and 20) and with it the MLP's 4 * n_embd,
the heads (4 of 4, 5 of 4, 2 of 6, 3 of 2), matrices with more rows than columns and fewer, the first and
the last token as a target, a token read once, twice and four times, a token table with fewer rows than
positions, the first position and later ones. The first case of each is the chapter's own step, the one a page
shows; the second has its sizes but other numbers (an answer right on the first and wrong there kept something
from the first call); a case with T = 11 has every other size of the chapter's (an answer right on the first and
wrong there depends on T). ReLU's cases include pre-activations a hair either side of 0, and one exactly 0.
"""

import copy
import inspect
import math
from typing import Any

from microgpt.course import kept, pieces
from microgpt.course.checking import Case, Cases, Piece, Slip, Verdict, check
from microgpt.course.diagnosis import Family, Grouping, Instead, Layout
from microgpt.course.exercises import data, grad
from microgpt.course.recordings import (
    Recording,
    another,
    chapters,
    few_tokens,
    longer,
    narrow,
    second,
    third,
    wider,
)
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, attention, linear, rmsnorm, softmax


def _values(rows: list[list[float]]) -> list[list[Value]]:
    return [[Value(v) for v in row] for row in rows]


def _matrix(rec: Recording, name: str) -> list[list[float]]:
    return [data(row) for row in rec.step.model.state_dict[name]]


def _vjp(forward, inputs: list, g: list[float]) -> list:
    """The engine's gradient of L = g . forward(inputs) at each input (a list of Values or of rows of Values)."""
    out = forward(*inputs)
    sum(gi * oi for gi, oi in zip(g, out)).backward()
    return [[grad(row) for row in x] if isinstance(x[0], list) else grad(x) for x in inputs]


def _neg(a: Any) -> Any:
    return [_neg(v) for v in a] if isinstance(a, list) else -a


def _transpose(m: list[list[float]]) -> list[list[float]]:
    return [list(col) for col in zip(*m)]


def _dot(a, b) -> float:
    return math.fsum(x * y for x, y in zip(a, b))


def _scale(a: Any, c: float) -> Any:
    return [_scale(v, c) for v in a] if isinstance(a, list) else c * a


def _add(a: Any, b: Any) -> Any:
    return [_add(x, y) for x, y in zip(a, b)] if isinstance(a, list) else a + b


def _outer(g: list[float], x: list[float]) -> list[list[float]]:
    return [[gi * xj for xj in x] for gi in g]


def _apply_t(w: list[list[float]], g: list[float]) -> list[float]:
    """w^T g."""
    return [math.fsum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(w[0]))]


SIGN = "wrong sign: every entry is the engine's times -1."


def _cached(cases):
    """A piece's cases, made once per interpreter (each is a real step's numbers and the engine's answer)."""
    return Cases(cases)


# ---------------------------------------------------------------- softmax with cross-entropy


@_cached
def _cross_entropy_cases() -> list[Case]:
    cases = []
    for rec, i in (
        (chapters(), 0),
        (chapters(), 6),
        (longer(), 8),
        (wider(), 3),
        (second(), 0),
        (second(), 2),  # ada's second a: a target the first case of it predicted too
        (third(), 0),
    ):
        pos, V = rec.step.positions[i], len(rec.step.positions[i].probs)
        which = " (the first)" if pos.target == 0 else " (the last)" if pos.target == V - 1 else ""
        cases.append(
            Case(
                f"{rec.name}, position {i}: T = {rec.T}, {V} logits, target {pos.target}{which}",
                (data(pos.probs), pos.target, rec.T),
                (grad(pos.logits),),
                trait=f"the target{which}" if which else "",
            )
        )
    return cases


def _ce_dz_dp(p, target, T):
    return [-1 / (T * pj) if j == target else 0.0 for j, pj in enumerate(p)]


def _cross_entropy_terms(p, target, T):
    return {"dz": [{"p/T": [pj / T for pj in p], "-y/T": [-1 / T if j == target else 0.0 for j in range(len(p))]}]}


CROSS_ENTROPY = Piece(
    "cross_entropy_backward",
    ("dz",),
    _cross_entropy_cases,
    layout=Layout(
        {"dz": ("logit",)},
        note=lambda facts, part, axis, i: " (the true token)" if i == facts["target"] else "",
    ),
    sizes=lambda p, target, T: {"T": T, "len(p)": len(p), "p[target]": p[target]},
    facts=lambda p, target, T: {"target": target},
    terms=_cross_entropy_terms,
    slips={
        "sign": Slip(
            lambda p, t, T: _neg(pieces.cross_entropy_backward(p, t, T)),
            "wrong sign: the gradient is (p - y) / T, not (y - p) / T.",
        ),
        "no 1/T": Slip(
            lambda p, t, T: pieces.cross_entropy_backward(p, t, 1),
            "a constant factor: T times too large. The loss is the mean over T positions,\n"
            " so each position's share is divided by T.",
        ),
        "no y": Slip(
            lambda p, t, T: [pj / T for pj in p],
            "the true token's entry is 1/T too large: the -z[target] term gives -1 there,\n"
            " and the mean divides it by T like the rest: (p - y) / T.",
        ),
        "-1 without /T": Slip(
            lambda p, t, T: [pj / T - (1.0 if j == t else 0.0) for j, pj in enumerate(p)],
            "the true token's -1 is not divided by T: the mean divides the whole of each position's gradient,\n"
            " (p - y) / T, so the true token's entry is (p - 1) / T.",
        ),
        "target only": Slip(
            lambda p, t, T: [(pj - 1) / T if j == t else 0.0 for j, pj in enumerate(p)],
            "only the true token's entry: every other logit is in the sum inside log, so it gets p_j / T too.",
        ),
        "dL/dp": Slip(
            _ce_dz_dp,
            "that is dL/dp, the gradient at the probabilities: go on through the softmax to the logits z.",
        ),
    },
)


# ---------------------------------------------------------------- attention's forward pass, on floats


def _head_slices(config: GPTConfig) -> list[slice]:
    d_h = config.head_dim
    return [slice(h * d_h, (h + 1) * d_h) for h in range(config.n_head)]


def _projections(rec: Recording) -> tuple[list[list[float]], ...]:
    """The queries, keys and values of every position of a recorded step, in floats."""
    xs = [data(p.attn_in) for p in rec.step.positions]
    return tuple([[_dot(row, x) for row in _matrix(rec, f"layer0.attn_w{c}")] for x in xs] for c in "qkv")


def _weights(qs, ks, i: int) -> list[float]:
    """One head's attention weights at position i: softmax of q_i . k_t / sqrt(d_h), t = 0..i."""
    s = [_dot(qs[i], ks[t]) / math.sqrt(len(qs[i])) for t in range(i + 1)]
    e = [math.exp(v - max(s)) for v in s]
    return [v / math.fsum(e) for v in e]


def _mixed(rec: Recording, i: int) -> list[float]:
    """What attn_wo reads at position i: every head's values mixed by its weights, in floats."""
    qs, ks, vs = _projections(rec)
    out = []
    for hs in _head_slices(rec.config):
        w = _weights([q[hs] for q in qs], [k[hs] for k in ks], i)
        out += [math.fsum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(hs.stop - hs.start)]
    return out


def _head_gradients(rec: Recording) -> list[list[float]]:
    """The gradient at the heads' outputs (what attn_wo reads) at every position: attn_wo^T attn_out.grad."""
    return [_apply_t(_matrix(rec, "layer0.attn_wo"), grad(p.attn_out)) for p in rec.step.positions]


# ---------------------------------------------------------------- linear


def _linear_inputs(rec: Recording, name: str, i: int) -> tuple[list[float], list[float]]:
    """x and g of one linear of a recorded step at position i."""
    p = rec.step.positions[i]
    return {
        "layer0.attn_wo": lambda: (_mixed(rec, i), grad(p.attn_out)),
        "layer0.mlp_fc1": lambda: (data(p.mlp_in), grad(p.hidden)),
        "layer0.mlp_fc2": lambda: (data(p.relu), grad(p.mlp_out)),
        "lm_head": lambda: (data(p.x2), grad(p.logits)),
    }[name]()


@_cached
def _linear_cases() -> list[Case]:
    cases = []
    for rec, name, i in (
        (chapters(), "layer0.attn_wo", 3),  # square: a transpose has the right shape, only the numbers show it
        (chapters(), "layer0.attn_wo", 5),  # the same shape, other numbers
        (chapters(), "layer0.mlp_fc2", 6),  # more columns than rows
        (wider(), "layer0.mlp_fc1", 2),  # more rows than columns, every size above the page's
        (second(), "layer0.mlp_fc2", 1),  # fewer rows than the page's
        (third(), "layer0.mlp_fc1", 0),
    ):
        w = _matrix(rec, name)
        x, g = _linear_inputs(rec, name, i)
        dx, dw = _vjp(linear, [[Value(v) for v in x], _values(w)], g)
        off = [k for k, gk in enumerate(g) if gk == 0]
        cases.append(
            Case(
                f"{name.removeprefix('layer0.')} ({len(w)} x {len(w[0])}) of {rec.name}, position {i}",
                (x, w, g),
                (dw, dx),
                zero_why="row i of dw is g[i] times x, and g[i] is 0 in those rows" if off else "",
                trait="entries of g exactly 0" if off else "",
            )
        )
    return cases


def _linear_families(x, w, g):
    rows = [[w[i][j] * g[i] for j in range(len(x))] for i in range(len(g))]
    return {"dx": [Family("dx[j] sums w[i][j] g[i] over the rows i", "row {k}", rows)]}


def _lin(f):
    """A slip in one part: f(x, w, g, dw, dx) returns the wrong (dw, dx)."""
    return lambda x, w, g: f(x, w, g, *pieces.linear_backward(x, w, g))


LINEAR = Piece(
    "linear_backward",
    ("dw", "dx"),
    _linear_cases,
    layout=Layout({"dw": ("row", "column"), "dx": ("entry",)}),
    sizes=lambda x, w, g: {"len(x)": len(x), "len(g)": len(g)},
    families=_linear_families,
    slips={
        "dw sign": Slip(_lin(lambda x, w, g, dw, dx: (_neg(dw), dx)), SIGN),
        "dx sign": Slip(_lin(lambda x, w, g, dw, dx: (dw, _neg(dx))), SIGN),
        "dw transposed": Slip(
            _lin(lambda x, w, g, dw, dx: (_transpose(dw), dx)),
            "a transpose: that is x g^T. Entry [i][j] of dL/dw is g[i] * x[j], so dL/dw has the shape of w.",
        ),
        "dx with w, not w^T": Slip(
            _lin(lambda x, w, g, dw, dx: (dw, [sum(a * b for a, b in zip(row, g)) for row in w])),
            "a transpose: that is w g. dL/dx[j] sums w[i][j] * g[i] over the rows i: column j of w, so w^T g.",
        ),
        "dx without g": Slip(
            _lin(lambda x, w, g, dw, dx: (dw, [sum(row[j] for row in w) for j in range(len(x))])),
            "g left out: each output's share is w[i][j] times the gradient g[i] arriving at that output.",
        ),
        "dw without g": Slip(
            _lin(lambda x, w, g, dw, dx: ([list(x) for _ in g], dx)),
            "g left out: dL/dw[i][j] is x[j] times the gradient g[i] at output i.",
        ),
    },
)


# ---------------------------------------------------------------- ReLU


# pre-activations a hair either side of 0 (just on, just off), and exactly 0, where relu's slope is 0 (off)
HAIRS = (1e-6, -1e-6, 1e-15, -1e-15, 0.0)
AT_ZERO = "at h = 0 exactly, the engine's relu counts the unit as off: its local gradient there is 0 (h > 0 is False)"


@_cached
def _relu_cases() -> list[Case]:
    cases = []
    for rec, i, hairs in (
        (chapters(), 0, 0),
        (chapters(), 6, 0),
        (chapters(), 3, len(HAIRS)),
        (wider(), 5, 0),
        (second(), 3, 0),
        (third(), 0, 0),
    ):
        p = rec.step.positions[i]
        h, g = data(p.hidden), grad(p.relu)
        units = [k for k, gk in enumerate(g) if gk != 0][:hairs]  # where a wrong mask would show
        for k, hair in zip(units, HAIRS):
            h[k] = hair
        label = f"the MLP's {len(h)} hidden units, {rec.name} position {i}"
        trait = f"h = {', '.join(f'{v:g}' for v in HAIRS)} at units {', '.join(map(str, units))}" if units else ""
        cases.append(
            Case(
                f"{label}, with {trait}" if trait else label,
                (h, g),
                (_vjp(lambda hs: [v.relu() for v in hs], [[Value(v) for v in h]], g)[0],),
                zero_why="a unit that was off (h <= 0) passes nothing back",
                trait=trait,
            )
        )
    return cases


def _hair(facts: dict[str, Any], part: str, axis: int, i: int) -> str:
    """A unit's h, where it is a hair from 0 (where a threshold other than 0 shows)."""
    h = facts["h"][i]
    return f" (h = {h:g})" if abs(h) < 1e-3 else ""


RELU = Piece(
    "relu_backward",
    ("dh",),
    _relu_cases,
    layout=Layout({"dh": ("unit",)}, note=_hair),
    sizes=lambda h, g: {"len(h)": len(h)},
    facts=lambda h, g: {"h": h},
    slips={
        "mask inverted": Slip(
            lambda h, g: [gi if hi <= 0 else 0.0 for hi, gi in zip(h, g)],
            "the mask is the wrong way round: the gradient passes where the unit was on, h > 0.",
        ),
        "no mask": Slip(lambda h, g: list(g), "no mask: a unit that was off (h <= 0) passes nothing back."),
        "mask on g": Slip(
            lambda h, g: [max(0.0, gi) for gi in g],
            "the mask is on g: which units pass depends on the forward input h, not on the gradient's sign.",
        ),
        "on at 0": Slip(
            lambda h, g: [gi if hi >= 0 else 0.0 for hi, gi in zip(h, g)],
            f"h >= 0 where h > 0 belongs: {AT_ZERO}",
        ),
        "times h": Slip(
            lambda h, g: [gi * hi if hi > 0 else 0.0 for hi, gi in zip(h, g)],
            "a factor h too many: relu's local gradient is 1 where h > 0 (the slope of h), not h.",
        ),
        "sign": Slip(lambda h, g: _neg(pieces.relu_backward(h, g)), SIGN),
    },
)


# ---------------------------------------------------------------- RMSNorm

EPS = 1e-5  # rmsnorm()'s epsilon


@_cached
def _rmsnorm_cases() -> list[Case]:
    cases: list[Case] = []
    for rec, i, label, x_of, g_of in (
        (chapters(), 0, "the embedding sum", lambda p: p.embedded, lambda p: p.x0),
        (chapters(), 6, "x0", lambda p: p.x0, lambda p: p.attn_in),
        (wider(), 4, "x1", lambda p: p.x1, lambda p: p.mlp_in),
        (second(), 2, "x1, the stream after attention,", lambda p: p.x1, lambda p: p.mlp_in),
        (third(), 0, "x0, attention's RMSNorm's input,", lambda p: p.x0, lambda p: p.attn_in),
    ):
        p = rec.step.positions[i]
        x, g = data(x_of(p)), grad(g_of(p))
        cases.append(
            Case(
                f"{label} at position {i} of {rec.name}; x has {len(x)} entries",
                (x, g),
                (_vjp(rmsnorm, [[Value(v) for v in x]], g)[0],),
            )
        )
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


def _rms_families(x, g):
    """The mean-square term, -(r^3/n)(g . x) x, as the terms of g . x: entry k's is -(r^3/n) g_k x_k x."""
    n = len(x)
    r = (math.fsum(v * v for v in x) / n + EPS) ** -0.5
    each = [[-(r**3) / n * g[k] * x[k] * xi for xi in x] for k in range(n)]
    return {"dx": [Family("its mean-square term has g . x, a sum over the entries k", "entry {k}", each)]}


RMSNORM = Piece(
    "rmsnorm_backward",
    ("dx",),
    _rmsnorm_cases,
    layout=Layout({"dx": ("entry",)}),
    sizes=lambda x, g: {"n": len(x), "r": (math.fsum(v * v for v in x) / len(x) + EPS) ** -0.5},
    facts=lambda x, g: {"a mean": ", as LayerNorm's backward does, where RMSNorm subtracts no mean"},
    terms=lambda x, g: {
        "dx": [
            {
                "the direct term r g": _rms(x, g, mean=False),
                "the mean-square term -(r^3/n)(g . x) x": _rms(x, g, direct=False),
            }
        ]
    },
    families=_rms_families,
    slips={
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


@_cached
def _softmax_cases() -> list[Case]:
    cases = []
    for rec, i, h in (
        (chapters(), 6, 0),
        (chapters(), 6, 2),
        (longer(), 10, 1),
        (wider(), 7, 1),
        (second(), 3, 1),
        (chapters(), 2, 3),
        (third(), 0, 2),
    ):
        qs, ks, vs = _projections(rec)
        hs = _head_slices(rec.config)[h]
        d_h = hs.stop - hs.start
        s = [Value(_dot(qs[i][hs], ks[t][hs]) / math.sqrt(d_h)) for t in range(i + 1)]
        w = softmax(s)
        g = _head_gradients(rec)[i][hs]  # the gradient at this head's output
        gamma = [_dot(g, vs[t][hs]) for t in range(i + 1)]  # gamma_t = dL/dw_t
        sum(gt * wt for gt, wt in zip(gamma, w)).backward()
        cases.append(
            Case(
                f"head {h} of {rec.name} at position {i}: {i + 1} score{'s' if i else ''}",
                (data(w), gamma),
                (grad(s),),
                zero_why="" if i else "one score: its weight is 1 whatever the score, so the score has no effect",
                degenerate=i == 0,
            )
        )
    return cases


def _softmax_slip(w, gamma, *, weighted=True, diagonal=False, front=True):
    if diagonal:
        return [wt * (1 - wt) * gt for wt, gt in zip(w, gamma)]
    mean = sum(wu * gu for wu, gu in zip(w, gamma)) if weighted else sum(gamma) / len(gamma)
    return [(wt if front else 1.0) * (gt - mean) for wt, gt in zip(w, gamma)]


def _softmax_terms(w, gamma):
    mean, squares = _dot(w, gamma), sum(wu * wu * gu for wu, gu in zip(w, gamma))
    direct = [wt * gt for wt, gt in zip(w, gamma)]
    average, own, others = (
        "the average's term -w_t sum_u w_u gamma_u",
        "the average's own term -w_t w_t gamma_t",
        "the average's other terms -w_t sum_(u != t) w_u gamma_u",
    )
    return {
        "ds": [
            {
                "the direct term w_t gamma_t": direct,
                average: [-wt * mean for wt in w],
                # one term written another way: the slips a reader makes in that term alone
                "gamma_t": Instead(
                    average,
                    "gamma_t stands where gamma_u belongs: sum_u w_u gamma_t is gamma_t, since the w_u sum to 1",
                    [-wt * gt for wt, gt in zip(w, gamma)],
                ),
                "w_t": Instead(
                    average,
                    "w_t stands where w_u belongs: yours is -w_t sum_u w_t gamma_u",
                    [-wt * wt * math.fsum(gamma) for wt in w],
                ),
            },
            {  # the Jacobian's diagonal (u = t) and the rest
                "the direct term w_t gamma_t": direct,
                own: [-wt * wt * gt for wt, gt in zip(w, gamma)],
                others: [-wt * (mean - wt * gt) for wt, gt in zip(w, gamma)],
                "no w_t": Instead(
                    others,
                    "a factor is left out, w_t: yours is -sum_(u != t) w_u gamma_u",
                    [-(mean - wt * gt) for wt, gt in zip(w, gamma)],
                ),
                "w_u": Instead(
                    others,
                    "w_u stands where w_t belongs: yours is -sum_(u != t) w_u w_u gamma_u, and dw_u/ds_t is"
                    " w_u (delta_ut - w_t)",
                    [-(squares - wt * wt * gt) for wt, gt in zip(w, gamma)],
                ),
            },
        ]
    }


def _softmax_families(w, gamma):
    each = [[-wt * w[u] * gamma[u] for wt in w] for u in range(len(w))]
    what = "ds_t subtracts w_t times the average sum_u w_u gamma_u, a sum over the scores u"
    return {"ds": [Family(what, "score {k}", each)]}


SOFTMAX = Piece(
    "softmax_backward",
    ("ds",),
    _softmax_cases,
    layout=Layout({"ds": ("score",)}),
    sizes=lambda w, gamma: {"len(w)": len(w)},
    terms=_softmax_terms,
    families=_softmax_families,
    slips={
        "sign": Slip(lambda w, gm: _neg(pieces.softmax_backward(w, gm)), SIGN),
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


# ---------------------------------------------------------------- one head of attention, over all positions


HEAD_TERMS: tuple[str, ...] = ("dq direct", "dq average", "dk own direct", "dk own average", "dk later direct")
HEAD_TERMS += ("dk later average", "dv own", "dv later")


def head_terms(qs, ks, vs, gs, slip=""):
    """pieces.attention_head_backward, split into its terms, with one named slip in it (or none).

    The terms: the softmax's direct and average terms of dq and dk, and the shares of a key and a value
    from the query at their own position and from later ones.
    """
    T, d_h = len(qs), len(qs[0])
    scale = {"no scale": 1.0, "scale twice": 1 / d_h}.get(slip, 1 / math.sqrt(d_h))
    terms = {name: [[0.0] * d_h for _ in range(T)] for name in HEAD_TERMS}
    for i in range(T):
        reads = range(T) if slip == "not causal" else range(i + 1)
        s = [_dot(qs[i], ks[t]) / math.sqrt(d_h) for t in reads]  # the forward pass: the weights of the keys read
        e = [math.exp(v - max(s)) for v in s]
        w = [v / math.fsum(e) for v in e]
        gamma = [_dot(gs[i], vs[t]) for t in reads]
        mean = _dot(w, gamma)
        if slip == "softmax diagonal":
            ds = {"direct": [wt * (1 - wt) * gt for wt, gt in zip(w, gamma)], "average": [0.0] * len(w)}
        else:
            ds = {"direct": [wt * gt for wt, gt in zip(w, gamma)], "average": [-wt * mean for wt in w]}
        for t in reads:
            whose = "own" if t == i else "later"
            kept = slip != "no cache" or t == i  # the slip: keys and values only from their own position's query
            for j in range(d_h):
                for kind, d in ds.items():
                    terms[f"dq {kind}"][i][j] += d[t] * ks[t][j] * scale
                    if kept:
                        terms[f"dk {whose} {kind}"][t][j] += d[t] * qs[i][j] * scale
                if kept:
                    terms[f"dv {whose}"][t][j] += (1.0 if slip == "dv without w" else w[t]) * gs[i][j]
    return terms


def _summed(terms, *names):
    total = terms[names[0]]
    for name in names[1:]:
        total = _add(total, terms[name])
    return total


def head_answer(terms):
    """(dqs, dks, dvs) from head_terms()."""
    return (
        _summed(terms, "dq direct", "dq average"),
        _summed(terms, "dk own direct", "dk own average", "dk later direct", "dk later average"),
        _summed(terms, "dv own", "dv later"),
    )


def _head_by_engine(qs, ks, vs, gs):
    """dL/dq, dL/dk, dL/dv of one head for L = sum_i gs[i] . out_i, as attention() in model.py computes out_i."""
    q, k, v = _values(qs), _values(ks), _values(vs)
    d_h = len(qs[0])
    total = []
    for i in range(len(qs)):
        scores = [sum(qj * kj for qj, kj in zip(q[i], k_t)) for k_t in k[: i + 1]]
        weights = softmax([s / d_h**0.5 for s in scores])
        total += [gs[i][j] * sum(w * v_t[j] for w, v_t in zip(weights, v[: i + 1])) for j in range(d_h)]
    sum(total).backward()
    return tuple([grad(row) for row in m] for m in (q, k, v))


def _one_position(gs: list[list[float]], t: int) -> list[list[float]]:
    """The gradient gs at position t alone, zero everywhere else: causality shows in what comes back."""
    return [list(g) if i == t else [0.0] * len(g) for i, g in enumerate(gs)]


def _causal_why(t: int) -> dict[str, str]:
    """Why the engine's answer is 0 after position t, when the gradient arrives at position t only."""
    reads = f"position {t}'s output reads the keys and values of positions 0 to {t} only (the causal limit)"
    return {
        "dqs": f"the gradient arrives at position {t} only, and no other position's output reads position {t}'s query",
        "dks": f"the gradient arrives at position {t} only, and {reads}",
        "dvs": f"the gradient arrives at position {t} only, and {reads}",
    }


HEAD_SITES = (  # (step, head, the one position with a gradient, or None)
    (chapters, 1, 3),
    (chapters, 0, None),
    (longer, 2, None),
    (wider, 1, None),
    (second, 1, None),
    (third, 2, None),
    (narrow, 1, None),  # several positions, d_h = 2: not a perfect square (isqrt(d_h) is not sqrt(d_h))
)


@_cached
def _head_cases() -> list[Case]:
    cases = []
    for recording, h, only in HEAD_SITES:
        rec = recording()
        hs = _head_slices(rec.config)[h]
        qs, ks, vs = ([v[hs] for v in m] for m in _projections(rec))
        gs = [g[hs] for g in _head_gradients(rec)]
        if only is not None:
            gs = _one_position(gs, only)
        d_h = hs.stop - hs.start
        where = f"the gradient at position {only} only" if only is not None else "the step's gradient"
        cases.append(
            Case(
                f"head {h} of {rec.name}: T = {rec.T}, d_h = {d_h}, {where}",
                (qs, ks, vs, gs),
                _head_by_engine(qs, ks, vs, gs),
                zero_why=_causal_why(only) if only is not None else {},
                degenerate=rec.T == 1,
                trait="" if only is not None else "a gradient at every position",
            )
        )
    return cases


def _head_families(qs, ks, vs, gs):
    """dq_i as its keys' terms; dk_t and dv_t as the terms of the queries that read them."""
    T, d_h = len(qs), len(qs[0])
    zero = [[0.0] * d_h for _ in range(T)]
    by_key, dk_by_query, dv_by_query = [copy.deepcopy(zero) for _ in range(T)], [], []
    for i in range(T):
        w = _weights(qs, ks, i)
        ds = pieces.softmax_backward(w, [_dot(gs[i], vs[t]) for t in range(i + 1)])
        dk, dv = copy.deepcopy(zero), copy.deepcopy(zero)
        for t in range(i + 1):
            dk[t] = [ds[t] * q / math.sqrt(d_h) for q in qs[i]]
            dv[t] = [w[t] * g for g in gs[i]]
            by_key[t][i] = [ds[t] * k / math.sqrt(d_h) for k in ks[t]]
        dk_by_query.append(dk)
        dv_by_query.append(dv)
    return {
        "dqs": [Family("dq_i sums ds_t k_t / sqrt(d_h) over the keys t that query i reads", "key {k}", by_key)],
        "dks": [Family("dk_t sums ds_t q_i / sqrt(d_h) over the queries i that read key t", "query {k}", dk_by_query)],
        "dvs": [Family("dv_t sums w_t g_i over the queries i that read value t", "query {k}", dv_by_query)],
    }


def _head_terms(qs, ks, vs, gs):
    p = head_terms(qs, ks, vs, gs)
    own, later = ("the share from the query at its own position", "the share from later positions' queries")
    direct, average = ("the softmax's direct term", "its average's term")
    return {
        "dqs": [{direct: p["dq direct"], average: p["dq average"]}],
        "dks": [
            {
                own: _summed(p, "dk own direct", "dk own average"),
                later: _summed(p, "dk later direct", "dk later average"),
            },
            {
                direct: _summed(p, "dk own direct", "dk later direct"),
                average: _summed(p, "dk own average", "dk later average"),
            },
        ],
        "dvs": [{own: p["dv own"], later: p["dv later"]}],
    }


def _head(slip: str):
    def wrong(qs, ks, vs, gs):
        answer = head_answer(head_terms(qs, ks, vs, gs, slip))
        return tuple(_neg(a) for a in answer) if slip == "sign" else answer

    return wrong


NO_CACHE = (
    "a sum over positions left out: a key and a value made at position t are read again by the query of every\n"
    " later position (the KV cache); their gradients add up over all those reads"
)
NO_SCALE = "a constant factor: the scores are q . k_t / sqrt(d_h), so dq and dk_t carry the same 1 / sqrt(d_h)"
SOFTMAX_DIAGONAL = "the softmax's diagonal only, w_t (1 - w_t) gamma_t: every w_u depends on s_t too (-w_t w_u)"
DV_WITHOUT_W = "dL/dv_t is w_t times g: the value enters the output weighted by w_t"
HEAD_HINTS = {
    "no cache": NO_CACHE,
    "not causal": (
        "the causal limit: the query at position i reads the keys and values of positions 0 to i only,\n"
        " so its softmax runs over those i + 1 scores, and later keys and values get nothing from it"
    ),
    "no scale": NO_SCALE,
    "softmax diagonal": SOFTMAX_DIAGONAL,
    "dv without w": DV_WITHOUT_W,
    "sign": SIGN,
}
HEAD_LAYOUT = Layout({"dqs": ("position", "entry"), "dks": ("position", "entry"), "dvs": ("position", "entry")})

ATTENTION_HEAD = Piece(
    "attention_head_backward",
    ("dqs", "dks", "dvs"),
    _head_cases,
    layout=HEAD_LAYOUT,
    sizes=lambda qs, ks, vs, gs: {"T": len(qs), "d_h": len(qs[0]), "√d_h": math.sqrt(len(qs[0]))},
    first=("dks", "dvs"),  # a sum over reads shows in the keys and values
    terms=_head_terms,
    families=_head_families,
    slips={slip: Slip(_head(slip), hint) for slip, hint in HEAD_HINTS.items()},
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


ATTENTION_SITES = (  # (step, the one position with a gradient, or None)
    (chapters, 3),
    (chapters, None),
    (longer, None),
    (wider, None),
    (second, None),
    (third, None),
    (narrow, None),
)


@_cached
def _attention_cases() -> list[Case]:
    cases = []
    for recording, only in ATTENTION_SITES:
        rec = recording()
        mats = [_matrix(rec, f"layer0.{name}") for name in ATTENTION_MATRICES]
        xs = [data(p.attn_in) for p in rec.step.positions]
        gs = [grad(p.attn_out) for p in rec.step.positions]
        if only is not None:
            gs = _one_position(gs, only)
        c = rec.config
        where = f"the gradient at position {only} only" if only is not None else "the step's gradient"
        cases.append(
            Case(
                f"{rec.name}: T = {rec.T}, n_embd = {c.n_embd}, {c.n_head} heads of {c.head_dim}, {where}",
                (xs, *mats, c.n_head, gs),
                _attention_by_engine(xs, mats, c.n_head, gs),
                zero_why={"dxs": _causal_why(only)["dks"]} if only is not None else {},
                degenerate=rec.T == 1,
                trait="" if only is not None else "a gradient at every position",
            )
        )
    return cases


def _attention_split(xs, wq, wk, wv, wo, n_head, gs, slip=""):
    """What attn_wo and the heads send back, with one slip in them or none: head_terms() of every head side by
    side (each a list over positions of full-width rows), and dwo."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs, ks, vs = ([[_dot(row, x) for row in w] for x in xs] for w in (wq, wk, wv))
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed: list[list[float]] = [[] for _ in range(T)]
    for hs in heads:
        for i in range(T):
            w = _weights([q[hs] for q in qs], [k[hs] for k in ks], i)
            mixed[i] += [math.fsum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = pieces.linear_backward(mixed[i], wo, gs[i])
        if slip != "dwo last only" or i == T - 1:
            dwo = _add(dwo, dw)
        dmixed.append(dm)
    split: dict[str, list[list[float]]] = {name: [[] for _ in range(T)] for name in HEAD_TERMS}
    head_slip = slip if slip in HEAD_HINTS and slip != "sign" else ""
    for hs in heads:
        terms = head_terms(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed], head_slip
        )
        for name, value in terms.items():
            for t in range(T):
                split[name][t] += value[t]
    return split, (_transpose(dwo) if slip == "dwo transposed" else dwo)


def attention_with_slip(xs, wq, wk, wv, wo, n_head, gs, slip=""):
    """pieces.attention_backward with one named slip in it: the attention checker's wrong variants."""
    T = len(xs)
    split, dwo = _attention_split(xs, wq, wk, wv, wo, n_head, gs, slip)
    dqs, dks, dvs = head_answer(split)
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for path, w_, ds_ in (("q", wq, dqs), ("k", wk, dks), ("v", wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = pieces.linear_backward(xs[t], w_, ds_[t])
            if slip != f"dw{path} last only" or t == T - 1:
                dw_sum = _add(dw_sum, dw)
            if slip != f"no {path} path":
                dxs[t] = _add(dxs[t], dx)
        grads.append(_transpose(dw_sum) if slip == f"dw{path} transposed" else dw_sum)
    result = (dxs, grads[0], grads[1], grads[2], dwo)
    return tuple(_neg(part) for part in result) if slip == "sign" else result


def _attention_families(xs, wq, wk, wv, wo, n_head, gs):
    """Each matrix's gradient as the terms of the positions it sums over."""
    split, _ = _attention_split(xs, wq, wk, wv, wo, n_head, gs)
    ds = dict(zip(("dwq", "dwk", "dwv"), head_answer(split)))
    mixed = [_mixed_at(xs, wq, wk, wv, n_head, i) for i in range(len(xs))]
    found = {
        name: [
            Family(
                f"{name} sums d_t x_t^T over the positions t",
                "position {k}",
                [_outer(d[t], xs[t]) for t in range(len(xs))],
            )
        ]
        for name, d in ds.items()
    }
    what = "dwo sums g_t mixed_t^T over the positions t"
    found["dwo"] = [Family(what, "position {k}", [_outer(gs[t], mixed[t]) for t in range(len(xs))])]
    return found


def _mixed_at(xs, wq, wk, wv, n_head, i):
    """What attn_wo reads at position i, from the arguments of attention_backward."""
    d_h = len(xs[0]) // n_head
    qs, ks, vs = ([[_dot(row, x) for row in w] for x in xs] for w in (wq, wk, wv))
    out: list[float] = []
    for h in range(n_head):
        hs = slice(h * d_h, (h + 1) * d_h)
        w = _weights([q[hs] for q in qs], [k[hs] for k in ks], i)
        out += [math.fsum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    return out


def _attention_terms(xs, wq, wk, wv, wo, n_head, gs):
    """dxs as its three paths; dwq and dwk as their softmax terms; dwk and dwv by whose query read them."""
    split, _ = _attention_split(xs, wq, wk, wv, wo, n_head, gs)

    def through(w, *names):  # w^T d at every position, d summed from these terms
        d = _summed(split, *names)
        return [_apply_t(w, d[t]) for t in range(len(xs))]

    def weight(*names):  # the sum over positions of d_t x_t^T
        d = _summed(split, *names)
        total = _outer(d[0], xs[0])
        for t in range(1, len(xs)):
            total = _add(total, _outer(d[t], xs[t]))
        return total

    dk = ("dk own direct", "dk own average", "dk later direct", "dk later average")
    own, later = "the share from each {}'s own position's query", "the share from later positions' queries"
    direct, average = "the softmax's direct term", "its average's term"
    return {
        "dxs": [
            {
                "the path through q, wq^T dq": through(wq, "dq direct", "dq average"),
                "the path through k, wk^T dk": through(wk, *dk),
                "the path through v, wv^T dv": through(wv, "dv own", "dv later"),
            }
        ],
        "dwq": [{direct: weight("dq direct"), average: weight("dq average")}],
        "dwk": [
            {own.format("key"): weight(*dk[:2]), later: weight(*dk[2:])},
            {direct: weight(dk[0], dk[2]), average: weight(dk[1], dk[3])},
        ],
        "dwv": [{own.format("value"): weight("dv own"), later: weight("dv later")}],
    }


def _att(slip: str):
    def wrong(xs, wq, wk, wv, wo, n_head, gs):
        if slip in WRITTEN_SIZES:
            return pieces.attention_backward(xs, wq, wk, wv, wo, WRITTEN_SIZES[slip](xs, n_head), gs)
        return attention_with_slip(xs, wq, wk, wv, wo, n_head, gs, slip)

    return wrong


TRANSPOSED = "a transpose: dL/dW is g x^T, entry [i][j] = g[i] * x[j]"
NOT_SUMMED = "a sum over positions left out: the matrix is used at every position, so its gradient adds up over them"


def _missing_path(c: str) -> str:
    return (
        "a use left out: x_t is used three times, to make q_t, k_t and v_t;\n"
        f" dL/dx_t is missing the share through {c}_t, w{c}^T d{c}_t"
    )


ATTENTION_HINTS = {
    "sign": SIGN,
    "no scale": NO_SCALE,
    "no cache": NO_CACHE,
    "no q path": _missing_path("q"),
    "no k path": _missing_path("k"),
    "no v path": _missing_path("v"),
    "softmax diagonal": SOFTMAX_DIAGONAL,
    "dv without w": DV_WITHOUT_W,
    **{f"dw{c} transposed": TRANSPOSED for c in "qkvo"},
    **{f"dw{c} last only": NOT_SUMMED for c in "qkvo"},
    "heads of 4": "every head 4 wide, as in the page's step: a head's width d_h is len(xs[0]) // n_head",
    "4 heads": "4 heads, as in the page's step: the number of heads is the argument n_head",
}
WRITTEN_SIZES = {  # the page's sizes written as numbers: the solution run with them
    "heads of 4": lambda xs, n_head: len(xs[0]) // 4,
    "4 heads": lambda xs, n_head: 4,
}


def _attention_sizes(xs, wq, wk, wv, wo, n_head, gs):
    d_h = len(xs[0]) // n_head
    return {"T": len(xs), "n_embd": len(xs[0]), "n_head": n_head, "d_h": d_h, "√d_h": math.sqrt(d_h)}


def _head_of_row(facts: dict[str, Any], part: str, axis: int, i: int) -> str:
    """Which head an index is in: the rows of dwq, dwk and dwv, and the columns of dwo, are the heads side by side."""
    by_head = (part in ("dwq", "dwk", "dwv") and axis == 0) or (part == "dwo" and axis == 1)
    return f" (head {i // facts['d_h']})" if by_head and facts.get("n_head", 1) > 1 else ""


def _by_head(axis: int) -> tuple[Grouping, ...]:
    return (Grouping(axis, "head", "heads", lambda facts, i: i // int(facts["d_h"])),)


ATTENTION = Piece(
    "attention_backward",
    ("dxs", "dwq", "dwk", "dwv", "dwo"),
    _attention_cases,
    layout=Layout(
        {"dxs": ("position", "entry"), **{p: ("row", "column") for p in ("dwq", "dwk", "dwv", "dwo")}},
        note=_head_of_row,
        groupings={"dwq": _by_head(0), "dwk": _by_head(0), "dwv": _by_head(0), "dwo": _by_head(1)},
    ),
    sizes=_attention_sizes,
    first=("dwq", "dwk", "dwv", "dwo"),  # a slip on one path shows in its matrix: name it there, not in dxs
    terms=_attention_terms,
    families=_attention_families,
    slips={slip: Slip(_att(slip), hint) for slip, hint in ATTENTION_HINTS.items()},
)


# ---------------------------------------------------------------- the embedding lookup


@_cached
def _embedding_cases() -> list[Case]:
    cases = []
    for rec, table in (
        (chapters(), "wte"),
        (another(), "wte"),
        (chapters(), "wpe"),
        (longer(), "wte"),
        (wider(), "wte"),
        (second(), "wte"),
        (third(), "wte"),
        (few_tokens(), "wte"),  # fewer rows than positions: a loop over the positions bounded by the rows fails
    ):
        rows = rec.step.model.state_dict[table]
        grads = [grad(p.embedded) for p in rec.step.positions]
        used = [p.token for p in rec.step.positions] if table == "wte" else list(range(rec.T))
        what = f"tokens {used}" if table == "wte" else f"positions 0 to {rec.T - 1}"
        cases.append(
            Case(
                f"{table} of {rec.name}: {len(rows)} rows, {what}",
                (len(rows), used, grads),
                ([grad(r) for r in rows],),
                zero_why="a row the lookup did not read is not in the graph: it gets nothing",
                trait=_most_reads(used),
            )
        )
    return cases


def _most_reads(used: list[int]) -> str:
    """What sets a case's reads apart: a row read more than once, and how many times."""
    n = max(used.count(i) for i in used)
    return "" if n == 1 else f"a row read {'twice' if n == 2 else f'{n} times'}"


def _read_at(facts: dict[str, Any], part: str, axis: int, i: int) -> str:
    if axis != 0:
        return ""
    at = [k for k, row in enumerate(facts["used"]) if row == i]
    if not at:
        return " (not read)"
    return f" (read at position {at[0]})" if len(at) == 1 else f" (read at positions {', '.join(map(str, at))})"


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
    layout=Layout({"d(table)": ("row", "column")}, note=_read_at),
    sizes=lambda rows, used, grads: {"rows": rows, "T": len(grads), "len(grads[0])": len(grads[0])},
    facts=lambda rows, used, grads: {"used": list(used)},
    families=lambda rows, used, grads: {
        "d(table)": [
            Family(
                "a row sums the gradients of the positions that read it",
                "position {k}",
                [[list(g) if r == i else [0.0] * len(g) for r in range(rows)] for i, g in zip(used, grads)],
            )
        ]
    },
    slips={
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
        "sign": Slip(lambda rows, used, grads: _neg(pieces.embedding_backward(rows, used, grads)), SIGN),
        "all rows": Slip(
            lambda rows, used, grads: [[math.fsum(col) for col in zip(*grads)] for _ in range(rows)],
            "every row got the sum of all positions: a row gets only the positions that read it",
        ),
    },
)

PIECES = {p.name: p for p in (CROSS_ENTROPY, LINEAR, RELU, RMSNORM, SOFTMAX, ATTENTION_HEAD, ATTENTION, EMBEDDING)}
for _piece in PIECES.values():  # the argument names, as the solution's signature has them
    _piece.arguments = tuple(inspect.signature(getattr(pieces, _piece.name)).parameters)


def check_cross_entropy_backward(backward) -> Verdict:
    """Check cross_entropy_backward(p, target, T) -> dz on positions of the recorded steps."""
    return _checked(CROSS_ENTROPY, backward)


def check_linear_backward(backward) -> Verdict:
    """Check linear_backward(x, w, g) -> (dw, dx) on attn_wo's and the MLP's matrices of the recorded steps."""
    return _checked(LINEAR, backward)


def check_relu_backward(backward) -> Verdict:
    """Check relu_backward(h, g) -> dh on the MLP's hidden units at positions of the recorded steps."""
    return _checked(RELU, backward)


def check_rmsnorm_backward(backward) -> Verdict:
    """Check rmsnorm_backward(x, g) -> dx on the RMSNorms of the recorded steps."""
    return _checked(RMSNORM, backward)


def check_softmax_backward(backward) -> Verdict:
    """Check softmax_backward(w, gamma) -> ds on heads' weights of the recorded steps."""
    return _checked(SOFTMAX, backward)


def check_attention_head_backward(backward) -> Verdict:
    """Check attention_head_backward(qs, ks, vs, gs) -> (dqs, dks, dvs) on heads of the recorded steps."""
    return _checked(ATTENTION_HEAD, backward)


def check_attention_backward(backward) -> Verdict:
    """Check attention_backward(xs, wq, wk, wv, wo, n_head, gs) -> (dxs, dwq, dwk, dwv, dwo) on the recorded steps."""
    return _checked(ATTENTION, backward)


def check_embedding_backward(backward) -> Verdict:
    """Check embedding_backward(rows, used, grads) -> d(table) on the tables of the recorded steps."""
    return _checked(EMBEDDING, backward)


def _checked(piece: Piece, backward) -> Verdict:
    """check(), and a function it accepts becomes the reader's piece for the capstone (the verdict says so).

    The page's solution, run as the page shows it, is accepted but not kept: it never replaces a piece
    the reader wrote.
    """
    verdict = check(piece, backward)
    if verdict.ok:  # the capstone uses what passed
        before = kept.piece(piece.name)
        kept.keep(piece.name, backward)
        verdict.kept = kept.piece(piece.name) is not before
    return verdict
