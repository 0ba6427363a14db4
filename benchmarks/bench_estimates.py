"""The command line's cost estimates beside what the work really costs, at the bound; not a test.

For each shape, block_size is the longest the bound allows (limits.longest_block), and two runs are
measured, each in a fresh Python: a training step over a document that fills the block (as train()
runs it, the cyclic garbage collector paused), and a sample that runs all block_size tokens (BOS never
drawn, through the command line's own one_sample). Printed side by side: the estimate the refusal
message and --help give (limits.step_cost, limits.sample_cost), the measurement, and their ratio.

CPU time is time.process_time(): these machines are shared, and wall time would measure the
neighbours. Peak memory is the process's peak resident size (ru_maxrss) less its size just before
the run: what the machine really gives up, allocator included.

Usage: .venv/bin/python benchmarks/bench_estimates.py   (about five minutes; `make bench-estimates`)
"""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import subprocess
import sys
import time

from microgpt.cli.main import one_sample
from microgpt.data import Tokenizer
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import limits
from microgpt.train import cyclic_gc_paused, train_step

# (vocab_size, n_layer, n_embd, n_head): the default model, wide ones, deep ones, a narrow one whose
# block is long, and a large vocabulary.
SHAPES = [
    (27, 1, 16, 4),
    (27, 1, 64, 4),
    (27, 1, 140, 4),
    (27, 2, 32, 4),
    (27, 4, 16, 4),
    (3, 1, 1, 1),
    (3, 1000, 1, 1),
    (2000, 1, 16, 4),
]
CHARS = "".join(chr(0x100 + i) for i in range(max(v for v, *_ in SHAPES)))


class FirstToken(random.Random):
    """Always draws the first token, never BOS: the sample runs to block_size, the longest it can."""

    def choices(self, population, weights=None, **kwargs):  # type: ignore[no-untyped-def, override]
        return [population[0]]


def at_the_bound(shape: tuple[int, int, int, int]) -> GPTConfig:
    vocab_size, n_layer, n_embd, n_head = shape
    config = GPTConfig(vocab_size, n_layer=n_layer, n_embd=n_embd, n_head=n_head)
    return GPTConfig(vocab_size, n_layer, n_embd, n_head, block_size=limits.longest_block(config))


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(kind: str, shape: tuple[int, int, int, int]) -> dict[str, float]:
    """One run of `kind` (train or sample) at the bound, in this process: CPU seconds and peak bytes."""
    config = at_the_bound(shape)
    model = Model.init(config)
    tokenizer = Tokenizer(CHARS[: config.vocab_size - 1])
    if kind == "train":
        optimizer = Adam(model.params)
        tokens = tokenizer.encode(tokenizer.chars[0] * (config.block_size - 1))  # block_size positions

        def run() -> None:
            with cyclic_gc_paused():
                train_step(model, optimizer, tokens)
    else:

        def run() -> None:
            one_sample(model, tokenizer, FirstToken(), 0.5)

    gc.collect()
    before = resident_bytes()
    start = time.process_time()
    run()
    seconds = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    return {"seconds": seconds, "bytes": peak - before}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(measure(sys.argv[2], tuple(map(int, sys.argv[3:])))))  # type: ignore[arg-type]
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU time by time.process_time()")
    print(
        f"{'shape (vocab, layers, width, heads)':36} {'block':>6} {'run':6} {'Values':>10}  "
        f"{'est. s':>7} {'meas. s':>7} {'ratio':>5}  {'est. MB':>8} {'meas. MB':>8} {'ratio':>5}"
    )
    ratios: dict[str, list[float]] = {"seconds": [], "bytes": []}
    for shape in SHAPES:
        config = at_the_bound(shape)
        for kind, estimate in (("train", limits.step_cost), ("sample", limits.sample_cost)):
            cost = estimate(config, config.block_size)
            out = subprocess.run(
                [sys.executable, __file__, "--one", kind, *map(str, shape)], capture_output=True, text=True, check=True
            ).stdout
            measured = json.loads(out)
            t, m = cost.seconds / measured["seconds"], cost.bytes / measured["bytes"]
            ratios["seconds"].append(t)
            ratios["bytes"].append(m)
            print(
                f"{str(shape):36} {config.block_size:>6} {kind:6} {cost.values:>10,}  "
                f"{cost.seconds:7.2f} {measured['seconds']:7.2f} {t:5.2f}  "
                f"{cost.bytes / 1e6:8.0f} {measured['bytes'] / 1e6:8.0f} {m:5.2f}",
                flush=True,
            )
    print(
        f"estimate / measured: CPU time {min(ratios['seconds']):.2f} to {max(ratios['seconds']):.2f}, "
        f"memory {min(ratios['bytes']):.2f} to {max(ratios['bytes']):.2f}"
    )


if __name__ == "__main__":
    main()
