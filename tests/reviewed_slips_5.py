"""A fresh reviewer's slips (issue 52, goal 4: a reviewer who wrote none of the checkers), as written: each a
learner's whole function, from the page's blank template, in the style of tests/reviewed_slips_4.py.

None was in the tests when the reviewer wrote them (checked against tests/reviewed_slips_2.py, _3.py, _4.py, the
functions of tests/package/test_gpt_exercises_slips.py, _one_line_slips.py, _reviewed_slips.py and the checkers' own
lists of slips). kind "slip": a wrong answer; "error": a wrong answer that raises, as a learner's first try often does.
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

# ---------------------------------------------------------------- cross-entropy
S(
    "ce_target_entry_forgets_p",
    CE,
    "slip",
    "the true token's entry set to -1/T: its p[target] forgotten there (the others p_j / T, right)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = [pj / T for pj in p]
    dz[target] = -1 / T
    return dz
''',
)
S(
    "ce_times_T",
    CE,
    "slip",
    "(p - y) * T: multiplied by T where the mean divides",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    y = [0.0] * len(p)
    y[target] = 1.0
    return [(pj - yj) * T for pj, yj in zip(p, y)]
''',
)
S(
    "ce_mean_on_target_only",
    CE,
    "slip",
    "only the true token's entry divided by T: the other logits get p_j, not p_j / T",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = list(p)
    dz[target] = (p[target] - 1) / T
    return dz
''',
)
S(
    "ce_last_logit_skipped",
    CE,
    "slip",
    "the loop stops one short: range(len(p) - 1), the last logit keeps 0",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = [0.0] * len(p)
    for j in range(len(p) - 1):
        if j == target:
            dz[j] = (p[j] - 1) / T
        else:
            dz[j] = p[j] / T
    return dz
''',
)
S(
    "ce_one_hot_of_length_T",
    CE,
    "slip",
    "the one-hot made T long (the positions) where len(p) (the logits) belongs: zip stops after T entries",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    y = [0.0] * T
    if target < T:
        y[target] = 1.0
    return [(pj - yj) / T for pj, yj in zip(p, y)]
''',
)
S(
    "ce_y_takes_p",
    CE,
    "slip",
    "the one-hot holds p[target] at the target where 1 belongs: the true token's entry is 0",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    y = [pj if j == target else 0.0 for j, pj in enumerate(p)]
    return [(pj - yj) / T for pj, yj in zip(p, y)]
''',
)
S(
    "ce_for_in_len",
    CE,
    "error",
    "for j in len(p): a number is not iterable (TypeError)",
    '''
def cross_entropy_backward(p, target, T):
    """dL/dz, where p = softmax(z) and L is the mean of -log p[target] over T positions."""
    dz = []
    for j in len(p):
        dz.append((p[j] - (1 if j == target else 0)) / T)
    return dz
''',
)

# ---------------------------------------------------------------- linear
S(
    "lin_dx_aliases_x",
    LIN,
    "slip",
    "dx = x, then dx[j] += ...: dx starts from x (not zeros), and x itself is changed",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = x
    for j in range(len(x)):
        for i in range(len(g)):
            dx[j] += w[i][j] * g[i]
    return dw, dx
''',
)
S(
    "lin_dx_append_outside_loop",
    LIN,
    "slip",
    "dx.append(s) indented under the outer loop's end: dx holds one number, the last column's",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[g[i] * x[j] for j in range(len(x))] for i in range(len(g))]
    dx = []
    for j in range(len(x)):
        s = 0.0
        for i in range(len(g)):
            s += w[i][j] * g[i]
    dx.append(s)
    return dw, dx
''',
)
S(
    "lin_dw_times_w",
    LIN,
    "slip",
    "dw[i][j] = g[i] * x[j] * w[i][j]: the weight multiplied in as well",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[g[i] * x[j] * w[i][j] for j in range(len(x))] for i in range(len(g))]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dw_list_times_float",
    LIN,
    "error",
    "g[i] * x, NumPy style, on a Python list: can't multiply sequence by non-int of type 'float' (TypeError)",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [g[i] * x for i in range(len(g))]
    dx = [sum(w[i][j] * g[i] for i in range(len(g))) for j in range(len(x))]
    return dw, dx
''',
)
S(
    "lin_dx_sum_not_reset",
    LIN,
    "slip",
    "the running sum s set to 0 once, before the loop over j: each dx[j] carries the columns before it",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [[gi * xj for xj in x] for gi in g]
    dx = []
    s = 0.0
    for j in range(len(x)):
        for i in range(len(g)):
            s += w[i][j] * g[i]
        dx.append(s)
    return dw, dx
''',
)
S(
    "lin_dw_flat",
    LIN,
    "slip",
    "dw as one flat list of len(g) * len(x) numbers: the comprehension's brackets for the rows left out",
    '''
def linear_backward(x, w, g):
    """For o = linear(x, w), w @ x, given g = dL/do: return dL/dw and dL/dx."""
    dw = [gi * xj for gi in g for xj in x]
    dx = [sum(wi[j] * gi for wi, gi in zip(w, g)) for j in range(len(x))]
    return dw, dx
''',
)

# ---------------------------------------------------------------- ReLU
S(
    "relu_zip_names_swapped",
    RELU,
    "slip",
    "for gi, hi in zip(h, g): the names in each other's place, so the mask is on g and h is passed",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi if hi > 0 else 0.0 for gi, hi in zip(h, g)]
''',
)
S(
    "relu_return_in_loop",
    RELU,
    "slip",
    "return indented into the loop: the answer has one entry",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    dh = []
    for hi, gi in zip(h, g):
        if hi > 0:
            dh.append(gi)
        else:
            dh.append(0.0)
        return dh
''',
)
S(
    "relu_values_as_indices",
    RELU,
    "error",
    "for i in h: the values of h used as indices (TypeError: list indices must be integers)",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [g[i] if h[i] > 0 else 0.0 for i in h]
''',
)
S(
    "relu_first_unit_skipped",
    RELU,
    "slip",
    "the loop starts at 1: unit 0 keeps 0 whether on or off",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    dh = [0.0] * len(h)
    for i in range(1, len(h)):
        if h[i] > 0:
            dh[i] = g[i]
    return dh
''',
)
S(
    "relu_nested_comprehension",
    RELU,
    "slip",
    "two for clauses in one comprehension: every pair of (g_i, h_j), len(h) squared entries",
    '''
def relu_backward(h, g):
    """For o = relu(h), given g = dL/do: return dL/dh."""
    return [gi * (hi > 0) for gi in g for hi in h]
''',
)

# ---------------------------------------------------------------- RMSNorm
S(
    "rms_mean_then_square",
    RMS,
    "slip",
    "ms = (sum(x) / n) ** 2: the square of the mean where the mean of the squares belongs",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = (sum(x) / n) ** 2
    r = (ms + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_dot_assigned",
    RMS,
    "slip",
    "gx = gi * xi where gx += belongs: the dot product keeps only the last entry's term",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(xi**2 for xi in x) / n
    r = (ms + 1e-5) ** -0.5
    gx = 0.0
    for gi, xi in zip(g, x):
        gx = gi * xi
    dx = []
    for gi, xi in zip(g, x):
        dx.append(r * gi - r**3 * gx * xi / n)
    return dx
''',
)
S(
    "rms_direct_term_without_r",
    RMS,
    "slip",
    "the direct term written g_i where r g_i belongs",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_vector_arithmetic",
    RMS,
    "error",
    "r * g - ... * x on Python lists, NumPy style (TypeError: can't multiply sequence by non-int of type 'float')",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return r * g - r**3 * gx / n * x
''',
)
S(
    "rms_eps_divided_by_n",
    RMS,
    "slip",
    "(sum of squares + eps) / n: eps inside the parentheses, so it is divided by n too",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = ((sum(xi * xi for xi in x) + 1e-5) / n) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_dot_as_sum_times_sum",
    RMS,
    "slip",
    "g . x written sum(g) * sum(x): the two sums taken apart, then multiplied",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(g) * sum(x)
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)
S(
    "rms_ms_of_g",
    RMS,
    "slip",
    "the mean square taken of g where x belongs: gi * gi in ms",
    '''
def rmsnorm_backward(x, g):
    """dL/dx for o = rmsnorm(x), given g = dL/do; x and g are lists of floats."""
    n = len(x)
    ms = sum(gi * gi for gi in g) / n
    r = (ms + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]
''',
)

# ---------------------------------------------------------------- the softmax inside attention
S(
    "sm_append_in_inner_loop",
    SM,
    "slip",
    "ds.append inside the loop over u: len(w) squared entries, each with a partial average",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    ds = []
    for t in range(len(w)):
        avg = 0.0
        for u in range(len(w)):
            avg += w[u] * gamma[u]
            ds.append(w[t] * (gamma[t] - avg))
    return ds
''',
)
S(
    "sm_list_times_list",
    SM,
    "error",
    "sum(w * gamma), NumPy style, on Python lists (TypeError: can't multiply sequence by non-int of type 'list')",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = sum(w * gamma)
    return [wt * (gt - avg) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_diagonal_and_full_sum",
    SM,
    "slip",
    "the page's two-term form with the sum over every u, not u != t: w_t(1 - w_t)gamma_t - w_t sum_u w_u gamma_u",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    n = len(w)
    ds = []
    for t in range(n):
        rest = sum(gamma[u] * w[u] * w[t] for u in range(n))
        ds.append(gamma[t] * w[t] * (1 - w[t]) - rest)
    return ds
''',
)
S(
    "sm_mean_divided_by_n",
    SM,
    "slip",
    "the weighted sum named 'mean' and divided by len(w): sum_u w_u gamma_u / n",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    mean = sum(wu * gu for wu, gu in zip(w, gamma)) / len(w)
    return [wt * (gt - mean) for wt, gt in zip(w, gamma)]
''',
)
S(
    "sm_last_score_left_out",
    SM,
    "slip",
    "the output loop runs to len(w) - 1: ds is one entry short",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    avg = sum(w[u] * gamma[u] for u in range(len(w)))
    return [w[t] * (gamma[t] - avg) for t in range(len(w) - 1)]
''',
)
S(
    "sm_jacobian_shared_rows",
    SM,
    "slip",
    "the Jacobian built as [[0.0] * n] * n: every row is one list, holding the last row's numbers",
    '''
def softmax_backward(w, gamma):
    """dL/ds for w = softmax(s), given gamma = dL/dw."""
    n = len(w)
    J = [[0.0] * n] * n
    for u in range(n):
        for t in range(n):
            J[u][t] = w[u] * ((1.0 if u == t else 0.0) - w[t])
    return [sum(J[u][t] * gamma[u] for u in range(n)) for t in range(n)]
''',
)

# ---------------------------------------------------------------- one head of attention
S(
    "head_dq_assigned",
    HEAD,
    "slip",
    "dqs[i][j] = ... where += belongs: the query keeps only its last key's share",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    scale = math.sqrt(d_h)
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(qs[i][j] * ks[t][j] for j in range(d_h)) / scale for t in range(i + 1)]
        m = max(s)
        e = [math.exp(x - m) for x in s]
        total = sum(e)
        w = [x / total for x in e]
        gamma = [sum(gs[i][j] * vs[t][j] for j in range(d_h)) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] = ds[t] * ks[t][j] / scale
                dks[t][j] += ds[t] * qs[i][j] / scale
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_last_query_skipped",
    HEAD,
    "slip",
    "for i in range(T - 1): the last position's query is never done",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T - 1):
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
''',
)
S(
    "head_dk_subtracted",
    HEAD,
    "slip",
    "dks[t][j] -= ...: the key's share subtracted (dq and dv right)",
    '''
def attention_head_backward(qs, ks, vs, gs):
    """dL/dq, dL/dk and dL/dv at every position, for one head over a whole document."""
    T, d_h = len(qs), len(qs[0])
    c = 1 / math.sqrt(d_h)
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [c * sum(a * b for a, b in zip(qs[i], ks[t])) for t in range(i + 1)]
        e = [math.exp(st - max(s)) for st in s]
        w = [et / sum(e) for et in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        ds = softmax_backward(w, gamma)
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += c * ds[t] * ks[t][j]
                dks[t][j] -= c * ds[t] * qs[i][j]
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_dq_uses_ds_i",
    HEAD,
    "slip",
    "ds[i] where ds[t] belongs in dq: every key weighted by the query's own score's gradient",
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
                dqs[i][j] += ds[i] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs
''',
)
S(
    "head_weights_over_count",
    HEAD,
    "slip",
    "the weights normalised by the number of keys, e_t / (i + 1), where the sum of the e's belongs",
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
        w = [et / len(e) for et in e]
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
    "head_list_divided",
    HEAD,
    "error",
    "w = e / sum(e), NumPy style, on a Python list (TypeError: unsupported operand type(s) for /)",
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
        w = e / sum(e)
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
    "head_ds_is_gamma",
    HEAD,
    "slip",
    "ds = gamma: the softmax's backward skipped, the weights' gradient used as the scores'",
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
        ds = gamma
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
    "att_scores_unsliced",
    ATT,
    "slip",
    "the recomputed scores from the whole q and k (qs[i], ks[t]) where the head's slice [hs] belongs",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [linear_rows(wq, x) for x in xs]
    ks = [linear_rows(wk, x) for x in xs]
    vs = [linear_rows(wv, x) for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    dws = []
    for m, dm_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        total = [[0.0] * len(row) for row in m]
        for t in range(T):
            dw, dx = linear_backward(xs[t], m, dm_[t])
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        dws.append(total)
    return dxs, dws[0], dws[1], dws[2], dwo


def linear_rows(w, x):
    return [sum(a * b for a, b in zip(row, x)) for row in w]
''',
)
S(
    "att_mixed_shared_rows",
    ATT,
    "slip",
    "mixed = [[0.0] * n_embd] * T: one list for every position, so attn_wo reads the last position's heads everywhere",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0])] * T
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)
S(
    "att_T_is_width",
    ATT,
    "error",
    "T, d_h = len(xs[0]), len(xs[0]) // n_head: T read from the width, so xs[i] runs past the last position (IndexError)",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs[0]), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)
S(
    "att_heads_range_d_h",
    ATT,
    "slip",
    "heads = [slice(...) for h in range(d_h)]: d_h slices where n_head belongs (the same on the page's 4 heads of 4)",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T = len(xs)
    d_h = len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(d_h)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)
S(
    "att_mixed_unweighted",
    ATT,
    "slip",
    "the recomputed heads' output sums the values without the weights: sum_t v_t where sum_t w_t v_t belongs",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)
S(
    "att_v_path_given_dmixed",
    ATT,
    "slip",
    "the value projection's backward given dmixed (the heads' output gradient) where dvs belongs",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dmixed)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)
S(
    "att_head_q_and_k_swapped",
    ATT,
    "slip",
    "each head handed its keys as queries and its queries as keys: attention_head_backward(ks, qs, ...)",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [k[hs] for k in ks], [q[hs] for q in qs], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wk, dks), (wv, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)
S(
    "att_wk_wv_swapped",
    ATT,
    "slip",
    "the key and value matrices in each other's place in the projections' loop: (wv, dks), (wk, dvs)",
    '''
def attention_backward(xs, wq, wk, wv, wo, n_head, gs):
    """dL/dx at every position, and dL/dwq, dL/dwk, dL/dwv, dL/dwo summed over positions."""
    T, d_h = len(xs), len(xs[0]) // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = [slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]
    mixed = [[0.0] * len(wo[0]) for _ in range(T)]
    for i in range(T):
        for hs in heads:
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / math.sqrt(d_h) for t in range(i + 1)]
            e = [math.exp(st - max(s)) for st in s]
            w = [et / sum(e) for et in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * len(x) for x in xs] for _ in range(3))
    for hs in heads:
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * len(x) for x in xs]
    grads = []
    for w_, ds_ in ((wq, dqs), (wv, dks), (wk, dvs)):
        dw_sum = [[0.0] * len(row) for row in w_]
        for t in range(T):
            dw, dx = linear_backward(xs[t], w_, ds_[t])
            dw_sum = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dw_sum, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(dw_sum)
    return dxs, grads[0], grads[1], grads[2], dwo
''',
)

# ---------------------------------------------------------------- the embedding lookup
S(
    "emb_width_from_len_grads",
    EMB,
    "slip",
    "the rows made len(grads) wide (the number of positions) where len(grads[0]) belongs: zip cuts each sum short",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d
''',
)
S(
    "emb_add_range_rows",
    EMB,
    "error",
    "the entries added over range(rows) where the width belongs: past the row's end (IndexError)",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    n = len(grads[0])
    d = [[0.0] * n for _ in range(rows)]
    for k in range(len(used)):
        for j in range(rows):
            d[used[k]][j] += grads[k][j]
    return d
''',
)
S(
    "emb_last_position_skipped",
    EMB,
    "slip",
    "for k in range(len(used) - 1): the last position's gradient never added",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(len(used) - 1):
        for j, gj in enumerate(grads[k]):
            d[used[k]][j] += gj
    return d
''',
)
S(
    "emb_range_of_a_list",
    EMB,
    "error",
    "for k in range(used): range of a list (TypeError: 'list' object cannot be interpreted as an integer)",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(used):
        i = used[k]
        d[i] = [a + b for a, b in zip(d[i], grads[k])]
    return d
''',
)
S(
    "emb_adds_into_grads",
    EMB,
    "slip",
    "the row's sum built in the incoming gradient g (g[j] += d[i][j]; d[i] = g): right numbers, the grads changed",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        for j in range(len(g)):
            g[j] += d[i][j]
        d[i] = g
    return d
''',
)
S(
    "emb_loop_over_rows",
    EMB,
    "slip",
    "for k in range(min(rows, len(used))): the positions' loop bounded by the table's rows (range(rows), guarded with min after its IndexError), so a document longer than the table has rows loses its last positions",
    '''
def embedding_backward(rows, used, grads):
    """d(table) for a lookup: grads[k] is the gradient at the row used[k]."""
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(min(rows, len(used))):
        i = used[k]
        for j in range(len(grads[k])):
            d[i][j] += grads[k][j]
    return d
''',
)
