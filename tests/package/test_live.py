"""microgpt.course.live, the training the Train widget runs in the browser, is the command line's training:
the same losses step for step, gradient norms read before Adam zeroes the gradients, a checkpoint
`microgpt sample` loads, and settings refused outside the bounds the widget's form shows."""

from __future__ import annotations

import json
import math

import pytest

from microgpt.course.live import EVAL_DOCS, EVAL_EVERY, N_HEAD, SETTINGS, LiveRun, check_settings, command_line
from microgpt.data import Tokenizer, default_data_path
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import checkpoint
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import read_docs
from microgpt.train import train


def run_to_end(run: LiveRun) -> tuple[list[dict], list[dict]]:
    steps, reports = [], []
    while True:
        out = run.tick(budget=0.0)
        steps += out["steps"]
        reports += out["reports"]
        if out["finished"]:
            return steps, reports


def test_losses_are_those_of_train_with_the_command_lines_setup():
    steps, seed, lr, n_embd = 6, 7, 0.02, 6
    docs = read_docs(default_data_path(), seed=seed)
    tokenizer = Tokenizer.from_docs(docs)
    model = Model.init(GPTConfig(tokenizer.vocab_size, n_embd=n_embd, n_head=N_HEAD), seed=seed)
    expected = [p.loss for p in train(model, Adam(model.params, lr=lr, total_steps=steps), tokenizer, docs, steps)]
    got, _ = run_to_end(LiveRun(steps=steps, seed=seed, lr=lr, n_embd=n_embd))
    assert [s["loss"] for s in got] == expected
    assert [s["step"] for s in got] == list(range(1, steps + 1))


def test_gradient_norms_are_the_gradients_backward_leaves_before_the_update():
    run = LiveRun(steps=3)
    docs, tokenizer = run.docs, run.tokenizer
    model = Model.init(run.model.config, seed=run.settings["seed"])  # a twin, before any step
    from microgpt.train import train_step

    class NoUpdate(Adam):
        def step(self) -> None:  # keep the gradients to read them
            pass

    train_step(model, NoUpdate(model.params), tokenizer.encode(docs[0]))
    want = [math.sqrt(sum(p.grad**2 for row in m for p in row)) for m in model.state_dict.values()]
    while not (out := run.tick(budget=0.0))["steps"]:
        pass
    assert out["steps"][0]["norms"] == pytest.approx(want, rel=1e-12)
    assert json.loads(run.info_json())["names"] == list(model.state_dict)


def test_held_out_loss_and_samples_come_before_the_first_step_every_eval_every_and_at_the_end():
    _, reports = run_to_end(LiveRun(steps=EVAL_EVERY + 1))
    assert [r["step"] for r in reports] == [0, EVAL_EVERY, EVAL_EVERY + 1]
    assert reports[0]["held_out"] > reports[-1]["held_out"]
    assert all(len(r["samples"]) == 3 for r in reports)


def test_the_held_out_names_are_never_trained_on_within_the_bounds():
    run = LiveRun(steps=int(SETTINGS["steps"].high))
    assert SETTINGS["steps"].high <= len(run.docs) - EVAL_DOCS
    assert not set(run.held_out) & set(run.docs[: int(SETTINGS["steps"].high)])


def test_the_checkpoint_is_the_command_lines_format_and_loads(tmp_path):
    run = LiveRun(steps=2)
    run_to_end(run)
    path = tmp_path / "live.ckpt.json"
    path.write_text(run.checkpoint_text(str(tmp_path / "written.json")), encoding="ascii")
    model, tokenizer, meta = checkpoint.load(path)
    assert [p.data for p in model.params] == [p.data for p in run.model.params]
    assert meta["steps"] == 2 and not meta["interrupted"]


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("steps", 0, "--steps must be from 1"),
        ("steps", 2.5, "whole number"),
        ("lr", 0.0, "--lr must be from"),
        ("lr", math.nan, "must be a number"),
        ("n_embd", 7, "multiple of 2"),
        ("n_layer", 4, "--n-layer must be from 1 to 3"),
        ("seed", True, "must be a number"),
    ],
)
def test_settings_out_of_bounds_are_refused_with_the_flag_named(name, value, says):
    with pytest.raises(InputError, match=says):
        check_settings({name: value})


def test_the_defaults_are_the_pages_model_and_the_command_line_runs_them():
    values = check_settings({})
    assert values == {name: s.default for name, s in SETTINGS.items()}
    assert command_line(values).startswith(f"python -m microgpt train --n-head {N_HEAD} --lr 0.01 --steps 200")
