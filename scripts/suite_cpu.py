"""Where the test suite's CPU goes, per test and per file: a pytest plugin, and the report of what it wrote.

    PYTHONPATH=scripts SUITE_CPU=/tmp/cpu PYTEST_ADDOPTS="-p suite_cpu" make test
    python scripts/suite_cpu.py /tmp/cpu [N]       # per file, then the N costliest tests

Wall time on a shared machine is noise; CPU time is not (much). Each test's figure is the CPU time its
worker's whole process tree spent from the start of its set-up to the end of its tear-down, read from
/proc: the worker itself, every live descendant (Chromium and its renderers under Playwright's driver,
a notebook kernel, a block's interpreter) and the children they reaped. A session-wide fixture is
charged to the first test that uses it. When a long-lived child ends unreaped by the tree (Chromium at
the end of a worker's session), its CPU leaves the tree: that test's figure is negative and counted as 0.
Linux only (/proc). Each xdist worker appends to SUITE_CPU.<worker>.jsonl.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time
from collections.abc import Generator
from pathlib import Path

import pytest

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: str) -> tuple[int, int] | None:
    """(parent pid, utime + stime + cutime + cstime in ticks) of a process, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[1]), sum(int(x) for x in fields[11:15])


def tree_cpu(root: int) -> float:
    """CPU seconds of `root` and all its descendants, reaped children included."""
    stats = {int(p): s for p in os.listdir("/proc") if p.isdigit() and (s := _stat(p)) is not None}
    children = collections.defaultdict(list)
    for pid, (parent, _) in stats.items():
        children[parent].append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += stats[pid][1] if pid in stats else 0
        stack.extend(children[pid])
    return total / TICK


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    out = os.environ.get("SUITE_CPU")
    if not out:
        return (yield)
    cpu, wall = tree_cpu(os.getpid()), time.perf_counter()
    try:
        return (yield)
    finally:
        row = {"id": item.nodeid, "cpu": tree_cpu(os.getpid()) - cpu, "wall": time.perf_counter() - wall}
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{out}.{worker}.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")


def report(out: str, top: int = 0) -> str:
    rows = [json.loads(line) for f in Path(out).parent.glob(f"{Path(out).name}.*.jsonl") for line in f.open()]
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for row in rows:
        entry = files[row["id"].split("::")[0]]
        entry[0] += 1
        entry[1] += max(row["cpu"], 0.0)
        entry[2] += row["wall"]
    lines = [f"{'file':60} {'tests':>6} {'CPU s':>8} {'wall s':>8}"]
    for name, (n, cpu, wall) in sorted(files.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"{name:60} {n:6d} {cpu:8.1f} {wall:8.1f}")
    cpu = sum(max(r["cpu"], 0.0) for r in rows)
    lines.append(f"{'all':60} {len(rows):6d} {cpu:8.1f} {sum(r['wall'] for r in rows):8.1f}")
    for row in sorted(rows, key=lambda r: -r["cpu"])[:top]:
        lines.append(f"{row['cpu']:8.2f} {row['wall']:8.2f}  {row['id']}")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python scripts/suite_cpu.py OUT [N]  (OUT: the SUITE_CPU the run was given)")
    print(report(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0))
