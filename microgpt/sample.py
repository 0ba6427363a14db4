"""Sampling: feed the model its own predictions, one token at a time."""

import random

from microgpt.data import Tokenizer
from microgpt.model import Model, Vector, gpt, softmax


def sample(model: Model, tokenizer: Tokenizer, rng: random.Random, temperature: float = 0.5) -> str:
    """Generate one document, starting from BOS and stopping at BOS or after block_size tokens."""
    keys: list[list[Vector]] = [[] for _ in range(model.config.n_layer)]  # per layer, one vector per position
    values: list[list[Vector]] = [[] for _ in range(model.config.n_layer)]
    token_id, out = tokenizer.bos, []
    for pos_id in range(model.config.block_size):
        logits = gpt(model, token_id, pos_id, keys, values)
        probs = softmax([logit / temperature for logit in logits])  # < 1 sharpens, > 1 flattens
        token_id = rng.choices(range(tokenizer.vocab_size), weights=[p.data for p in probs])[0]
        if token_id == tokenizer.bos:
            break
        out.append(token_id)
    return tokenizer.decode(out)
