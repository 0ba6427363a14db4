"""Training watched live: the command line's run, a step at a time, with what a picture of it needs.

The training page's Train widget (docs/javascripts/train/) runs this module in the reader's browser.
A `LiveRun` is `python -m microgpt train` with the shipped names: the same documents in the same
order (read_docs with the seed), the same model (Model.init with the seed), the same `Adam` and the
same `train()` generator, so its losses are the command line's. Between the backward pass and the
update it reads each matrix's gradient norm, and every few steps it measures a held-out loss and
draws a few samples. The taught modules are not touched: the norms are read by an `Adam` that looks
at the gradients before its own step.

The bounds of the widget's form are written once, in SETTINGS (the build hands them to the form):
each lies within what the command line accepts (at least 1 step, a positive learning rate, a
shape limits.check_config passes, which LiveRun checks too), and the upper ones keep a run in a
browser tab short.
"""

import json
import math
import random
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from microgpt import __version__
from microgpt.data import Tokenizer, default_data_path
from microgpt.model import GPTConfig, Model, Vector, gpt, softmax
from microgpt.optim import Adam
from microgpt.runtime import checkpoint
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import check_config, check_fits, read_docs
from microgpt.sample import sample
from microgpt.train import Progress, cyclic_gc_paused, train

# The model the training page teaches with (its short run): n_embd 8 in 2 heads, one layer.
N_HEAD = 2
EVAL_DOCS = 32  # the held-out set: the last names of the shuffled list, which a run of MAX_STEPS never reaches
EVAL_EVERY = 40  # steps between held-out losses and between samples
SAMPLES = 3
MEAN_WINDOW = 20  # the running mean of the per-step losses: the last this many steps
TEMPERATURE = 0.5  # the command line's default for sample
COMMAND = f"python -m microgpt train --n-head {N_HEAD}"  # the settings' flags follow


@dataclass(frozen=True)
class Setting:
    """One field of the form: its flag on the command line, bounds, default, and the step between values."""

    flag: str
    label: str
    low: float
    high: float
    default: float
    step: float
    integer: bool = True


SETTINGS = {
    "lr": Setting("--lr", "Learning rate", 0.001, 0.1, 0.01, 0.001, integer=False),
    "steps": Setting("--steps", "Steps", 1, 2000, 200, 1),
    "n_embd": Setting("--n-embd", "Width (n_embd)", 2 * N_HEAD, 32, 8, N_HEAD),  # a multiple of the heads
    "n_layer": Setting("--n-layer", "Layers (n_layer)", 1, 3, 1, 1),
    "seed": Setting("--seed", "Seed", 0, 2**31 - 1, 42, 1),
}


def check_settings(values: dict[str, float]) -> dict[str, Any]:
    """The settings, each within its bounds and of its kind; InputError names the first that is not."""
    out: dict[str, Any] = {}
    for name, s in SETTINGS.items():
        value = values.get(name, s.default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(f"{s.flag} must be a number, got {value!r}")
        if s.integer and value != int(value):
            raise InputError(f"{s.flag} must be a whole number, got {value!r}")
        if not s.low <= value <= s.high:
            raise InputError(f"{s.flag} must be from {s.low:g} to {s.high:g} here, got {value:g}")
        if s.integer and (int(value) - int(s.low)) % int(s.step):
            raise InputError(f"{s.flag} must be a multiple of {s.step:g}, got {value:g}")
        out[name] = int(value) if s.integer else float(value)
    return out


def form_json() -> str:
    """SETTINGS, and the fixed part of the command line, as the widget's form reads them (JSON)."""
    return json.dumps(
        {
            "settings": {name: asdict(s) for name, s in SETTINGS.items()},
            "command": COMMAND,
            "eval_every": EVAL_EVERY,
            "eval_docs": EVAL_DOCS,
        }
    )


def command_line(values: dict[str, Any]) -> str:
    """The `python -m microgpt train` command that runs what these settings run."""
    flags = " ".join(f"{SETTINGS[name].flag} {values[name]:g}" for name in SETTINGS)
    return f"{COMMAND} {flags}"


class NormReadingAdam(Adam):
    """Adam, which first reads the gradient norm of each named matrix: its step zeroes the gradients."""

    def __init__(self, model: Model, lr: float, total_steps: int):
        super().__init__(model.params, lr=lr, total_steps=total_steps)
        self.model = model
        self.norms: dict[str, float] = {}

    def step(self) -> None:
        self.norms = {
            name: math.sqrt(sum(p.grad * p.grad for row in matrix for p in row))
            for name, matrix in self.model.state_dict.items()
        }
        super().step()


def held_out_loss(model: Model, tokenizer: Tokenizer, docs: list[str]) -> float:
    """The mean over docs of each one's loss as train_step computes it, without a backward pass."""
    total = 0.0
    for doc in docs:
        tokens = tokenizer.encode(doc)
        n = len(tokens) - 1  # positions that have a next token to predict
        keys: list[list[Vector]] = [[] for _ in range(model.config.n_layer)]
        values: list[list[Vector]] = [[] for _ in range(model.config.n_layer)]
        for pos_id in range(n):
            probs = softmax(gpt(model, tokens[pos_id], pos_id, keys, values))
            total += -math.log(probs[tokens[pos_id + 1]].data) / n
    return total / len(docs)


class LiveRun:
    """`python -m microgpt train` on the shipped names with these settings, advanced a little at a time.

    The work comes in units, a training step or the held-out loss of one document, and `tick` does
    units until a time budget is spent: the widget calls it again and again, so a pause waits for
    one unit at most, never for a whole evaluation.
    """

    def __init__(self, **values: float):
        self.settings = check_settings(values)
        seed, steps = self.settings["seed"], self.settings["steps"]
        self.docs = read_docs(default_data_path(), seed=seed)
        self.tokenizer = Tokenizer.from_docs(self.docs)
        config = GPTConfig(
            self.tokenizer.vocab_size, n_layer=self.settings["n_layer"], n_embd=self.settings["n_embd"], n_head=N_HEAD
        )
        check_config(config)
        check_fits(self.docs, config.block_size)
        self.model = Model.init(config, seed=seed)
        self.optimizer = NormReadingAdam(self.model, lr=self.settings["lr"], total_steps=steps)
        self.held_out = self.docs[-EVAL_DOCS:]
        self.done = 0
        self.recent: deque[float] = deque(maxlen=MEAN_WINDOW)
        self.work = self._work(train(self.model, self.optimizer, self.tokenizer, self.docs, steps))

    def info_json(self) -> str:
        """What the widget draws the run with: the matrices' names in the model's order, and ln V."""
        vocab = self.tokenizer.vocab_size
        return json.dumps(
            {
                "names": list(self.model.state_dict),
                "vocab_size": vocab,
                "uniform": math.log(vocab),
                "mean_window": MEAN_WINDOW,
                "command": command_line(self.settings),
            }
        )

    def _work(self, run: Iterator[Progress]) -> Iterator[dict[str, Any] | None]:
        """An evaluation before the first step, then steps with one every EVAL_EVERY steps and at the end.

        Yields a step's record or an evaluation's report, and None after each document evaluated.
        """
        yield from self._evaluation(0)
        for p in run:
            if not math.isfinite(p.loss):
                raise InputError(f"training diverged at step {p.step} (loss {p.loss}); try a smaller --lr")
            self.done = p.step
            self.recent.append(p.loss)
            mean = sum(self.recent) / len(self.recent)
            yield {"step": p.step, "loss": p.loss, "mean": mean, "norms": list(self.optimizer.norms.values())}
            if p.step % EVAL_EVERY == 0 or p.step == p.steps:
                yield from self._evaluation(p.step)

    def _evaluation(self, step: int) -> Iterator[dict[str, Any] | None]:
        total = 0.0
        for doc in self.held_out:
            with cyclic_gc_paused():  # as train() pauses it for a step: the forward graph holds no cycles
                total += held_out_loss(self.model, self.tokenizer, [doc])
            yield None
        rng = random.Random(step)  # the same samples from the same weights, whatever came before
        samples = [sample(self.model, self.tokenizer, rng, TEMPERATURE) for _ in range(SAMPLES)]
        yield {"step": step, "held_out": total / len(self.held_out), "samples": samples}

    def tick(self, budget: float = 0.05) -> dict[str, Any]:
        """Units of work until `budget` seconds have passed (one at least): the steps and reports they made."""
        steps: list[dict[str, Any]] = []
        reports: list[dict[str, Any]] = []
        start = time.perf_counter()
        while True:
            try:
                item = next(self.work)
            except StopIteration:
                return {"steps": steps, "reports": reports, "finished": True}
            if item is not None:
                (steps if "loss" in item else reports).append(item)
            if time.perf_counter() - start >= budget:
                return {"steps": steps, "reports": reports, "finished": False}

    def tick_json(self, budget: float = 0.05) -> str:
        return json.dumps(self.tick(budget))

    def save(self, path: str | Path) -> None:
        """The checkpoint `python -m microgpt sample --ckpt` reads: the command line's format and meta."""
        meta = {
            "steps": self.done,
            "steps_planned": self.settings["steps"],
            "interrupted": self.done < self.settings["steps"],
            "seed": self.settings["seed"],
            "lr": self.settings["lr"],
            "data": "the shipped names",
            "microgpt_version": __version__,
            "trained_by": "the training page's Train widget",
        }
        checkpoint.save(path, self.model, self.tokenizer, meta)

    def checkpoint_text(self, path: str = "/tmp/microgpt.ckpt.json") -> str:
        """The checkpoint as save() writes it (to path, then read back): the text of a JSON file."""
        self.save(path)
        return Path(path).read_text(encoding="ascii")
