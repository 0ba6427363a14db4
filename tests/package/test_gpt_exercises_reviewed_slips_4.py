"""Issue 52's slips that a verdict told only by a number, and fresh slips of those kinds and others, kept with what
each verdict must now say (tests/reviewed_slips_4.py holds them, each a learner's whole function from the page's blank
template, run as its page's block runs it: the page's imports, the function with its lines kept, the checker).

Issue 52's slips each get a where and a how. Of the fresh slips, written before the checkers were changed for them,
every one is refused, and all but one are named or located (sm_gamma_minus_w: w_t (gamma_t - w_t) is no one-line
change of the rule, no term of it written another way, and wrong at every score, so only its numbers are said).
"""

import linecache

import pytest
from reviewed_slips_4 import SLIPS
from verdicts import sentence_ends

from microgpt.course import checkers
from microgpt.course.checking import check

P = checkers.PIECES
NAMED, LOCATED, VAGUE = "how (and where)", "where", "only the largest difference"
IMPORTS = {
    "attention_head_backward": "import math\nfrom microgpt.course.pieces import softmax_backward\n",
    "attention_backward": "import math\nfrom microgpt.course.pieces import attention_head_backward, linear_backward\n",
}


def _function(slip):
    """The learner's function, defined as the page's block defines it, its lines kept where the page keeps them."""
    namespace: dict = {}
    source, name = "import math\n" + IMPORTS.get(slip["ex"], "") + slip["src"], f"<{slip['id']}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)  # noqa: S102
    return namespace[slip["ex"]]


# what each verdict must say before any pair of numbers, in order, and how much that tells
SAID = {
    # issue 52: each once told only by its largest difference
    "rms_n_one_less": (
        "dx: yours is what the rule gives with one change, in n, the number of entries:\n"
        " len(x) - 1 where len(x) belongs, in your line 4: off by one?\n     n = len(x) - 1",
        NAMED,
    ),
    "sm_one_minus_w_in_front": (
        "ds: yours is what the rule gives with one change, in ds_t = w_t gamma_t - w_t (the average):\n"
        " w[t] * gamma[t] - w[t] * m changed to (1 - w[t]) * (gamma[t] - m).\n In your code, that line is line 5:\n"
        "     return [(1 - wt) * (gt - avg) for wt, gt in zip(w, gamma)]",
        NAMED,
    ),
    "sm_w_t_in_the_average": (
        "In yours, the direct term w_t gamma_t is right, but in the average's term -w_t sum_u w_u gamma_u,\n"
        " w_t stands where w_u belongs: yours is -w_t sum_u w_t gamma_u.",
        NAMED,
    ),
    "head_scores_q_t_k_i": (
        "every result: yours is what the rule gives with one change, in the scores s_t = q_i . k_t / sqrt(d_h):\n"
        " qs[i][j] * ks[t][j] changed to qs[t][j] * ks[i][j]: two indices exchanged?\n"
        " In your code, that line is line 11:\n"
        "     s = [sum(a * b for a, b in zip(qs[t], ks[i])) / math.sqrt(d_h) for t in range(i + 1)]",
        NAMED,
    ),
    "head_softmax_over_all_T": (
        "every result: yours is what the rule gives with one change, in the scores s_t = q_i . k_t / sqrt(d_h):\n"
        " T where i + 1 belongs, in your line 11:\n"
        "     s = [sum(a * b for a, b in zip(qs[i], ks[t])) / math.sqrt(d_h) for t in range(T)]",
        NAMED,
    ),
    "head_dq_reads_qs": (  # the rule's ks[i][j] gives the same numbers; the reader wrote qs[i][j]
        "dqs: yours is what the rule gives with one change, in dq_i collects ds_t k_t / sqrt(d_h):\n"
        " qs[i][j] where ks[t][j] belongs, in your line 18:\n     dqs[i][j] += ds[t] * qs[i][j] / math.sqrt(d_h)",
        NAMED,
    ),
    # fresh slips
    "ce_bos_counted": ("dz: every entry is 7/8 times the engine's (7/8 is T/(T + 1) here).", NAMED),
    "ce_divided_by_p_target": ("dz: every entry is 36.85 times the engine's (36.85 is 1/p[target] here).", NAMED),
    "ce_only_logits_up_to_target": ("dz: yours is exactly 0 at logits 13 to 26, where the engine's is not.", LOCATED),
    "ce_one_hot_of_first": (
        "dz: the -0.1429 (-1/T) that belongs at logit 12 (the true token) is at logit 0.",
        LOCATED,
    ),
    "lin_dx_uses_x": ("x[j] where w[i][j] belongs, in your line 8:\n     dx[j] += x[j] * g[i]", NAMED),
    "lin_dw_row_of_the_next_g": (
        "g[(i + 1) % n] where g[i] belongs, in your line 5:\n     dw = [[g[(i + 1) % n] * xj for xj in x]",
        NAMED,
    ),
    "lin_dx_g_squared": (
        "dx is wrong and dw is right.\n So the slip is in something it uses and the others do not:"
        " dx[j] = sum over i of w[i][j] g[i].",
        LOCATED,
    ),
    "relu_mask_above_one": (
        "in the mask, whether unit i was on (h_i > 0):\n 1 where 0 belongs, in your line 4:",
        NAMED,
    ),
    "relu_mask_abs": ("dh: nonzero at 36 of the 64 units, where the engine's is exactly 0", LOCATED),
    "relu_mask_of_the_previous_unit": ("h[i - 1] where h[i] belongs, in your line 6: an index off by one?", NAMED),
    "rms_n_one_more": ("len(x) + 1 where len(x) belongs, in your line 4: off by one?", NAMED),
    "rms_mean_square_over_n_minus_1": (
        "in the mean square ms:\n n - 1 where n belongs, in your line 5: off by one?",
        NAMED,
    ),
    "rms_mean_term_times_g": (
        "x[i] changed to g[i].\n In your code, that line is line 7:\n"
        "     return [r * gi - r**3 * gx / n * gi for gi, xi in zip(g, x)]",
        NAMED,
    ),
    "rms_eps_outside_the_power": ("dx: yours is what the rule gives with another value for r", NAMED),
    "sm_gamma_minus_w": ("", VAGUE),
    "sm_average_with_one_minus_w": ("ds: yours is what the rule gives with another value for m", NAMED),
    "sm_gamma_of_the_previous_score": (
        "gamma[t - 1] where gamma[t] belongs, in your line 5: an index off by one?",
        NAMED,
    ),
    "sm_average_over_n_minus_1": ("ds: yours is what the rule gives with another value for m", NAMED),
    "sm_w_t_squared_in_the_average": ("ds: yours is what the rule gives with another value for m", NAMED),
    "head_scores_q_i_k_i": (
        "ks[t][j] changed to ks[i][j].\n In your code, that line is line 11:\n"
        "     s = [sum(a * b for a, b in zip(qs[i], ks[i]))",
        NAMED,
    ),
    "head_dk_reads_its_own_key": ("ks[i][j] where qs[i][j] belongs, in your line 19:", NAMED),
    "head_scale_by_sqrt_T": (
        "in the scores' divisor sqrt(d_h):\n T where d_h belongs, in your line 7:\n     c = math.sqrt(T)",
        NAMED,
    ),
    "head_keys_and_values_one_short": ("dks: yours is exactly 0 at position 3, where the engine's is not.", LOCATED),
    "head_gamma_of_g_t": (
        "dqs and dks: yours is what the rule gives with one change, in gamma_t = g_i . v_t, dL/dw_t:\n"
        " gs[i][j] changed to gs[t][j].\n In your code, that line is line 14:",
        NAMED,
    ),
    "head_softmax_of_unscaled_scores": ("without / c, in your line 11:", NAMED),
    "att_scores_q_t_k_i": (
        "dwo: yours is what the rule gives with one change, in a head's scores:\n"
        " zip(qs[t][hs], ks[i][hs]) where zip(qs[i][hs], ks[t][hs]) belongs, in your line 15: two indices exchanged?",
        NAMED,
    ),
    "att_scale_by_sqrt_n_head": ("n_head where d_h belongs, in your line 15:", NAMED),
    "att_dx_through_q_from_dks": ("dwq: yours is the engine's dwk, number for number.", NAMED),
    "emb_row_of_the_position": ("d(table): nonzero at rows 0 to 5, where the engine's is exactly 0", LOCATED),
    "emb_mean_of_reads": ("wrong only at row 13 (read at positions 4, 6), where yours is half the engine's", LOCATED),
    "emb_next_position_gradient": (
        "d(table): yours is what the rule gives with one change, in the row position k read:\n"
        " used[k] changed to used[k - 1]: an index off by one?",
        NAMED,
    ),
}


def _by_kind(*kinds):
    return [s for s in SLIPS if s["kind"] in kinds]


@pytest.mark.parametrize("slip", _by_kind("issue", "slip"), ids=lambda s: s["id"])
def test_a_slip_is_refused_and_told_where_and_how_before_any_pair_of_numbers(slip):
    verdict = check(P[slip["ex"]], _function(slip))
    assert not verdict.ok and not verdict.kept, verdict.text
    assert "could not say" not in verdict.text, verdict.text
    assert all(line.endswith((".", "?", ":")) for line in sentence_ends(verdict.text)), verdict.text
    words, kind = SAID[slip["id"]]
    before = verdict.text.split("The largest difference is at")[0]
    if kind != VAGUE:
        assert words in before, verdict.text


@pytest.mark.parametrize("slip", _by_kind("control"), ids=lambda s: s["id"])
def test_a_right_answer_written_another_way_is_accepted(slip):
    assert check(P[slip["ex"]], _function(slip)).ok


def test_issue_52s_slips_are_named_and_most_fresh_slips_are_named_or_located():
    assert {s["id"] for s in _by_kind("issue", "slip")} == set(SAID)
    assert all(SAID[s["id"]][1] == NAMED for s in _by_kind("issue"))
    kinds = [SAID[s["id"]][1] for s in _by_kind("slip")]
    assert (kinds.count(NAMED) + kinds.count(LOCATED)) / len(kinds) >= 0.8
