"""The model pinned without PyTorch: one training step against numbers PyTorch recorded once.

tests/golden/gpt_step.json holds the logits at every position, the loss and a few gradients of
every matrix, computed by an independent tensor implementation of the same model (see
tests/golden/regenerate.py). These tests need nothing but the standard library, so a change to
the forward pass (a norm's epsilon, the attention scale, the KV cache, a residual, the loss's
mean) fails here even where torch is not installed.
"""

import json
from pathlib import Path

import pytest

from microgpt.model import GPTConfig, Model, gpt
from microgpt.train import train_step

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "gpt_step.json").read_text(encoding="utf-8"))
TOL = {"rel": 1e-9, "abs": 1e-12}


class GradSnapshot:
    """Stands in for the optimizer: train_step calls .step() right after backward()."""

    def __init__(self, model: Model):
        self.model, self.grads = model, {}

    def step(self) -> None:
        self.grads = {name: [[p.grad for p in row] for row in mat] for name, mat in self.model.state_dict.items()}


def golden_model() -> Model:
    return Model.init(GPTConfig(**GOLDEN["config"]), seed=GOLDEN["seed"])


def test_logits_at_every_position_match_the_recorded_step():
    model, tokens = golden_model(), GOLDEN["tokens"]
    n_layer = model.config.n_layer
    keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]
    for pos, expected in enumerate(GOLDEN["logits"]):
        logits = [x.data for x in gpt(model, tokens[pos], pos, keys, values)]
        assert logits == pytest.approx(expected, **TOL), f"position {pos}"


def test_train_step_loss_and_gradients_match_the_recorded_step():
    model = golden_model()
    snapshot = GradSnapshot(model)
    loss = train_step(model, snapshot, GOLDEN["tokens"])
    assert loss == pytest.approx(GOLDEN["loss"], **TOL)
    for name, picks in GOLDEN["grads"].items():
        for row, col, expected in picks:
            assert snapshot.grads[name][row][col] == pytest.approx(expected, **TOL), f"{name}[{row}][{col}]"


def test_the_recording_covers_every_matrix_of_the_model():
    assert set(GOLDEN["grads"]) == set(golden_model().state_dict)
    assert len(GOLDEN["logits"]) == len(GOLDEN["tokens"]) - 1
