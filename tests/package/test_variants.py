"""microgpt.course.variants and references: each piece's rule written one quantity a line, and every one-line
change of it; a change's answer, what it reaches, and how a verdict says it."""

import ast
import copy

import pytest

from microgpt.course import checkers, pieces, references, variants
from microgpt.course.checking import _frozen, _rule, as_parts
from microgpt.course.diagnosis import agrees

P = checkers.PIECES


def rule(name):
    return _rule(P[name])


@pytest.mark.parametrize("name", P)
def test_each_rule_gives_the_engines_answer_on_every_case(name):
    for case in P[name].cases():
        answer = as_parts(getattr(references, name)(*copy.deepcopy(case.args)), P[name].parts)
        assert all(agrees(a, b, s) for a, b, s in zip(answer, case.engine, case.scales)), case.label


@pytest.mark.parametrize("name", P)
def test_no_change_writes_into_the_cases_arguments(name):
    """A change writes only into lists the rule makes: run on the case's own lists, they stay as they were."""
    case = min(P[name].cases(), key=lambda c: len(repr(c.args)))
    given = copy.deepcopy(case.args)
    ran = 0
    for change in rule(name).changes:
        try:
            change.run(*given)
            ran += 1
        except Exception:  # noqa: BLE001, S112 (a change that cannot run here is no write)
            continue
        assert given == case.args, (change.kind, change.line, change.before, change.after)
    assert ran > len(rule(name).changes) // 2


@pytest.mark.parametrize("name", ["linear_backward", "attention_head_backward", "attention_backward"])
def test_a_change_run_from_its_lines_compiled_choice_is_the_change_made_alone(name):
    case = P[name].cases()[0]
    r = rule(name)
    for change in r.changes[:: max(1, len(r.changes) // 40)]:
        group = next(g for g in r.groups.values() if any(change.run is c.run for c in r.changes if c is change))
        assert group is not None
        try:
            chosen = change.run(*_frozen(case))
        except Exception:  # noqa: BLE001, S112 (then alone it fails too, below)
            chosen = None
        swap, insert = _made_of(r, change)
        with variants._Changed(r.fn, swap, insert, r.parents):
            alone = r.compiled()
        try:
            expected = alone(*_frozen(case))
        except Exception:  # noqa: BLE001
            expected = None
        assert (chosen is None) == (expected is None), (change.before, change.after)
        if expected is not None:
            assert chosen == expected, (change.kind, change.before, change.after)


def _made_of(r, change):
    """The (swap, insert) a change was made with: its place in its line's group."""
    for group in r.groups.values():
        for k, made in enumerate(group.made):
            cell = change.run.__closure__
            if cell and any(getattr(c, "cell_contents", None) is group for c in cell) and _number(change) == k:
                return made
    raise LookupError(change.before)


def _number(change):
    return next(c.cell_contents for c in change.run.__closure__ if isinstance(c.cell_contents, int))


def reach_of(name, text):
    """What the line whose code contains text can change."""
    r = rule(name)
    found = {c.reach for c in r.changes if c.line and text in ast.get_source_segment(_source(name), _stmt(r, c.line))}
    assert len(found) >= 1, text
    return found


def _source(name):
    import inspect
    import textwrap

    return textwrap.dedent(inspect.getsource(getattr(references, name)))


def _stmt(r, line):
    return next(s for s, _ in variants._statements(r.fn.body) if s.lineno == line)


def test_what_a_line_can_change_follows_its_values_to_the_results():
    r = rule("attention_head_backward")
    assert r.reach["gamma"] == frozenset({"dqs", "dks"}), "the gradient at the weights reaches dq and dk, not dv"
    assert r.reach["w"] == frozenset({"dqs", "dks", "dvs"})
    a = rule("attention_backward")
    assert a.reach["mixed"] == frozenset({"dwo"}), "what attn_wo read reaches its own gradient only"
    assert a.reach["dmixed"] == frozenset({"dxs", "dwq", "dwk", "dwv"})
    assert a.reach["dw_"] == frozenset({"dwq", "dwk", "dwv"}), "written through the loop's name, into the three"
    assert a.reach["t"] == a.reach["r"] != frozenset(), "an index read by many lines reaches through them"


def test_a_change_in_one_pass_of_a_loop_over_written_out_names_reaches_that_pass_only():
    a = rule("attention_backward")
    one_pass = [c for c in a.changes if c.renamed and "for dqs and dwq" in c.role]
    assert one_pass and all(c.reach == frozenset({"dwq"}) for c in one_pass)
    assert any(c.before == "dqs[t][r]" and c.after == "dqs[(t + 1) % T][r]" for c in one_pass)


@pytest.mark.parametrize(
    ("name", "kind", "before", "after", "role"),
    [
        ("cross_entropy_backward", "index", "j == target", "j == target - 1", "y, the one-hot of the true token"),
        ("linear_backward", "operand", "x[j]", "w[i][j]", "dw[i][j] = g[i] x[j]"),
        ("linear_backward", "index", "w[i][j]", "w[j][i]", "dx[j] = sum over i of w[i][j] g[i]"),
        ("relu_backward", "compare", "h[i] > 0", "h[i] >= 0", "the mask, whether unit i was on (h_i > 0)"),
        ("rmsnorm_backward", "size", "len(x)", "16", "n, the number of entries"),
        ("softmax_backward", "range", "range(n)", "range(n - 1)", "the average sum_u w_u gamma_u"),
        ("attention_head_backward", "call", "math.sqrt(d_h)", "d_h", "the scores' divisor sqrt(d_h)"),
        ("attention_head_backward", "index", "dqs[i][j]", "dqs[t][j]", "dq_i collects ds_t k_t / sqrt(d_h)"),
        ("attention_backward", "argument", "n_head", "1", "the argument n_head"),
        (
            "attention_backward",
            "alternative",
            "[slice(h * d_h, (h + 1) * d_h) for h in range(n_head)]",
            "[slice(h, None, n_head) for h in range(n_head)]",
            "the heads' entries, side by side",
        ),
        ("embedding_backward", "index", "used[k]", "used[T - 1 - k]", "the row position k read"),
    ],
)
def test_the_changes_include_the_learners_one_line_slips_with_what_their_line_computes(name, kind, before, after, role):
    assert any(
        c.kind == kind and c.before == before and c.after == after and c.role == role for c in rule(name).changes
    )


def test_a_sum_over_a_generator_is_written_as_python_writes_it():
    assert (
        variants._text(ast.parse("sum(x[i] * x[i] for i in range(n)) / n")) == "sum(x[i] * x[i] for i in range(n)) / n"
    )
    assert variants._text(ast.parse("g((1, 2)) + f((a for a in b), c)")) == "g((1, 2)) + f((a for a in b), c)"


def test_a_number_the_rule_computes_can_be_given_another_value():
    r = rule("rmsnorm_backward")
    (sub,) = [s for s in r.substitutions if s.name == "r"]
    case = P["rmsnorm_backward"].cases()[0]
    computed_answer, computed = sub.run(None, *_frozen(case))
    assert computed_answer == pytest.approx(pieces.rmsnorm_backward(*case.args), abs=1e-15)
    doubled, _ = sub.run(2 * computed, *_frozen(case))
    assert doubled != computed_answer
    assert [s.name for s in r.substitutions] == ["ms", "r", "gx"]


def test_only_lists_the_rule_makes_are_written_into_and_allocations_are_never_changed():
    r = rule("attention_head_backward")
    assert {"dqs", "dks", "dvs"} <= r.made and not {"qs", "ks", "vs", "gs"} & r.made
    assert not [c for c in r.changes if c.before.startswith("[[0.0]")]
