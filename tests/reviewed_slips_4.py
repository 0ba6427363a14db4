"""Issue 52's slips that got only a number, and fresh slips of those kinds and others, as written: each a learner's
whole function, from the page's blank template.

kind "issue": a slip issue 52 found told only by a number; "slip": a fresh slip none of the checkers lists, written
for these tests before the checkers were changed for them; "control": a right answer written another way.
"""
# ruff: noqa  (the learners' code as written: kept verbatim, not restyled)

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

# ---------------------------------------------------------------- issue 52: told only by a number before
S(
    "rms_n_one_less",
    RMS,
    "issue",
    "n = len(x) - 1: the entries counted one short, in the mean square and in the mean term",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x) - 1
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "sm_one_minus_w_in_front",
    SM,
    "issue",
    "(1 - w_t) in front, where w_t belongs: the diagonal's 1 - w_t taken for the factor",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = sum(wu * gu for wu, gu in zip(w, gamma))
    return [(1 - wt) * (gt - avg) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_w_t_in_the_average",
    SM,
    "issue",
    "w_t where w_u belongs inside the average: sum_u w_t gamma_u",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    ds = []
    for t in range(len(w)):
        avg = sum(w[t] * gamma[u] for u in range(len(w)))
        ds.append(w[t] * (gamma[t] - avg))
    return ds
''',
)
S(
    "head_scores_q_t_k_i",
    HEAD,
    "issue",
    "the scores q_t . k_i where q_i . k_t belongs",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[t], ks[i])) / math.sqrt(d_h) for t in range(i + 1)]
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
''',
)
S(
    "head_softmax_over_all_T",
    HEAD,
    "issue",
    "each query's softmax over all T positions, its weights then used for positions 0 to i only",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(T)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w[: i + 1], gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_dq_reads_qs",
    HEAD,
    "issue",
    "qs[i][j] in dq where ks[t][j] belongs: its numbers are also the rule's with ks[i][j], which it does not read",
    '''
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
                dqs[i][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)

# ---------------------------------------------------------------- fresh slips: cross-entropy
S(
    "ce_bos_counted",
    CE,
    "slip",
    "T + 1 positions: the BOS counted as a position too",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = list(p)
    dz[target] -= 1.0
    return [d / (T + 1) for d in dz]
''',
)
S(
    "ce_divided_by_p_target",
    CE,
    "slip",
    "the log's 1/p[target] kept from dL/dp: every entry divided by p[target]",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    return [(pj - (1.0 if j == target else 0.0)) / (T * p[target]) for j, pj in enumerate(p)]
''',
)
S(
    "ce_only_logits_up_to_target",
    CE,
    "slip",
    "the loop stops at the target: logits after it get 0",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = [0.0] * len(p)
    for j in range(target + 1):
        dz[j] = (p[j] - (1.0 if j == target else 0.0)) / T
    return dz
''',
)
S(
    "ce_one_hot_of_first",
    CE,
    "slip",
    "the one-hot at index 0 (the first logit) whatever the target",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    y = [0.0] * len(p)
    y[0] = 1.0
    return [(pj - yj) / T for pj, yj in zip(p, y)]
''',
)

# ---------------------------------------------------------------- linear
S(
    "lin_dx_uses_x",
    LIN,
    "slip",
    "dx sums x[j] g[i] where w[i][j] g[i] belongs",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [0.0] * len(x)
    for j in range(len(x)):
        for i in range(len(g)):
            dx[j] += x[j] * g[i]
    return dw, dx
''',
)
S(
    "lin_dw_row_of_the_next_g",
    LIN,
    "slip",
    "dw's row i takes g[i + 1] (wrapping): an index off by one",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    n = len(g)
    dw = [[g[(i + 1) % n] * xj for xj in x] for i in range(n)]
    dx = [sum(w[i][j] * g[i] for i in range(n)) for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dx_g_squared",
    LIN,
    "slip",
    "dx with g twice: w[i][j] g[i] g[i]",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx
''',
)

# ---------------------------------------------------------------- ReLU
S(
    "relu_mask_above_one",
    RELU,
    "slip",
    "the mask h > 1, where h > 0 belongs",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi if hi > 1 else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_mask_abs",
    RELU,
    "slip",
    "the mask abs(h) > 0: every unit but one exactly 0 passes",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi if abs(hi) > 0 else 0.0 for hi, gi in zip(h, g)]
''',
)
S(
    "relu_mask_of_the_previous_unit",
    RELU,
    "slip",
    "the mask of unit i - 1 on unit i",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    dh = []
    for i in range(len(h)):
        dh.append(g[i] if h[i - 1] > 0 else 0.0)
    return dh
''',
)

# ---------------------------------------------------------------- RMSNorm
S(
    "rms_n_one_more",
    RMS,
    "slip",
    "n = len(x) + 1",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x) + 1
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_mean_square_over_n_minus_1",
    RMS,
    "slip",
    "the mean square divided by n - 1 (a sample variance's habit), the mean term by n",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(xi * xi for xi in x) / (n - 1)
    r = (ms + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_mean_term_times_g",
    RMS,
    "slip",
    "the mean term ends in g_i where x_i belongs",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * gi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_eps_outside_the_power",
    RMS,
    "slip",
    "eps added after the power: ms ** -0.5 + 1e-5",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(xi * xi for xi in x) / n
    r = ms**-0.5 + 1e-5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)

# ---------------------------------------------------------------- softmax
S(
    "sm_gamma_minus_w",
    SM,
    "slip",
    "w_t (gamma_t - w_t): the weight where the average belongs",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    return [wt * (gt - wt) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_average_with_one_minus_w",
    SM,
    "slip",
    "the average weighted by 1 - w_u where w_u belongs",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = sum((1 - wu) * gu for wu, gu in zip(w, gamma))
    return [wt * (gt - avg) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_gamma_of_the_previous_score",
    SM,
    "slip",
    "gamma[t - 1] where gamma[t] belongs in the direct term",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = sum(w[u] * gamma[u] for u in range(len(w)))
    return [w[t] * (gamma[t - 1] - avg) for t in range(len(w))]
''',
)
S(
    "sm_average_over_n_minus_1",
    SM,
    "slip",
    "the plain mean of gamma over n - 1 scores, where the weighted sum belongs",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    n = len(w)
    avg = sum(gamma) / (n - 1) if n > 1 else gamma[0]
    return [w[t] * (gamma[t] - avg) for t in range(n)]
''',
)
S(
    "sm_w_t_squared_in_the_average",
    SM,
    "slip",
    "the average's weights squared: sum_u w_u w_u gamma_u",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = sum(wu * wu * gu for wu, gu in zip(w, gamma))
    return [wt * (gt - avg) for wt, gt in zip(w, gamma)]
''',
)

# ---------------------------------------------------------------- one head
S(
    "head_scores_q_i_k_i",
    HEAD,
    "slip",
    "every score q_i . k_i: the query's own key where k_t belongs",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[i])) / math.sqrt(d_h) for t in range(i + 1)]
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
''',
)
S(
    "head_dk_reads_its_own_key",
    HEAD,
    "slip",
    "dk_t collects ds_t k_i where ds_t q_i belongs",
    '''
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
                dks[t][j] += ds[t] * ks[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_scale_by_sqrt_T",
    HEAD,
    "slip",
    "the scores divided by sqrt(T) where sqrt(d_h) belongs",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    c = math.sqrt(T)
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
    "head_keys_and_values_one_short",
    HEAD,
    "slip",
    "each query reads positions 0 to i - 1: range(i) where range(i + 1) belongs",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        n = max(i, 1)
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(n)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(n)]
        ds = softmax_backward(w, gamma)
        for t in range(n):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_gamma_of_g_t",
    HEAD,
    "slip",
    "gamma_t = g_t . v_t: the key's own position's gradient where the query's belongs",
    '''
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
        gamma = [sum(a * b for a, b in zip(gs[t], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_softmax_of_unscaled_scores",
    HEAD,
    "slip",
    "the weights from the scores before the division by sqrt(d_h), the backward still scaled",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
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
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)

# ---------------------------------------------------------------- attention, whole
S(
    "att_scores_q_t_k_i",
    ATT,
    "slip",
    "the forward pass's scores q_t . k_i where q_i . k_t belongs (attn_wo's input wrong)",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, n_embd = len(xs), len(xs[0])
    d_h = n_embd // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * n_embd for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[t][hs], ks[i][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * n_embd for _ in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs = [[0.0] * n_embd for _ in range(T)]
    dks = [[0.0] * n_embd for _ in range(T)]
    dvs = [[0.0] * n_embd for _ in range(T)]
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * n_embd for _ in range(T)]
    mats = []
    for w_, d_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        total = [[0.0] * n_embd for _ in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, d_[t])
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        mats.append(total)
    return dxs, mats[0], mats[1], mats[2], dwo
''',
)
S(
    "att_scale_by_sqrt_n_head",
    ATT,
    "slip",
    "the forward pass's scores divided by sqrt(n_head) where sqrt(d_h) belongs",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, n_embd = len(xs), len(xs[0])
    d_h = n_embd // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * n_embd for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(n_head) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * n_embd for _ in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs = [[0.0] * n_embd for _ in range(T)]
    dks = [[0.0] * n_embd for _ in range(T)]
    dvs = [[0.0] * n_embd for _ in range(T)]
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * n_embd for _ in range(T)]
    mats = []
    for w_, d_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        total = [[0.0] * n_embd for _ in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, d_[t])
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        mats.append(total)
    return dxs, mats[0], mats[1], mats[2], dwo
''',
)
S(
    "att_dx_through_q_from_dks",
    ATT,
    "slip",
    "the path through q built from dk where dq belongs: (wq, dks) in the projections' loop",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, n_embd = len(xs), len(xs[0])
    d_h = n_embd // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * n_embd for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * n_embd for _ in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs = [[0.0] * n_embd for _ in range(T)]
    dks = [[0.0] * n_embd for _ in range(T)]
    dvs = [[0.0] * n_embd for _ in range(T)]
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * n_embd for _ in range(T)]
    mats = []
    for w_, d_ in ((wq, dks), (wk, dks), (wv, dvs)):
        total = [[0.0] * n_embd for _ in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, d_[t])
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        mats.append(total)
    return dxs, mats[0], mats[1], mats[2], dwo
''',
)

# ---------------------------------------------------------------- the embedding
S(
    "emb_row_of_the_position",
    EMB,
    "slip",
    "row k gets position k's gradient: the position where the row read belongs",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(len(used)):
        for j in range(len(grads[0])):
            d[k][j] += grads[k][j]
    return d
''',
)
S(
    "emb_mean_of_reads",
    EMB,
    "slip",
    "a row read several times gets the mean of its positions' gradients",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k, i in enumerate(used):
        for j in range(len(grads[0])):
            d[i][j] += grads[k][j] / used.count(i)
    return d
''',
)
S(
    "emb_next_position_gradient",
    EMB,
    "slip",
    "row used[k] gets grads[k + 1] (the last wraps to the first)",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    T = len(used)
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(T):
        g = grads[(k + 1) % T]
        d[used[k]] = [a + b for a, b in zip(d[used[k]], g)]
    return d
''',
)

# ---------------------------------------------------------------- right answers, written another way
S(
    "sm_control_factored",
    SM,
    "control",
    "w_t (gamma_t - avg) with the average by index",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = 0.0
    for u in range(len(w)):
        avg += w[u] * gamma[u]
    return [w[t] * (gamma[t] - avg) for t in range(len(w))]
''',
)
S(
    "head_control_max_over_all_scores",
    HEAD,
    "control",
    "each query's scores shifted by the largest score of the whole document (the shift cancels)",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    top = max(sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for i in range(T) for t in range(i + 1))
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(st - top) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
