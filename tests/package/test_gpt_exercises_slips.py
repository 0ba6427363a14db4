"""The checkers can't be fooled, and say where and how for slips nobody listed.

Three sets of wrong answers, none of which a checker may accept: answers that write one of the page's
sizes as a number (T = 7, 27 tokens, n_embd 16, 4 heads of 4, a fixed target), answers that memorised the
page's step, and slips invented for these tests, none of them in a checker's list of known slips, each
with the diagnosis it must get.
"""

import copy
import math

import pytest
from verdicts import sentence_ends

from microgpt.course import checkers, pieces
from microgpt.course.checking import check

P = checkers.PIECES


def _forward_weights(qs, ks, i):
    d_h = len(qs[0])
    s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(i + 1)]
    e = [math.exp(v - max(s)) for v in s]
    return [v / sum(e) for v in e]


def _scaled(m, c):
    return [[v * c for v in row] for row in m]


# ---------------------------------------------------------------- slips nobody listed, and what each must get


def ce_floor_division(p, target, T):
    return [(pj - (1.0 if j == target else 0.0)) // T for j, pj in enumerate(p)]


def ce_target_plus_one(p, target, T):
    return [(pj - (1.0 if j == target + 1 else 0.0)) / T for j, pj in enumerate(p)]


def ce_divides_by_len_p(p, target, T):
    return [(pj - (j == target)) / len(p) for j, pj in enumerate(p)]


def ce_plus_y(p, target, T):
    return [(pj + (j == target)) / T for j, pj in enumerate(p)]


def ce_twice(p, target, T):
    return [2 * (pj - (j == target)) / T for j, pj in enumerate(p)]


def ce_p_not_divided(p, target, T):
    return [pj - (j == target) / T for j, pj in enumerate(p)]


def lin_returns_dx_dw(x, w, g):
    dw, dx = pieces.linear_backward(x, w, g)
    return dx, dw


def lin_shared_rows(x, w, g):
    dw = [[0.0] * len(x)] * len(g)
    for i in range(len(g)):
        for j in range(len(x)):
            dw[i][j] += g[i] * x[j]
    return dw, pieces.linear_backward(x, w, g)[1]


def lin_rows_from_one(x, w, g):
    dw = [[0.0] * len(x) for _ in g]
    for i in range(1, len(g)):
        dw[i] = [g[i] * xj for xj in x]
    return dw, pieces.linear_backward(x, w, g)[1]


def lin_dx_twice(x, w, g):
    dw, dx = pieces.linear_backward(x, w, g)
    return dw, [2 * v for v in dx]


def lin_x_shifted(x, w, g):
    dw = [[gi * x[j - 1] if j else 0.0 for j in range(len(x))] for gi in g]
    return dw, pieces.linear_backward(x, w, g)[1]


def relu_half(h, g):
    return [0.5 * gi if hi > 0 else 0.0 for hi, gi in zip(h, g)]


def relu_shifted(h, g):
    return [0.0] + [gi if hi > 0 else 0.0 for hi, gi in zip(h, g)][:-1]


def relu_leaky(h, g):
    return [gi if hi > 0 else 0.01 * gi for hi, gi in zip(h, g)]


def _rms_parts(x, g):
    n = len(x)
    r = (sum(v * v for v in x) / n + 1e-5) ** -0.5
    return n, r, sum(a * b for a, b in zip(g, x))


def rms_mean_term_sign(x, g):
    n, r, gx = _rms_parts(x, g)
    return [r * gi + r**3 * gx / n * xi for gi, xi in zip(g, x)]


def rms_n_written_16(x, g):
    _, r, gx = _rms_parts(x, g)
    return [r * gi - r**3 * gx / 16 * xi for gi, xi in zip(g, x)]


def rms_r_squared(x, g):
    n, r, gx = _rms_parts(x, g)
    return [r * gi - r**2 * gx / n * xi for gi, xi in zip(g, x)]


def rms_n_twice(x, g):
    n, r, gx = _rms_parts(x, g)
    return [r * gi - r**3 * gx / n / n * xi for gi, xi in zip(g, x)]


def sm_average_sign(w, gamma):
    m = sum(a * b for a, b in zip(w, gamma))
    return [wt * (gt + m) for wt, gt in zip(w, gamma)]


def sm_over_len(w, gamma):
    m = sum(a * b for a, b in zip(w, gamma))
    return [wt * (gt - m) / len(w) for wt, gt in zip(w, gamma)]


def sm_loop_from_one(w, gamma):
    m = sum(a * b for a, b in zip(w, gamma))
    return [0.0] + [wt * (gt - m) for wt, gt in zip(w[1:], gamma[1:])]


def head_scale_twice(qs, ks, vs, gs):
    return checkers.head_answer(checkers.head_terms(qs, ks, vs, gs, "scale twice"))


def head_returns_dv_dk(qs, ks, vs, gs):
    dq, dk, dv = pieces.attention_head_backward(qs, ks, vs, gs)
    return dq, dv, dk


def head_dv_with_its_own_g(qs, ks, vs, gs):
    dq, dk, _ = pieces.attention_head_backward(qs, ks, vs, gs)
    dv = [[0.0] * len(qs[0]) for _ in qs]
    for i in range(len(qs)):
        w = _forward_weights(qs, ks, i)
        for t in range(i + 1):
            dv[t] = [a + w[t] * b for a, b in zip(dv[t], gs[t])]  # the slip: the key's g, not the query's
    return dq, dk, dv


def head_dk_with_its_own_q(qs, ks, vs, gs):
    dq, _, dv = pieces.attention_head_backward(qs, ks, vs, gs)
    d_h, dk = len(qs[0]), [[0.0] * len(qs[0]) for _ in qs]
    for i in range(len(qs)):
        w = _forward_weights(qs, ks, i)
        ds = pieces.softmax_backward(w, [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)])
        for t in range(i + 1):
            dk[t] = [a + ds[t] * b / math.sqrt(d_h) for a, b in zip(dk[t], qs[t])]  # the slip: q_t, not q_i
    return dq, dk, dv


def head_scale_written_as_half(qs, ks, vs, gs):
    dq, dk, dv = pieces.attention_head_backward(qs, ks, vs, gs)
    c = math.sqrt(len(qs[0])) / 2  # 1/2 where 1 / sqrt(d_h) belongs
    return _scaled(dq, c), _scaled(dk, c), dv


def head_dv_scaled_too(qs, ks, vs, gs):
    dq, dk, dv = pieces.attention_head_backward(qs, ks, vs, gs)
    return dq, dk, _scaled(dv, 1 / math.sqrt(len(qs[0])))  # the scale belongs to the scores, not to the values


def att_slices_by_n_head(xs, wq, wk, wv, wo, n_head, gs):
    """Each head's slice starts at h * n_head where h * d_h belongs: the same when n_head == d_h."""
    T, n, d_h = len(xs), len(xs[0]), len(xs[0]) // n_head
    qs, ks, vs = ([[sum(a * b for a, b in zip(row, x)) for row in m] for x in xs] for m in (wq, wk, wv))
    heads = [slice(h * n_head, h * n_head + d_h) for h in range(n_head)]
    mixed: list[list[float]] = [[] for _ in range(T)]
    for hs in heads:
        for i in range(T):
            w = _forward_weights([q[hs] for q in qs], [k[hs] for k in ks], i)
            mixed[i] += [sum(w[t] * vs[t][hs][j] for t in range(i + 1)) for j in range(d_h)]
    dwo = [[0.0] * len(row) for row in wo]
    dmixed = []
    for i in range(T):
        dw, dm = pieces.linear_backward(mixed[i], wo, gs[i])
        dwo = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(dwo, dw)]
        dmixed.append(dm)
    dqs, dks, dvs = ([[0.0] * n for _ in range(T)] for _ in range(3))
    for h, hs in enumerate(heads):
        own = slice(h * d_h, (h + 1) * d_h)
        dq, dk, dv = pieces.attention_head_backward(
            [q[hs] for q in qs], [k[hs] for k in ks], [v[hs] for v in vs], [d[own] for d in dmixed]
        )
        for t in range(T):
            for j in range(d_h):
                dqs[t][hs.start + j] += dq[t][j]
                dks[t][hs.start + j] += dk[t][j]
                dvs[t][hs.start + j] += dv[t][j]
    dxs, grads = [[0.0] * n for _ in range(T)], []
    for m, ds in ((wq, dqs), (wk, dks), (wv, dvs)):
        total = [[0.0] * len(row) for row in m]
        for t in range(T):
            dw, dx = pieces.linear_backward(xs[t], m, ds[t])
            total = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(total, dw)]
            dxs[t] = [a + b for a, b in zip(dxs[t], dx)]
        grads.append(total)
    return dxs, *grads, dwo


def _path(xs, wq, wk, wv, wo, n_head, gs, c, factor):
    """The solution's answer with the path through c (q, k or v) times factor in dxs."""
    dxs, *rest = pieces.attention_backward(xs, wq, wk, wv, wo, n_head, gs)
    split, _ = checkers._attention_split(xs, wq, wk, wv, wo, n_head, gs)
    names = {"q": ("dq direct", "dq average"), "k": checkers.HEAD_TERMS[2:6]}[c]
    d = checkers._summed(split, *names)
    m = {"q": wq, "k": wk}[c]
    dxs = [[v + (factor - 1) * u for v, u in zip(dxs[t], checkers._apply_t(m, d[t]))] for t in range(len(xs))]
    return dxs, *rest


def att_q_path_sign(*args):
    return _path(*args, "q", -1)


def att_k_path_twice(*args):
    return _path(*args, "k", 2)


def att_dxs_shared_rows(xs, wq, wk, wv, wo, n_head, gs):
    dxs, *rest = pieces.attention_backward(xs, wq, wk, wv, wo, n_head, gs)
    shared = [[0.0] * len(xs[0])] * len(xs)
    for t in range(len(xs)):
        for j in range(len(xs[0])):
            shared[t][j] += dxs[t][j]
    return shared, *rest


def att_returns_dwv_dwk(xs, wq, wk, wv, wo, n_head, gs):
    dxs, dwq, dwk, dwv, dwo = pieces.attention_backward(xs, wq, wk, wv, wo, n_head, gs)
    return dxs, dwq, dwv, dwk, dwo


def emb_next_row(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i, g in zip(used, grads):
        d[(i + 1) % rows] = [a + b for a, b in zip(d[(i + 1) % rows], g)]
    return d


def emb_shared_rows(rows, used, grads):
    d = [[0.0] * len(grads[0])] * rows
    for i, g in zip(used, grads):
        for j in range(len(g)):
            d[i][j] += g[j]
    return d


def emb_mean_of_reads(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for i in set(used):
        reads = [k for k, u in enumerate(used) if u == i]
        d[i] = [sum(grads[k][j] for k in reads) / len(reads) for j in range(len(grads[0]))]
    return d


def ce_minus_one_everywhere(p, target, T):
    return [(pj - 1) / T for pj in p]


def ce_reversed(p, target, T):
    return pieces.cross_entropy_backward(p, target, T)[::-1]


def lin_rows_reversed(x, w, g):
    dw, dx = pieces.linear_backward(x, w, g)
    return dw[::-1], dx


def lin_dx_plus_x(x, w, g):
    dw, dx = pieces.linear_backward(x, w, g)
    return dw, [a + b for a, b in zip(dx, x)]


def lin_dw_over_len_x(x, w, g):
    dw, dx = pieces.linear_backward(x, w, g)
    return [[v / len(x) for v in row] for row in dw], dx


def relu_last_unit_missing(h, g):
    return [gi if hi > 0 else 0.0 for hi, gi in zip(h[:-1], g[:-1])] + [0.0]


def rms_direct_term_twice(x, g):
    n, r, gx = _rms_parts(x, g)
    return [2 * r * gi - r**3 * gx / n * xi for gi, xi in zip(g, x)]


def sm_reversed(w, gamma):
    return pieces.softmax_backward(w, gamma)[::-1]


def head_skips_its_own_position(qs, ks, vs, gs):
    d_h = len(qs[0])
    dq, dk, dv = ([[0.0] * d_h for _ in qs] for _ in range(3))
    for i in range(len(qs)):
        w = _forward_weights(qs, ks, i)
        ds = pieces.softmax_backward(w, [sum(a * b for a, b in zip(gs[i], vs[t])) for t in range(i + 1)])
        for t in range(i):  # the slip: range(i), where range(i + 1) belongs
            dq[i] = [a + ds[t] * b / math.sqrt(d_h) for a, b in zip(dq[i], ks[t])]
            dk[t] = [a + ds[t] * b / math.sqrt(d_h) for a, b in zip(dk[t], qs[i])]
            dv[t] = [a + w[t] * b for a, b in zip(dv[t], gs[i])]
    return dq, dk, dv


def att_dwo_over_T(xs, wq, wk, wv, wo, n_head, gs):
    *rest, dwo = pieces.attention_backward(xs, wq, wk, wv, wo, n_head, gs)
    return *rest, [[v / len(xs) for v in row] for row in dwo]


def emb_rows_by_position(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k, g in enumerate(grads):  # the slip: row k, where row used[k] belongs
        d[k] = [a + b for a, b in zip(d[k], g)]
    return d


NAMED, LOCATED = "how (and where)", "where"
INVENTED = [  # (piece, slip, what the verdict must say (or the words, in order), what it says: how, or only where)
    ("cross_entropy_backward", ce_floor_division, "a // (floor division) where / belongs?", NAMED),
    (
        "cross_entropy_backward",
        ce_target_plus_one,
        (  # the reader's own expression, in their line (its number is this file's)
            "dz: yours is what the rule gives with one change, in y, the one-hot of the true token:\n"
            " j == target + 1 where j == target belongs, in your line",
            ": an index off by one?\n     return [(pj - (1.0 if j == target + 1 else 0.0)) / T",
        ),
        NAMED,
    ),
    (
        "cross_entropy_backward",
        ce_divides_by_len_p,
        "every entry is 7/27 times the engine's (7/27 is T/len(p) here)",
        NAMED,
    ),
    ("cross_entropy_backward", ce_plus_y, "In yours, p/T is right, but -y/T has its sign flipped", NAMED),
    ("cross_entropy_backward", ce_twice, "dz: every entry is twice the engine's", NAMED),
    ("cross_entropy_backward", ce_p_not_divided, "-y/T is right, but p/T is 7 times the engine's (7 is T here)", NAMED),
    ("linear_backward", lin_returns_dx_dw, "dw and dx are swapped", NAMED),
    ("linear_backward", lin_shared_rows, "dw: all its rows are one and the same list object", NAMED),
    (
        "linear_backward",
        lin_rows_from_one,
        (
            "range(1, len(g)) where range(len(g)) belongs, in your line",
            ": a loop that skips the first?\n     for i in range(1, len(g)):",
        ),
        NAMED,
    ),
    ("linear_backward", lin_dx_twice, "dx: every entry is twice the engine's", NAMED),
    ("linear_backward", lin_x_shifted, "dw: shifted by one column: your column k holds the engine's column k-1", NAMED),
    ("relu_backward", relu_half, "dh: every entry is half the engine's", NAMED),
    (  # the rule's change, and the reader's line that computes what the rule's does
        "relu_backward",
        relu_shifted,
        (
            "dh[i] changed to dh[i + 1]: an index off by one?\n In your code, that line is line",
            ":\n     return [0.0] + [gi if hi > 0 else 0.0 for hi, gi in zip(h, g)][:-1]",
        ),
        NAMED,
    ),
    (
        "relu_backward",
        relu_leaky,
        "dh: nonzero at 36 of the 64 units, where the engine's is exactly 0, and right at the other 28 units.\n"
        " The engine's is 0 there because a unit that was off (h <= 0) passes nothing back.",
        NAMED,
    ),
    ("rmsnorm_backward", rms_mean_term_sign, "the mean-square term -(r^3/n)(g . x) x has its sign flipped", NAMED),
    (
        "rmsnorm_backward",
        rms_n_written_16,
        (
            "16 where len(x) belongs, in your line ",
            ": len(x) is 20 in this case and 16 in the page's step.\n"
            "     return [r * gi - r**3 * gx / 16 * xi for gi, xi in zip(g, x)]",
        ),
        NAMED,
    ),
    ("rmsnorm_backward", rms_r_squared, "-(r^3/n)(g . x) x is 0.1457 times the engine's (0.1457 is 1/r here)", NAMED),
    ("rmsnorm_backward", rms_n_twice, "-(r^3/n)(g . x) x is 1/16 times the engine's (1/16 is 1/n here)", NAMED),
    ("softmax_backward", sm_average_sign, "-w_t sum_u w_u gamma_u has its sign flipped", NAMED),
    ("softmax_backward", sm_over_len, "ds: every entry is 1/7 times the engine's (1/7 is 1/len(w) here)", NAMED),
    (
        "softmax_backward",
        sm_loop_from_one,
        (
            "ds: yours is what the rule gives with one change, in the loop over the scores t:\n"
            " range(len(w)) changed to range(1, len(w)): a loop that skips the first?\n In your code, that line is",
            "zip(w[1:], gamma[1:])",
        ),
        NAMED,
    ),
    (
        "attention_head_backward",
        head_scale_twice,
        "dqs and dks: each is half the engine's (1/2 is 1/√d_h here), and dvs is right.\n So the slip is in",
        NAMED,
    ),
    ("attention_head_backward", head_returns_dv_dk, "dks and dvs are swapped", NAMED),
    (
        "attention_head_backward",
        head_dv_with_its_own_g,
        (
            "dvs: yours is what the rule gives with one change, in dv_t collects w_t g_i:\n"
            " gs[i][j] changed to gs[t][j].\n In your code, that line is line",
            "zip(dv[t], gs[t])",
        ),
        NAMED,
    ),
    (
        "attention_head_backward",
        head_dk_with_its_own_q,
        (
            "dks: yours is what the rule gives with one change, in dk_t collects ds_t q_i / sqrt(d_h):\n"
            " qs[i][j] changed to qs[t][j].\n In your code, that line is line",
            "zip(dk[t], qs[t])",
        ),
        NAMED,
    ),
    (
        "attention_head_backward",
        head_scale_written_as_half,
        "dqs and dks: each is 1.225 times the engine's, and dvs is right.\n 1.225 is √d_h/2: √d_h is 2.449 in this"
        " case and 2 in the page's step. Is 2 written where √d_h belongs?",
        NAMED,
    ),
    (
        "attention_head_backward",
        head_dv_scaled_too,
        "dvs: every entry is half the engine's (1/2 is 1/√d_h here)",
        NAMED,
    ),
    (
        "attention_backward",
        att_slices_by_n_head,
        "att_slices_by_n_head raised ZeroDivisionError: float division by zero\n at line",
        LOCATED,
    ),
    ("attention_backward", att_q_path_sign, "the path through q, wq^T dq has its sign flipped", NAMED),
    ("attention_backward", att_k_path_twice, "the path through k, wk^T dk is twice the engine's", NAMED),
    ("attention_backward", att_dxs_shared_rows, "dxs: all its rows are one and the same list object", NAMED),
    ("attention_backward", att_returns_dwv_dwk, "dwk and dwv are swapped", NAMED),
    ("embedding_backward", emb_next_row, "d(table): shifted by one row: your row k holds the engine's row k-1", NAMED),
    ("embedding_backward", emb_shared_rows, "d(table): all its rows are one and the same list object", NAMED),
    (
        "embedding_backward",
        emb_mean_of_reads,
        "wrong only at row 13 (read at positions 4, 6), where yours is half the engine's; right at the other rows",
        NAMED,
    ),
]


INVENTED += [
    (
        "cross_entropy_backward",
        ce_minus_one_everywhere,
        "dz: yours is what the rule gives with one change, in y, the one-hot of the true token:\n 0.0 changed to 1.0.",
        NAMED,
    ),
    ("cross_entropy_backward", ce_reversed, "dz: the engine's logits in the opposite order", NAMED),
    ("linear_backward", lin_rows_reversed, "dw: the engine's rows in the opposite order", NAMED),
    ("linear_backward", lin_dx_plus_x, "dx: yours is the engine's plus x, your function's argument", NAMED),
    ("linear_backward", lin_dw_over_len_x, "dw: every entry is 1/16 times the engine's (1/16 is 1/len(x)", NAMED),
    (
        "relu_backward",
        relu_last_unit_missing,
        (
            "dh: yours is what the rule gives with one change, in the loop over the units i:\n"
            " range(len(h)) changed to range(len(h) - 1): a loop one short?\n In your code, that line is line",
            "zip(h[:-1], g[:-1])",
        ),
        NAMED,
    ),
    ("rmsnorm_backward", rms_direct_term_twice, "is right, but the direct term r g is twice the engine's", NAMED),
    ("softmax_backward", sm_reversed, "ds: the engine's scores in the opposite order", NAMED),
    (
        "attention_head_backward",
        head_skips_its_own_position,
        "In yours, the share from later positions' queries is right,"
        " but the share from the query at its own position is missing",
        NAMED,
    ),
    ("attention_backward", att_dwo_over_T, "dwo: every entry is 1/7 times the engine's (1/7 is 1/T here)", NAMED),
    (
        "embedding_backward",
        emb_rows_by_position,
        "d(table): nonzero at rows 0 to 5, where the engine's is exactly 0",
        NAMED,
    ),
]


def test_the_invented_slips_are_many_and_cover_every_piece():
    assert len(INVENTED) >= 25
    assert {name for name, *_ in INVENTED} == set(P)


@pytest.mark.parametrize(("name", "wrong", "words", "kind"), INVENTED, ids=[w.__name__ for _, w, _, _ in INVENTED])
def test_an_invented_slip_is_refused_and_told_where_and_how_before_any_pair_of_numbers(name, wrong, words, kind):
    verdict = check(P[name], wrong)
    assert not verdict.ok and not verdict.kept
    assert "could not say" not in verdict.text, verdict.text
    assert all(line.endswith((".", "?", ":")) for line in sentence_ends(verdict.text)), verdict.text
    before = verdict.text.split("the largest difference is at")[0]
    for said in (words,) if isinstance(words, str) else words:
        assert said in verdict.text, verdict.text
        assert said in before, "the diagnosis comes before the largest difference"
    assert not any(verdict.text.endswith(slip.hint) for slip in P[name].slips.values()), "not a slip the page lists"


def test_most_invented_slips_are_named_and_every_one_is_at_least_located():
    named = sum(kind == NAMED for *_, kind in INVENTED)
    assert named / len(INVENTED) >= 0.8


# ---------------------------------------------------------------- sizes written as numbers, and memorised answers


def ce_T_written_as_7(p, target, T):
    return [(pj - (j == target)) / 7 for j, pj in enumerate(p)]


def ce_27_logits(p, target, T):
    return [(p[j] - (j == target)) / T for j in range(27)]


def ce_target_written_as_12(p, target, T):
    return [(pj - (j == 12)) / T for j, pj in enumerate(p)]


def lin_16_inputs(x, w, g):
    return [[g[i] * x[j] for j in range(16)] for i in range(len(g))], pieces.linear_backward(x, w, g)[1]


def lin_square(x, w, g):
    dw = [[g[i] * x[j] for j in range(len(x))] for i in range(len(x))]
    return dw, [sum(w[i][j] * g[i] for i in range(len(x))) for j in range(len(x))]


def relu_64_units(h, g):
    return [g[i] if h[i] > 0 else 0.0 for i in range(64)]


def rms_16_entries(x, g):
    return rms_n_written_16(x, g)


def sm_7_scores(w, gamma):
    m = sum(w[u] * gamma[u] for u in range(7))
    return [w[t] * (gamma[t] - m) for t in range(7)]


def head_d_h_written_as_4(qs, ks, vs, gs):
    return head_scale_written_as_half(qs, ks, vs, gs)


def head_T_written_as_7(qs, ks, vs, gs):
    dq, dk, dv = pieces.attention_head_backward(qs, ks, vs, gs)
    return [dq[t] for t in range(7)], [dk[t] for t in range(7)], [dv[t] for t in range(7)]


def att_n_head_written_as_4(xs, wq, wk, wv, wo, n_head, gs):
    return pieces.attention_backward(xs, wq, wk, wv, wo, 4, gs)


def att_d_h_written_as_4(xs, wq, wk, wv, wo, n_head, gs):
    return pieces.attention_backward(xs, wq, wk, wv, wo, len(xs[0]) // 4, gs)


def emb_27_rows(rows, used, grads):
    return pieces.embedding_backward(27, used, grads)


def emb_16_columns(rows, used, grads):
    d = [[0.0] * 16 for _ in range(rows)]
    for i, g in zip(used, grads):
        d[i] = [d[i][j] + g[j] for j in range(16)]
    return d


def emb_7_positions(rows, used, grads):
    d = [[0.0] * len(grads[0]) for _ in range(rows)]
    for k in range(7):
        d[used[k]] = [a + b for a, b in zip(d[used[k]], grads[k])]
    return d


WRITTEN = [
    ("cross_entropy_backward", ce_T_written_as_7),
    ("cross_entropy_backward", ce_27_logits),
    ("cross_entropy_backward", ce_target_written_as_12),
    ("linear_backward", lin_16_inputs),
    ("linear_backward", lin_square),
    ("relu_backward", relu_64_units),
    ("rmsnorm_backward", rms_16_entries),
    ("softmax_backward", sm_7_scores),
    ("attention_head_backward", head_d_h_written_as_4),
    ("attention_head_backward", head_T_written_as_7),
    ("attention_backward", att_n_head_written_as_4),
    ("attention_backward", att_d_h_written_as_4),
    ("embedding_backward", emb_27_rows),
    ("embedding_backward", emb_16_columns),
    ("embedding_backward", emb_7_positions),
]


@pytest.mark.parametrize(("name", "wrong"), WRITTEN, ids=[w.__name__ for _, w in WRITTEN])
def test_an_answer_that_writes_a_size_of_the_pages_step_as_a_number_is_refused(name, wrong):
    assert wrong(*P[name].cases()[0].args) is not None  # it runs on the page's step...
    verdict = check(P[name], wrong)
    assert not verdict.ok and not verdict.text.startswith("✗ case 1 of"), verdict.text  # ...and fails on another


def memorised(name):
    """An answer that learnt the page's step by heart: the engine's answer to each case from it, to any question."""
    page = [case for case in P[name].cases() if "mignon" in case.label]
    answers = {repr(case.args): case.engine for case in page}
    first = page[0].engine

    def answer(*args):
        engine = answers.get(repr(args), first)
        return copy.deepcopy(engine[0] if len(engine) == 1 else engine)

    return answer


@pytest.mark.parametrize("name", P)
def test_an_answer_that_memorised_the_pages_step_is_refused(name):
    page = [case for case in P[name].cases() if "mignon" in case.label]
    assert page and len(page) < len(P[name].cases())
    assert not check(P[name], memorised(name)).ok


@pytest.mark.parametrize("name", P)
def test_every_size_of_a_piece_takes_values_below_and_above_the_pages(name):
    """A size written as the page's number fails where it is smaller (an index out of range) or larger (a loop, a
    slice such as qs[:7], cut short): every whole size of every piece takes both, T more than 7 among them."""
    piece = P[name]
    sizes = [piece.sizes(*case.args) for case in piece.cases()]
    for size, page in sizes[0].items():
        assert len({round(s[size], 9) for s in sizes}) >= 2, (name, size)
        if isinstance(page, int) and page > 1:
            assert min(s[size] for s in sizes) < page < max(s[size] for s in sizes), (name, size)
    if "T" in sizes[0]:
        assert {s["T"] for s in sizes} >= {1, 7} and max(s["T"] for s in sizes) > 7, name


@pytest.mark.parametrize("name", P)
def test_the_second_case_has_the_pages_sizes_and_other_numbers(name):
    """So that an answer right on the page's step and wrong on the next one kept something from its first call."""
    first, second = P[name].cases()[:2]
    ints = {k: v for k, v in P[name].sizes(*first.args).items() if isinstance(v, int)}
    assert ints == {k: v for k, v in P[name].sizes(*second.args).items() if isinstance(v, int)}
    assert first.args != second.args


def test_relus_cases_hold_pre_activations_a_hair_either_side_of_zero():
    hs = [h for case in P["relu_backward"].cases() for h in case.args[0]]
    assert {1e-15, -1e-15, 1e-6, -1e-6, 0.0} <= set(hs), "a unit at exactly 0 tells >= 0 from > 0"
    assert check(P["relu_backward"], lambda h, g: [gi if hi > 1e-12 else 0.0 for hi, gi in zip(h, g)]).ok is False
    at_zero = check(P["relu_backward"], lambda h, g: [gi if hi >= 0 else 0.0 for hi, gi in zip(h, g)])
    assert not at_zero.ok and "its local gradient there is 0" in at_zero.text


@pytest.mark.parametrize(
    ("name", "truncated"),
    [
        ("cross_entropy_backward", lambda p, t, T: pieces.cross_entropy_backward(p[:27], t, T)),
        ("softmax_backward", lambda w, gm: pieces.softmax_backward(w[:7], gm[:7])),
        (
            "attention_head_backward",
            lambda qs, ks, vs, gs: pieces.attention_head_backward(qs[:7], ks[:7], vs[:7], gs[:7]),
        ),
        ("relu_backward", lambda h, g: pieces.relu_backward(h[:64], g[:64])),
        ("rmsnorm_backward", lambda x, g: pieces.rmsnorm_backward(x[:16], g[:16])),
        ("embedding_backward", lambda rows, used, grads: pieces.embedding_backward(rows, used[:7], grads[:7])),
    ],
)
def test_an_answer_that_keeps_only_the_pages_first_entries_is_refused(name, truncated):
    verdict = check(P[name], truncated)
    assert not verdict.ok and not verdict.text.startswith("✗ case 1 of"), verdict.text


def test_the_cases_vary_heads_widths_shapes_and_targets_both_ways():
    head_sizes = {
        (s["n_head"], s["d_h"])
        for s in (P["attention_backward"].sizes(*c.args) for c in P["attention_backward"].cases())
    }
    assert len(head_sizes) >= 3 and any(h != d for h, d in head_sizes)
    shapes = {(len(c.args[1]), len(c.args[1][0])) for c in P["linear_backward"].cases()}
    assert any(r > c for r, c in shapes) and any(r < c for r, c in shapes) and any(r == c for r, c in shapes)
    targets = [(c.args[1], len(c.args[0])) for c in P["cross_entropy_backward"].cases()]
    assert any(t == 0 for t, _ in targets) and any(t == v - 1 for t, v in targets)
    assert len({t for t, _ in targets}) < len(targets), "a target repeated"
    used = [c.args[1] for c in P["embedding_backward"].cases()]
    assert any(len(set(u)) < len(u) for u in used) and any(0 in u for u in used)
