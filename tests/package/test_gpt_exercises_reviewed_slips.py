"""A fresh reviewer's slips: 63 wrong answers invented without reading the checkers, none in their lists, kept here
with the diagnosis each must now get (the reviewer's report: notes/reviews/slips-review-1.md).

Each is a function a learner might write, some with a guard that keeps it running where the learner's would raise
(marked in its description). The kept set is tests/package/test_gpt_exercises_slips.py; slips written as one-line
changes of a learner's whole function are tests/package/test_gpt_exercises_one_line_slips.py.
"""

import math

import pytest
from verdicts import sentence_ends

from microgpt.course import checkers
from microgpt.course.checking import check

P = checkers.PIECES
NAMED, LOCATED, VAGUE = "how (and where)", "where", "only the largest difference"
_R_CACHE: list[float] = []  # rms_cached_r's r, kept from its first call


def softmax_list(s):
    m = max(s)
    e = [math.exp(x - m) for x in s]
    z = sum(e)
    return [x / z for x in e]


def _rms(x):
    n = len(x)
    return (n, (sum(xi * xi for xi in x) / n + 1e-05) ** (-0.5))


def _head(
    qs,
    ks,
    vs,
    gs,
    *,
    scale=None,
    causal=True,
    dv_pos="i",
    dk_q="i",
    gamma_from="v",
    dq_target="i",
    shared=False,
    range_fn=None,
    normalise=True,
    dv_with_ds=False,
    sm=None,
):
    from microgpt.course.pieces import softmax_backward

    sm = sm or softmax_backward
    T, d_h = (len(qs), len(qs[0]))
    c = math.sqrt(d_h) if scale is None else scale
    if shared:
        dqs = [[0.0] * d_h] * T
        dks = [[0.0] * d_h] * T
        dvs = [[0.0] * d_h] * T
    else:
        dqs = [[0.0] * d_h for _ in range(T)]
        dks = [[0.0] * d_h for _ in range(T)]
        dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        n = i + 1 if causal else T
        s = [sum((a * b for a, b in zip(qs[i], ks[t]))) / c for t in range(n)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e] if normalise else e
        src = vs if gamma_from == "v" else ks
        gamma = [sum((a * b for a, b in zip(gs[i], src[t]))) for t in range(n)]
        ds = sm(w, gamma)
        rng = range_fn(i, n) if range_fn else range(n)
        for t in rng:
            for j in range(d_h):
                dqs[i if dq_target == "i" else t][j] += ds[t] * ks[t][j] / c
                dks[t][j] += ds[t] * (qs[i] if dk_q == "i" else qs[t])[j] / c
                gsrc = gs[i] if dv_pos == "i" else gs[t]
                dvs[t][j] += (ds[t] if dv_with_ds else w[t]) * gsrc[j]
    return (dqs, dks, dvs)


def _att(
    xs,
    wq,
    wk,
    wv,
    wo,
    n_head,
    gs,
    *,
    head_slices=None,
    d_h=None,
    uses=("q", "k", "v"),
    wo_input="mixed",
    head_grad="dmixed",
    assign=("q", "k", "v"),
    dwo_div=None,
    shared_dw=False,
    order=None,
):
    from microgpt.course.pieces import attention_head_backward, linear_backward

    T = len(xs)
    d_h = d_h or len(xs[0]) // n_head
    qs = [[sum((a * b for a, b in zip(row, x))) for row in wq] for x in xs]
    ks = [[sum((a * b for a, b in zip(row, x))) for row in wk] for x in xs]
    vs = [[sum((a * b for a, b in zip(row, x))) for row in wv] for x in xs]
    heads = head_slices(n_head, d_h) if head_slices else [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum((a * b for a, b in zip(qs[i][hs], ks[t][hs]))) / math.sqrt(d_h) for t in range(i + 1)]
            w = softmax_list(s)
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(len(qs[i][hs]))]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i] if wo_input == "mixed" else xs[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    if dwo_div:
        dwo = [[v / dwo_div(T) for v in row] for row in dwo]
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    hg = dmixed if head_grad == "dmixed" else gs
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in hg]
        )
        got = {"q": dq, "k": dk, "v": dv}
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = (got[assign[0]][t], got[assign[1]][t], got[assign[2]][t])
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for name, w_, ds_ in (("q", wq, dqs), ("k", wk, dks), ("v", wv, dvs)):
        if shared_dw:
            dw_sum = [[0.0] * len(w_[0])] * len(w_)
        else:
            dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            for a in range(len(dw)):
                for b in range(len(dw[0])):
                    dw_sum[a][b] += dw[a][b]
            if name in uses:
                dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    out = [dxs, grads[0], grads[1], grads[2], dwo]
    if order:
        out = [out[k] for k in order]
    return tuple(out)


def ce_target_minus_one(p, target, T):
    return [(pj - (1.0 if j == target - 1 else 0.0)) / T for j, pj in enumerate(p)]


def ce_generator(p, target, T):
    return ((pj - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p))


def ce_softmax_again(p, target, T):
    q = softmax_list(p)
    return [(qj - (1.0 if j == target else 0.0)) / T for j, qj in enumerate(q)]


def ce_mutate(p, target, T):
    p[target] -= 1
    return [pj / T for pj in p]


def ce_T_minus_1(p, target, T):
    return (
        [(pj - (1.0 if j == target else 0.0)) / (T - 1) for j, pj in enumerate(p)]
        if T > 1
        else [pj - (j == target) for j, pj in enumerate(p)]
    )


def ce_numeric(p, target, T):
    z = [math.log(pj) for pj in p]

    def loss(zz):
        m = max(zz)
        lse = m + math.log(sum(math.exp(v - m) for v in zz))
        return (lse - zz[target]) / T

    out = []
    for j in range(len(z)):
        zp = list(z)
        zp[j] += 1e-06
        zm = list(z)
        zm[j] -= 1e-06
        out.append((loss(zp) - loss(zm)) / 2e-06)
    return out


def lin_dw_uses_w(x, w, g):
    dw = [[g[i] * w[i][j] for j in range(len(x))] for i in range(len(g))]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return (dw, dx)


def lin_dx_range_short(x, w, g):
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g) - 1)) for j in range(len(x))]
    return (dw, dx)


def lin_generators(x, w, g):
    dw = ((gi * xj for xj in x) for gi in g)
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return (dw, dx)


def lin_mutates_w(x, w, g):
    dw = [[gi * xj for xj in x] for gi in g]
    for i in range(len(g)):
        for j in range(len(x)):
            w[i][j] *= g[i]
    dx = [sum(w[i][j] for i in range(len(g))) for j in range(len(x))]
    return (dw, dx)


def lin_dx_mean(x, w, g):
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) / len(g) for j in range(len(x))]
    return (dw, dx)


def lin_only_dw(x, w, g):
    return [[gi * xj for xj in x] for gi in g]


def lin_dw_same_index(x, w, g):
    dw = [[g[i] * x[i % len(x)] for j in range(len(x))] for i in range(len(g))]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return (dw, dx)


def lin_dx_wrong_g_index(x, w, g):
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[j % len(g)] for i in range(len(g))) for j in range(len(x))]
    return (dw, dx)


def relu_filter(h, g):
    return [gi for hi, gi in zip(h, g) if hi > 0]


def relu_inplace(h, g):
    for i, hi in enumerate(h):
        if hi <= 0:
            g[i] = 0.0
    return g


def relu_mask_only(h, g):
    return [1.0 if hi > 0 else 0.0 for hi in h]


def relu_shift(h, g):
    return [g[i] if h[i - 1] > 0 else 0.0 for i in range(len(h))]


def relu_threshold(h, g):
    return [gi if hi > 0.001 else 0.0 for hi, gi in zip(h, g)]


def rms_sum_not_mean(x, g):
    n = len(x)
    r = (sum(xi * xi for xi in x) + 1e-05) ** (-0.5)
    gx = sum((a * b for a, b in zip(g, x)))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_dot_with_o(x, g):
    n, r = _rms(x)
    o = [r * xi for xi in x]
    go = sum((a * b for a, b in zip(g, o)))
    return [r * gi - r**3 * go / n * xi for gi, xi in zip(g, x)]


def rms_second_g(x, g):
    n, r = _rms(x)
    gx = sum((a * b for a, b in zip(g, x)))
    return [r * gi - r**3 * gx / n * gi for gi, xi in zip(g, x)]


def rms_hard_n(x, g):
    n = 16
    r = (sum(xi * xi for xi in x) / n + 1e-05) ** (-0.5)
    gx = sum((a * b for a, b in zip(g, x)))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_cached_r(x, g):
    n = len(x)
    if not _R_CACHE:
        _R_CACHE.append((sum((xi * xi for xi in x)) / n + 1e-05) ** (-0.5))
    r = _R_CACHE[0]
    gx = sum((a * b for a, b in zip(g, x)))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_numeric(x, g):

    def f(xx):
        n = len(xx)
        r = (sum(v * v for v in xx) / n + 1e-05) ** (-0.5)
        return sum((gi * r * v for gi, v in zip(g, xx)))

    out = []
    for i in range(len(x)):
        xp = list(x)
        xp[i] += 1e-06
        xm = list(x)
        xm[i] -= 1e-06
        out.append((f(xp) - f(xm)) / 2e-06)
    return out


def rms_first_x(x, g):
    n, r = _rms(x)
    gx = sum((a * b for a, b in zip(g, x)))
    return [r * xi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def sm_w_first_only(w, gamma):
    m = sum((a * b for a, b in zip(w, gamma)))
    return [wt * gt - m for wt, gt in zip(w, gamma)]


def sm_diag_no_1mw(w, gamma):
    out = []
    for t in range(len(w)):
        off = sum(w[u] * gamma[u] for u in range(len(w)) if u != t)
        out.append(w[t] * gamma[t] - w[t] * off)
    return out


def sm_resoftmax(w, gamma):
    ww = softmax_list(w)
    m = sum((a * b for a, b in zip(ww, gamma)))
    return [wt * (gt - m) for wt, gt in zip(ww, gamma)]


def sm_mutate(w, gamma):
    m = sum((a * b for a, b in zip(w, gamma)))
    for t in range(len(gamma)):
        gamma[t] -= m
    return [wt * gt for wt, gt in zip(w, gamma)]


def sm_short_sum(w, gamma):
    m = sum(w[u] * gamma[u] for u in range(len(w) - 1))
    return [wt * (gt - m) for wt, gt in zip(w, gamma)]


def sm_jac_sign(w, gamma):
    n = len(w)
    return [sum(gamma[u] * (w[t] * (1 - w[t]) if u == t else w[t] * w[u]) for u in range(n)) for t in range(n)]


def sm_numeric(w, gamma):
    s = [math.log(wt) for wt in w]

    def f(ss):
        return sum((g * v for g, v in zip(gamma, softmax_list(ss))))

    out = []
    for t in range(len(s)):
        sp = list(s)
        sp[t] += 1e-06
        sm_ = list(s)
        sm_[t] -= 1e-06
        out.append((f(sp) - f(sm_)) / 2e-06)
    return out


def ah_scale_dh(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, scale=len(qs[0]))


def ah_dq_into_t(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, dq_target="t", dv_pos="i")


def ah_shared(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, shared=True, dv_pos="i")


def ah_gamma_keys(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, gamma_from="k", dv_pos="i")


def ah_hard_dh(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, scale=2.0, dv_pos="i")


def ah_unnormalised(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, normalise=False, dv_pos="i")


def ah_dv_ds(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, dv_with_ds=True, dv_pos="i")


def ah_sm_sign(qs, ks, vs, gs):

    def sm(w, gamma):
        m = sum((a * b for a, b in zip(w, gamma)))
        return [wt * (m - gt) for wt, gt in zip(w, gamma)]

    return _head(qs, ks, vs, gs, dv_pos="i", sm=sm)


def ah_hard_T(qs, ks, vs, gs):
    from microgpt.course.pieces import attention_head_backward as sol

    return sol(qs[:7], ks[:7], vs[:7], gs[:7])


def ah_dq_uses_v(qs, ks, vs, gs):
    from microgpt.course.pieces import softmax_backward

    T, d_h = (len(qs), len(qs[0]))
    c = math.sqrt(d_h)
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum((a * b for a, b in zip(qs[i], ks[t]))) / c for t in range(i + 1)]
        w = softmax_list(s)
        gamma = [sum((a * b for a, b in zip(gs[i], vs[t]))) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * vs[t][j] / c
                dks[t][j] += ds[t] * qs[i][j] / c
                dvs[t][j] += w[t] * gs[i][j]
    return (dqs, dks, dvs)


def ah_only_dv(qs, ks, vs, gs):
    T, d_h = (len(qs), len(qs[0]))
    _, _, dv = _head(qs, ks, vs, gs)
    return ([[0.0] * d_h for _ in range(T)], [[0.0] * d_h for _ in range(T)], dv)


def ah_causal_short(qs, ks, vs, gs):
    from microgpt.course.pieces import softmax_backward

    T, d_h = (len(qs), len(qs[0]))
    c = math.sqrt(d_h)
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        n = max(i, 1)
        s = [sum((a * b for a, b in zip(qs[i], ks[t]))) / c for t in range(n)]
        w = softmax_list(s)
        gamma = [sum((a * b for a, b in zip(gs[i], vs[t]))) for t in range(n)]
        ds = softmax_backward(w, gamma)
        for t in range(n):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / c
                dks[t][j] += ds[t] * qs[i][j] / c
                dvs[t][j] += w[t] * gs[i][j]
    return (dqs, dks, dvs)


def ab_slice_h(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, n_head, gs, head_slices=lambda n, d: [slice(h, h + d) for h in range(n)])


def ab_slice_strided(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, n_head, gs, head_slices=lambda n, d: [slice(h, None, n) for h in range(n)])


def ab_hard_dh(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, n_head, gs, d_h=4)


def ab_one_head(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, 1, gs)


def ab_wo_input_x(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, n_head, gs, wo_input="x")


def ab_dk_from_dq(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, n_head, gs, assign=("q", "q", "v"))


def ab_heads_get_gs(xs, wq, wk, wv, wo, n_head, gs):
    return _att(xs, wq, wk, wv, wo, n_head, gs, head_grad="gs")


def ab_no_dx(xs, wq, wk, wv, wo, n_head, gs):
    out = list(_att(xs, wq, wk, wv, wo, n_head, gs))
    out[0] = [[0.0] * len(x) for x in xs]
    return tuple(out)


def ab_float_dh(xs, wq, wk, wv, wo, n_head, gs):
    d_h = len(xs[0]) / n_head
    return _att(xs, wq, wk, wv, wo, n_head, gs, d_h=d_h)


def ab_shift_pos(xs, wq, wk, wv, wo, n_head, gs):
    from microgpt.course.pieces import linear_backward

    out = list(_att(xs, wq, wk, wv, wo, n_head, gs))
    import microgpt.course.pieces as P

    T = len(xs)
    d_h = len(xs[0]) // n_head
    qs = [[sum((a * b for a, b in zip(row, x))) for row in wq] for x in xs]
    ks = [[sum((a * b for a, b in zip(row, x))) for row in wk] for x in xs]
    vs = [[sum((a * b for a, b in zip(row, x))) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum((a * b for a, b in zip(qs[i][hs], ks[t][hs]))) / math.sqrt(d_h) for t in range(i + 1)]
            w = softmax_list(s)
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dm = [linear_backward(mixed[i], wo, gs[i])[1] for i in range(T)]
    dqs = [[0.0] * len(x) for x in xs]
    for hs in heads:
        dq, _, _ = P.attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dm]
        )
        for t in range(T):
            dqs[t][hs] = dq[t]
    dwq = [[0.0] * len(row) for row in wq]
    for t in range(T):
        dw, _ = linear_backward(xs[t], wq, dqs[(t + 1) % T])
        dwq = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwq, dw)]
    out[1] = dwq
    return tuple(out)


def emb_only_used(rows, used, grads):
    return [list(g) for g in grads]


def emb_alias(rows, used, grads):
    d = [None] * rows
    for i, g in zip(used, grads):
        if d[i] is None:
            d[i] = g
        else:
            for j in range(len(g)):
                d[i][j] += g[j]
    n = len(grads[0])
    return [r if r is not None else [0.0] * n for r in d]


def emb_dict(rows, used, grads):
    d = {}
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d.get(i, [0.0] * len(g)), g)]
    return d


def emb_grads_by_row(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    used = list(used)
    for k in range(len(used)):
        i = used[k]
        g = grads[i] if i < len(grads) else grads[-1]
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d


def emb_iter_twice(rows, used, grads):
    it = iter(used)
    _seen = set(it)  # the first pass: which rows are read
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(it, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d


def emb_reversed(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, list(reversed(grads))):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d


def emb_rows_from_used(rows, used, grads):
    used = list(used)
    d = [[0.0] * len(grads[0]) for _ in range(max(used) + 1)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d


def emb_over_T(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + b / len(grads) for a, b in zip(d[i], g)]
    return d


REVIEWED = [  # (piece, slip, what the reviewer wrote it as, what the verdict must say, how much it says)
    (
        "cross_entropy_backward",
        ce_target_minus_one,
        "one-hot at target - 1 (off by one index)",
        "dz: yours is what the rule gives with one change, in y, the one-hot of the true token:",
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_generator,
        "returns a generator, not a list",
        "shape: dz should be a list of 27, not a generator.",
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_softmax_again,
        "softmax applied again to p, as if p were logits: (softmax(p) - y) / T",
        "dz: yours is what the rule gives with one change:",
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_mutate,
        "mutates p in place: p[target] -= 1, then divides (right numbers)",
        "ce_mutate changed its argument p (p[12] was 0.02713, and is now -0.9729).",
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_T_minus_1,
        "p - y over (T - 1): a positions count off by one",
        "dz: every entry is 7/6 times the engine's (7/6 is T/(T - 1) here).",
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_numeric,
        "numerical trick: central differences of the loss in z = log p, h = 1e-6",
        "dz: close, but not exact: every entry is within 1e-9 × the largest entry of the engine's,",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dw_uses_w,
        "dw uses w where x belongs: g[i] * w[i][j]",
        "dw: yours is what the rule gives with one change, in dw[i][j] = g[i] x[j]:",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dx_range_short,
        "dx's sum stops one row early: range(len(g) - 1)",
        "dx: dx[j] sums w[i][j] g[i] over the rows i; in yours, the term of row 15 (the last) is missing.",
        NAMED,
    ),
    (
        "linear_backward",
        lin_generators,
        "dw as a generator of generators",
        "shape: dw should be a list of 16, not a generator.",
        NAMED,
    ),
    (
        "linear_backward",
        lin_mutates_w,
        "mutates w in place to compute dx (w[i][j] *= g[i]), right numbers",
        "lin_mutates_w changed its argument w (w[0][0] was -0.04229, and is now -0.0005186).",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dx_mean,
        "dx averaged over the outputs: / len(g)",
        "dx: every entry is 1/16 times the engine's (1/16 is 1/len(x) or 1/len(g) here).",
        NAMED,
    ),
    (
        "linear_backward",
        lin_only_dw,
        "returns only dw (a partial answer)",
        "return 2 things, in this order: dw, dx.",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dw_same_index,
        "dw with the wrong loop variable: g[i] * x[i] in every column (x[i % len(x)] so it runs)",
        "dw: yours is what the rule gives with one change, in dw[i][j] = g[i] x[j]:",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dx_wrong_g_index,
        "dx with the wrong loop variable on g: sum_i w[i][j] * g[j] (g[j % len(g)] so it runs)",
        "dx: yours is what the rule gives with one change, in dx[j] = sum over i of w[i][j] g[i]:",
        NAMED,
    ),
    (
        "relu_backward",
        relu_filter,
        "filters instead of masking: [gi for hi, gi in zip(h, g) if hi > 0]",
        "shape: dh has 28 entries where the engine's has 64 (its shape: 64).",
        NAMED,
    ),
    (
        "relu_backward",
        relu_inplace,
        "zeroes g in place and returns g itself (mutates, aliases)",
        "relu_inplace changed its argument g (g[0] was -7.404e-05, and is now 0).",
        NAMED,
    ),
    (
        "relu_backward",
        relu_mask_only,
        "returns the mask alone, forgets g",
        "dh: yours holds only 0s and 1s: a mask (or a local gradient) alone.",
        NAMED,
    ),
    (
        "relu_backward",
        relu_shift,
        "mask shifted by one: h[i-1] > 0",
        "dh: yours is what the rule gives with one change, in the mask, whether unit i was on (h_i > 0):",
        NAMED,
    ),
    (
        "relu_backward",
        relu_threshold,
        "a 'safe' threshold: passes only where h > 1e-3",
        "dh: yours is exactly 0 at units 0, 2 and 25, where the engine's is not.",
        LOCATED,
    ),
    (
        "rmsnorm_backward",
        rms_sum_not_mean,
        "ms forgets the mean: sum x^2, not / n",
        "dx: yours is what the rule gives with one change, in the mean square ms:",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_dot_with_o,
        "dot product with the output o = r x where the input x belongs",
        "dx is the sum of the direct term r g and the mean-square term -(r^3/n)(g . x) x.",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_second_g,
        "second term multiplies g_i where x_i belongs",
        "dx: yours is what the rule gives with one change, in dx_i = r g_i - (r^3/n)(g . x) x_i:",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_hard_n,
        "n hard-coded as 16",
        "dx: yours is what the rule gives with one change, in n, the number of entries:",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_cached_r,
        "r cached in a global on the first call and reused",
        "dx: yours is what the rule gives with another value for r, the scale r = (ms + eps)^-1/2:",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_numeric,
        "numerical gradient: central differences, h = 1e-6",
        "dx: close, but not exact: every entry is within 1e-10 × the largest entry of the engine's,",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_first_x,
        "first term uses x where g belongs: r x_i - ...",
        "dx: yours is what the rule gives with one change, in dx_i = r g_i - (r^3/n)(g . x) x_i:",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_w_first_only,
        "w_t gamma_t - mean (the w_t left off the second term)",
        "ds: yours is what the rule gives with one change, in ds_t = w_t gamma_t - w_t (the average):",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_diag_no_1mw,
        "off-diagonal sum over u != t with the diagonal's w_t gamma_t (no (1 - w_t))",
        "ds: in yours, the average's own term -w_t w_t gamma_t is missing;\n its other terms are right.",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_resoftmax,
        "treats w as scores: softmaxes w again",
        "ds: yours is what the rule gives with one change:",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_mutate,
        "subtracts the mean from gamma in place (mutates gamma), right numbers",
        "sm_mutate changed its argument gamma (gamma[0] was -0.0004535, and is now -0.001011).",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_short_sum,
        "mean over all but the last: range(len(w) - 1)",
        "ds: ds_t subtracts w_t times the average sum_u w_u gamma_u, a sum over the scores u; in yours, the term "
        "of score 6 (the last) is missing.",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_jac_sign,
        "the full Jacobian with the off-diagonal sign wrong: +w_t w_u",
        "ds: in yours, the average's other terms -w_t sum_(u != t) w_u gamma_u have their sign flipped;\n"
        " its other terms are right.",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_numeric,
        "numerical trick: central differences in s = log w, h = 1e-6",
        "ds: close, but not exact: every entry is within 1e-9 × the largest entry of the engine's,",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_scale_dh,
        "scale is 1/d_h, not 1/sqrt(d_h), everywhere (forward and backward)",
        "every result: yours is what the rule gives with one change, in the scores' divisor sqrt(d_h):",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_dq_into_t,
        "dq accumulated into position t, not i (i and t swapped)",
        "dqs: yours is what the rule gives with one change, in dq_i collects ds_t k_t / sqrt(d_h):",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_shared,
        "rows made by [[0.0]*d_h]*T: one shared row object per result",
        "dks: all its rows are one and the same list object, so adding into one row adds into all.",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_gamma_keys,
        "gamma from the keys, not the values: g . k_t",
        "dqs and dks: yours is what the rule gives with one change, in gamma_t = g_i . v_t, dL/dw_t:",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_hard_dh,
        "d_h hard-coded: sqrt(4)",
        "every result: yours is what the rule gives with one change, in the scores' divisor sqrt(d_h):",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_unnormalised,
        "weights not normalised: exp(s - max) used as w",
        "every result: yours is what the rule gives with one change, in the weights w_t:",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_dv_ds,
        "dv uses the score's gradient ds[t] where the weight w[t] belongs",
        "dvs: yours is what the rule gives with one change, in dv_t collects w_t g_i:",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_sm_sign,
        "softmax backward with the sign flipped (own, not the imported one)",
        "dqs and dks: each is the engine's with its sign flipped, and dvs is right.",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_hard_T,
        "T hard-coded as 7",
        "shape: dks has 7 entries where the engine's has 11 (its shape: 11 x 4).",
        LOCATED,
    ),
    (
        "attention_head_backward",
        ah_dq_uses_v,
        "dq built from the values, not the keys: ds[t] * vs[t]",
        "dqs: yours is what the rule gives with one change, in dq_i collects ds_t k_t / sqrt(d_h):",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_only_dv,
        "partial answer: only dvs written, dqs and dks left at zero",
        "dqs and dks: every entry of each is 0, and dvs is right.",
        NAMED,
    ),
    (
        "attention_head_backward",
        ah_causal_short,
        "the forward's causal range off by one: keys 0..i-1 (crashes at position 0, so guarded: position 0 reads "
        "key 0)",
        "dks: yours is exactly 0 at position 3, where the engine's is not.",
        LOCATED,
    ),
    (
        "attention_backward",
        ab_slice_h,
        "head slices overlap: slice(h, h + d_h)",
        "every result: yours is what the rule gives with one change, in the heads' entries, side by side:",
        NAMED,
    ),
    (
        "attention_backward",
        ab_slice_strided,
        "heads interleaved: slice(h, None, n_head)",
        "every result: yours is what the rule gives with one change, in the heads' entries, side by side:",
        NAMED,
    ),
    (
        "attention_backward",
        ab_hard_dh,
        "d_h hard-coded as 4",
        "every result: yours is what the rule gives with one change, in a head's width d_h:",
        NAMED,
    ),
    (
        "attention_backward",
        ab_one_head,
        "ignores n_head: one head over the whole width",
        "every result: yours is what the rule gives with one change:",
        NAMED,
    ),
    (
        "attention_backward",
        ab_wo_input_x,
        "attn_wo's backward fed x (attention's input) where the heads' output belongs",
        "dwo: yours is what the rule gives with one change, in dwo[r][j] sums g_i[r] mixed_i[j] over positions i:",
        NAMED,
    ),
    (
        "attention_backward",
        ab_dk_from_dq,
        "copy-paste: dks assigned from the head's dq",
        "dwk: yours is the engine's dwq, number for number.",
        NAMED,
    ),
    (
        "attention_backward",
        ab_heads_get_gs,
        "the heads get gs, skipping attn_wo's backward (W_o^T g)",
        "dxs, dwq, dwk and dwv: yours is what the rule gives with one change, in the gradient at a head's output:",
        NAMED,
    ),
    ("attention_backward", ab_no_dx, "partial answer: dxs left at zero", "dxs: every entry of yours is 0.", NAMED),
    (
        "attention_backward",
        ab_float_dh,
        "d_h = len(xs[0]) / n_head: a float where an int belongs (slices fail)",
        "ab_float_dh raised TypeError: slice indices must be integers or None or have an __index__ method",
        LOCATED,
    ),
    (
        "attention_backward",
        ab_shift_pos,
        "dwq computed with each x paired with the next position's dq (t+1, wrapping)",
        "dwq: yours is what the rule gives with one change, in a matrix's gradient sums d_t[r] x_t[j] over "
        "positions t, for dqs and dwq:",
        NAMED,
    ),
    (
        "embedding_backward",
        emb_only_used,
        "returns only the rows read: one per position (grads itself, copied)",
        "shape: d(table) has 7 entries where the engine's has 27 (its shape: 27 x 16).",
        LOCATED,
    ),
    (
        "embedding_backward",
        emb_alias,
        "first use assigns the caller's grads row, later uses add into it (aliases and mutates grads)",
        "emb_alias changed its argument grads (grads[4][0] was 0.03713, and is now 0.07907).",
        NAMED,
    ),
    (
        "embedding_backward",
        emb_dict,
        "returns a dict {row: gradient}",
        "shape: d(table) should be a list of 27, not a dict.",
        NAMED,
    ),
    ("embedding_backward", emb_grads_by_row, "grads indexed by the row, not the position: grads[used[k]]", "", VAGUE),
    (
        "embedding_backward",
        emb_iter_twice,
        "used consumed twice: a generator's second pass (used iterated for a count first)",
        "d(table): every entry of yours is 0.",
        NAMED,
    ),
    (
        "embedding_backward",
        emb_reversed,
        "position gradients reversed: zip(used, reversed(grads))",
        "d(table): yours is what the rule gives with one change, in the row position k read:",
        NAMED,
    ),
    (
        "embedding_backward",
        emb_rows_from_used,
        "rows taken from the data, not the argument: max(used) + 1 rows",
        "shape: d(table) has 7 entries where the engine's has 16 (its shape: 16 x 16).",
        LOCATED,
    ),
    (
        "embedding_backward",
        emb_over_T,
        "each row's gradient divided by the number of positions (a mean over T)",
        "d(table): every entry is 1/7 times the engine's (1/7 is 1/T here).",
        NAMED,
    ),
]


@pytest.mark.parametrize(
    ("name", "wrong", "what", "words", "kind"), REVIEWED, ids=[w.__name__ for _, w, _, _, _ in REVIEWED]
)
def test_a_reviewed_slip_is_refused_and_told_before_any_pair_of_numbers(name, wrong, what, words, kind):
    verdict = check(P[name], wrong)
    assert not verdict.ok and not verdict.kept
    assert "could not say" not in verdict.text, verdict.text
    assert all(line.endswith((".", "?", ":")) for line in sentence_ends(verdict.text)), verdict.text
    before = verdict.text.split("The largest difference is at")[0]
    assert words in before, verdict.text
    assert not any(verdict.text.endswith(slip.hint) for slip in P[name].slips.values()), "not a slip the page lists"


def test_of_the_reviewed_slips_at_least_80_percent_are_named_or_located_and_none_is_accepted():
    kinds = [kind for *_, kind in REVIEWED]
    assert len(REVIEWED) == 63 and {name for name, *_ in REVIEWED} == set(P)
    assert (kinds.count(NAMED) + kinds.count(LOCATED)) / len(kinds) >= 0.8
