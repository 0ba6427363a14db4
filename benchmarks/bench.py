"""Performance figures for microgpt, printed as plain numbers (run with `make bench`).

Each figure is measured next to its comparison in the same run, so read the ratios: these
machines are shared and absolute times move with the load.

1. ms per training step at the default config (median of a 100-step run on the shipped data),
   with the cyclic garbage collector paused during each step (what microgpt.train does) and
   with it left running (what a plain loop gets).
2. backward() throughput in graph nodes per second, on a chain of about a million nodes and on
   a real training step's graph.
3. the deepest chain backward() handled, next to where a recursive topological sort gives up.
4. peak memory (peak RSS) of a full 1000-step training run, in a fresh process.
"""

import gc
import resource
import statistics
import subprocess
import sys
import time

from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, gpt, softmax
from microgpt.optim import Adam
from microgpt.train import cyclic_gc_paused, train, train_step


def count_nodes(root: Value) -> int:
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(v._children)
    return len(seen)


def step_times(steps: int, pause_gc: bool) -> list[float]:
    docs = load_docs(default_data_path())
    tokenizer = Tokenizer.from_docs(docs)
    model = Model.init(GPTConfig(tokenizer.vocab_size))
    optimizer = Adam(model.params, total_steps=1000)
    times = []
    for step in range(steps):
        tokens = tokenizer.encode(docs[step])
        start = time.perf_counter()
        if pause_gc:
            with cyclic_gc_paused():
                train_step(model, optimizer, tokens)
        else:
            train_step(model, optimizer, tokens)
        times.append(time.perf_counter() - start)
    return times


def chain(n_ops: int) -> tuple[Value, Value]:
    x0 = x = Value(1.0)
    for _ in range(n_ops // 2):
        x = x * 1.000001 + 0.1  # two ops, two constant leaves
    return x0, x


def backward_rate(root: Value) -> tuple[int, float]:
    nodes = count_nodes(root)
    start = time.perf_counter()
    root.backward()
    return nodes, nodes / (time.perf_counter() - start)


def training_graph() -> Value:
    docs = load_docs(default_data_path())
    tokenizer = Tokenizer.from_docs(docs)
    model = Model.init(GPTConfig(tokenizer.vocab_size))
    tokens = tokenizer.encode(max(docs[:200], key=len))
    keys, values = [[]], [[]]
    losses = [-softmax(gpt(model, tokens[i], i, keys, values))[tokens[i + 1]].log() for i in range(len(tokens) - 1)]
    return (1 / len(losses)) * sum(losses)


def recursive_topo(root: Value) -> list[Value]:
    """The textbook recursive sort, for comparison only."""
    topo, visited = [], set()

    def build(v):
        if v not in visited:
            visited.add(v)
            for child in v._children:
                build(child)
            topo.append(v)

    build(root)
    return topo


def deepest_recursive_chain() -> int:
    n = 100
    while True:
        try:
            recursive_topo(chain(n)[1])
        except RecursionError:
            return n // 2
        n *= 2


def peak_memory_child(steps: int) -> None:
    docs = load_docs(default_data_path())
    tokenizer = Tokenizer.from_docs(docs)
    model = Model.init(GPTConfig(tokenizer.vocab_size))
    for _ in train(model, Adam(model.params, total_steps=steps), tokenizer, docs, steps):
        pass
    print(peak_rss_mb())


def peak_rss_mb() -> float:
    """This process's peak resident memory. VmHWM belongs to this address space alone, whereas
    ru_maxrss can report the peak of the parent we were started from."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    print("microgpt benchmarks (default config: n_layer 1, n_embd 16, n_head 4, block_size 16)")
    print("why the pause: each step builds ~60,000 Values; with the collector running it walks that live graph")
    print("again and again as it grows. The graph has no reference cycles, so refcounting frees it anyway.\n")

    # first, while this process is still small: a fresh process trains for 1000 steps
    out = subprocess.run(
        [sys.executable, __file__, "--peak-memory", "1000"], capture_output=True, text=True, check=True
    )
    print(f"peak memory, 1000-step run       : {float(out.stdout):7.1f} MB (peak RSS of a fresh process)")

    paused = statistics.median(step_times(100, pause_gc=True)) * 1000
    running = statistics.median(step_times(30, pause_gc=False)) * 1000
    print(f"training step, collector paused  : {paused:7.1f} ms   (median of 100 steps)")
    print(f"training step, collector running : {running:7.1f} ms   (median of 30; {running / paused:.1f}x slower)")

    with cyclic_gc_paused():
        nodes, rate = backward_rate(chain(500_000)[1])
    print(f"backward on a {nodes:,}-node chain  : {rate / 1e6:7.2f} M nodes/s")
    with cyclic_gc_paused():
        nodes, rate = backward_rate(training_graph())
    print(f"backward on a training graph ({nodes:,} nodes): {rate / 1e6:5.2f} M nodes/s")

    with cyclic_gc_paused():
        x0, x = chain(1_000_000)
        x.backward()
    ok = abs(x0.grad / 1.000001**500_000 - 1) < 1e-9
    limit = sys.getrecursionlimit()
    print(f"deepest chain backpropagated     : {1_000_000:,} ops ({'gradient correct' if ok else 'WRONG GRADIENT'})")
    print(f"recursive sort gives up at       : ~{deepest_recursive_chain():,} ops (recursion limit {limit})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--peak-memory"]:
        gc.collect()
        peak_memory_child(int(sys.argv[2]))
    else:
        main()
