"""gpt()'s forward and backward over a whole document at once, in NumPy: one matrix row per position.

For the page "The same backward in matrix form". NumPy is not a dependency of microgpt: nothing in the
package imports this module, and the browser's Python cannot run it.
"""

import numpy as np

from microgpt.model import Model

EPS = 1e-5  # rmsnorm()'s epsilon


def weights(model: Model) -> dict[str, np.ndarray]:
    """Every weight matrix of the model as a NumPy array of its numbers, by the same names."""
    return {name: np.array([[p.data for p in row] for row in mat]) for name, mat in model.state_dict.items()}


def rmsnorm(x: np.ndarray) -> np.ndarray:
    """Each row rescaled to a root-mean-square of 1."""
    return x * (np.mean(x * x, axis=1, keepdims=True) + EPS) ** -0.5


def softmax(s: np.ndarray) -> np.ndarray:
    """Softmax of each row; subtracting the row's max keeps exp() from overflowing (-inf gives 0)."""
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def forward(w: dict[str, np.ndarray], tokens: list[int], n_head: int) -> dict[str, np.ndarray]:
    """The one-block GPT on every position of a document at once; returns every intermediate, by name."""
    T = len(tokens) - 1  # positions that have a next token
    ids, targets = np.array(tokens[:-1]), np.array(tokens[1:])
    c: dict[str, np.ndarray] = {"ids": ids, "targets": targets}
    c["embedded"] = w["wte"][ids] + w["wpe"][:T]  # (T, n): one row per position
    c["x0"] = rmsnorm(c["embedded"])
    c["attn_in"] = a = rmsnorm(c["x0"])
    q, k, v = a @ w["layer0.attn_wq"].T, a @ w["layer0.attn_wk"].T, a @ w["layer0.attn_wv"].T
    d_h = q.shape[1] // n_head
    # heads as a leading axis: (n_head, T, d_h)
    c["q"], c["k"], c["v"] = (m.reshape(T, n_head, d_h).transpose(1, 0, 2) for m in (q, k, v))
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)  # True above the diagonal: a later position
    s = c["q"] @ c["k"].transpose(0, 2, 1) / np.sqrt(d_h)  # (n_head, T, T): row t, column u
    c["scores"] = np.where(mask, -np.inf, s)  # the causal mask: position t reads keys 0..t only
    c["p"] = softmax(c["scores"].reshape(-1, T)).reshape(n_head, T, T)
    c["heads"] = (c["p"] @ c["v"]).transpose(1, 0, 2).reshape(T, n_head * d_h)  # heads side by side
    c["attn_out"] = c["heads"] @ w["layer0.attn_wo"].T
    c["x1"] = c["attn_out"] + c["x0"]
    c["mlp_in"] = rmsnorm(c["x1"])
    c["hidden"] = c["mlp_in"] @ w["layer0.mlp_fc1"].T
    c["relu"] = np.maximum(c["hidden"], 0)
    c["mlp_out"] = c["relu"] @ w["layer0.mlp_fc2"].T
    c["x2"] = c["mlp_out"] + c["x1"]
    c["logits"] = c["x2"] @ w["lm_head"].T
    c["probs"] = softmax(c["logits"])
    c["loss"] = -np.log(c["probs"][np.arange(T), targets]).mean()
    return c


def rmsnorm_backward(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """dL/dx for o = rmsnorm(x), row by row: r g - (r^3 / n) (g . x) x."""
    n = x.shape[1]
    r = (np.mean(x * x, axis=1, keepdims=True) + EPS) ** -0.5
    return r * g - r**3 / n * np.sum(g * x, axis=1, keepdims=True) * x


def attention_backward(q, k, v, p, d_heads):
    """Given dO (d_heads, one (T, d_h) matrix per head): dQ, dK, dV, and dP, dS, per head."""
    d_h = q.shape[-1]
    dv = p.transpose(0, 2, 1) @ d_heads  # dV = P^T dO: each value gets what every query that read it sends
    dp = d_heads @ v.transpose(0, 2, 1)  # dP = dO V^T
    ds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True))  # the softmax's rule, row by row; masked P = 0
    dq = ds @ k / np.sqrt(d_h)  # dQ = dS K / sqrt(d_h)
    dk = ds.transpose(0, 2, 1) @ q / np.sqrt(d_h)  # dK = dS^T Q / sqrt(d_h)
    return dq, dk, dv, dp, ds


def backward(w: dict[str, np.ndarray], c: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The gradient of the mean loss at every weight matrix (by name) and at every intermediate (d + its name)."""
    T, n_head = len(c["ids"]), c["q"].shape[0]
    d: dict[str, np.ndarray] = {}
    y = np.zeros_like(c["probs"])
    y[np.arange(T), c["targets"]] = 1.0  # one-hot rows
    d["logits"] = (c["probs"] - y) / T  # softmax with cross-entropy, mean over T positions
    d["lm_head"] = d["logits"].T @ c["x2"]  # linear: dW = G^T X, summed over positions by the matmul
    d["x2"] = d["logits"] @ w["lm_head"]  # dX = G W
    d["mlp_out"] = d["x2"]  # the residual add copies the gradient
    d["layer0.mlp_fc2"] = d["mlp_out"].T @ c["relu"]
    d["relu"] = d["mlp_out"] @ w["layer0.mlp_fc2"]
    d["hidden"] = d["relu"] * (c["hidden"] > 0)  # ReLU: a mask
    d["layer0.mlp_fc1"] = d["hidden"].T @ c["mlp_in"]
    d["mlp_in"] = d["hidden"] @ w["layer0.mlp_fc1"]
    d["x1"] = d["x2"] + rmsnorm_backward(c["x1"], d["mlp_in"])  # the highway plus the branch
    d["attn_out"] = d["x1"]
    d["layer0.attn_wo"] = d["attn_out"].T @ c["heads"]
    d["heads"] = d["attn_out"] @ w["layer0.attn_wo"]
    d_h = d["heads"].shape[1] // n_head
    d_heads = d["heads"].reshape(T, n_head, d_h).transpose(1, 0, 2)
    dq, dk, dv, d["p"], d["scores"] = attention_backward(c["q"], c["k"], c["v"], c["p"], d_heads)
    d["q"], d["k"], d["v"] = (m.transpose(1, 0, 2).reshape(T, n_head * d_h) for m in (dq, dk, dv))
    for name in ("q", "k", "v"):
        d[f"layer0.attn_w{name}"] = d[name].T @ c["attn_in"]
    d["attn_in"] = sum(d[name] @ w[f"layer0.attn_w{name}"] for name in ("q", "k", "v"))  # its three uses (q, k, v) add
    d["x0"] = d["x1"] + rmsnorm_backward(c["x0"], d["attn_in"])
    d["embedded"] = rmsnorm_backward(c["embedded"], d["x0"])
    d["wte"] = np.zeros_like(w["wte"])
    np.add.at(d["wte"], c["ids"], d["embedded"])  # scatter-add: a letter used twice gets both rows
    d["wpe"] = np.zeros_like(w["wpe"])
    d["wpe"][:T] = d["embedded"]  # each position is used once
    return d
