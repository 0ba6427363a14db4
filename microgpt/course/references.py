"""Each piece's rule as a learner's loops write it: one quantity a line, each line saying what it computes.

The checkers change these one line at a time (microgpt.course.variants) to find which one line, changed,
gives a reader's wrong answer. They compute what the solutions in pieces.py compute (the tests hold both
to the engine), but pieces.py is written to be read, with zip() and comprehensions; here every entry is
read by its index (i an output or a query, t a key, u a score, j an entry), as the pages' formulas
name them, so that a slip in an index, a bound, an operand or a size is one change of one line.

A line's comment says what it computes, in the words a verdict uses for it; lines that only make a list
of zeros have none, and are never changed. ALTERNATIVES adds, for a few lines, other ways to write them
that a one-token change does not reach (the heads' slices side by side, interleaved or overlapping).
"""

import math


def cross_entropy_backward(p, target, T):
    V = len(p)  # the number of logits
    dz = [0.0] * V
    for j in range(V):  # the loop over the logits j
        y = 1.0 if j == target else 0.0  # y, the one-hot of the true token
        dz[j] = (p[j] - y) / T  # dz_j = (p_j - y_j) / T
    return dz


def linear_backward(x, w, g):
    dw = [[0.0] * len(x) for _ in range(len(g))]
    for i in range(len(g)):  # the loop over the outputs i, for dw
        for j in range(len(x)):  # the loop over the inputs j, for dw
            dw[i][j] = g[i] * x[j]  # dw[i][j] = g[i] x[j]
    dx = [0.0] * len(x)
    for j in range(len(x)):  # the loop over the inputs j, for dx
        for i in range(len(g)):  # the sum over the outputs i in dx[j]
            dx[j] += w[i][j] * g[i]  # dx[j] = sum over i of w[i][j] g[i]
    return dw, dx


def relu_backward(h, g):
    dh = [0.0] * len(h)
    for i in range(len(h)):  # the loop over the units i
        if h[i] > 0:  # the mask, whether unit i was on (h_i > 0)
            dh[i] = g[i]  # the gradient g_i an on unit passes back
    return dh


def rmsnorm_backward(x, g):
    n = len(x)  # n, the number of entries
    ms = sum(x[i] * x[i] for i in range(len(x))) / n  # the mean square ms
    r = (ms + 1e-5) ** -0.5  # the scale r = (ms + eps)^-1/2
    gx = sum(g[i] * x[i] for i in range(len(x)))  # the dot product g . x
    dx = [0.0] * len(x)
    for i in range(len(x)):  # the loop over the entries i
        dx[i] = r * g[i] - r**3 * gx / n * x[i]  # dx_i = r g_i - (r^3/n)(g . x) x_i
    return dx


def softmax_backward(w, gamma):
    n = len(w)  # the number of scores
    m = sum(w[u] * gamma[u] for u in range(n))  # the average sum_u w_u gamma_u
    ds = [0.0] * n
    for t in range(n):  # the loop over the scores t
        ds[t] = w[t] * gamma[t] - w[t] * m  # ds_t = w_t gamma_t - w_t (the average)
    return ds


def attention_head_backward(qs, ks, vs, gs):
    T = len(qs)  # T, the number of positions
    d_h = len(qs[0])  # d_h, a head's width
    c = math.sqrt(d_h)  # the scores' divisor sqrt(d_h)
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):  # the loop over the queries i
        n = i + 1  # how many positions query i reads (0 to i)
        s = [
            sum(qs[i][j] * ks[t][j] for j in range(d_h)) / c for t in range(n)
        ]  # the scores s_t = q_i . k_t / sqrt(d_h)
        top = max(s)  # the largest score
        e = [math.exp(st - top) for st in s]  # exp(s_t - max s)
        z = sum(e)  # the softmax's normaliser, sum_t exp(s_t - max s)
        w = [e[t] / z for t in range(n)]  # the weights w_t
        gamma = [sum(gs[i][j] * vs[t][j] for j in range(d_h)) for t in range(n)]  # gamma_t = g_i . v_t, dL/dw_t
        m = sum(w[t] * gamma[t] for t in range(n))  # the average sum_t w_t gamma_t
        ds = [w[t] * gamma[t] - w[t] * m for t in range(n)]  # ds_t = w_t (gamma_t - the average), dL/ds_t
        for t in range(n):  # the loop over the positions t that query i read
            for j in range(d_h):  # the loop over a head's entries j
                dqs[i][j] += ds[t] * ks[t][j] / c  # dq_i collects ds_t k_t / sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / c  # dk_t collects ds_t q_i / sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]  # dv_t collects w_t g_i
    return dqs, dks, dvs


def _matvec(w, x):
    return [sum(a * b for a, b in zip(row, x)) for row in w]


def softmax(s):
    e = [math.exp(v - max(s)) for v in s]
    return [v / sum(e) for v in e]


def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    # the solution's head, not this module's rule of the same name (the checkers run this rule in its globals)
    from microgpt.course.pieces import attention_head_backward

    T = len(xs)  # T, the number of positions
    n_embd = len(xs[0])  # n_embd, the width of x
    d_h = n_embd // n_head  # a head's width d_h
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]  # the heads' entries, side by side
    qs = [_matvec(wq, xs[t]) for t in range(T)]  # the queries
    ks = [_matvec(wk, xs[t]) for t in range(T)]  # the keys
    vs = [_matvec(wv, xs[t]) for t in range(T)]  # the values
    mixed = [[0.0] * n_embd for _ in range(T)]
    for i in range(T):  # the forward pass again, position by position
        for hs in heads:  # each head
            s = [
                sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)
            ]  # a head's scores
            w = softmax(s)  # a head's weights
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]  # the heads' output
    dwo = [[0.0] * n_embd for _ in range(len(wo))]
    dmixed = [[0.0] * n_embd for _ in range(T)]
    for i in range(T):  # attn_wo's backward, at each position i
        for r in range(len(wo)):  # the rows r of attn_wo
            for j in range(n_embd):  # the entries j of the heads' output
                dwo[r][j] += gs[i][r] * mixed[i][j]  # dwo[r][j] sums g_i[r] mixed_i[j] over positions i
                dmixed[i][j] += wo[r][j] * gs[i][r]  # the gradient at the heads' output, wo^T g_i
    dqs = [[0.0] * n_embd for _ in range(T)]
    dks = [[0.0] * n_embd for _ in range(T)]
    dvs = [[0.0] * n_embd for _ in range(T)]
    for hs in heads:  # each head's backward, on its own entries
        hq = [q[hs] for q in qs]  # a head's queries
        hk = [k[hs] for k in ks]  # a head's keys
        hv = [v[hs] for v in vs]  # a head's values
        hg = [d[hs] for d in dmixed]  # the gradient at a head's output
        dq, dk, dv = attention_head_backward(hq, hk, hv, hg)  # a head's backward
        for t in range(T):  # the heads' gradients put side by side, at each position t
            dqs[t][hs] = dq[t]  # dq_t, a head's entries
            dks[t][hs] = dk[t]  # dk_t, a head's entries
            dvs[t][hs] = dv[t]  # dv_t, a head's entries
    dxs = [[0.0] * n_embd for _ in range(T)]
    dwq = [[0.0] * n_embd for _ in range(len(wq))]
    dwk = [[0.0] * n_embd for _ in range(len(wk))]
    dwv = [[0.0] * n_embd for _ in range(len(wv))]
    for w_, d_, dw_ in ((wq, dqs, dwq), (wk, dks, dwk), (wv, dvs, dwv)):  # the three projections: q, k and v
        for t in range(T):  # each projection's backward, at each position t
            for r in range(n_embd):  # the rows r of its matrix
                for j in range(n_embd):  # the entries j of x_t
                    dw_[r][j] += d_[t][r] * xs[t][j]  # a matrix's gradient sums d_t[r] x_t[j] over positions t
                    dxs[t][j] += w_[r][j] * d_[t][r]  # dx_t's share through a projection, w^T d_t
    return dxs, dwq, dwk, dwv, dwo


def embedding_backward(rows, used, grads):
    T = len(grads)  # T, the number of positions
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(T):  # the loop over the positions k
        i = used[k]  # the row position k read
        for j in range(len(grads[0])):  # the loop over a row's entries j
            d[i][j] += grads[k][j]  # row i collects position k's gradient
    return d


# Other ways to write a line, for the changes one token cannot make: (function, the line's target) -> sources
ALTERNATIVES = {
    # softmax's diagonal, w_t (1 - w_t), taken for the factor in front of gamma_t - the average
    ("softmax_backward", "ds[t]"): (
        "ds[t] = (1 - w[t]) * (gamma[t] - m)",
        "ds[t] = w[t] * (1 - w[t]) * (gamma[t] - m)",
    ),
    ("attention_head_backward", "ds"): (
        "ds = [(1 - w[t]) * (gamma[t] - m) for t in range(n)]",
        "ds = [w[t] * (1 - w[t]) * (gamma[t] - m) for t in range(n)]",
    ),
    ("attention_backward", "heads"): (
        "heads = [slice(h, h + d_h) for h in range(n_head)]",  # each head starts at entry h: they overlap
        "heads = [slice(h, None, n_head) for h in range(n_head)]",  # head h takes every n_head-th entry
        "heads = [slice(h * n_head, h * n_head + d_h) for h in range(n_head)]",  # n_head where d_h belongs
        "heads = [slice(0, n_embd)]",  # one head over the whole width
    ),
}
