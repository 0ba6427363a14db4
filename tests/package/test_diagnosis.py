"""microgpt.course.diagnosis: where and how an answer differs, from the numbers alone, on small hand-made answers;
microgpt.course.wording: how each finding is said."""

from microgpt.course import diagnosis
from microgpt.course import findings as f
from microgpt.course.diagnosis import (
    UNTOLD,
    Family,
    Grouping,
    Instead,
    Layout,
    Part,
    agrees,
    diagnose,
    largest,
    scales,
    terms_at_an_end,
)
from microgpt.course.factors import factors, fraction, named
from microgpt.course.findings import Naming, Results, TheirChange, TheirLine
from microgpt.course.wording import place, some, spans, times, word


def _worded(found):
    return None if found is None else word(found)


def shared_rows(*args):
    return _worded(diagnosis.shared_rows(*args))


def swapped(*args):
    return _worded(diagnosis.swapped(*args))


def reordered(*args):
    return _worded(diagnosis.reordered(*args))


def one_list_for_several(*args):
    return _worded(diagnosis.one_list_for_several(*args))


VECTOR = Layout({"d": ("entry",)})
ROWS = Layout({"m": ("position", "entry")})


def said(mine, engine, layout=VECTOR, sizes=None, defaults=None, **kw):
    name = next(iter(layout.axes))
    found, located = diagnose(Part(name, mine, engine, layout, sizes or {}, defaults or sizes or {}, **kw))
    return "\n ".join(word(x) for x in found), located


def test_runs_of_indices_are_said_as_ranges_and_long_lists_as_a_count():
    assert spans([0, 1, 2, 5, 7, 8]) == "0 to 2, 5, 7 and 8"
    assert some("position", [3], 7) == "position 3"
    assert some("entry", [4, 5, 6], 16) == "entries 4 to 6"
    assert some("unit", [0, 2, 4, 6, 8, 10], 64) == "6 of the 64 units"


def test_a_ratio_is_written_as_a_reader_would():
    assert [fraction(x) for x in (2.0, 0.5, 4 / 7, 7 / 27, 0.123456)] == ["2", "1/2", "4/7", "7/27", "0.1235"]


def test_a_factor_is_named_by_the_size_it_is_and_a_page_size_written_as_a_number_is_asked_about():
    sizes, page = {"T": 4, "d_h": 6, "√d_h": 6**0.5}, {"T": 7, "d_h": 4, "√d_h": 2.0}
    assert [f.name for f in factors(4.0, sizes, page)] == ["T"]
    assert times(0.25, sizes, page) == ("1/4 times the engine's (1/4 is 1/T here)", "")
    words, aside = times(4 / 7, sizes, page)
    assert words == "4/7 times the engine's"
    assert aside == "4/7 is T/7: T is 4 in this case and 7 in the page's step. Is 7 written where T belongs?"
    assert times(-1.0, sizes, page) == ("the engine's with its sign flipped", "")
    assert times(2.0, {}, {}) == ("twice the engine's", "")


def test_a_place_is_said_with_the_pieces_own_words():
    layout = Layout(
        {"dw": ("row", "column")}, note=lambda facts, part, axis, i: f" (head {i // 4})" if axis == 0 else ""
    )
    assert place(layout, {}, "dw", (7, 2)) == "row 7 (head 1), column 2"


def test_rows_that_are_one_list_object_are_told_before_any_number():
    row = [0.0, 0.0]
    assert "all its rows are one and the same list object" in shared_rows("dw", [row, row, row])
    other = [0.0, 0.0]
    assert "rows 0 and 2 are one and the same" in shared_rows("dw", [row, other, row])
    assert shared_rows("dw", [[0.0], [0.0]]) is None


def test_two_results_returned_in_each_others_place_are_told_by_shape_or_by_numbers():
    dw, dx = [[1.0, 2.0, 3.0]], [4.0, 5.0, 6.0]
    scale = [6.0, 6.0]
    said = swapped(("dw", "dx"), (dx, dw), (dw, dx), scale)
    assert said.startswith("dw and dx are swapped: your dw has the numbers") and said.endswith("in this order: dw, dx.")
    mine = ([9.0, 9.0, 9.0], [[9.0, 9.0, 9.0]])
    assert swapped(("dw", "dx"), mine, (dw, dx), scale).startswith("dw and dx are swapped: your dw has the shape")
    a, b = [1.0, 2.0], [3.0, 4.0]
    assert swapped(("dk", "dv"), (b, a), (a, b), [4.0, 4.0]).startswith(
        "dk and dv are swapped: your dk has the numbers"
    )
    assert swapped(("dk", "dv"), ([9.0, 9.0], b), (a, b), [4.0, 4.0]) is None


def test_two_results_with_each_others_numbers_are_not_advised_as_a_return_order_when_a_third_is_wrong_too():
    a, b, c = [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]
    said = swapped(("dx", "dk", "dv"), ([9.0, 9.0], b, a), (c, a, b), [6.0, 4.0, 4.0])
    assert said.startswith("dk and dv have each other's numbers: your dk is the engine's dv, and your dv its dk.")
    assert "dx is wrong too, so returning them in the other order would not be enough" in said
    assert "Return them in this order" not in said
    assert swapped(("dx", "dk", "dv"), (c, b, a), (c, a, b), [6.0, 4.0, 4.0]).endswith("in this order: dx, dk, dv.")


def test_floor_division_shows_as_whole_numbers_each_the_engines_rounded_down():
    text, located = said([-1.0, 0.0, 0.0], [-0.14, 0.01, 0.13])
    assert "whole numbers where the engine's are fractions" in text and located


def test_a_constant_factor_and_a_constant_offset_are_told():
    assert said([2.0, 4.0, -6.0], [1.0, 2.0, -3.0])[0].startswith("d: every entry is twice the engine's")
    assert said([1.5, 2.5, 3.5], [1.0, 2.0, 3.0])[0].startswith("d: every entry is the engine's plus 0.5")


def test_a_term_missing_flipped_or_scaled_is_told_by_fitting_the_terms():
    a, b = [1.5, 0.25, 2.0, 1.0], [0.5, 1.0, -1.0, 3.0]
    engine = [x + y for x, y in zip(a, b)]
    split = [{"A": a, "B": b}]
    text, _ = said([x - y for x, y in zip(a, b)], engine, terms=split)
    assert "d is the sum of A and B.\n In yours, A is right, but B has its sign flipped" in text
    text, _ = said(a, engine, terms=split)
    assert "A is right, but B is missing" in text
    text, _ = said([x + 7 * y for x, y in zip(a, b)], engine, sizes={"T": 7}, terms=split)
    assert "B is 7 times the engine's (7 is T here)" in text


def test_a_shift_by_one_index_is_told():
    text, _ = said([0.0, 1.0, 4.0, 9.0], [1.0, 4.0, 9.0, 16.0])
    assert "shifted by one entry: your entry k holds the engine's entry k-1" in text


def test_an_amount_moved_to_its_neighbour_is_told_with_what_it_is():
    text, _ = said([0.1, 0.2, -0.4], [0.1, -0.05, -0.15], sizes={"T": 4})
    assert "the -0.25 (-1/T) that belongs at d[1] is at d[2], its neighbour: an index off by one?" in text


def test_nonzero_where_the_engine_is_exactly_zero_says_why_the_engines_is_0_and_what_else_is_wrong():
    mine, engine = [[1.0, 1.0], [2.0, 0.0], [0.5, 0.0]], [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    text, _ = said(mine, engine, ROWS, zero_why="the causal limit")
    assert text.startswith(
        "m: nonzero at positions 1 and 2, where the engine's is exactly 0, and right at the other position.\n"
        " The engine's is 0 there because the causal limit."
    )
    mine = [[3.0, 1.0], [2.0, 0.0], [0.5, 0.0]]  # wrong where the engine's is not 0 too: that half said as well
    text, _ = said(mine, engine, ROWS, zero_why="the causal limit")
    assert text.startswith("m: nonzero at positions 1 and 2, where the engine's is exactly 0, and wrong at the other")


def test_right_at_some_groups_and_wrong_at_others_is_told_by_head_before_rows():
    layout = Layout(
        {"dw": ("row", "column")}, groupings={"dw": (Grouping(0, "head", "heads", lambda facts, i: i // 2),)}
    )
    engine = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
    mine = [[1.0, 2.0], [3.0, 4.0], [15.0, 6.5], [7.0, 1.0]]
    text, located = said(mine, engine, layout)
    assert text.startswith("dw: wrong only at head 1; right at head 0") and located


def test_with_nothing_to_say_the_largest_difference_is_named_and_marked_as_not_located():
    text, located = said([[1.0, 5.5], [2.0, 7.25]], [[1.0, 2.0], [2.5, 3.0]], ROWS)
    assert text == (
        "m: the largest difference is at m[1][1]: yours is 7.25, the engine's 3\n"
        " (off by 4.2e+00; the tolerance is 3.0e-13, which is 1e-13 × 3, the size of the largest entry)."
    )
    assert not located


def test_agreement_is_relative_to_the_parts_largest_entry():
    assert agrees([1e-4, 2e-4], [1e-4 + 1e-18, 2e-4], largest([1e-4, 2e-4]))
    assert not agrees([1e-4, 2e-4], [1e-4 + 1e-16, 2e-4], largest([1e-4, 2e-4]))
    assert agrees([0.0], [0.0], 0.0) and not agrees([1e-300], [0.0], 0.0), "a part all 0 everywhere: exactly 0"
    assert scales(([0.0, 0.0], [3.0, -4.0])) == [4.0, 4.0], "a part all 0 takes the answer's scale"


def test_a_numerical_estimate_is_close_but_not_exact():
    engine = [0.125, -0.25, 0.5, 0.0625]
    text, _ = said([v * (1 + 3e-10) for v in engine], engine)
    assert text.startswith("d: close, but not exact: every entry is within 1e-9 × the largest entry of the engine's")
    assert "A numerical estimate (finite differences)?" in text
    text, _ = said([engine[0] + 1e-9, *engine[1:]], engine)  # one entry off a little: where, not an estimate
    assert text.startswith("d: wrong only at entry 0")


def test_whole_numbers_far_from_the_engines_are_a_mask_or_a_count_without_g():
    text, _ = said([1.0, 0.0, 1.0, 1.0], [0.01, 0.0, -0.02, 0.03])
    assert text.startswith("d: yours holds only 0s and 1s: a mask (or a local gradient) alone.\n Multiply by")
    text, _ = said([2.0, 0.0, 1.0, 1.0], [0.01, 0.0, -0.02, 0.03])
    assert text.startswith("d: yours holds only whole numbers (0, 1 and 2): counts, not gradients.")


def test_floor_division_needs_a_nonzero_whole_number():
    text, _ = said([0.0, 0.0, 0.0], [0.14, 0.01, 0.13])
    assert "floor division" not in text and text.startswith("d: every entry of yours is 0.")


def test_a_factor_that_is_an_argument_entry_by_entry_is_told():
    w = [0.5, 0.25, 0.125, 0.125]
    engine = [0.1, -0.2, 0.3, -0.2]
    text, _ = said([e * x for e, x in zip(engine, w)], engine, given={"w": w})
    assert text.startswith(
        "d: every entry is the engine's times w, your argument, entry by entry:\n a factor w too many?"
    )


def test_wrong_exactly_where_an_argument_is_negative_is_told():
    g = [0.5, -0.25, 0.125, -0.5, 0.25]
    engine = [0.5, -0.25, 0.0, -0.5, 0.25]
    text, _ = said([0.5, 0.0, 0.0, 0.0, 0.25], engine, given={"g": g})
    assert text.startswith("d: wrong at exactly the entries where g < 0, and right at the others.")


def test_yours_exactly_zero_where_the_engines_is_not_is_told():
    mine, engine = [[1.0, 1.5], [0.0, 0.0], [0.5, 0.25]], [[1.0, 1.5], [2.0, 0.5], [0.5, 0.75]]
    text, _ = said(mine, engine, ROWS)
    assert text.startswith("m: yours is exactly 0 at position 1, where the engine's is not.")


def test_one_term_of_a_sum_missing_flipped_or_counted_twice_is_told_by_its_index():
    rows = [[1.0, 2.0, 0.5], [0.25, -1.0, 3.0], [2.0, 0.5, -0.5], [1.5, 1.5, 1.0]]
    engine = [sum(col) for col in zip(*rows)]
    family = [Family("d sums the rows i", "row {k}", rows)]
    text, _ = said([e - r for e, r in zip(engine, rows[3])], engine, families=family)
    assert text.startswith("d: d sums the rows i; in yours, the term of row 3 (the last) is missing.")
    text, _ = said([e - 2 * r for e, r in zip(engine, rows[1])], engine, families=family)
    assert "the term of row 1 has its sign flipped" in text
    text, _ = said([e - a - b for e, a, b in zip(engine, rows[0], rows[1])], engine, families=family)
    assert "in yours, the terms before row 2 are missing." in text


def test_a_run_of_terms_missing_at_the_end_is_named_by_where_it_starts_and_terms_that_are_0_are_not_counted():
    rows = [
        [1.0, 2.0, 0.5, 1.0],
        [0.25, -1.0, 3.0, 2.0],
        [0.0] * 4,
        [0.0] * 4,
        [2.0, 0.5, -0.5, 1.0],
        [1.5, 1.5, 1.0, 3.0],
    ]
    engine = [sum(col) for col in zip(*rows)]
    family = [Family("d sums the rows i", "row {k}", rows)]
    kept = [a + b for a, b in zip(rows[0], rows[1])]  # a loop that stops after row 1: rows 2 and 3 add 0 here
    text, _ = said(kept, engine, families=family)
    assert "in yours, the terms of row 4 on are missing (the terms of row 2 to row 3 are 0 here, so the sum may" in text
    assert "as early as row 2)." in text and "last 2 terms" not in text


def test_a_run_missing_is_not_ruled_out_where_every_term_that_counts_is_in_it():
    rows = [[0.0] * 3, [0.25, -1.0, 3.0], [2.0, 0.5, -0.5], [1.5, 1.5, 1.0]]
    part = Part(
        "d", [0.0] * 3, [sum(col) for col in zip(*rows)], VECTOR, {}, {}, families=[Family("d", "row {k}", rows)]
    )
    assert terms_at_an_end(part) == UNTOLD  # row 0 alone kept, and row 0 adds 0 here: consistent, not shown


def test_an_order_run_backwards_is_told():
    text, _ = said([3.0, 2.0, 1.0, 0.5], [0.5, 1.0, 2.0, 3.0])
    assert text.startswith("d: the engine's entries in the opposite order: your entry 0 is its entry 3")


def test_yours_minus_the_engines_being_one_of_the_arguments_is_told():
    x = [0.5, -1.0, 2.0]
    text, _ = said([1.5, 1.0, 5.0], [1.0, 2.0, 3.0], given={"x": x, "w": [[1.0]]})
    assert text.startswith("d: yours is the engine's plus x, your function's argument")


def test_where_only_some_groups_are_wrong_one_amount_off_there_is_told():
    text, _ = said([1.0, 1.75, 2.75, 3.75], [1.0, 2.0, 3.0, 4.0], sizes={"T": 4})
    assert text.startswith("d: wrong at entries 1 to 3, where yours is the engine's minus 0.25 (1/T); right at entry 0")


def test_results_returned_in_another_order_are_told_with_the_order_they_are_in():
    a, b, c, d = [1.0], [2.0], [3.0], [4.0]
    parts, scale = ("da", "db", "dc", "dd"), [4.0] * 4
    said = reordered(parts, (a, d, b, c), (a, b, c, d), scale)
    assert said == (
        "Your results are the engine's, in another order: yours are its da, dd, db, dc.\n"
        " Return them in this order: da, db, dc, dd."
    )
    assert reordered(parts, (a, b, d, c), (a, b, c, d), scale) is None  # a pair: said as swapped
    assert reordered(parts, (a, d, b, [9.0]), (a, b, c, d), scale) is None  # one is no result of the engine's


def test_several_results_holding_one_result_of_the_engines_are_told_as_one_list_shared():
    a, b, c = [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]
    parts, scale = ("da", "db", "dc"), [6.0] * 3
    said = one_list_for_several(parts, (c, c[:], c[:]), (a, b, c), scale)
    assert said.startswith("da, db and dc all hold the numbers of the engine's dc.\n Is one list shared")
    assert one_list_for_several(parts, (a, a[:], c), (a, b, c), scale) is None  # two: said as a copy
    same = [7.0, 8.0]
    assert "da and db are one and the same list object" in one_list_for_several(
        parts, (same, same, c), (a, b, c), scale
    )


def test_one_term_written_another_way_is_told_as_that_term_with_the_others_right():
    a, b = [1.5, 0.25, 2.0, 1.0], [0.5, 1.0, -1.0, 3.0]
    b_without = [0.25, 2.0, -0.5, 1.5]  # b with a factor 2 left out
    split = [{"A": a, "B": b, "no 2": Instead("B", "a factor is left out, 2", b_without)}]
    engine = [x + y for x, y in zip(a, b)]
    text, located = said([x + y for x, y in zip(a, b_without)], engine, terms=split)
    assert "d is the sum of A and B.\n In yours, A is right, but in B,\n a factor is left out, 2." in text and located


def test_an_answer_rounded_to_some_decimals_is_told_as_rounded_not_as_an_estimate():
    engine = [0.1234567891, -0.2345678912, 0.0456789123, 0.3]
    text, located = said([round(v, 6) for v in engine], engine)
    assert text.startswith("d: every entry of yours is the engine's rounded to 6 decimals.") and located
    assert "finite differences" not in text


def test_an_amount_moved_onto_one_entry_from_all_the_others_is_told_with_that_entry():
    engine = [0.5, -1.0, 0.25, 0.125, 0.125]
    mine = [v - 0.025 for v in engine]
    mine[1] = engine[1] + 0.1
    text, located = said(mine, engine)
    assert text.startswith(
        "d: every entry but one is the engine's minus 0.025; at d[1], yours is the engine's plus 0.1."
    )
    assert "The differences sum to 0: one amount moved between d[1] and the others, spread evenly." in text


def test_a_constant_part_where_the_engines_is_its_arguments_alone_is_told_as_a_mean_subtracted():
    x, g = [1.0, -2.0, 0.5, 3.0, -1.0, 2.5], [0.25, 0.5, -1.0, 0.75, 2.0, -0.5]
    engine = [2 * gi - 0.5 * xi for xi, gi in zip(x, g)]
    mine = [1.5 * gi + 0.25 * xi - 0.375 for xi, gi in zip(x, g)]
    text, located = said(mine, engine, given={"x": x, "g": g})
    assert text.startswith("d: yours is x and g, each times a number, plus one same amount at every entry (-0.375)")
    assert "Is a mean subtracted somewhere (x - mean(x) or g - mean(g))?" in text and located
    text, _ = said([1.5 * gi + 0.25 * xi for xi, gi in zip(x, g)], engine, given={"x": x, "g": g})
    assert "mean subtracted" not in text  # other weights, but no constant part


def test_a_finding_asks_about_a_cause_exactly_when_its_words_hold_a_question():
    """A verdict follows a finding that asks with no second question (checking.describe): asks must say it."""
    naming = Naming("d", VECTOR, {"T": 11}, {"T": 11}, {"T": 7})
    written, plain = named(11 / 7, {"T": 11}, {"T": 7}), named(2.0, {}, {})
    one = Results(("d",), ("d",))
    line = TheirLine(4, "return [x[j - 1] for j in range(len(x))]")
    found = [
        f.ConstantFactor("d", written),
        f.ConstantFactor("d", plain),
        f.Moved(naming, 0.5, (1,), (2,), near=True),
        f.Moved(naming, 0.5, (1,), (3,), near=False),
        f.Estimate("d", 1e-9),
        f.Rounded("d", 6),
        f.Shifted("d", "entry", 1),
        f.Reversed("d", "entry", 4),
        f.WrongLength("d", 3, 4, "4", filtered=True),
        f.WrongLength("d", 3, 4, "4", filtered=False),
        f.OneLine(one, "index", "the line", "x[j]", "x[j - 1]", guess=f.Guess.INDEX_OFF_BY_ONE),
        f.OneLine(one, "operand", "the line", "x[j]", "g[j]"),
        f.OneLine(one, "size", "the line", "n", "16", size="n", written=True, here=12),
        f.OneLine(one, "index", "r", "x[j]", "x[j - 1]", guess=f.Guess.INDEX_OFF_BY_ONE, theirs=TheirChange(line)),
        f.OneLine(  # the reader's own expression is another: the change's guess is not theirs
            one, "index", "r", "x[j]", "x[j - 1]", guess=f.Guess.INDEX_OFF_BY_ONE, theirs=TheirChange(line, "y[0]")
        ),
        f.Substituted(one, "r", "the scale", 2.0, 1.0, kept_from=1, rounded_down=False),
        f.Substituted(one, "r", "the scale", 2.0, 1.0, kept_from=None, rounded_down=False),
        f.KeptBetweenCalls((1,), (2,)),
        f.OwnSizes((1,), (2,), (("T", (11,)),)),
    ]
    for finding in found:
        assert ("?" in word(finding)) == finding.asks, (finding, word(finding))
