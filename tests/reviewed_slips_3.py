"""A third fresh reviewer's slips (notes/reviews/slips-review-3.md), as written: each a learner's whole function.

kind "slip": a slip none of the checkers lists; "hard": an answer that hard-codes a size; "hostile": reads the
checker's own frame or its cases (not held to ✗ here: issue 43's finding 10, still open); "control": a right answer
written another way; "probe": right numbers in another type.
"""
# ruff: noqa  (the learners' code as the reviewer wrote it: kept verbatim, not restyled)

SLIPS = []


def S(id, ex, kind, desc, src):
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

# ---------------------------------------------------------------- cross-entropy
S(
    "ce_log_p",
    CE,
    "slip",
    "uses log p_j where p_j belongs: (log p_j - y_j) / T (mixing up the loss and its gradient)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [(math.log(pj) - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p)]
''',
)
S(
    "ce_exp_p",
    CE,
    "slip",
    "treats p as log-probabilities and exponentiates it: (exp(p_j) - y_j) / T",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [(math.exp(pj) - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p)]
''',
)
S(
    "ce_sqrt_T",
    CE,
    "slip",
    "divides by sqrt(T) (a 'normalised' mean) where T belongs",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [(pj - (1.0 if j == target else 0.0)) / math.sqrt(T) for j, pj in enumerate(p)]
''',
)
S(
    "ce_mean_over_T_and_V",
    CE,
    "slip",
    "averages over positions AND logits: / (T * len(p))",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    V = len(p)
    return [(p[j] - (1.0 if j == target else 0.0)) / (T * V) for j in range(V)]
''',
)
S(
    "ce_column_vector",
    CE,
    "slip",
    "returns a column: one one-entry list per logit ([[dz_0], [dz_1], ...])",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [[(pj - (1.0 if j == target else 0.0)) / T] for j, pj in enumerate(p)]
''',
)
S(
    "ce_T_at_least_7",
    CE,
    "hard",
    "guards T with the page's T: T = max(T, 7) (right for T >= 7 only)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    T = max(T, 7)
    return [(pj - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p)]
''',
)
S(
    "ce_bos_special",
    CE,
    "hard",
    "special-cases the last token (BOS as target): 'nothing to predict', so no -y there",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    if target == len(p) - 1:  # BOS ends the name: no true token to pull up
        return [pj / T for pj in p]
    return [(pj - (1.0 if j == target else 0.0)) / T for j, pj in enumerate(p)]
''',
)

# ---------------------------------------------------------------- linear
S(
    "lin_dw_sum_g",
    LIN,
    "slip",
    "broadcasts a scalar: every row of dw is sum(g) * x",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    total = sum(g)
    dw = [[total * xj for xj in x] for _ in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dx_first_row",
    LIN,
    "slip",
    "dx from the first row only: w[0][j] * g[0] (the sum over i forgotten)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [w[0][j] * g[0] for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dx_diagonal",
    LIN,
    "slip",
    "dx as an elementwise product: w[j][j] * g[j] (the diagonal only; 0 past the smaller size)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [w[j][j] * g[j] if j < len(g) else 0.0 for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dw_from_dx",
    LIN,
    "slip",
    "a stale variable: dx computed first, then dw[i][j] = g[i] * dx[j] (dx where x belongs)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    dw = [[g[i] * dx[j] for j in range(len(x))] for i in range(len(g))]
    return dw, dx
''',
)
S(
    "lin_dx_sums_apart",
    LIN,
    "slip",
    "sums apart then multiplies: dx_j = (sum_i w[i][j]) * (sum_i g[i])",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    gsum = sum(g)
    dx = [sum(w[i][j] for i in range(len(g))) * gsum for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_break_on_zero_g",
    LIN,
    "slip",
    "skips rows with g[i] == 0 with break where continue belongs: stops at the first zero",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[0.0] * len(x) for _ in g]
    dx = [0.0] * len(x)
    for i in range(len(g)):
        if g[i] == 0:
            break  # nothing flows through this output
        for j in range(len(x)):
            dw[i][j] = g[i] * x[j]
            dx[j] += w[i][j] * g[i]
    return dw, dx
''',
)
S(
    "lin_dx_wrong_axis",
    LIN,
    "slip",
    "sums over the wrong axis: dx_i = sum_j w[i][j] g[i] (one entry per output)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for j in range(len(x))) for i in range(len(g))]
    return dw, dx
''',
)
S(
    "lin_dx_rows_16_guarded",
    LIN,
    "hard",
    "dx's sum over rows bounded by the page's 16 (with a min() guard): range(min(16, len(g)))",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(min(16, len(g)))) for j in range(len(x))]
    return dw, dx
''',
)

# ---------------------------------------------------------------- ReLU
S(
    "relu_ne_zero",
    RELU,
    "slip",
    "mask h != 0 where h > 0 belongs: negative units pass too",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi if hi != 0 else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_mask_above_mean",
    RELU,
    "slip",
    "mask h > mean(h) (a 'centred' threshold) where h > 0 belongs",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    mean = sum(h) / len(h)
    return [gi if hi > mean else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_returns_pair",
    RELU,
    "slip",
    "returns (dh, mask): the mask too, for later",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    mask = [1.0 if hi > 0 else 0.0 for hi in h]
    return [m * gi for m, gi in zip(mask, g)], mask
''',
)
S(
    "relu_abs_g",
    RELU,
    "slip",
    "on units pass |g| (relu's output is never negative, so neither is its gradient)",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [abs(gi) if hi > 0 else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_only_64",
    RELU,
    "hard",
    "tested on the page's 64 units only: another width returns g unmasked",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    if len(h) != 64:
        return list(g)
    return [gi if hi > 0 else 0.0 for hi, gi in zip(h, g)]
''',
)

# ---------------------------------------------------------------- RMSNorm
S(
    "rms_o_everywhere",
    RMS,
    "slip",
    "the output o = r x where x belongs, in the second term (both the dot and the x_i)",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    o = [r * xi for xi in x]
    go = sum(gi * oi for gi, oi in zip(g, o))
    return [r * gi - r**3 * go / n * oi for gi, oi in zip(g, o)]
''',
)
S(
    "rms_eps_after_sqrt",
    RMS,
    "slip",
    "r = 1 / (sqrt(ms) + eps): eps added to the root, not inside it",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = 1 / (math.sqrt(sum(xi * xi for xi in x) / n) + 1e-5)
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_xi_squared",
    RMS,
    "slip",
    "the second term multiplies x_i twice: - (r^3/n)(g.x) x_i^2",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_dot_of_rg",
    RMS,
    "slip",
    "the dot uses the direct term's r g: (r g) . x where g . x belongs",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    direct = [r * gi for gi in g]
    gx = sum(di * xi for di, xi in zip(direct, x))
    return [di - r**3 * gx / n * xi for di, xi in zip(direct, x)]
''',
)
S(
    "rms_stale_i",
    RMS,
    "slip",
    "a stale loop variable: g.x summed in a for loop, then x[i] (i left at n-1) in the output",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = 0.0
    for i in range(n):
        gx += g[i] * x[i]
    return [r * gj - r**3 * gx / n * x[i] for gj in g]
''',
)
S(
    "rms_n_at_least_16",
    RMS,
    "hard",
    "n = max(len(x), 16): the page's width as a floor",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = max(len(x), 16)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)

# ---------------------------------------------------------------- softmax
S(
    "sm_max_gamma",
    SM,
    "slip",
    "subtracts max(gamma) where the weighted average belongs (the forward's max trick)",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    top = max(gamma)
    return [wt * (gt - top) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_zip_exhausted",
    SM,
    "slip",
    "one zip object read twice: the average uses it up, the return gets nothing (returns [])",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    pairs = zip(w, gamma)
    m = sum(wt * gt for wt, gt in pairs)
    return [wt * (gt - m) for wt, gt in pairs]
''',
)
S(
    "sm_roles_swapped",
    SM,
    "slip",
    "w and gamma in each other's roles: gamma_t (w_t - sum_u gamma_u w_u)",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    m = sum(wu * gu for wu, gu in zip(w, gamma))
    return [gt * (wt - m) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_average_of_others",
    SM,
    "slip",
    "the average leaves out u = t: w_t (gamma_t - sum_(u != t) w_u gamma_u)",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    ds = []
    for t in range(len(w)):
        others = sum(w[u] * gamma[u] for u in range(len(w)) if u != t)
        ds.append(w[t] * (gamma[t] - others))
    return ds
''',
)
S(
    "sm_window_7",
    SM,
    "hard",
    "keeps a window of the page's 7 scores: w[-7:], gamma[-7:]",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    w, gamma = w[-7:], gamma[-7:]  # the block reads at most 7 positions
    m = sum(wu * gu for wu, gu in zip(w, gamma))
    return [wt * (gt - m) for wt, gt in zip(w, gamma)]
''',
)

# ---------------------------------------------------------------- one head
HEAD_TOP = '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
'''
S(
    "head_mask_after_softmax",
    HEAD,
    "slip",
    "causal mask applied after the softmax over all T scores, without renormalising",
    HEAD_TOP
    + """
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(T)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e][: i + 1]  # the mask: later positions dropped
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
""",
)
S(
    "head_mask_zero_score",
    HEAD,
    "slip",
    "causal mask by setting later scores to 0 (not -inf), softmax and backward over all T",
    HEAD_TOP
    + """
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) if t <= i else 0.0 for t in range(T)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(T)]
        ds = softmax_backward(w, gamma)
        for t in range(T):
            for j in range(d_h):
                if t <= i:
                    dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                    dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
""",
)
S(
    "head_sm_args_swapped",
    HEAD,
    "slip",
    "calls softmax_backward(gamma, w): the two arguments in each other's place",
    HEAD_TOP
    + """
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(gamma, w)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
""",
)
S(
    "head_prescale_q_inplace",
    HEAD,
    "slip",
    "pre-scales the queries in place (q /= sqrt(d_h), the usual trick): right numbers, qs changed",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    c = math.sqrt(d_h)
    for q in qs:  # scale once, not at every score
        for j in range(d_h):
            q[j] /= c
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / c
                dks[t][j] += ds[t] * qs[i][j]
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_dv_stale_w",
    HEAD,
    "slip",
    "dv in a second loop after the queries' loop: the stale w and i of the last query (w_t of query T-1, gs[i])",
    HEAD_TOP
    + """
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
    for t in range(T):  # the values: w_t times the gradient at the output
        for j in range(d_h):
            dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
""",
)
S(
    "head_gamma_from_output",
    HEAD,
    "slip",
    "gamma_t = g_i . a_i (the head's output at i) where g_i . v_t belongs",
    HEAD_TOP
    + """
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        out = [sum(w[t] * vs[t][j] for t in range(i + 1)) for j in range(d_h)]
        gamma = [sum(a * b for a, b in zip(gs[i], out)) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
""",
)
S(
    "head_skip_first_position",
    HEAD,
    "hard",
    "special-cases position 0 ('one score, its softmax is constant: no gradient') and skips it",
    HEAD_TOP
    + """
    for i in range(T):
        if i == 0:
            continue  # one score: its weight is 1 whatever q and k are
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
""",
)
S(
    "head_T1_zero",
    HEAD,
    "hard",
    "special-cases a one-position document: returns zeros ('nothing to attend to')",
    HEAD_TOP
    + """
    if T == 1:
        return dqs, dks, dvs  # one position: attention is the identity on v, nothing to learn
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
""",
)


# ---------------------------------------------------------------- attention whole
def att(
    *,
    d_h="len(xs[0]) // n_head",
    mixed_alloc="[[0.0] * len(wo[0]) for _ in range(T)]",
    score="sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h)",
    head_g="[d[hs] for d in dmixed]",
    assign="dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]",
    lin_x="xs[t]",
    extra_dx="",
):
    return f'''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), {d_h}
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]  # the forward pass, again
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = {mixed_alloc}  # the heads' outputs side by side
    for i in range(T):
        for hs in heads:
            s = [{score} for t in range(i + 1)]
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
    for h, hs in enumerate(heads):  # each head on its slice
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], {head_g}
        )
        for t in range(T):
            {assign}
    dxs = [[0.0] * len(x) for x in xs]
    dws = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):  # the three uses of each x
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward({lin_x}, w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        dws.append(dw_sum){extra_dx}
    return dxs, dws[0], dws[1], dws[2], dwo
'''


S("att_control", ATT, "control", "the template itself, right (control for the attention variants)", att())
S(
    "att_heads_rotated",
    ATT,
    "slip",
    "each head is handed the next head's slice of dmixed (heads mixed): d[heads[(h + 1) % n_head]]",
    att(head_g="[d[heads[(h + 1) % n_head]] for d in dmixed]"),
)
S(
    "att_dx_plus_dmixed",
    ATT,
    "slip",
    "adds dmixed (wo^T g) to dx as if attention had a residual path inside",
    att(extra_dx="\n    dxs = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dxs, dmixed)]"),
)
S(
    "att_dw_with_mixed",
    ATT,
    "slip",
    "the three projections' dW paired with mixed_t (attn_wo's input) where x_t belongs",
    att(lin_x="mixed[t]"),
)
S(
    "att_q_full_width",
    ATT,
    "slip",
    "the forward's scores zip the whole q with a head's k: zip(qs[i], ks[t][hs]) (head 0's query for every head)",
    att(score="sum(a * b for a, b in zip(qs[i], ks[t][hs])) / math.sqrt(d_h)"),
)
S(
    "att_d_h_is_n_head",
    ATT,
    "slip",
    "d_h = n_head (the two confused; equal on the page's 4 heads of 4)",
    att(d_h="n_head"),
)
S(
    "att_kv_assembly_swapped",
    ATT,
    "slip",
    "the heads' results put side by side with k and v swapped: dks[t][hs], dvs[t][hs] = dv[t], dk[t]",
    att(assign="dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dv[t], dk[t]"),
)
S(
    "att_mixed_no_scale",
    ATT,
    "slip",
    "the recomputed forward (for mixed) forgets / sqrt(d_h) in the scores",
    att(score="sum(a * b for a, b in zip(qs[i][hs], ks[t][hs]))"),
)
S(
    "att_mixed_16_wide",
    ATT,
    "hard",
    "mixed allocated with the page's width: [[0.0] * 16 for _ in range(T)]",
    att(mixed_alloc="[[0.0] * 16 for _ in range(T)]"),
)

# ---------------------------------------------------------------- embedding
S(
    "emb_scalar_broadcast",
    EMB,
    "slip",
    "adds sum(g) to every entry of the row (a scalar broadcast) where g adds entry by entry",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + sum(g) for a in d[i]]
    return d
''',
)
S(
    "emb_count_weighted",
    EMB,
    "slip",
    "each read weighted by the row's count of reads: d[i] += used.count(i) * g",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    used = list(used)
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        n = used.count(i)  # read n times: n uses
        d[i] = [a + n * b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_zip_names_swapped",
    EMB,
    "slip",
    "zip(used, grads) unpacked as (g, i): the names in each other's place",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for g, i in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_over_width",
    EMB,
    "slip",
    "averages where a sum belongs: each entry divided by the row's width len(g)",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + b / len(g) for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_skip_bos",
    EMB,
    "hard",
    "special-cases the last row (BOS, 'a marker, not a letter'): never gets a gradient",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        if i == rows - 1:
            continue  # BOS
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_int_zeros",
    EMB,
    "probe",
    "right numbers, but unread rows are int 0s ([[0] * n ...]): a type probe",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)

# ---------------------------------------------------------------- replacements for the variant duplicates
S(
    "head_isqrt",
    HEAD,
    "slip",
    "integer square root: c = math.isqrt(d_h) (right only where d_h is a perfect square)",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    c = math.isqrt(d_h)
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / c for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / c
                dks[t][j] += ds[t] * qs[i][j] / c
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "rms_r_times_3",
    RMS,
    "slip",
    "a typo: r * 3 where r ** 3 belongs",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r * 3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "sm_logsoftmax_rule",
    SM,
    "slip",
    "log-softmax's backward where softmax's belongs: gamma_t - w_t sum_u gamma_u",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    total = sum(gamma)
    return [gt - wt * total for wt, gt in zip(w, gamma)]
''',
)
S(
    "att_assign_without_slice",
    ATT,
    "slip",
    "the heads' results assigned without the slice: dqs[t] = dq[t] (each row replaced by the last head's d_h entries)",
    att(assign="dqs[t], dks[t], dvs[t] = dq[t], dk[t], dv[t]"),
)

# ---------------------------------------------------------------- hostile (not counted): still fooled?
S(
    "peek_ce",
    CE,
    "hostile",
    "reads the engine's answer from the checker's frame (inspect), as review 2 did",
    '''
import inspect


def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    frame = inspect.currentframe().f_back
    while frame is not None and "case" not in frame.f_locals:
        frame = frame.f_back
    return list(frame.f_locals["case"].engine[0])
''',
)
S(
    "lookup_head",
    HEAD,
    "hostile",
    "looks its arguments up in checkers.PIECES[...].cases() and returns the engine's answer",
    '''
from microgpt.course.checkers import PIECES


def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    for case in PIECES["attention_head_backward"].cases():
        if case.args[0] == qs and case.args[3] == gs:
            return case.engine
    raise ValueError("not a case")
''',
)
