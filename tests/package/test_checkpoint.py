"""Checkpoints: exact round-trips, atomic writes, and a clear InputError for every kind of bad file."""

import dataclasses
import json
import os
import random
import re

import pytest

from microgpt import model as model_module
from microgpt.data import Tokenizer
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import checkpoint
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import MAX_PARAMETERS
from microgpt.sample import sample
from microgpt.train import train

DOCS = ["anna", "bob", "carla", "dan", "eve"]


@pytest.fixture(scope="module")
def trained():
    """A tiny model after a few training steps, so its parameters are not just the seeded initial ones."""
    tokenizer = Tokenizer.from_docs(DOCS)
    model = Model.init(GPTConfig(tokenizer.vocab_size, n_layer=2, n_embd=8, n_head=2, block_size=8))
    for _ in train(model, Adam(model.params, total_steps=5), tokenizer, DOCS, 5):
        pass
    return model, tokenizer


@pytest.fixture
def saved(tmp_path, trained):
    path = tmp_path / "model.json"
    checkpoint.save(path, *trained, {"steps": 5})
    return path


def rewrite(path, change):
    """Apply change() to the checkpoint's JSON and write it back."""
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_round_trip_restores_config_vocabulary_meta_and_every_parameter_exactly(saved, trained):
    model, tokenizer = trained
    loaded, loaded_tokenizer, meta = checkpoint.load(saved)
    assert loaded.config == model.config
    assert loaded_tokenizer == tokenizer
    assert meta == {"steps": 5}
    assert list(loaded.state_dict) == list(model.state_dict)
    assert [p.data for p in loaded.params] == [p.data for p in model.params]


def test_loaded_model_samples_the_same_as_the_saved_one(saved, trained):
    model, tokenizer = trained
    loaded, loaded_tokenizer, _ = checkpoint.load(saved)
    rng_a, rng_b = random.Random(0), random.Random(0)
    assert [sample(model, tokenizer, rng_a) for _ in range(10)] == [
        sample(loaded, loaded_tokenizer, rng_b) for _ in range(10)
    ]


def test_checkpoint_is_plain_json_with_format_and_version(saved):
    doc = json.loads(saved.read_text())
    assert (doc["format"], doc["version"]) == ("microgpt-checkpoint", 1)


def test_save_leaves_no_temporary_file_behind(saved):
    assert os.listdir(saved.parent) == ["model.json"]


def test_save_replaces_an_existing_checkpoint(saved, trained):
    model, tokenizer = trained
    checkpoint.save(saved, model, tokenizer, {"steps": 6})
    assert checkpoint.load(saved)[2] == {"steps": 6}
    assert os.listdir(saved.parent) == ["model.json"]


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_failed_save_keeps_the_previous_file_and_removes_its_temporary_file(saved, trained, monkeypatch, failure):
    before = saved.read_bytes()

    def fail(fd):
        raise failure

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(InputError if isinstance(failure, OSError) else KeyboardInterrupt) as info:
        checkpoint.save(saved, *trained, {"steps": 99})
    if isinstance(failure, OSError):
        assert str(info.value) == f"cannot write checkpoint {saved}: No space left on device"
    assert saved.read_bytes() == before
    assert os.listdir(saved.parent) == ["model.json"]


def test_save_into_a_missing_directory_says_so(tmp_path, trained):
    with pytest.raises(InputError, match="cannot write checkpoint: directory does not exist: .*nowhere"):
        checkpoint.save(tmp_path / "nowhere" / "model.json", *trained)


def test_save_refuses_to_replace_a_symbolic_link(tmp_path, trained):
    (tmp_path / "model.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(InputError, match="cannot write checkpoint: .* is a symbolic link"):
        checkpoint.save(tmp_path / "model.json", *trained)
    assert sorted(os.listdir(tmp_path)) == ["model.json"]


def test_save_writes_the_config_fields_of_gptconfig(saved, trained):
    model, _ = trained
    config = json.loads(saved.read_text())["config"]
    assert list(config) == [field.name for field in dataclasses.fields(GPTConfig)]
    assert GPTConfig(**config) == model.config


def test_save_refuses_parameters_that_are_not_finite(tmp_path):
    tokenizer = Tokenizer("ab")
    model = Model.init(GPTConfig(tokenizer.vocab_size, n_embd=4, n_head=1, block_size=4))
    model.state_dict["wte"][0][0].data = float("nan")
    with pytest.raises(InputError, match="parameters that are not finite"):
        checkpoint.save(tmp_path / "model.json", model, tokenizer)
    assert os.listdir(tmp_path) == []


def first_weight(text):
    """Replace the first weight of wte in the checkpoint's text by text."""
    return lambda p: p.write_text(re.sub(r'("wte": \[\[)[^,]+', rf"\g<1>{text}", p.read_text(), count=1))


CORRUPTIONS = {
    "missing": (None, "checkpoint not found"),
    "not-json": (lambda p: p.write_text('{"format": "microgpt-checkpoint", '), "is not valid JSON: .* line 1 column"),
    "not-utf8": (lambda p: p.write_bytes(b"\xff\xfe{}"), "is not valid JSON: not UTF-8"),
    "nan": (first_weight("NaN"), "is not valid JSON: NaN is not a finite number"),
    "overflow": (first_weight("1e400"), "wte holds inf, which is not a finite number"),
    "huge-int": (first_weight("1" + "0" * 400), "wte holds 1000000000.*, which is not a finite number"),
    "not-a-checkpoint": (lambda p: p.write_text("[1, 2, 3]"), "is not a microgpt checkpoint"),
    "wrong-version": (lambda p: rewrite(p, lambda d: d.update(version=2)), "has format version 2; .* reads version 1"),
    "no-version": (lambda p: rewrite(p, lambda d: d.pop("version")), "has no 'version' field; .* reads version 1"),
    "no-vocab": (lambda p: rewrite(p, lambda d: d.pop("vocab")), "has no 'vocab' field"),
    "config-field-missing": (lambda p: rewrite(p, lambda d: d["config"].pop("n_head")), "config must have exactly"),
    "config-not-int": (lambda p: rewrite(p, lambda d: d["config"].update(n_layer=True)), "n_layer must be a positive"),
    "config-float": (lambda p: rewrite(p, lambda d: d["config"].update(n_embd=8.0)), "n_embd must be a positive whole"),
    "config-too-large": (
        lambda p: rewrite(p, lambda d: d["config"].update(n_layer=10**6)),
        r"a model with .*, n_layer 1000000, .* parameters, which need .* microgpt builds at most 1,000,000",
    ),
    "config-absurd-int": (
        lambda p: rewrite(p, lambda d: d["config"].update(block_size=10**4000)),
        r"block_size about 10\^4000 has about 10\^4000 parameters",
    ),
    "config-indivisible": (
        lambda p: rewrite(p, lambda d: d["config"].update(n_head=3)),
        r"n_embd \(8\) must be divisible by n_head \(3\)",
    ),
    "vocab-size-mismatch": (
        lambda p: rewrite(p, lambda d: d.update(vocab=d["vocab"] + "z")),
        "vocab has 11 characters, so vocab_size must be 12, but config says 11",
    ),
    "vocab-surrogate": (
        lambda p: rewrite(p, lambda d: d.update(vocab=d["vocab"][:-1] + "\ud800")),
        r"vocab holds a lone surrogate \(U\+D800\), which is not a character",
    ),
    "vocab-unsorted": (
        lambda p: rewrite(p, lambda d: d.update(vocab=d["vocab"][::-1])),
        "distinct characters in sorted order",
    ),
    "config-mismatch": (
        lambda p: rewrite(p, lambda d: d["config"].update(n_embd=16)),
        r"wte is 11x8, but the config \(vocab_size 11, n_layer 2, n_embd 16, n_head 2, block_size 8\) needs 11x16",
    ),
    "matrix-missing": (lambda p: rewrite(p, lambda d: d["state_dict"].pop("layer1.mlp_fc2")), "lacks 'layer1.mlp_fc2'"),
    "matrix-extra": (
        lambda p: rewrite(p, lambda d: d["state_dict"].update(layer2_attn_wq=[[0.0]])),
        "unexpected 'layer2_attn_wq'",
    ),
    "ragged": (lambda p: rewrite(p, lambda d: d["state_dict"]["wpe"][3].pop()), "wpe is ragged"),
    "string-weight": (
        lambda p: rewrite(p, lambda d: d["state_dict"]["lm_head"][0].__setitem__(0, "0.1")),
        "lm_head holds 0.1, which is not a finite number",
    ),
}


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=list(CORRUPTIONS))
def test_bad_checkpoint_raises_input_error_with_one_clear_line(saved, corruption):
    corrupt, message = CORRUPTIONS[corruption]
    if corrupt is None:
        saved.unlink()
    else:
        corrupt(saved)
    with pytest.raises(InputError, match=message) as info:
        checkpoint.load(saved)
    assert str(saved) in str(info.value)
    assert "\n" not in str(info.value)


def test_loading_a_directory_says_so(tmp_path):
    with pytest.raises(InputError, match="checkpoint must be a regular file, but .* is a directory"):
        checkpoint.load(tmp_path)


def test_a_file_larger_than_any_checkpoint_is_refused_without_reading_it(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(checkpoint.MAX_BYTES + 1)
    with pytest.raises(InputError, match=f"is too large: {checkpoint.MAX_BYTES + 1:,} bytes"):
        checkpoint.load(big)


def test_the_largest_model_allowed_fits_in_the_largest_file_allowed():
    widest = max(len(json.dumps(x)) + len(", ") for x in (-1.2345678901234567e-308, -0.12345678901234567, 1e308))
    assert widest <= checkpoint.BYTES_PER_PARAMETER
    assert checkpoint.MAX_BYTES == MAX_PARAMETERS * checkpoint.BYTES_PER_PARAMETER


def test_a_small_file_claiming_a_huge_model_fails_before_anything_of_that_size_is_built(saved, monkeypatch):
    rewrite(saved, lambda d: d["config"].update(n_embd=100000, block_size=10**8, n_layer=10**6))

    def built(*args, **kwargs):
        raise AssertionError("a model of the claimed size was about to be built")

    real_shapes = GPTConfig.matrix_shapes

    def shapes(config):  # of one block at most, to count the parameters; never of every block
        return real_shapes(config) if config.n_layer <= 1 else built()

    monkeypatch.setattr(model_module, "init_params", built)
    monkeypatch.setattr(GPTConfig, "matrix_shapes", shapes)
    monkeypatch.setattr(checkpoint, "Value", built)
    with pytest.raises(InputError, match=r"has [\d,]+ parameters, which need [\d.]+ EB of memory"):
        checkpoint.load(saved)


def test_finite_huge_weights_load_as_they_are(saved):
    rewrite(saved, lambda d: d["state_dict"]["wte"][0].__setitem__(0, -1e308))
    model, _, _ = checkpoint.load(saved)
    assert model.state_dict["wte"][0][0].data == -1e308


@pytest.mark.parametrize(
    ("change", "quoted"),
    [
        (lambda doc: doc.update(version="v" * 5_000_000), "has format version 'vvv"),
        (lambda doc: doc["state_dict"].update({f"extra{i}": [] for i in range(200_000)}), "and 199995 more"),
        (lambda doc: doc["state_dict"].update({"x" * 1_000_000: []}), "has unexpected 'xxx"),
        (lambda doc: doc["state_dict"].update({"a\nb": []}), "has unexpected 'a\\nb'"),  # shown escaped
    ],
)
def test_an_error_quotes_the_file_only_briefly(saved, change, quoted):
    rewrite(saved, change)
    with pytest.raises(InputError) as error:
        checkpoint.load(saved)
    message = str(error.value)
    assert quoted in message and "\n" not in message and len(message) < 300, message[:400]


# --- what may be replaced, and how much room a checkpoint takes --------------------------------


def mine(saved) -> dict:
    """A JSON document of a user's own that says it is a microgpt checkpoint, and is not one."""
    return {"format": checkpoint.FORMAT, "version": checkpoint.VERSION, "notes": "mine", "config": {}}


NOT_CHECKPOINTS = {  # what a file holds, and why it is not replaced
    "text": (lambda saved: b"anna\nbob\n", "is not valid JSON: Expecting value at line 1 column 1"),
    "json-object": (lambda saved: b"{}", 'is not a microgpt checkpoint (no "format": "microgpt-checkpoint")'),
    "other-format": (lambda saved: b'{"format": "other"}', 'is not a microgpt checkpoint (no "format"'),
    "json-list": (lambda saved: b"[1, 2]", 'is not a microgpt checkpoint (no "format"'),
    "binary": (lambda saved: b"\x00" * 10, "is not valid JSON"),
    "not-utf8": (lambda saved: b"\xff\xfe{}", "is not valid JSON: not UTF-8 text (byte 0)"),
    "lookalike": (lambda saved: b'{"meta": ["format"], "format": "x"}', 'is not a microgpt checkpoint (no "format"'),
    # the cases: only the first 64 KiB was read, and a blank start counted as empty
    "notes-after-a-blank-start": (lambda saved: b" " * 65536 + b"my notes\n", "line 1 column 65537"),
    "only-whitespace": (lambda saved: b" \n\t\n", "is not empty: it holds 4 bytes of whitespace"),
    "users-json-that-says-it-is-one": (lambda saved: json.dumps(mine(saved)).encode(), "has no 'vocab' field"),
    "a-checkpoint-then-notes": (lambda saved: saved.read_bytes() + b"\nmy notes\n", "Extra data at line 2"),
    "a-checkpoint-with-a-matrix-wrong": (
        lambda saved: saved.read_text().replace('"wpe": [[', '"wpe": [[0.5, ', 1).encode(),
        "wpe is ragged",
    ),
}


@pytest.mark.parametrize("case", NOT_CHECKPOINTS, ids=list(NOT_CHECKPOINTS))
def test_a_file_that_is_not_a_checkpoint_is_never_replaced(tmp_path, saved, trained, case):
    content, why = NOT_CHECKPOINTS[case]
    out = tmp_path / "notes.json"
    out.write_bytes(content(saved))
    before = out.read_bytes()
    for attempt in (lambda: checkpoint.check_out(out), lambda: checkpoint.save(out, *trained)):
        with pytest.raises(InputError) as refused:
            attempt()
        message = str(refused.value)
        assert why in message and str(out) in message, message
        assert message.endswith(
            "; microgpt replaces only its own checkpoints and empty files, so that no other file is lost: "
            "choose another path, or remove the file first"
        )
    assert out.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == sorted(["notes.json", saved.name])


def test_a_file_larger_than_any_checkpoint_is_never_replaced_nor_read(tmp_path, saved, trained):
    out = tmp_path / "big.json"
    out.write_bytes(saved.read_bytes())  # a checkpoint's start, then a sparse gigabyte
    with open(out, "r+b") as f:
        f.truncate(10**9)
    with pytest.raises(InputError, match=r"is too large: 1,000,000,000 bytes or more; microgpt reads at most "):
        checkpoint.check_out(out)
    assert out.stat().st_size == 10**9


@pytest.mark.parametrize("how", ["as-saved", "keys-sorted", "indented", "empty"])
def test_a_checkpoint_or_an_empty_file_may_be_replaced(saved, trained, how):
    doc = json.loads(saved.read_text())
    text = {
        "as-saved": saved.read_text(),
        "keys-sorted": json.dumps(doc, sort_keys=True),  # as jq -S writes it: "config" first, then "format"
        "indented": json.dumps(doc, indent=4),
        "empty": "",  # made by `touch` or mktemp: nothing is lost
    }[how]
    saved.write_text(text)
    checkpoint.check_out(saved)
    checkpoint.save(saved, *trained)
    assert checkpoint.load(saved)[0].config == trained[0].config


def test_save_writes_what_json_dumps_writes_for_the_whole_document(saved, trained, monkeypatch):
    monkeypatch.setattr(checkpoint, "CHUNK_BYTES", 100)  # many pieces, split between rows
    model, tokenizer = trained
    checkpoint.save(saved, model, tokenizer, {"note": "zoë"})
    whole = {
        "format": checkpoint.FORMAT,
        "version": checkpoint.VERSION,
        "config": dataclasses.asdict(model.config),
        "vocab": tokenizer.chars,
        "meta": {"note": "zoë"},
        "state_dict": {name: [[p.data for p in row] for row in mat] for name, mat in model.state_dict.items()},
    }
    assert saved.read_text(encoding="ascii") == json.dumps(whole)


@pytest.mark.parametrize(
    "config",
    [GPTConfig(vocab_size=4, n_embd=4, n_head=1, block_size=3), GPTConfig(vocab_size=9, n_layer=2, n_embd=6, n_head=2)],
)
def test_size_bound_is_exact_for_the_longest_weights_and_a_bound_for_any(tmp_path, config):
    tokenizer, meta = (
        Tokenizer("abc\u00e9\U0001f600xyz"[: config.vocab_size - 1]),
        {"data": "caf\u00e9.txt", "steps": 7},
    )
    model = Model.init(config)
    bound = checkpoint.size_bound(config, tokenizer.chars, meta)
    checkpoint.save(tmp_path / "any.json", model, tokenizer, meta)
    assert (tmp_path / "any.json").stat().st_size <= bound
    for p in model.params:
        p.data = -2.2250738585072014e-308  # as long as a float is in JSON: 24 characters
    checkpoint.save(tmp_path / "longest.json", model, tokenizer, meta)
    assert (tmp_path / "longest.json").stat().st_size == bound


def test_the_config_is_checked_before_the_weights_are_read(saved):
    # what the command line says a checkpoint costs, and whether it fits in memory, comes before the weights
    text = saved.read_text()
    saved.write_text(text[: text.index('"state_dict"')] + '"state_dict": {"wte": [[0.1, not a number')
    seen = []

    def check(config, file_bytes):
        seen.append((config, file_bytes))
        raise InputError("refused before the weights")

    with pytest.raises(InputError, match="refused before the weights"):
        checkpoint.load(saved, check=check)
    assert seen == [(GPTConfig(**json.loads(text)["config"]), saved.stat().st_size)]
    with pytest.raises(InputError, match="is not valid JSON"):
        checkpoint.load(saved)
