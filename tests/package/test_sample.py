"""Sampling: seeded, bounded by BOS and block_size, and only ever the vocabulary's characters."""

import random

import pytest

from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.model import GPTConfig, Model
from microgpt.sample import sample


@pytest.fixture(scope="module")
def names():
    tokenizer = Tokenizer.from_docs(load_docs(default_data_path()))
    return Model.init(GPTConfig(tokenizer.vocab_size, n_embd=8, n_head=2, block_size=8)), tokenizer


class ScriptedRng:
    """Stands in for random.Random: returns the given token ids in turn and records each distribution."""

    def __init__(self, ids):
        self.ids, self.weights = list(ids), []

    def choices(self, population, weights):
        self.weights.append(weights)
        return [self.ids.pop(0)]


def test_same_seed_gives_the_same_samples(names):
    model, tokenizer = names
    rng_a, rng_b = random.Random(3), random.Random(3)
    assert [sample(model, tokenizer, rng_a) for _ in range(5)] == [sample(model, tokenizer, rng_b) for _ in range(5)]


def test_different_seeds_give_different_samples(names):
    model, tokenizer = names
    rng_1, rng_2 = random.Random(1), random.Random(2)
    assert [sample(model, tokenizer, rng_1) for _ in range(10)] != [sample(model, tokenizer, rng_2) for _ in range(10)]


def test_sampling_stops_at_bos(names):
    model, tokenizer = names
    rng = ScriptedRng([0, 1, tokenizer.bos, 2])
    assert sample(model, tokenizer, rng) == tokenizer.chars[0] + tokenizer.chars[1]
    assert len(rng.weights) == 3


def test_sampling_stops_after_block_size_tokens(names):
    model, tokenizer = names
    rng = ScriptedRng([0] * 100)
    assert sample(model, tokenizer, rng) == tokenizer.chars[0] * model.config.block_size


def test_sampling_draws_from_a_probability_distribution_over_the_vocabulary(names):
    model, tokenizer = names
    rng = ScriptedRng([tokenizer.bos])
    sample(model, tokenizer, rng)
    (weights,) = rng.weights
    assert len(weights) == tokenizer.vocab_size
    assert sum(weights) == pytest.approx(1.0)


def test_lower_temperature_sharpens_the_distribution(names):
    model, tokenizer = names
    cold, hot = ScriptedRng([tokenizer.bos]), ScriptedRng([tokenizer.bos])
    sample(model, tokenizer, cold, temperature=0.1)
    sample(model, tokenizer, hot, temperature=2.0)
    assert max(cold.weights[0]) > max(hot.weights[0])


def test_samples_hold_only_vocabulary_characters_and_fit_block_size(names):
    model, tokenizer = names
    rng = random.Random(0)
    for _ in range(30):
        text = sample(model, tokenizer, rng, temperature=1.0)
        assert set(text) <= set(tokenizer.chars)
        assert len(text) <= model.config.block_size
