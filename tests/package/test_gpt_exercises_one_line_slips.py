"""Slips written as a learner writes the whole function, each with one line changed (marked "the slip"): a group
apart from the kept set (tests/package/test_gpt_exercises_slips.py, whose slips are mostly made from the solution's
answer) and from the fresh reviewer's (tests/package/test_gpt_exercises_reviewed_slips.py), written after the checkers'
one-line search (microgpt.course.variants) to try it on code it was not built from: comprehensions, zip and
enumerate where the rules index, a forward pass recomputed inside the function, helpers of the learner's own.
"""

import math

import pytest
from verdicts import sentence_ends

from microgpt.course import checkers
from microgpt.course.checking import check

P = checkers.PIECES
NAMED, LOCATED, VAGUE = "how (and where)", "where", "only the largest difference"


def ce_counts_bos_too(p, target, T):
    dz = list(p)
    dz[target] -= 1
    return [d / (T + 1) for d in dz]  # the slip: T + 1, as if BOS were a position too


def ce_target_sign_only(p, target, T):
    dz = [pj / T for pj in p]
    dz[target] = (1 - p[target]) / T  # the slip: 1 - p where p - 1 belongs
    return dz


def ce_onehot_from_argmax(p, target, T):
    best = max(range(len(p)), key=lambda j: p[j])  # the slip: the predicted token, not the true one
    return [(pj - (1.0 if j == best else 0.0)) / T for j, pj in enumerate(p)]


def lin_dx_inner_bound(x, w, g):
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(len(x))) for j in range(len(x))]  # the slip: len(x) where len(g)
    return dw, dx


def lin_dw_uses_g_twice(x, w, g):
    dw = [[gi * gj for gj in g] for gi in g]  # the slip: g where x belongs
    dx = [sum(row[j] * gi for row, gi in zip(w, g)) for j in range(len(x))]
    return dw, dx


def lin_dx_starts_at_one(x, w, g):
    dw = [[gi * xj for xj in x] for gi in g]
    dx = [sum(w[i][j] * g[i] for i in range(1, len(g))) for j in range(len(x))]  # the slip: from 1
    return dw, dx


def lin_dw_divided_by_rows(x, w, g):
    dw = [[gi * xj / len(w) for xj in x] for gi in g]  # the slip: an average over the rows
    dx = [sum(row[j] * gi for row, gi in zip(w, g)) for j in range(len(x))]
    return dw, dx


def relu_rounded_mask(h, g):
    return [gi if round(hi, 9) > 0 else 0.0 for hi, gi in zip(h, g)]  # the slip: h rounded first


def relu_mask_from_relu_of_g(h, g):
    return [gi if max(0.0, hi) > 0 and gi > 0 else 0.0 for hi, gi in zip(h, g)]  # the slip: and g > 0


def relu_skips_last(h, g):
    return [g[i] if h[i] > 0 else 0.0 for i in range(len(h) - 1)] + [0.0]  # the slip: one short


def rms_square_of_sum(x, g):
    n = len(x)
    ms = sum(x) ** 2 / n  # the slip: the square of the sum, not the sum of squares
    r = (ms + 1e-5) ** -0.5
    gx = sum(a * b for a, b in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_sqrt_not_inverse(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** 0.5  # the slip: ** 0.5 where ** -0.5 belongs
    gx = sum(a * b for a, b in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_eps_outside(x, g):
    n = len(x)
    r = 1 / math.sqrt(sum(v * v for v in x) / n) + 1e-5  # the slip: eps added outside the square root
    gx = sum(a * b for a, b in zip(g, x))
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_dot_with_g_itself(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
    gx = sum(a * a for a in g)  # the slip: g . g where g . x belongs
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def sm_running_average(w, gamma):
    out = []
    for t, (wt, gt) in enumerate(zip(w, gamma)):
        avg = sum(w[u] * gamma[u] for u in range(t + 1))  # the slip: the average over u <= t only
        out.append(wt * (gt - avg))
    return out


def sm_sum_of_gamma(w, gamma):
    avg = sum(gamma)  # the slip: sum of gamma, no weights
    return [wt * (gt - avg) for wt, gt in zip(w, gamma)]


def sm_square_weight(w, gamma):
    avg = sum(wu * gu for wu, gu in zip(w, gamma))
    return [wt * wt * (gt - avg) for wt, gt in zip(w, gamma)]  # the slip: w_t squared


def _head(qs, ks, vs, gs, *, scale=lambda d: math.sqrt(d), dv_g=lambda gs, i, t: gs[i], dk_into=lambda i, t: t):
    T, d_h = len(qs), len(qs[0])
    dqs = [[0.0] * d_h for _ in range(T)]
    dks = [[0.0] * d_h for _ in range(T)]
    dvs = [[0.0] * d_h for _ in range(T)]
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / scale(d_h) for t in range(i + 1)]
        e = [math.exp(v - max(s)) for v in s]
        w = [v / sum(e) for v in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        avg = sum(a * b for a, b in zip(w, gamma))
        ds = [wt * (gt - avg) for wt, gt in zip(w, gamma)]
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / scale(d_h)
                dks[dk_into(i, t)][j] += ds[t] * qs[i][j] / scale(d_h)
                dvs[t][j] += w[t] * dv_g(gs, i, t)[j]
    return dqs, dks, dvs


def head_precedence(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, scale=lambda d: d**1 / 2)  # the slip: d ** 1/2 is d / 2, not sqrt(d)


def head_dv_from_last_g(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, dv_g=lambda gs, i, t: gs[-1])  # the slip: gs[-1] where gs[i] belongs


def head_dk_into_query(qs, ks, vs, gs):
    return _head(qs, ks, vs, gs, dk_into=lambda i, t: i)  # the slip: dks[i] where dks[t] belongs


def head_weights_of_the_last_query(qs, ks, vs, gs):
    T, d_h = len(qs), len(qs[0])
    dqs, dks, dvs = ([[0.0] * d_h for _ in range(T)] for _ in range(3))
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(v - max(s)) for v in s]
        w = [v / sum(e) for v in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        avg = sum(a * b for a, b in zip(w, gamma))
        ds = [wt * (gt - avg) for wt, gt in zip(w, gamma)]
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[i] * gs[i][j]  # the slip: w[i] where w[t] belongs
    return dqs, dks, dvs


def head_gamma_from_queries(qs, ks, vs, gs):
    T, d_h = len(qs), len(qs[0])
    dqs, dks, dvs = ([[0.0] * d_h for _ in range(T)] for _ in range(3))
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(v - max(s)) for v in s]
        w = [v / sum(e) for v in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[i])) for t in range(i + 1)]  # the slip: vs[i] for vs[t]
        avg = sum(a * b for a, b in zip(w, gamma))
        ds = [wt * (gt - avg) for wt, gt in zip(w, gamma)]
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j] / math.sqrt(d_h)
                dks[t][j] += ds[t] * qs[i][j] / math.sqrt(d_h)
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs


def _attention(xs, wq, wk, wv, wo, n_head, gs, *, slip=""):
    from microgpt.course.pieces import attention_head_backward, linear_backward

    T, n = len(xs), len(xs[0])
    d_h = n // n_head
    qs = [[sum(a * b for a, b in zip(row, x)) for row in wq] for x in xs]
    ks = [[sum(a * b for a, b in zip(row, x)) for row in wk] for x in xs]
    vs = [[sum(a * b for a, b in zip(row, x)) for row in wv] for x in xs]
    heads = range(n_head - 1) if slip == "last head" else range(n_head)
    mixed = [[0.0] * n for _ in range(T)]
    for i in range(T):
        for h in heads:
            hs = slice(h * d_h, (h + 1) * d_h)
            scale = math.sqrt(n) if slip == "scale by n_embd" else math.sqrt(d_h)
            s = [sum(a * b for a, b in zip(qs[i][hs], ks[t][hs])) / scale for t in range(i + 1)]
            e = [math.exp(v - max(s)) for v in s]
            w = [v / sum(e) for v in e]
            mixed[i][hs] = [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * n for _ in wo]
    dmixed = []
    for i in range(T):
        dw, dm = linear_backward(mixed[i], wo, gs[i])
        if slip == "dm from wo rows":
            dm = [sum(wo[j][r] * gs[i][r] for r in range(len(gs[i]))) for j in range(n)]
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * n for _ in range(T)] for _ in range(3))
    for h in heads:
        hs = slice(h * d_h, (h + 1) * d_h)
        dq, dk, dv = attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[hs] for d in dmixed]
        )
        for t in range(T):
            dqs[t][hs], dks[t][hs], dvs[t][hs] = dq[t], dk[t], dv[t]
    dxs = [[0.0] * n for _ in range(T)]
    grads = []
    for m, ds in ((wq, dqs), (wk, dks), (wv, dvs)):
        total = [[0.0] * n for _ in m]
        for t in range(T):
            x_for_w = xs[T - 1] if slip == "last x" else xs[t]
            dw, dx = linear_backward(x_for_w, m, ds[t])
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(total)
    return dxs, *grads, dwo


def att_last_head_left_out(*args):
    return _attention(*args, slip="last head")  # the slip: range(n_head - 1)


def att_scale_by_n_embd(*args):
    return _attention(*args, slip="scale by n_embd")  # the slip: sqrt(n_embd) where sqrt(d_h) belongs


def att_dm_from_wo_rows(*args):
    return _attention(*args, slip="dm from wo rows")  # the slip: wo[j][r] where wo[r][j] belongs


def att_dw_with_the_last_x(*args):
    return _attention(*args, slip="last x")  # the slip: xs[T - 1] where xs[t] belongs


def emb_skips_position_zero(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(1, len(used)):  # the slip: from 1, as if position 0 had no gradient
        d[used[k]] = [a + b for a, b in zip(d[used[k]], grads[k])]
    return d


def emb_row_by_token_plus_position(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k, (i, g) in enumerate(zip(used, grads)):
        d[i] = [a + b * (k + 1) for a, b in zip(d[i], g)]  # the slip: weighted by the position
    return d


def emb_counts_reads(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, _g in zip(used, grads):
        d[i] = [a + 1.0 for a in d[i]]  # the slip: counts the reads, the gradient left out
    return d


def relu_off_units_send_minus_g(h, g):
    return [gi if hi > 0 else -gi for hi, gi in zip(h, g)]  # the slip: -g where 0 belongs


def rms_dot_product_averaged(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
    gx = sum(a * b for a, b in zip(g, x)) / n  # the slip: g . x averaged, then divided by n again below
    return [r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def head_scale_multiplied_in_backward(qs, ks, vs, gs):
    T, d_h = len(qs), len(qs[0])
    dqs, dks, dvs = ([[0.0] * d_h for _ in range(T)] for _ in range(3))
    for i in range(T):
        s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
        e = [math.exp(v - max(s)) for v in s]
        w = [v / sum(e) for v in e]
        gamma = [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)]
        avg = sum(a * b for a, b in zip(w, gamma))
        ds = [wt * (gt - avg) * math.sqrt(d_h) for wt, gt in zip(w, gamma)]  # the slip: * where / belongs
        for t in range(i + 1):
            for j in range(d_h):
                dqs[i][j] += ds[t] * ks[t][j]
                dks[t][j] += ds[t] * qs[i][j]
                dvs[t][j] += w[t] * gs[i][j]
    return dqs, dks, dvs


def emb_pairs_each_row_with_the_next_gradient(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads[1:]):  # the slip: grads[1:] where grads belongs
        d[i] = [a + b for a, b in zip(d[i], g)]
    return d


ONE_LINE = [  # (piece, slip, what the verdict must say, how much it says)
    (
        "cross_entropy_backward",
        ce_counts_bos_too,
        "dz: every entry is 7/8 times the engine's (7/8 is T/(T + 1) here).",
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_target_sign_only,
        "dz: wrong only at logit 12 (the true token); right at the other logits.",
        LOCATED,
    ),
    (
        "cross_entropy_backward",
        ce_onehot_from_argmax,
        "dz: the -0.1429 (-1/T) that belongs at logit 12 (the true token) is at logit 18.",
        NAMED,
    ),
    ("linear_backward", lin_dx_inner_bound, "lin_dx_inner_bound raised IndexError: list index out of range", LOCATED),
    (
        "linear_backward",
        lin_dw_uses_g_twice,
        "dw: yours is what the rule gives with one change, in dw[i][j] = g[i] x[j]:",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dx_starts_at_one,
        "dx: dx[j] sums w[i][j] g[i] over the rows i; in yours, the term of row 0 (the first) is missing.",
        NAMED,
    ),
    (
        "linear_backward",
        lin_dw_divided_by_rows,
        "dw: every entry is 1/16 times the engine's (1/16 is 1/len(x) or 1/len(g) here).",
        NAMED,
    ),
    (
        "relu_backward",
        relu_rounded_mask,
        "dh: yours is exactly 0 at unit 2 (h = 1e-15), where the engine's is not.",
        LOCATED,
    ),
    (
        "relu_backward",
        relu_mask_from_relu_of_g,
        "dh: wrong at exactly the units where g < 0 and the engine's is not 0, and right at the others.",
        LOCATED,
    ),
    (
        "relu_backward",
        relu_skips_last,
        "dh: yours is what the rule gives with one change, in the loop over the units i:",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_square_of_sum,
        "dx: yours is what the rule gives with another value for r, the scale r = (ms + eps)^-1/2:",
        LOCATED,
    ),
    (
        "rmsnorm_backward",
        rms_sqrt_not_inverse,
        "dx: yours is what the rule gives with one change, in the scale r = (ms + eps)^-1/2:",
        NAMED,
    ),
    (
        "rmsnorm_backward",
        rms_eps_outside,
        "dx: yours is what the rule gives with another value for r, the scale r = (ms + eps)^-1/2:",
        LOCATED,
    ),
    (
        "rmsnorm_backward",
        rms_dot_with_g_itself,
        "dx: yours is what the rule gives with one change, in the dot product g . x:",
        NAMED,
    ),
    ("softmax_backward", sm_running_average, "ds: wrong at scores 0 to 5; right at score 6.", LOCATED),
    (
        "softmax_backward",
        sm_sum_of_gamma,
        "ds: yours is what the rule gives with one change, in the average sum_u w_u gamma_u:",
        NAMED,
    ),
    (
        "softmax_backward",
        sm_square_weight,
        "ds: every entry is the engine's times w, your argument, entry by entry:",
        NAMED,
    ),
    (
        "attention_head_backward",
        head_precedence,
        "every result: yours is what the rule gives with another value for c, the scores' divisor sqrt(d_h):",
        LOCATED,
    ),
    (
        "attention_head_backward",
        head_dv_from_last_g,
        "dvs: yours is what the rule gives with one change, in dv_t collects w_t g_i:",
        NAMED,
    ),
    (
        "attention_head_backward",
        head_dk_into_query,
        "dks: yours is what the rule gives with one change, in dk_t collects ds_t q_i / sqrt(d_h):",
        NAMED,
    ),
    (
        "attention_head_backward",
        head_weights_of_the_last_query,
        "dvs: yours is what the rule gives with one change, in dv_t collects w_t g_i:",
        NAMED,
    ),
    (
        "attention_head_backward",
        head_gamma_from_queries,
        "dqs and dks: every entry of each is 0, and dvs is right.",
        LOCATED,
    ),
    (
        "attention_backward",
        att_last_head_left_out,
        "every result: yours is what the rule gives with one change, in the heads' entries, side by side:",
        NAMED,
    ),
    (
        "attention_backward",
        att_scale_by_n_embd,
        "dwo: yours is what the rule gives with one change, in a head's scores:",
        NAMED,
    ),
    (
        "attention_backward",
        att_dm_from_wo_rows,
        "dxs, dwq, dwk and dwv: yours is what the rule gives with one change, in the gradient at the heads' "
        "output, wo^T g_i:",
        NAMED,
    ),
    (
        "attention_backward",
        att_dw_with_the_last_x,
        "dwq, dwk and dwv: yours is what the rule gives with one change, in a matrix's gradient sums d_t[r] x_t[j] "
        "over positions t:",
        NAMED,
    ),
    (
        "embedding_backward",
        emb_skips_position_zero,
        "d(table): a row sums the gradients of the positions that read it; in yours, the term of position 0 (the "
        "first) is missing.",
        NAMED,
    ),
    (
        "embedding_backward",
        emb_row_by_token_plus_position,
        "d(table): wrong at rows 6, 8 and 12 to 14; right at row 26 (read at position 0), and 0 like the engine's"
        " at the other rows.",
        LOCATED,
    ),
    (
        "embedding_backward",
        emb_counts_reads,
        "d(table): yours holds only whole numbers (0, 1 and 2): counts, not gradients.",
        NAMED,
    ),
    (
        "relu_backward",
        relu_off_units_send_minus_g,
        "dh: nonzero at 36 of the 64 units, where the engine's is exactly 0, and right at the other 28 units.",
        LOCATED,
    ),
    (
        "rmsnorm_backward",
        rms_dot_product_averaged,
        "dx is the sum of the direct term r g and the mean-square term -(r^3/n)(g . x) x.",
        NAMED,
    ),
    (
        "attention_head_backward",
        head_scale_multiplied_in_backward,
        "dqs and dks: each is 4 times the engine's (4 is d_h here), and dvs is right.",
        NAMED,
    ),
    ("embedding_backward", emb_pairs_each_row_with_the_next_gradient, "", VAGUE),
]


@pytest.mark.parametrize(("name", "wrong", "words", "kind"), ONE_LINE, ids=[w.__name__ for _, w, _, _ in ONE_LINE])
def test_a_one_line_slip_is_refused_and_told_before_any_pair_of_numbers(name, wrong, words, kind):
    verdict = check(P[name], wrong)
    assert not verdict.ok and not verdict.kept
    assert "could not say" not in verdict.text, verdict.text
    assert all(line.endswith((".", "?", ":")) for line in sentence_ends(verdict.text)), verdict.text
    before = verdict.text.split("The largest difference is at")[0]
    assert words in before, verdict.text
    if kind != VAGUE:
        assert ": the largest difference is at" not in verdict.text, "said where, at least, before the numbers"


def test_the_one_line_slips_are_many_cover_every_piece_and_most_are_named_or_located():
    kinds = [kind for *_, kind in ONE_LINE]
    assert len(ONE_LINE) >= 25 and {name for name, *_ in ONE_LINE} == set(P)
    assert (kinds.count(NAMED) + kinds.count(LOCATED)) / len(kinds) >= 0.8
