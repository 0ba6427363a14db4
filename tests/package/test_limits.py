"""The command line's bounds and cost estimates: known before any work, and true to what the work costs."""

import dataclasses
import gc
import json
import random
import re
import tracemalloc

import pytest

from microgpt import engine
from microgpt.cli import main as cli_main
from microgpt.cli.main import one_sample
from microgpt.data import Tokenizer, load_docs
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import limits
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import (
    BYTES_PER_VALUE,
    MAX_DATA_BYTES,
    MAX_VALUES_PER_PASS,
    check_config,
    check_fits,
    longest_block,
    read_docs,
    values_per_pass,
    values_per_step,
)
from microgpt.sample import sample
from microgpt.train import cyclic_gc_paused, train_step


@pytest.fixture
def count_values(monkeypatch):
    """count_values(f) runs f() and returns how many Values it built."""
    real_init = engine.Value.__init__

    def counted(f):
        built = [0]

        def init(self, *args, **kwargs):
            built[0] += 1
            real_init(self, *args, **kwargs)

        monkeypatch.setattr(engine.Value, "__init__", init)
        try:
            f()
        finally:
            monkeypatch.setattr(engine.Value, "__init__", real_init)
        return built[0]

    return counted


def a_step(config: GPTConfig, length: int):
    """A model of config's shape, its optimizer, and the tokens of one document of `length` characters."""
    model = Model.init(config)
    tokenizer = Tokenizer("abcdefghijklmnopqrstuvwxyz"[: config.vocab_size - 1])
    doc = "".join(random.Random(length).choice(tokenizer.chars) for _ in range(length))
    return model, Adam(model.params), tokenizer.encode(doc)


SHAPES = [
    (GPTConfig(vocab_size=5, n_embd=4, n_head=1, block_size=4), 3),
    (GPTConfig(vocab_size=7, n_layer=2, n_embd=8, n_head=2, block_size=8), 5),
    (GPTConfig(vocab_size=3, n_layer=3, n_embd=6, n_head=3, block_size=2), 1),
    (GPTConfig(vocab_size=27), 6),  # the default model on a 6-letter name
]


@pytest.mark.parametrize(("config", "length"), SHAPES)
def test_values_per_step_is_exactly_what_a_training_step_builds(config, length, count_values):
    model, optimizer, tokens = a_step(config, length)
    built = count_values(lambda: train_step(model, optimizer, tokens))
    assert built == values_per_step(config, len(tokens) - 1)


class FirstToken(random.Random):
    """A generator that always draws the first token, never BOS: every sample runs to block_size."""

    def choices(self, population, weights=None, **kwargs):
        return [population[0]]


@pytest.mark.parametrize(("config", "length"), SHAPES)
def test_values_per_step_knows_what_a_sample_of_block_size_tokens_builds(config, length, count_values):
    model, tokenizer = Model.init(config), Tokenizer("abcdefghijklmnopqrstuvwxyz"[: config.vocab_size - 1])
    text = []
    built = count_values(lambda: text.append(sample(model, tokenizer, FirstToken())))
    assert text == ["a" * config.block_size]  # BOS never drawn: the longest a sample can be
    assert built == values_per_step(config, config.block_size, sampling=True)
    assert built <= values_per_pass(config, config.block_size)


@pytest.mark.parametrize(
    ("config", "length"), [(GPTConfig(vocab_size=27), 6), (GPTConfig(vocab_size=27, block_size=41), 40)]
)
def test_bytes_per_value_is_what_a_step_really_takes_at_its_peak(config, length):
    model, optimizer, tokens = a_step(config, length)
    train_step(model, optimizer, tokens)  # a first step: Adam's state and the grads are in place
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with cyclic_gc_paused():
            train_step(model, optimizer, tokens)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    per_value = peak / values_per_step(config, len(tokens) - 1)
    assert 0.7 * BYTES_PER_VALUE <= per_value <= BYTES_PER_VALUE, per_value  # an estimate that errs high


def test_longest_block_is_the_last_block_size_within_the_bound():
    config = GPTConfig(vocab_size=27)
    most = longest_block(config)
    assert values_per_pass(config, most) <= MAX_VALUES_PER_PASS < values_per_pass(config, most + 1)
    check_config(GPTConfig(vocab_size=27, block_size=most))
    with pytest.raises(InputError):
        check_config(GPTConfig(vocab_size=27, block_size=most + 1))


def test_a_pass_beyond_the_bound_is_refused_with_what_it_would_need():
    # the case: a 600-character document, --block-size 601, the default width (5.7 GB measured)
    config = GPTConfig(vocab_size=27, block_size=601)
    with pytest.raises(InputError) as info:
        check_config(config, name=lambda field: "--" + field.replace("_", "-"))
    assert str(info.value) == (
        "a model with vocab_size 27, n_layer 1, n_embd 16, n_head 4, block_size 601 reads up to 601 tokens in a "
        f"step or a sample: a step builds {limits.step_cost(config, 601)}, a sample {limits.sample_cost(config, 601)}; "
        f"microgpt allows {MAX_VALUES_PER_PASS:,} Values at most; most of it is attention over up to 601 positions, "
        "which grows with the square of the length: with the other settings as they are, --block-size can be at "
        f"most {longest_block(config)}"
    )
    assert f"about {values_per_step(config, 601) * BYTES_PER_VALUE / 1e9:.3g} GB and " in str(info.value)


def test_within_the_parameter_bound_a_pass_over_one_token_always_fits():
    # the widest per-token costs the parameter bound allows: all in the vocabulary, or all in the blocks
    widest = [GPTConfig(vocab_size=499_980, n_embd=1, n_head=1), GPTConfig(vocab_size=2, n_embd=287, n_head=1)]
    for config in widest:
        assert limits.parameter_count(config) <= limits.MAX_PARAMETERS
        assert longest_block(config) >= 1


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0.09, "0.09 s"), (45, "45 s"), (61, "1 min"), (700, "12 min"), (3.2 * 3600, "3.2 h"), (12 * 86400, "12 days")]
    + [(400 * 86400, "1.1 years"), (1e20, "about 10^12 years")],
)
def test_duration_uses_the_largest_unit_that_keeps_it_at_one_or_more(seconds, shown):
    assert limits.duration(seconds) == shown


# --- the data file ---------------------------------------------------------------------------------


def write(tmp_path, content: bytes | str, name: str = "docs.txt"):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "data file not found"),
        ("", "data file has no documents"),
        ("\n  \n\t\n", "data file has no documents"),
        (b"anna\n\xff\xfebob\n", r"data file is not valid UTF-8: .* \(byte 5\)"),
    ],
    ids=["missing", "empty", "only-blank-lines", "not-utf8"],
)
def test_read_docs_says_what_is_wrong_with_the_data_file(tmp_path, content, message):
    path = tmp_path / "docs.txt" if content is None else write(tmp_path, content)
    with pytest.raises(InputError, match=message):
        read_docs(path)


def test_read_docs_rejects_a_directory(tmp_path):
    with pytest.raises(InputError, match="data file must be a regular file, but .* is a directory"):
        read_docs(tmp_path)


def test_read_docs_refuses_a_file_over_the_size_bound(tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(MAX_DATA_BYTES + 1)
    with pytest.raises(InputError, match="data file .* is too large"):
        read_docs(big)


def test_read_docs_reads_what_load_docs_reads(tmp_path):
    path = write(tmp_path, "\ufeff  anna \r\nbob\rby\n\nzoë\u2028x\n")  # a byte order mark, CR LF, a lone CR
    assert read_docs(path, seed=3) == load_docs(path, seed=3)
    assert sorted(read_docs(path)) == ["anna", "bob\rby", "zoë\u2028x"]


@pytest.mark.parametrize(
    ("content", "docs"),
    [
        ("\ufeff\n", None),  # the case: a line of only U+FEFF
        ("\ufeffanna\n\ufeff\n \ufeff \t\ufeff\r\n", ["anna"]),
        ("anna\n\ufeffbob\r\n\ufeff\ufeffcarla\n", ["anna", "bob", "carla"]),  # files joined with `cat`
        ("zo\ufeffe\nx\ufeff\n", ["x\ufeff", "zo\ufeffe"]),  # inside or after a document, a character like any
    ],
    ids=["only-a-mark", "marks-and-whitespace", "joined-files", "inside-a-document"],
)
def test_a_byte_order_mark_starting_a_line_is_no_part_of_a_document(tmp_path, content, docs):
    path = write(tmp_path, content)
    if docs is None:
        with pytest.raises(InputError, match="data file has no documents"):
            read_docs(path)
    else:
        assert sorted(read_docs(path)) == docs


def test_check_fits_accepts_a_document_of_block_size_minus_one_characters():
    check_fits(["abc", "abcdefg"], block_size=8)  # 7 characters + BOS = 8 positions


def test_check_fits_names_the_document_that_is_too_long():
    message = r"a document is 8 characters long, but block_size 8 fits at most 7: 'abcdefgh'"
    with pytest.raises(InputError, match=message):
        check_fits(["abc", "abcdefgh"], block_size=8)


# --- what a sample costs, and what a refusal names --------------------------------------------------


@pytest.mark.parametrize(("config", "length"), [*SHAPES, (GPTConfig(vocab_size=27, n_layer=3, block_size=30), 0)])
def test_sample_cost_is_what_a_sample_really_takes_at_its_peak(config, length):
    """The memory a sample of block_size tokens holds at its peak, built as the command line builds it."""
    model, tokenizer = Model.init(config), Tokenizer("abcdefghijklmnopqrstuvwxyz"[: config.vocab_size - 1])
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        text = one_sample(model, tokenizer, FirstToken(), 0.5)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(text) == config.block_size
    estimate = limits.sample_cost(config, config.block_size)
    assert estimate.values == values_per_step(config, config.block_size, sampling=True)
    assert 0.7 * estimate.bytes <= peak <= estimate.bytes, (peak, estimate)  # an estimate that errs high


def test_a_sample_keeps_alive_only_part_of_what_it_builds_and_a_step_all():
    config = GPTConfig(vocab_size=27, block_size=100)
    assert limits.values_alive_in_sample(config, 100) < values_per_step(config, 100, sampling=True) / 4
    assert limits.sample_cost(config, 100).bytes < limits.step_cost(config, 100).bytes / 4


def test_the_command_line_samples_with_the_cyclic_collector_paused(monkeypatch):
    seen = []
    monkeypatch.setattr(cli_main, "sample", lambda *args: seen.append(gc.isenabled()) or "")
    config = GPTConfig(vocab_size=3, n_embd=4, n_head=1, block_size=4)
    cli_main.print_samples(Model.init(config), Tokenizer("ab"), 2, 0.5, seed=1)
    assert seen == [False, False]
    assert gc.isenabled()


def flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def named_remedies(message: str) -> dict[str, int]:
    """Each setting a refusal says can go so far, and how far: {'n_embd': 288, 'vocab_size': 40}."""
    found = {
        m[1][2:].replace("-", "_"): int(m[2].replace(",", ""))
        for m in re.finditer(r"(--[a-z-]+) (?:can be )?at most ([\d,]+)", message)
    }
    if m := re.search(r"the vocabulary (?:can be )?at most ([\d,]+) tokens", message):
        found["vocab_size"] = int(m[1].replace(",", ""))
    return found


@pytest.mark.parametrize(
    ("config", "cause", "first"),
    [
        # the case: depth, not width or length, and never a block_size of 1 (no document fits)
        (GPTConfig(3, n_layer=83_000, n_embd=1, n_head=1, block_size=2), "depth, 83,000 blocks", "n_layer"),
        (GPTConfig(27, n_embd=140, block_size=30), "width", "n_embd"),
        (GPTConfig(499_980, n_embd=1, n_head=1, block_size=20), "the vocabulary", "vocab_size"),
        (GPTConfig(27, block_size=601), "attention over up to 601 positions", "block_size"),
        # the case: the parameter bound, which said nothing of how far --n-embd could go
        (GPTConfig(27, n_embd=300, block_size=2), "", "n_embd"),
        # a remedy of the parameters is offered only if the pass then fits too (n_layer 2 would not, at n_embd 200)
        (GPTConfig(27, n_layer=3, n_embd=200), "", "n_embd"),
        (GPTConfig(27, n_layer=30, n_embd=64, block_size=2), "", "n_layer"),
    ],
    ids=["depth", "width", "vocabulary", "length", "parameters-width", "parameters-and-pass", "parameters-depth"],
)
def test_a_refusal_names_its_real_cause_and_how_far_each_setting_can_go(config, cause, first):
    with pytest.raises(InputError) as info:
        check_config(config, name=flag)
    message = str(info.value)
    assert not cause or f"most of it is {cause}" in message, message
    remedies = named_remedies(message)
    assert next(iter(remedies)) == first, message  # the cause's own setting comes first
    assert message.count("can be at most") == 1
    within = limits.within_bounds  # a remedy brings the model within every bound, not only the one it broke
    for field, most in remedies.items():
        step = config.n_head if field == "n_embd" else 1
        assert within(dataclasses.replace(config, **{field: most}))  # each remedy it names is one
        assert not within(dataclasses.replace(config, **{field: most + step}))  # and the furthest that setting goes
    for field in {"n_layer", "n_embd", "block_size"} - set(remedies):  # a setting not named cannot do it alone
        least = {"n_layer": 1, "n_embd": config.n_head, "block_size": 2}[field]
        assert not within(dataclasses.replace(config, **{field: least})), (field, message)


def test_a_small_pass_is_estimated_at_the_probes_own_speed_and_the_bound_at_the_bounds():
    from microgpt.runtime import speed

    here = speed.Speed({"train": 1.3, "sample": 0.8}, "just now")
    probe_values = values_per_step(speed.PROBE_CONFIG, speed.PROBE_TOKENS)
    small, bound = here.rates(probe_values), here.rates(MAX_VALUES_PER_PASS)
    assert bound == speed.REFERENCE.scaled(1.3, 0.8)  # at the bound: REFERENCE, scaled by the factors
    # at the probe's size: what the probe measured, per Value (its time over REFERENCE_PROBE, times that)
    probe = limits.step_cost(speed.PROBE_CONFIG, speed.PROBE_TOKENS, here)
    assert probe.seconds / probe.values == pytest.approx(1.3 * speed.REFERENCE_PROBE["train"])
    sizes = [probe_values, 10**5, 10**6, 4 * 10**6, MAX_VALUES_PER_PASS]
    trains = [here.rates(n).train for n in sizes]
    assert trains == sorted(trains, reverse=(small.train > bound.train))  # from one to the other, in order


MODEL_SHAPES = [
    GPTConfig(vocab_size=27),  # the default model
    GPTConfig(vocab_size=27, n_embd=64, block_size=32),  # wide: its parameters dominate
    GPTConfig(vocab_size=3, n_layer=2000, n_embd=1, n_head=1, block_size=2),  # deep: rows and matrices do
    GPTConfig(vocab_size=20_000, n_embd=1, n_head=1, block_size=2),  # a vocabulary of many one-number rows
]


def traced(f):
    """What f() holds at its peak and at its end, over what was held before (tracemalloc), and what it returns."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = f()
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base, now - base, result


@pytest.mark.parametrize("config", MODEL_SHAPES, ids=["default", "wide", "deep", "vocabulary"])
def test_model_bytes_is_what_a_model_takes_however_its_parameters_are_held(config):
    _, held, model = traced(lambda: Model.init(config))
    assert held <= limits.model_bytes(config) <= 1.3 * held  # the resident size is more than Python's own count


@pytest.mark.parametrize("config", MODEL_SHAPES, ids=["default", "wide", "deep", "vocabulary"])
@pytest.mark.parametrize("indent", [None, 8])
def test_loading_bytes_is_what_reading_a_checkpoint_takes_at_its_peak(tmp_path, config, indent):
    from microgpt.runtime import checkpoint

    path = tmp_path / "m.json"
    vocab = "".join(chr(0x4E00 + i) for i in range(config.vocab_size - 1))  # as many characters as it needs
    checkpoint.save(path, Model.init(config), Tokenizer(vocab))
    if indent is not None:
        path.write_text(json.dumps(json.loads(path.read_text()), indent=indent))
    peak, _, _ = traced(lambda: checkpoint.load(path))
    reader = 2**20  # what the reader holds whatever the file (the JSON decoder's own), small beside any large file
    assert peak - reader <= limits.loading_bytes(config, path.stat().st_size) <= 1.5 * peak
