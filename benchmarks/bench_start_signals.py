"""What a stop signal in the first instants of a run gives, counted for both ways to start microgpt; not a test.

`python -m microgpt` and the `microgpt` command (the script pip writes) are started many times, and
each is sent one signal a chosen number of milliseconds after it starts (spread evenly from 0 to 60
ms), during `train --steps 1` on a tiny model. Each outcome is counted: the one line the README
promises, the lines of a stop during training, Python's own traceback (while Python starts, before
microgpt's first line), a silent end by the signal, or a run that ended before the signal came.
The tests deliver signals at exact points deterministically; this shows where real timing falls.

Usage: .venv/bin/python benchmarks/bench_start_signals.py [TRIALS [LAST_MS]]   (default 40 per entry
point and signal, 0 to 60 ms; `make bench-signals`). Timing on a shared machine is noisy: read the
load average beside it.
"""

from __future__ import annotations

import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
LAST_MS = 60.0  # by default: Python's own start-up is about that long on an idle machine, longer on a busy one


def entry_points() -> dict[str, list[str]]:
    script = shutil.which("microgpt", path=str(Path(sys.executable).parent))
    points = {"python -m microgpt": [sys.executable, "-m", "microgpt"]}
    if script is not None:
        points["microgpt (pip's script)"] = [script]
    return points


def restore_defaults() -> None:
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def outcome(argv: list[str], signum: int, delay: float, out: Path) -> str:
    proc = subprocess.Popen(
        [*argv, "train", "--steps", "1", "--n-embd", "4", "--n-head", "1", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_defaults,
    )
    time.sleep(delay)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    out.unlink(missing_ok=True)
    name = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
    lines = [line for line in stderr.splitlines() if not line.startswith("step ")]
    if "Traceback" in stderr:
        return "traceback" if proc.returncode in (1, -signum) else f"traceback, status {proc.returncode}"
    if proc.returncode == 0:
        return "finished first"
    if proc.returncode != -signum:
        return f"other ({proc.returncode}: {stderr.strip()[-80:]!r})"
    if lines == [f"microgpt: stopped by {name}"]:
        return "one line"
    if lines and all(name in line for line in lines):  # during training: heard, saved, said so
        return "said so (training)"
    return "silent" if not lines else f"other ({stderr.strip()[-80:]!r})"


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    last_ms = float(sys.argv[2]) if len(sys.argv) > 2 else LAST_MS
    print(f"load average {os.getloadavg()[0]:.1f}; {trials} signals per row, sent 0 to {last_ms:g} ms after start")
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in entry_points().items():
            for signum in SIGNALS:
                counts: collections.Counter[str] = collections.Counter()
                for i in range(trials):
                    delay = last_ms / 1000 * i / max(1, trials - 1)
                    counts[outcome(argv, signum, delay, Path(tmp) / "m.json")] += 1
                shown = ", ".join(f"{n} {kind}" for kind, n in counts.most_common())
                print(f"{label:24} {signal.Signals(signum).name:8} {shown}", flush=True)


if __name__ == "__main__":
    main()
