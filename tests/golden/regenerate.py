"""Record tests/golden/gpt_step.json: one gpt() training step as PyTorch computes it.

The file pins the model's forward pass and gradients for tests that must run without PyTorch
(tests/test_golden.py). PyTorch is the independent oracle: its numbers come from
`torch_gpt_loss` in tests/torch_gpt.py, a second implementation of the same model with tensors,
fed microgpt's initial weights. Regenerate only when the model itself is meant to change:

    .venv/bin/python tests/golden/regenerate.py      # needs torch (the `torch` extra)
"""

import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for torch_gpt

from torch_gpt import torch_gpt_loss  # noqa: E402

from microgpt.model import GPTConfig, Model  # noqa: E402

CONFIG = {"vocab_size": 7, "n_layer": 2, "n_embd": 8, "n_head": 2, "block_size": 6}
SEED = 3
TOKENS = [6, 0, 3, 5, 1, 6]
# a few gradients from every matrix: first row, last row, a middle entry
PICKS = 3


def picks(rows: int, cols: int) -> list[tuple[int, int]]:
    return [(0, 0), (rows - 1, cols - 1), (rows // 2, cols // 3)][:PICKS]


def main() -> None:
    torch.set_default_dtype(torch.float64)
    config = GPTConfig(**CONFIG)
    model = Model.init(config, seed=SEED)
    weights = {
        name: torch.tensor([[p.data for p in row] for row in mat], requires_grad=True)
        for name, mat in model.state_dict.items()
    }
    logits: list[list[float]] = []
    loss = torch_gpt_loss(config, weights, TOKENS, logits_out=logits)
    loss.backward()
    grads = {}
    for name, w in weights.items():
        rows, cols = w.shape
        grads[name] = [[r, c, w.grad[r, c].item()] for r, c in picks(rows, cols)]
    doc = {
        "about": "one gpt() step computed by PyTorch " + torch.__version__ + "; regenerate with "
        "tests/golden/regenerate.py",
        "config": CONFIG,
        "seed": SEED,
        "tokens": TOKENS,
        "logits": logits,
        "loss": loss.item(),
        "grads": grads,
    }
    (HERE / "gpt_step.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {HERE / 'gpt_step.json'}: loss {loss.item():.12f}")


if __name__ == "__main__":
    main()
