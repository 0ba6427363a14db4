"""The solutions of the GPT chapter's exercises: each piece of gpt()'s backward on plain floats.

The pages show these as their solutions, and the capstone uses one wherever a reader has not written
their own.
"""

import math


def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    y = [1.0 if j == target else 0.0 for j in range(len(p))]  # one-hot
    return [(pj - yj) / T for pj, yj in zip(p, y)]


def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: dL/dw = g x^T (an outer product) and dL/dx = w^T g."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx


def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: g where the unit was on (h > 0), 0 where it was off."""
    return [gi if hi > 0 else 0.0 for hi, gi in zip(h, g)]


def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    mean = sum(wu * gu for wu, gu in zip(w, gamma))
    return [wt * (gt - mean) for wt, gt in zip(w, gamma)]


def attention_head_backward(qs, ks, vs, gs):
    """One head of causal attention over a whole document, backwards.

    qs[t], ks[t] and vs[t] are the head's query, key and value at position t, gs[t] the gradient at the
    head's output there. Returns dL/dq, dL/dk and dL/dv at every position.
    """
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]  # a key collects from every query that reads it
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):  # position i's query reads the keys and values of positions 0..i
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]  # the forward pass, again
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]  # dL/dw_t
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs


def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """Causal attention over a whole document, backwards: attn_wo, the heads, then the three projections.

    xs[t] is attention's input at position t, gs[t] the gradient at its output. Returns dL/dx at every
    position and the gradients of the four matrices, each summed over positions.
    """
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]  # the forward pass, again
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]  # what attn_wo reads: the heads' outputs side by side
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):  # attn_wo, a linear, at every position
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:  # each head, on its own slice of every query, key and value
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):  # the three uses of each x
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo


def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]; rows counts the table's rows."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]  # add, never assign: a row can be used twice
    return d
