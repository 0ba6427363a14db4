"""The same GPT as microgpt.model, written again with PyTorch tensors: the independent oracle of
tests/package/test_torch.py and tests/golden/regenerate.py. A helper, not a test; it needs torch."""

import math

import torch

from microgpt.model import GPTConfig

torch.set_default_dtype(torch.float64)


def torch_gpt_loss(config: GPTConfig, weights: dict, tokens: list[int], logits_out: list | None = None):
    """microgpt's forward pass and loss, written again with torch tensors; logits_out collects the logits."""

    def rmsnorm(x):
        return x * ((x * x).mean() + 1e-5) ** -0.5

    hd = config.head_dim
    keys, values, losses = [[] for _ in range(config.n_layer)], [[] for _ in range(config.n_layer)], []
    for pos, (tok, target) in enumerate(zip(tokens, tokens[1:])):
        x = rmsnorm(weights["wte"][tok] + weights["wpe"][pos])
        for i in range(config.n_layer):
            h = rmsnorm(x)
            q = weights[f"layer{i}.attn_wq"] @ h
            keys[i].append(weights[f"layer{i}.attn_wk"] @ h)
            values[i].append(weights[f"layer{i}.attn_wv"] @ h)
            K, V = torch.stack(keys[i]), torch.stack(values[i])
            heads = []
            for head in range(config.n_head):
                s = slice(head * hd, (head + 1) * hd)
                att = torch.softmax(K[:, s] @ q[s] / math.sqrt(hd), dim=0)
                heads.append(att @ V[:, s])
            x = weights[f"layer{i}.attn_wo"] @ torch.cat(heads) + x
            h = torch.relu(weights[f"layer{i}.mlp_fc1"] @ rmsnorm(x))
            x = weights[f"layer{i}.mlp_fc2"] @ h + x
        logits = weights["lm_head"] @ x
        if logits_out is not None:
            logits_out.append(logits.tolist())
        losses.append(-torch.log_softmax(logits, dim=0)[target])
    return torch.stack(losses).mean()
