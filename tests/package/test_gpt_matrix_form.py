"""The NumPy form of gpt()'s backward (microgpt/course/matrix_form.py) against the scalar engine's .grad
and against PyTorch's autograd, on real documents and on several initialisations."""

import pytest
from torch_or_skip import require_torch

from microgpt import GPTConfig, Model, Tokenizer, default_data_path, load_docs
from microgpt.course.exercises import first_step, grad, record

np = pytest.importorskip("numpy")
from microgpt.course import matrix_form as mf  # noqa: E402 (needs NumPy)


@pytest.fixture(scope="module")
def torch():
    """PyTorch for the tests that compare with it; the engine comparisons run without it."""
    return require_torch()


ACTIVATIONS = ("embedded", "x0", "attn_in", "attn_out", "x1", "mlp_in", "hidden", "relu", "mlp_out", "x2", "logits")


@pytest.fixture(scope="module")
def corpus():
    docs = load_docs(default_data_path())
    return Tokenizer.from_docs(docs), docs


def _engine_step(seed: int, tokens: list[int], vocab_size: int, **shape):
    step = record(Model.init(GPTConfig(vocab_size=vocab_size, **shape), seed), tokens)
    step.loss.backward()
    return step


def test_forward_gives_the_engines_loss_and_logits():
    step = first_step()
    c = mf.forward(mf.weights(step.model), step.tokens, step.model.config.n_head)
    assert c["loss"] == pytest.approx(step.loss.data, abs=1e-14)
    engine = np.array([[v.data for v in pos.logits] for pos in step.positions])
    assert np.abs(c["logits"] - engine).max() < 1e-14


@pytest.mark.parametrize(("seed", "doc"), [(42, 0), (0, 1), (1, 7), (2, 30)])
def test_backward_gives_the_engines_grad_at_every_parameter_and_activation(corpus, seed, doc):
    tokenizer, docs = corpus
    step = _engine_step(seed, tokenizer.encode(docs[doc]), tokenizer.vocab_size)
    w = mf.weights(step.model)
    d = mf.backward(w, mf.forward(w, step.tokens, step.model.config.n_head))
    for name, mat in step.model.state_dict.items():
        assert np.abs(d[name] - np.array([grad(row) for row in mat])).max() < 1e-15, name
    for name in ACTIVATIONS:
        engine = np.array([grad(getattr(pos, name)) for pos in step.positions])
        assert np.abs(d[name] - engine).max() < 1e-15, name
    assert np.abs(d["k"] - np.array([grad(k) for k in step.keys])).max() < 1e-15
    assert np.abs(d["v"] - np.array([grad(v) for v in step.values])).max() < 1e-15


def test_causal_mask_keeps_later_tokens_out_of_earlier_positions():
    step = first_step()
    w, tokens = mf.weights(step.model), list(step.tokens)
    changed = tokens[:4] + [(t + 5) % step.model.config.vocab_size for t in tokens[4:]]
    a, b = (mf.forward(w, t, step.model.config.n_head)["logits"] for t in (tokens, changed))
    assert np.array_equal(a[:4], b[:4]) and not np.array_equal(a[4:], b[4:])
    c = mf.forward(w, tokens, step.model.config.n_head)
    assert np.all(np.triu(c["p"][0], k=1) == 0)


def _torch_loss(torch, w: dict, tokens: list[int], n_head: int):
    """The same model written with PyTorch's own operations (its softmax, log_softmax, masked_fill)."""
    T = len(tokens) - 1
    ids, targets = torch.tensor(tokens[:-1]), torch.tensor(tokens[1:])

    def rms(x):
        return x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + 1e-5)

    x0 = rms(w["wte"][ids] + w["wpe"][:T])
    a = rms(x0)
    d_h = a.shape[1] // n_head
    q, k, v = ((a @ w[f"layer0.attn_w{m}"].T).view(T, n_head, d_h).transpose(0, 1) for m in ("q", "k", "v"))
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    p = torch.softmax((q @ k.transpose(1, 2) / d_h**0.5).masked_fill(mask, float("-inf")), dim=-1)
    x1 = x0 + (p @ v).transpose(0, 1).reshape(T, -1) @ w["layer0.attn_wo"].T
    x2 = x1 + torch.relu(rms(x1) @ w["layer0.mlp_fc1"].T) @ w["layer0.mlp_fc2"].T
    return torch.nn.functional.cross_entropy(x2 @ w["lm_head"].T, targets)


@pytest.mark.parametrize(("seed", "doc", "n_embd", "n_head"), [(42, 0, 16, 4), (3, 5, 16, 4), (7, 11, 32, 2)])
def test_backward_matches_pytorch_autograd(torch, corpus, seed, doc, n_embd, n_head):
    tokenizer, docs = corpus
    tokens = tokenizer.encode(docs[doc])
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size, n_embd=n_embd, n_head=n_head), seed)
    w = mf.weights(model)
    c = mf.forward(w, tokens, n_head)
    d = mf.backward(w, c)
    tw = {name: torch.tensor(m, dtype=torch.float64, requires_grad=True) for name, m in w.items()}
    loss = _torch_loss(torch, tw, tokens, n_head)
    loss.backward()
    assert loss.item() == pytest.approx(float(c["loss"]), abs=1e-13)
    for name, t in tw.items():
        assert np.allclose(d[name], t.grad.numpy(), rtol=1e-10, atol=1e-15), name


@pytest.mark.parametrize("seed", range(3))
def test_attention_backward_matches_pytorch_on_random_heads(torch, seed):
    rng = np.random.default_rng(seed)
    n_head, T, d_h = 2, 5, 3
    q, k, v, g = (rng.normal(size=(n_head, T, d_h)) for _ in range(4))
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    p = mf.softmax(np.where(mask, -np.inf, q @ k.transpose(0, 2, 1) / np.sqrt(d_h)).reshape(-1, T)).reshape(
        n_head, T, T
    )
    dq, dk, dv, _, ds = mf.attention_backward(q, k, v, p, g)
    tq, tk, tv = (torch.tensor(m, requires_grad=True) for m in (q, k, v))
    scores = (tq @ tk.transpose(1, 2) / d_h**0.5).masked_fill(torch.tensor(mask), float("-inf"))
    (torch.softmax(scores, dim=-1) @ tv * torch.tensor(g)).sum().backward()
    for mine, theirs in ((dq, tq), (dk, tk), (dv, tv)):
        assert np.allclose(mine, theirs.grad.numpy(), rtol=1e-10, atol=1e-14)
    assert np.all(ds[:, mask] == 0)  # no gradient reaches a masked score


def test_nothing_in_the_package_imports_the_numpy_module():
    import ast
    from pathlib import Path

    package = Path(mf.__file__).resolve().parents[1]
    for path in package.rglob("*.py"):
        if path.name == "matrix_form.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not {m for m in imported if "matrix_form" in m or m.split(".")[0] == "numpy"}, path
