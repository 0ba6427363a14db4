"""A second fresh reviewer's slips (notes/reviews/slips-review-2.md), as written: each a learner's whole function.

kind "slip": a slip none of the checkers lists; "hard": an answer that hard-codes a size or keeps a value from an
earlier call; "hostile": reads the checker's own frame (not held to ✗: a learner who calls the solution has it);
"control": a right answer written another way; "dup": a listed slip in other words.
"""
# ruff: noqa  (the learners' code as the reviewer wrote it: kept verbatim, not restyled)

SLIPS = []


def S(id, ex, *rest):
    kind, desc, src = rest if len(rest) == 3 else ("slip", *rest)
    SLIPS.append(dict(id=id, ex=ex, kind=kind, desc=desc, src=src.strip("\n")))


CE, LIN, RELU, RMS, SM, HEAD, ATT, EMB = (
    "cross_entropy_backward",
    "linear_backward",
    "relu_backward",
    "rmsnorm_backward",
    "softmax_backward",
    "attention_head_backward",
    "attention_backward",
    "embedding_backward",
)

# ------------------------------------------------------------------ cross-entropy
S(
    "ce_forgot_log",
    CE,
    "slip",
    "differentiates -p[target] instead of -log p[target]: the 1/p of the log left out (answer = p_target times the engine's, per position)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    pt = p[target]
    # d(-p_t)/dz_j = -p_t (y_j - p_j)   (the log's 1/p_t forgotten)
    return [-pt * ((1.0 if j == target else 0.0) - pj) / T for j, pj in enumerate(p)]
''',
)
S(
    "ce_mean_twice",
    CE,
    "divides by T twice (once in a helper, once in the return)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = [(pj - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p)]
    return [d / T for d in dz]
''',
)
S(
    "ce_p_target_everywhere",
    CE,
    "p[target] where p[j] belongs: every entry uses the true token's probability",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [(p[target] - (1.0 if j == target else 0.0)) / T for j in range(len(p))]
''',
)
S(
    "ce_label_smoothing",
    CE,
    "a one-hot with label smoothing (0.9 at the target, 0.1 spread over the others)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    V = len(p)
    y = [0.9 if j == target else 0.1 / (V - 1) for j in range(V)]
    return [(pj - yj) / T for pj, yj in zip(p, y)]
''',
)
S(
    "ce_rounded",
    CE,
    "rounds each entry to 6 decimals (to print it nicely)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [round((pj - (1.0 if j == target else 0.0)) / T, 6) for j, pj in enumerate(p)]
''',
)
S(
    "ce_loop_from_one",
    CE,
    "the loop over the logits starts at 1: logit 0 keeps its initial 0",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = [0.0] * len(p)
    for j in range(1, len(p)):
        dz[j] = (p[j] - (1.0 if j == target else 0.0)) / T
    return dz
''',
)

# ------------------------------------------------------------------ linear
S(
    "lin_dx_from_dw",
    LIN,
    "dx summed from dw's column (dw[i][j]) where w[i][j] * g[i] belongs: dx_j = x_j * sum(g)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(dw[i][j] for i in range(len(g))) for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dx_assign",
    LIN,
    "dx[j] = ... where dx[j] += ... belongs: only the last output row's term survives",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [0.0] * len(x)
    for j in range(len(x)):
        for i in range(len(g)):
            dx[j] = w[i][j] * g[i]
    return dw, dx
''',
)
S(
    "lin_dx_loop_over_g",
    LIN,
    "dx's outer loop runs over len(g) (the outputs), not len(x): right only for square w",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(g))]
    return dw, dx
''',
)
S(
    "lin_returns_dg_too",
    LIN,
    "returns (dw, dx, g): a third result, the gradient passed through",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx, g
''',
)
S(
    "lin_dw_accumulates_globally",
    LIN,
    "'gradients add up': dw kept in a module-level dict and added to on every call",
    '''
_dw = {}


def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    key = (len(g), len(x))
    acc = _dw.setdefault(key, [[0.0] * len(x) for _ in g])
    for i in range(len(g)):
        for j in range(len(x)):
            acc[i][j] += g[i] * x[j]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return [row[:] for row in acc], dx
''',
)

# ------------------------------------------------------------------ ReLU
S(
    "relu_tanh_derivative",
    RELU,
    "the tanh rule 1 - tanh(h)^2 (from the page's note) in place of the mask",
    '''
import math


def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi * (1 - math.tanh(hi) ** 2) for hi, gi in zip(h, g)]
''',
)
S(
    "relu_abs_mask",
    RELU,
    "the mask tests abs(h) > 0: every unit passes",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi if abs(hi) > 0 else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_sign_of_h",
    RELU,
    "g times the sign of h (abs's derivative): off units send -g",
    '''
import math


def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi * math.copysign(1.0, hi) for hi, gi in zip(h, g)]
''',
)
S(
    "relu_returns_forward",
    RELU,
    "returns relu(h), the forward output, not the gradient",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [hi if hi > 0 else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_bool_short_circuit",
    RELU,
    "hi > 0 and gi: an off unit gives False, not 0.0",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [hi > 0 and gi for hi, gi in zip(h, g)]
''',
)

# ------------------------------------------------------------------ RMSNorm
S(
    "rms_layernorm",
    RMS,
    "LayerNorm's backward (mean subtracted: the centred variance) in place of RMSNorm's",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    mu = sum(x) / n
    xc = [xi - mu for xi in x]
    r = (sum(v * v for v in xc) / n + 1e-5) ** -0.5
    xh = [v * r for v in xc]
    mg = sum(g) / n
    mgx = sum(gi * hi for gi, hi in zip(g, xh)) / n
    return [r * (gi - mg - hi * mgx) for gi, hi in zip(g, xh)]
''',
)
S(
    "rms_r3_exponent_sign",
    RMS,
    "r^3 computed as (ms + eps) ** 1.5, the minus of -3/2 forgotten",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(xi * xi for xi in x) / n
    r = (ms + 1e-5) ** -0.5
    r3 = (ms + 1e-5) ** 1.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_exponent_floor_div",
    RMS,
    "r = (ms + eps) ** (-1 // 2): -1 // 2 is -1, so r is 1/(ms + eps)",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(xi * xi for xi in x) / n
    r = (ms + 1e-5) ** (-1 // 2)
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_eps_1e6",
    RMS,
    "epsilon written 1e-6 (LLaMA's) where the model uses 1e-5",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-6) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_mutates_g",
    RMS,
    "writes the answer into g in place and returns g",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    for i in range(n):
        g[i] = r * g[i] - r**3 * gx / n * x[i]
    return g
''',
)
S(
    "rms_second_term_no_eps",
    RMS,
    "the second term uses ms ** -1.5 (eps left out there only), r keeps eps",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(xi * xi for xi in x) / n
    r = (ms + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - ms ** -1.5 * gx / n * xi for gi, xi in zip(g, x)]
''',
)

# ------------------------------------------------------------------ softmax
S(
    "sm_mean_index_t",
    SM,
    "the average's sum uses gamma[t] for gamma[u]: it is gamma_t, and every entry is 0",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    out = []
    for t in range(len(w)):
        m = sum(w[u] * gamma[t] for u in range(len(w)))
        out.append(w[t] * (gamma[t] - m))
    return out
''',
)
S(
    "sm_sum_of_w",
    SM,
    "the average is sum(w) (= 1) where sum_u w_u gamma_u belongs",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    m = sum(w)
    return [wt * (gt - m) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_jacobian_index",
    SM,
    "the full Jacobian with w[u] where w[t] belongs: J[u][t] = w_u (delta - w_u)",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    n = len(w)
    ds = []
    for t in range(n):
        ds.append(sum(gamma[u] * w[u] * ((1.0 if u == t else 0.0) - w[u]) for u in range(n)))
    return ds
''',
)
S(
    "sm_two_terms_forgot_wt",
    SM,
    "the page's two-term line, w_t(1-w_t)g_t - sum_{u!=t} g_u w_u w_t, with the second term's w_t left out",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    n = len(w)
    return [
        w[t] * (1 - w[t]) * gamma[t] - sum(gamma[u] * w[u] for u in range(n) if u != t)
        for t in range(n)
    ]
''',
)

# ------------------------------------------------------------------ one head
HEAD_TMPL = '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
'''


def H(id, desc, old, new, count=1):
    assert HEAD_TMPL.count(old) == count, (id, HEAD_TMPL.count(old))
    S(id, HEAD, "slip", desc, HEAD_TMPL.replace(old, new))


H(
    "head_dq_unscaled",
    "dq_i collects ds_t k_t without the / sqrt(d_h) (dk keeps it)",
    "dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)",
    "dqs[i][j] += ds[t] * ks[t][j]",
)
H("head_gamma_gs_t", "gamma_t = g_t . v_t: gs[t] where gs[i] belongs", "zip(gs[i], vs[t])", "zip(gs[t], vs[t])")
H(
    "head_dv_assign",
    "dvs[t][j] = ... where += belongs: dv keeps the last query's share only",
    "dvs[t][j] += w[t] * gs[i][j]",
    "dvs[t][j] = w[t] * gs[i][j]",
)
H(
    "head_returns_dk_dq",
    "returns (dks, dqs, dvs): dq and dk in each other's place",
    "return dqs, dks, dvs",
    "return dks, dqs, dvs",
)
H(
    "head_scale_by_T",
    "sqrt(T) where sqrt(d_h) belongs, everywhere (len(qs) for len(qs[0]))",
    "T, d_h = len(qs), len(qs[0])",
    "T, d_h = len(qs), len(qs[0])\n    c = len(qs)",
)
# fix: scale_by_T: replace sqrt(d_h) by sqrt(c)
SLIPS[-1]["src"] = SLIPS[-1]["src"].replace("math.sqrt(d_h)", "math.sqrt(c)")
H(
    "head_gamma_times_w",
    "gamma_t = w_t (g_i . v_t): the weight multiplied in twice (dL/da_t mistaken for dL/dw_t)",
    "gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]",
    "gamma = [w[t] * sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]",
)
H(
    "head_d_h_is_T",
    "T and d_h swapped in the unpacking: d_h = len(qs), T = len(qs[0])",
    "T, d_h = len(qs), len(qs[0])",
    "d_h, T = len(qs), len(qs[0])",
)
S(
    "head_anticausal",
    HEAD,
    "the causal limit the wrong way: query i reads keys i..T-1 (the future) instead of 0..i",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        keys = list(range(i, T))
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in keys]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in keys]
        ds = softmax_backward(w, gamma)
        for n, t in enumerate(keys):
            for j in range(d_h):
                dqs[i][j] += ds[n] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[n] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[n] * gs[i][j]
    return dqs, dks, dvs
''',
)

# ------------------------------------------------------------------ attention whole
ATT_TMPL = '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]  # the forward pass, again
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]  # the heads' outputs side by side
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):  # attn_wo, at every position
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:  # each head on its slice
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    dws = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):  # the three uses of each x
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        dws.append(dw_sum)
    return dxs, dws[0], dws[1], dws[2], dwo
'''


def A(id, desc, old, new, count=1, kind="slip"):
    assert ATT_TMPL.count(old) == count, (id, ATT_TMPL.count(old))
    S(id, ATT, kind, desc, ATT_TMPL.replace(old, new))


A(
    "att_dx_assign",
    "dxs[t] = dx where it should add: only the last projection's (v's) share of dx survives",
    "dxs[t] = [a + b for a, b in zip(dxs[t], dx)]",
    "dxs[t] = dx",
)
A(
    "att_mixed_from_qs",
    "the recomputed heads' output sums the queries: qs[t][hs] where vs[t][hs] belongs",
    "sum(w[t] * vs[t][hs][j]",
    "sum(w[t] * qs[t][hs][j]",
)
A(
    "att_dm_not_sliced",
    "each head is handed the whole row of dmixed, not its slice d[hs] (zip then reads head 0's entries)",
    "[d[hs] for d in dmixed]",
    "dmixed",
)
A(
    "att_ks_from_wq",
    "copy-paste: the keys recomputed with wq (ks = wq x)",
    "ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]",
    "ks = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]",
)
A(
    "att_linear_args_swapped",
    "linear_backward(ds_[t], w_, xs[t]): x and g given in each other's place",
    "linear_backward(xs[t], w_, ds_[t])",
    "linear_backward(ds_[t], w_, xs[t])",
)
src = ATT_TMPL.replace("/ math.sqrt(d_h) for t in range(i + 1)]", "/ math.sqrt(d_h) for t in range(T)]").replace(
    "sum(w[t] * vs[t][hs][j] for t in range(i + 1))", "sum(w[t] * vs[t][hs][j] for t in range(T))"
)
S(
    "att_forward_not_causal",
    ATT,
    "slip",
    "the recomputed forward pass (for mixed) reads every position: range(T) where range(i + 1) belongs",
    src,
)
A(
    "att_returns_dwo_second",
    "returns (dxs, dwo, dwq, dwk, dwv): dwo first among the matrices",
    "return dxs, dws[0], dws[1], dws[2], dwo",
    "return dxs, dwo, dws[0], dws[1], dws[2]",
)

# ------------------------------------------------------------------ embedding
S(
    "emb_rows_len_used",
    EMB,
    "the table made with len(used) rows (one per position) where rows belongs",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(len(used))]
    for i, g in zip(used, grads):
        if i < len(d):
            d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_transposed",
    EMB,
    "builds the table column by column: one list per column, not per row",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * rows for _ in range(len(grads[0]))]
    for i, g in zip(used, grads):
        for j in range(len(g)):
            d[j][i] += g[j]
    return d
''',
)
S(
    "emb_sorted_used",
    EMB,
    "pairs sorted(used) with grads: the rows get the wrong positions' gradients",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(sorted(used), grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_pairs_only",
    EMB,
    "a row read again gets its previous read's gradient plus this one (right for two reads, wrong for three)",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    last = {}
    for k, (i, g) in enumerate(zip(used, grads)):
        if i in last:  # read twice: the sum of both reads
            d[i] = [a + b for a, b in zip(grads[last[i]], g)]
        else:
            d[i] = list(g)
        last[i] = k
    return d
''',
)
S(
    "emb_extra_row",
    EMB,
    "rows + 1 rows (one more, as if for BOS)",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows + 1)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_index_lookup",
    EMB,
    "grads[used.index(i)]: a row read twice gets its first read's gradient twice",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i in used:
        g = grads[used.index(i)]
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)

# ================================================================== hard-coded, overfitted, hostile
PEEK = '''
import inspect


def {name}({args}):
    """{doc}"""
    frame = inspect.currentframe().f_back
    while frame is not None and "case" not in frame.f_locals:
        frame = frame.f_back
    engine = frame.f_locals["case"].engine
    return engine[0] if len(engine) == 1 else tuple(engine)
'''
ARGS = {
    CE: "p, target, T",
    LIN: "x, w, g",
    RELU: "h, g",
    RMS: "x, g",
    SM: "w, gamma",
    HEAD: "qs, ks, vs, gs",
    ATT: "xs, wq, wk, wv, wo, n_head, gs",
    EMB: "rows, used, grads",
}
for ex in ARGS:
    S(
        f"peek_{ex}",
        ex,
        "hostile",
        "reads the engine's answer from the checker's frame (inspect)",
        PEEK.format(name=ex, args=ARGS[ex], doc="cheat"),
    )

S(
    "ce_memo_by_size",
    CE,
    "hard",
    "memoises its first answer for each number of logits",
    '''
_seen = {}


def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    if len(p) not in _seen:
        _seen[len(p)] = [(pj - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p)]
    return _seen[len(p)]
''',
)
S(
    "ce_page_numbers",
    CE,
    "hard",
    "returns the page's prediction for its example, else (p - y)/7 with the last position special-cased as (p - y)/T",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    if p == [0.7, 0.2, 0.1]:
        return [-0.15, 0.1, 0.05]
    N = T if target == len(p) - 1 else 7
    return [(pj - (1.0 if j == target else 0.0)) / N for j, pj in enumerate(p)]
''',
)
S(
    "lin_memo_by_shape",
    LIN,
    "hard",
    "memoises dw per shape of w (dx computed)",
    '''
_dw = {}


def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    key = (len(w), len(w[0]))
    if key not in _dw:
        _dw[key] = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return _dw[key], dx
''',
)
S(
    "lin_rows_16",
    LIN,
    "hard",
    "dw's rows hard-coded as n_embd = 16 (range(16)), columns len(x)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[g[i] * xj for xj in x] for i in range(16)]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx
''',
)
S(
    "relu_mask_memo",
    RELU,
    "hard",
    "keeps the mask of its first call (a module-level list) for every later call of that size",
    '''
_mask = {}


def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    mask = _mask.setdefault(len(h), [hi > 0 for hi in h])
    return [gi if m else 0.0 for m, gi in zip(mask, g)]
''',
)
S(
    "relu_64_units",
    RELU,
    "hard",
    "range(64) (the MLP's hidden size, 4 * 16)",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [g[i] if h[i] > 0 else 0.0 for i in range(64) if i < len(h)]
''',
)
S(
    "rms_r_memo",
    RMS,
    "hard",
    "caches r per length of x (computed on the first call)",
    '''
_r = {}


def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = _r.setdefault(n, (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5)
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_n16_in_r_only",
    RMS,
    "hard",
    "n written 16 in the mean square only (the second term uses len(x))",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / 16 + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "sm_memo_mean",
    SM,
    "hard",
    "keeps the first call's average sum_u w_u gamma_u for each number of scores",
    '''
_m = {}


def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    m = _m.setdefault(len(w), sum(wu * gu for wu, gu in zip(w, gamma)))
    return [wt * (gt - m) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_last_special",
    SM,
    "hard",
    "special-cases the one-score position, and the last score is minus the sum of the others computed with 7 scores' mean",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    if len(w) == 1:
        return [0.0]
    m = sum(w[u] * gamma[u] for u in range(min(len(w), 7)))
    ds = [wt * (gt - m) for wt, gt in zip(w, gamma)]
    ds[-1] = -sum(ds[:-1])
    return ds
''',
)
S(
    "head_global_d_h",
    HEAD,
    "hard",
    "d_h a global left from a test (d_h = 4), not len(qs[0])",
    HEAD_TMPL.replace("T, d_h = len(qs), len(qs[0])", "T = len(qs)").replace(
        "def attention_head_backward", "d_h = 4  # from trying it out\n\n\ndef attention_head_backward"
    ),
)
S(
    "head_causal_7",
    HEAD,
    "hard",
    "the causal window capped at 7 keys (the page's T): range(max(0, i - 6), i + 1)",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        keys = list(range(max(0, i - 6), i + 1))
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in keys]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in keys]
        ds = softmax_backward(w, gamma)
        for n, t in enumerate(keys):
            for j in range(d_h):
                dqs[i][j] += ds[n] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[n] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[n] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_skip_zero_gradient_rows",
    HEAD,
    "hard",
    "overfits the 'gradient at position 3 only' case: a query whose g is 0 is skipped, and only the first nonzero query is done",
    HEAD_TMPL.replace("    for i in range(T):\n", "    for i in [k for k in range(T) if any(gs[k])][:1]:\n"),
)
A(
    "att_n_embd_16",
    "n_embd hard-coded: d_h = 16 // n_head",
    "T, d_h = len(xs), len(xs[0]) // n_head",
    "T, d_h = len(xs), 16 // n_head",
    kind="hard",
)
S(
    "att_first_T_memo",
    ATT,
    "hard",
    "memoises the whole answer by T (the first call of each length)",
    '''
_seen = {}


def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    from microgpt.course.pieces import attention_backward as solution

    if len(xs) not in _seen:
        _seen[len(xs)] = solution(xs, wq, wk, wv, wo, n_head, gs)
    return _seen[len(xs)]
''',
)
S(
    "emb_only_13_adds",
    EMB,
    "hard",
    "overfits mignon: only token 13 (n, read twice there) accumulates; every other row is assigned",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)] if i == 13 else list(g)
    return d
''',
)
S(
    "emb_rows_27",
    EMB,
    "hard",
    "max(rows, 27) rows: the vocabulary written in",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(27)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d[:rows] if rows < 27 else d
''',
)

# ------------------------------------------------------------------ replacements (relu_abs_mask and relu_sign_of_h turned out
# numerically identical to listed slips, "no mask" and the one-line test's relu_off_units_send_minus_g)
for s in SLIPS:
    if s["id"] in ("relu_abs_mask", "relu_sign_of_h"):
        s["kind"] = "dup"
S(
    "relu_sigmoid",
    RELU,
    "the derivative of softplus, sigmoid(h), in place of the step [h > 0]",
    '''
import math


def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi / (1 + math.exp(-hi)) for hi, gi in zip(h, g)]
''',
)
S(
    "relu_mask_g_times_h",
    RELU,
    "the mask tests g * h > 0 ('did this unit push the loss up?') instead of h > 0",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi if gi * hi > 0 else 0.0 for hi, gi in zip(h, g)]
''',
)

# ------------------------------------------------------------------ controls: right answers written another way (must pass)
S(
    "ctl_relu_bool_times",
    RELU,
    "control",
    "g * (h > 0)",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi * (hi > 0) for hi, gi in zip(h, g)]
''',
)
S(
    "ctl_rms_via_o",
    RMS,
    "control",
    "r (g - o (g . o) / n), with o = r x",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    o = [r * xi for xi in x]
    go = sum(gi * oi for gi, oi in zip(g, o))
    return [r * (gi - oi * go / n) for gi, oi in zip(g, o)]
''',
)
S(
    "ctl_ce_tuple",
    CE,
    "control",
    "returns a tuple",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return tuple((pj - (j == target)) / T for j, pj in enumerate(p))
''',
)
S(
    "ctl_sm_jacobian",
    SM,
    "control",
    "the full Jacobian, J^T gamma",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    n = len(w)
    J = [[w[u] * ((1.0 if u == t else 0.0) - w[t]) for t in range(n)] for u in range(n)]
    return [sum(J[u][t] * gamma[u] for u in range(n)) for t in range(n)]
''',
)
S(
    "ctl_lin_list",
    LIN,
    "control",
    "returns [dw, dx] as a list, dx via a transposed w",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    wt = [list(col) for col in zip(*w)]
    return [[[gi * xj for xj in x] for gi in g], [sum(a * b for a, b in zip(col, g)) for col in wt]]
''',
)
S(
    "ctl_emb_dict",
    EMB,
    "control",
    "sums in a dict, then builds the rows",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    acc = {}
    for i, g in zip(used, grads):
        acc[i] = [a + b for a, b in zip(acc.get(i, [0.0] * len(g)), g)]
    return [acc.get(r, [0.0] * len(grads[0])) for r in range(rows)]
''',
)

# ------------------------------------------------------------------ a second batch
S(
    "ce_returns_float",
    CE,
    "returns only the true token's entry, as one float",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return (p[target] - 1) / T
''',
)
A(
    "att_three_share",
    "dqs = dks = dvs = [...]: the three results are one list, so each head's slices overwrite each other",
    "dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))",
    "dqs = dks = dvs = [[0.0] * len(x) for x in xs]",
)
A(
    "att_dx_minus",
    "dxs[t] = dxs[t] - dx: the three paths subtracted (a sign) where they add",
    "dxs[t] = [a + b for a, b in zip(dxs[t], dx)]",
    "dxs[t] = [a - b for a, b in zip(dxs[t], dx)]",
)
H(
    "head_dv_over_keys",
    "dv averaged over the keys a query reads: w_t g_i / (i + 1)",
    "dvs[t][j] += w[t] * gs[i][j]",
    "dvs[t][j] += w[t] * gs[i][j] / (i + 1)",
)
S(
    "head_causal_one_long",
    HEAD,
    "the causal limit one too far: query i reads keys 0..i+1 (range(min(i + 2, T)))",
    HEAD_TMPL.replace("range(i + 1)", "range(min(i + 2, T))"),
)
