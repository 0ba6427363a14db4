"""A second fresh reviewer's slips, kept with the diagnosis each must now get (notes/reviews/slips-review-2.md).

52 slips none of the checkers lists, and 17 answers that hard-code a size or keep a value from an earlier call,
each written as the learner's whole function (tests/reviewed_slips_2.py) and run as its page's block runs it:
the page's imports, the function, the checker. Each must be refused, and told before any pair of numbers in the
words below; the right answers written another way must be accepted. The first kept set is
tests/test_gpt_exercises_reviewed_slips.py.
"""

import pytest
from reviewed_slips_2 import SLIPS
from verdicts import sentence_ends

from microgpt.course import checkers
from microgpt.course.checking import check

P = checkers.PIECES
NAMED, LOCATED = "how (and where)", "where"
IMPORTS = {
    "attention_head_backward": "import math\nfrom microgpt.course.pieces import softmax_backward\n",
    "attention_backward": "import math\nfrom microgpt.course.pieces import attention_head_backward, linear_backward\n",
}


def _function(slip):
    """The learner's function, defined as the page's block defines it."""
    namespace: dict = {}
    exec(compile(IMPORTS.get(slip["ex"], "") + slip["src"], f"<{slip['id']}>", "exec"), namespace)  # noqa: S102
    return namespace[slip["ex"]]


def _by_kind(*kinds):
    return [s for s in SLIPS if s["kind"] in kinds]


# what the verdict must say before any pair of numbers, for the slips whose verdicts the review found accepted,
# misnamed or garbled (the rest are held to ✗, a full stop at each sentence's end and no listed slip's hint)
SAID = {
    "emb_pairs_only": ("row 4 (read at positions 2, 3, 5, 6)", "the only one with a row read 4 times", LOCATED),
    "head_dv_over_keys": ("dvs is wrong and dqs and dks are right.", "dv_t collects w_t g_i", LOCATED),
    "att_linear_args_swapped": ("and wrong at every other position too", "The engine's is 0 there because", LOCATED),
    "rms_second_term_no_eps": ("another value for gx", "or in a factor multiplied with it", LOCATED),
    "att_first_T_memo": ("Right on case 1, wrong on case 2, which has its sizes", "earlier call", NAMED),
    "head_skip_zero_gradient_rows": (
        "wrong on cases 2 to 5, the only ones with a gradient at every position.",
        "",
        LOCATED,
    ),
    "head_gamma_times_w": ("one of these 5: gamma_t = g_i . v_t, dL/dw_t; the average", "dk_t collects", LOCATED),
    "lin_dx_loop_over_g": (
        "On cases 3 and 5, dx has len(g) entries",
        "On cases 4 and 6, your function raised IndexError.",
        LOCATED,
    ),
    "relu_sigmoid": ("where the engine's is exactly 0, and wrong at", "The engine's is 0 there because", LOCATED),
}
NOT_SAID = {"head_dv_over_keys": "1/d_h", "att_linear_args_swapped": "exactly 0:\n the gradient arrives"}


@pytest.mark.parametrize("slip", _by_kind("slip", "hard"), ids=lambda s: s["id"])
def test_a_reviewed_slip_or_overfitted_answer_is_refused_in_sentences_that_end(slip):
    verdict = check(P[slip["ex"]], _function(slip))
    assert not verdict.ok and not verdict.kept, verdict.text
    assert "could not say" not in verdict.text, verdict.text
    assert all(line.endswith((".", "?", ":")) for line in sentence_ends(verdict.text)), verdict.text
    before = verdict.text.split("The largest difference is at")[0]
    for words in SAID.get(slip["id"], ())[:2]:
        assert words in before, verdict.text
    assert NOT_SAID.get(slip["id"], "\0") not in verdict.text, verdict.text


@pytest.mark.parametrize("slip", _by_kind("control"), ids=lambda s: s["id"])
def test_a_right_answer_written_another_way_is_accepted(slip):
    assert check(P[slip["ex"]], _function(slip)).ok


def test_a_relu_mask_that_counts_h_0_as_on_is_told_the_engines_rule_at_0():
    def relu_backward(h, g):
        return [gi if hi >= 0 else 0.0 for hi, gi in zip(h, g)]

    verdict = check(P["relu_backward"], relu_backward)
    assert not verdict.ok and "at h = 0 exactly, the engine's relu counts the unit as off" in verdict.text
