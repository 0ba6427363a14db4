"""The capstone with the reader's pieces calling each other: first_difference() names the call where a slip acts
(its position and head), blames the piece that passed wrong arguments rather than the piece given them, catches a
piece that changes its arguments or an answer it returned, never gives an all-clear while the gradients differ;
side_by_side() re-checks the kept pieces before it times a step."""

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from microgpt import Tokenizer, default_data_path, load_docs
from microgpt.course import capstone, kept, pieces
from microgpt.model import GPTConfig, Model

SOLUTIONS = Path(pieces.__file__).read_text(encoding="utf-8")
NAMES = ("al", "mignon", "christopher")  # T = 3, 7 and 12 positions: BOS starts and ends a name


@pytest.fixture(autouse=True)
def no_kept_pieces(monkeypatch):
    monkeypatch.setattr(kept, "_yours", {})
    monkeypatch.setattr(kept, "_offered", {})


@functools.cache
def tokenizer() -> Tokenizer:
    return Tokenizer.from_docs(load_docs(default_data_path()))


@functools.cache
def model() -> Model:
    return Model.init(GPTConfig(vocab_size=tokenizer().vocab_size), seed=7)


def readers_pieces() -> dict[str, Callable]:
    """Every piece as the reader's own: the solutions' code, compiled as a block of theirs."""
    namespace: dict[str, Any] = {}
    exec(compile(SOLUTIONS, "<your block>", "exec"), namespace)
    return {name: namespace[name] for name in kept.NAMES}


def nudged(answer: Any) -> Any:
    """The answer with its first number moved by 1e-3 (a copy): a slip that shows wherever it acts."""
    if isinstance(answer, tuple):
        return (nudged(answer[0]), *answer[1:])
    if isinstance(answer[0], list):
        return [nudged(answer[0]), *answer[1:]]
    return [answer[0] + 1e-3, *answer[1:]]


def inputs_of_each_rmsnorm(sd: dict, tokens: list[int], n_head: int) -> dict[str, list[list[float]]]:
    """What each RMSNorm of the block reads at each position: the model's forward pass, on floats."""
    T = len(tokens) - 1
    emb = [[a + b for a, b in zip(sd["wte"][tok], sd["wpe"][i])] for i, tok in enumerate(tokens[:T])]
    x0 = [capstone.float_rmsnorm(e) for e in emb]
    attended = capstone.float_attention([capstone.float_rmsnorm(x) for x in x0], sd, n_head)
    x1 = [[a + b for a, b in zip(o, x)] for o, x in zip(attended, x0)]
    return {"the first RMSNorm": emb, "the RMSNorm before attention": x0, "the RMSNorm before the MLP": x1}


def slipped(name: str, right: Callable, place: tuple, sd: dict, tokens: list[int]) -> Callable:
    """The reader's piece, with a slip that acts at one call only, told by what the call is given (or, where
    nothing given tells it, by counting): the place loss_and_grads() names it by."""
    seen: dict[Any, int] = {}

    def count(key: Any) -> int:
        seen[key] = seen.get(key, -1) + 1
        return seen[key]

    def acts(args: tuple) -> bool:
        if name in ("cross_entropy_backward", "relu_backward"):  # once a position
            return count(name) == place[0]
        if name == "linear_backward":  # the matrix it is given, and its calls with it: one a position
            matrix, position = place
            return args[1] == sd[matrix] and count(matrix) == position
        if name == "rmsnorm_backward":  # the vector it normalized
            kind, position = place
            return args[0] == inputs_of_each_rmsnorm(sd, tokens, model().config.n_head)[kind][position]
        if name == "softmax_backward":  # a head's positions in order: one weight at the first, T at the last
            head = count("heads") if len(args[0]) == 1 else seen["heads"]
            return (head, len(args[0]) - 1) == place
        if name == "attention_head_backward":  # the heads in order
            return count(name) == place[0]
        if name == "embedding_backward":
            return args[0] == len(sd[place[0]])
        return True  # attention_backward: one call

    @functools.wraps(right)
    def backward(*args: Any) -> Any:
        answer = right(*args)
        return nudged(answer) if acts(args) else answer

    return backward


def where(name: str, place: tuple, T: int) -> str:
    """The call as the test names it from the place the slip acts."""
    if name in ("cross_entropy_backward", "relu_backward"):
        return f"position {place[0]}"
    if name in ("linear_backward", "rmsnorm_backward"):
        return f"{place[0].removeprefix('layer0.')} at position {place[1]}"
    if name == "softmax_backward":
        return f"head {place[0]} at position {place[1]}"
    if name == "attention_head_backward":
        return f"head {place[0]}"
    if name == "embedding_backward":
        return place[0]
    return f"all {T} positions"


def places(T: int) -> list[tuple[str, tuple]]:
    """Where to plant a slip in a document of T positions: every piece, first, last and middle positions, heads."""
    last, middle = T - 1, T // 2
    return [
        ("cross_entropy_backward", (last,)),
        ("relu_backward", (middle,)),
        ("linear_backward", ("lm_head", middle)),
        ("linear_backward", ("layer0.mlp_fc1", last)),
        ("linear_backward", ("layer0.attn_wo", last)),
        ("linear_backward", ("layer0.attn_wk", middle)),
        ("linear_backward", ("layer0.attn_wv", 0)),
        ("rmsnorm_backward", ("the RMSNorm before the MLP", last)),
        ("rmsnorm_backward", ("the RMSNorm before attention", middle)),
        ("rmsnorm_backward", ("the first RMSNorm", 0)),
        ("softmax_backward", (0, last)),
        ("softmax_backward", (3, 0)),
        ("softmax_backward", (1, middle)),
        ("attention_head_backward", (0,)),
        ("attention_head_backward", (3,)),
        ("embedding_backward", ("wpe",)),
    ]


def cases() -> list:
    planted = [(doc, name, place) for doc in NAMES for name, place in places(len(doc) + 1)]
    planted.append(("al", "attention_backward", ()))  # one call, of every position (its checker's words take a while)
    return [pytest.param(*case, id="-".join(map(str, (case[0], case[1], *case[2])))) for case in planted]


@pytest.mark.parametrize(("doc", "name", "place"), cases())
def test_the_capstone_names_the_call_where_a_slip_acts_with_the_readers_pieces_calling_each_other(doc, name, place):
    tokens = tokenizer().encode(doc)
    sd = capstone.floats(model())
    yours = readers_pieces()
    yours[name] = slipped(name, yours[name], place, sd, tokens)
    said = capstone.first_difference(model().config, sd, tokens, yours=yours)
    call = where(name, place, len(tokens) - 1)
    assert said.startswith(
        f"{name} is the first of your pieces to differ from the solution,\n in its call for {call}:\n"
    )


@pytest.mark.parametrize(
    ("name", "place", "call"),
    [
        ("softmax_backward", (2, 5), "head 2 at position 5"),
        ("attention_head_backward", (1,), "head 1"),
        ("linear_backward", ("layer0.attn_wq", 4), "attn_wq at position 4"),
    ],
)
def test_the_capstone_names_the_call_where_a_slip_acts_inside_the_solutions_attention(name, place, call):
    tokens = tokenizer().encode("mignon")
    sd = capstone.floats(model())
    yours = {name: slipped(name, readers_pieces()[name], place, sd, tokens)}
    said = capstone.first_difference(model().config, sd, tokens, yours=yours)
    assert said.startswith(
        f"{name} is the first of your pieces to differ from the solution,\n in its call for {call}:\n"
    )


def head_passing_one_gamma_at(position: int) -> Callable:
    """The reader's head, but at one position it hands softmax_backward the first gamma only."""
    right = readers_pieces()["attention_head_backward"]
    source = SOLUTIONS.replace(
        "ds = softmax_backward(w, gamma)", f"ds = softmax_backward(w, gamma[:1] if i == {position} else gamma)"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<your head>", "exec"), namespace)
    assert namespace["attention_head_backward"].__code__.co_code != right.__code__.co_code
    return namespace["attention_head_backward"]


@pytest.mark.parametrize("position", [1, 6])
def test_a_piece_given_wrong_arguments_is_not_blamed_its_caller_is(position):
    tokens = tokenizer().encode("mignon")
    sd = capstone.floats(model())
    yours = {**readers_pieces(), "attention_head_backward": head_passing_one_gamma_at(position)}
    said = capstone.first_difference(model().config, sd, tokens, yours=yours)
    assert said == (
        "attention_head_backward is the first of your pieces to differ from the solution,\n"
        " in its call for head 0:\n"
        f" its call of softmax_backward for head 0 at position {position} is not the solution's:\n"
        f" gamma has 1 entry where the solution's has {position + 1} (its shape: {position + 1})."
    )


def test_a_caller_that_passed_wrong_arguments_is_named_by_the_backward_and_by_training(monkeypatch):
    yours = {**readers_pieces(), "attention_head_backward": head_passing_one_gamma_at(3)}
    monkeypatch.setattr(kept, "_yours", yours)
    tokens = tokenizer().encode("mignon")
    with pytest.raises(capstone.PieceError) as raised:
        capstone.loss_and_grads(model().config, capstone.floats(model()), tokens)
    assert str(raised.value) == (
        "attention_head_backward, a piece of yours, gave softmax_backward arguments the solution's softmax_backward"
        " cannot use either (w: 4 entries, gamma: 1 entry), in its call number 1 (T = 7, d_h = 4)."
    )
    config = GPTConfig(vocab_size=tokenizer().vocab_size)
    training = capstone.side_by_side(config, [tokens], steps=2)
    assert training.first_difference.startswith(
        "at step 1, attention_head_backward is the first of your pieces to differ from the solution,\n"
        " in its call for head 0:\n its call of softmax_backward for head 0 at position 3 is not the solution's:"
    )


def test_a_caller_is_named_for_arguments_that_differ_in_their_numbers():
    """attention_backward hands attn_wo's backward the gradient of the position before: right shape, wrong numbers."""
    source = SOLUTIONS.replace("linear_backward(mixed[i], wo, gs[i])", "linear_backward(mixed[i], wo, gs[i - 1])")
    namespace: dict[str, Any] = {}
    exec(compile(source, "<your attention>", "exec"), namespace)
    tokens = tokenizer().encode("al")
    sd = capstone.floats(model())
    yours = {**readers_pieces(), "attention_backward": namespace["attention_backward"]}
    said = capstone.first_difference(model().config, sd, tokens, yours=yours)
    assert said.startswith(
        "attention_backward is the first of your pieces to differ from the solution,\n"
        " in its call for all 3 positions:\n"
        " its call of linear_backward for attn_wo at position 0 is not the solution's:\n g["
    )
    assert "linear_backward is the first" not in said


def test_a_caller_that_passes_other_arguments_but_answers_right_is_not_blamed():
    """A head that hands softmax_backward every position, with 0 weight beyond its own, and keeps the first i + 1."""
    source = SOLUTIONS.replace(
        "ds = softmax_backward(w, gamma)",
        "ds = softmax_backward(w + [0.0] * (T - i - 1), gamma + [0.0] * (T - i - 1))[: i + 1]",
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<your head>", "exec"), namespace)
    tokens = tokenizer().encode("mignon")
    yours = {**readers_pieces(), "attention_head_backward": namespace["attention_head_backward"]}
    said = capstone.first_difference(model().config, capstone.floats(model()), tokens, yours=yours)
    assert said == capstone.ALL_CLEAR


def rmsnorm_that_writes_into_g(x, g):
    n = len(x)
    r = (sum(xi * xi for xi in x) / n + 1e-5) ** -0.5
    gx = sum(gi * xi for gi, xi in zip(g, x))
    for i in range(n):
        g[i] = r * g[i] - r**3 * gx / n * x[i]
    return list(g)


def linear_that_scales_w(x, w, g):
    for row in w:
        row[:] = [v * 1.0001 for v in row]
    return pieces.linear_backward(x, w, g)


def softmax_that_writes_into_gamma(w, gamma):
    mean = sum(wu * gu for wu, gu in zip(w, gamma))
    for t in range(len(w)):
        gamma[t] = w[t] * (gamma[t] - mean)
    return list(gamma)


@pytest.mark.parametrize(
    ("name", "piece", "said"),
    [
        (
            "rmsnorm_backward",
            rmsnorm_that_writes_into_g,
            "changed its argument g in its call for the RMSNorm before the MLP at position 0",
        ),
        ("linear_backward", linear_that_scales_w, "changed its argument w in its call for lm_head at position 0"),
        (
            "softmax_backward",
            softmax_that_writes_into_gamma,
            "changed its argument gamma in its call for head 0 at position 0",
        ),
    ],
)
def test_a_piece_that_changes_its_arguments_is_named_never_cleared(name, piece, said):
    tokens = tokenizer().encode("mignon")
    sd = capstone.floats(model())
    yours = {**readers_pieces(), name: piece}
    found = capstone.first_difference(model().config, sd, tokens, yours=yours)
    assert found.startswith(f"{name}, a piece of yours, {said} (")
    assert found.endswith("Compute new lists instead: a caller may still use the lists it passed.")
    assert sd == capstone.floats(model()), "the caller's parameters are left as they were"


def linear_with_one_list_for_dx_of_a_square_matrix(x, w, g, dx=[]):  # noqa: B006 (the slip: one list, shared)
    """attention's matrices are square (n_embd x n_embd); attention keeps attn_wo's dx for each position."""
    dw, fresh = pieces.linear_backward(x, w, g)
    if len(w) != len(w[0]):
        return dw, fresh
    dx[:] = fresh
    return dw, dx


def test_a_piece_that_changes_an_answer_it_returned_is_named():
    tokens = tokenizer().encode("mignon")
    yours = {**readers_pieces(), "linear_backward": linear_with_one_list_for_dx_of_a_square_matrix}
    found = capstone.first_difference(model().config, capstone.floats(model()), tokens, yours=yours)
    assert found.startswith(
        "linear_backward, a piece of yours, changed the answer it returned in its call for attn_wo at position 0,\n"
        " during its call for attn_wo at position 1 ("
    )


class LinearThatScalesTheGradientItWasGivenBefore:
    """Each call scales the g of the call before: no call changes its own arguments or its answers, but the
    caller's lists change under it."""

    def __init__(self) -> None:
        self.last: list[float] = []

    def __call__(self, x, w, g):
        self.last[:] = [v * 2 for v in self.last]
        self.last = g
        return pieces.linear_backward(x, w, g)


def test_no_all_clear_while_the_gradients_differ_from_the_solutions():
    tokens = tokenizer().encode("mignon")
    sd = capstone.floats(model())
    found = capstone.first_difference(
        model().config, sd, tokens, yours={"linear_backward": LinearThatScalesTheGradientItWasGivenBefore()}
    )
    assert found.startswith(
        "no piece of yours gives an answer that differs from the solution's on the inputs it was given here,\n"
        " yet the gradients differ from the solution's: by "
    )


def test_the_speed_block_rechecks_the_kept_pieces_before_it_times_a_step(monkeypatch):
    events: list[str] = []
    kept.offer("relu_backward", lambda: events.append("re-check"))
    clock = capstone.time.perf_counter

    def timed() -> float:
        events.append("clock")
        return clock()

    monkeypatch.setattr(capstone.time, "perf_counter", timed)
    config = GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=6)
    training = capstone.side_by_side(config, [[4, 0, 1, 2, 4]], steps=2)
    assert events.count("re-check") == 1 and "clock" in events
    assert events[0] == "re-check", "the re-check ran before the clock was first read"
    assert len(training.rows) == 2
