"""How soon a stop signal is acknowledged at each moment of a run, for both ways to start microgpt; not a test.

The README promises that a stop signal (Ctrl-C, SIGTERM, SIGHUP) is acknowledged at once, whatever the
program is doing: one line on stderr. For each moment below, each signal and each entry point
(`python -m microgpt` and the `microgpt` command pip writes), a run is started, the signal is sent
at that moment (told from what the run has printed so far), and the time from the signal to the
acknowledging line on stderr is printed, with the time to the exit and the exit status. The moments
where a run does one long thing are the ones that matter: a large training step, the save of a
large checkpoint (about 15 MB: 700,000 parameters), reading that checkpoint back, and sampling.

Wall time (time.perf_counter) is what a person waits: on a busy machine it is longer than the CPU
time of the same work, so the load average is printed beside it.

Usage: .venv/bin/python benchmarks/bench_acknowledgements.py   (about three minutes; `make bench-signals`)
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
# A model of 704,880 parameters on two-letter documents: a step takes seconds, its checkpoint is about 15 MB
BIG = ["--block-size", "3", "--n-embd", "240", "--n-head", "4"]


def entry_points() -> dict[str, list[str]]:
    script = shutil.which("microgpt", path=str(Path(sys.executable).parent))
    points = {"python -m microgpt": [sys.executable, "-m", "microgpt"]}
    if script is not None:
        points["microgpt (pip's script)"] = [script]
    return points


def restore_defaults() -> None:
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


class Run:
    """A run of the command line whose stdout and stderr lines are kept with the time each arrived."""

    def __init__(self, argv: list[str]):
        self.lines: list[tuple[float, str, str]] = []
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=restore_defaults,
        )
        self.readers = [
            threading.Thread(target=self._read, args=(stream, name), daemon=True)
            for stream, name in ((self.proc.stdout, "out"), (self.proc.stderr, "err"))
        ]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, name: str) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self.lines.append((time.perf_counter(), name, line.rstrip("\n")))

    def wait_for(self, name: str, starts: str, timeout: float = 120) -> float:
        """The time the first line of `name` (out or err) beginning with `starts` arrived."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for at, stream, line in list(self.lines):
                if stream == name and line.startswith(starts):
                    return at
            time.sleep(0.002)
        raise TimeoutError(f"no line starting {starts!r} on std{name}")

    def finish(self) -> tuple[int, float]:
        self.proc.wait(timeout=120)
        for reader in self.readers:
            reader.join()
        return self.proc.returncode, time.perf_counter()


def opened(pid: int, path: Path, timeout: float = 60) -> None:
    """Wait until process pid has path open (Linux: /proc/PID/fd)."""
    deadline, target = time.perf_counter() + timeout, str(path.resolve())
    while time.perf_counter() < deadline:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            return
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return
            except OSError:
                continue
        time.sleep(0.001)
    raise TimeoutError(f"{path} was never opened")


def acknowledged(run: Run, sent: float, name: str) -> float | None:
    """Seconds from the signal to the first stderr line that names it."""
    for at, stream, line in run.lines:
        if stream == "err" and at >= sent and name in line and line.startswith("microgpt: "):
            return at - sent
    return None


def moment(kind: str, argv: list[str], signum: int, files: dict[str, Path]) -> tuple[float | None, float, int]:
    """Start a run, send signum at the moment `kind`, and return (acknowledged after, ended after, status)."""
    if kind == "training step":
        run = Run([*argv, "train", *BIG, "--steps", "2", "--data", str(files["data"]), "--out", str(files["out"])])
        run.wait_for("err", "step 1/2")  # the second step (seconds long) begins
        time.sleep(0.3)
    elif kind == "save (15 MB)":
        run = Run([*argv, "train", *BIG, "--steps", "1", "--data", str(files["data"]), "--out", str(files["out"])])
        run.wait_for("err", "step 1/1")  # the last step is done: the save begins
        time.sleep(0.05)
    elif kind == "reading a 15 MB checkpoint":
        run = Run([*argv, "sample", "--ckpt", str(files["big"]), "-n", "1"])
        opened(run.proc.pid, files["big"])  # read in a few milliseconds, then parsed (0.3 s of CPU)
        time.sleep(0.05)
    elif kind == "sampling":
        run = Run([*argv, "sample", "--ckpt", str(files["big"]), "-n", "1000"])
        run.wait_for("out", "")  # the first sample is out
    else:
        raise ValueError(kind)
    sent = time.perf_counter()
    run.proc.send_signal(signum)
    status, ended = run.finish()
    files["out"].unlink(missing_ok=True)
    name = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
    return acknowledged(run, sent, name), ended - sent, status


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; wall time from the signal")
    with tempfile.TemporaryDirectory() as tmp:
        rng = random.Random(1)
        data = Path(tmp) / "short.txt"
        data.write_text("".join(rng.choice("abcdefghij") + rng.choice("abcdefghij") + "\n" for _ in range(500)))
        files = {"data": data, "out": Path(tmp) / "m.json", "big": Path(tmp) / "big.json"}
        made = subprocess.run(
            [
                sys.executable,
                "-m",
                "microgpt",
                "train",
                *BIG,
                "--steps",
                "1",
                "--data",
                str(data),
                "--out",
                str(files["big"]),
            ],
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
        print(f"the large checkpoint: {files['big'].stat().st_size / 1e6:.1f} MB")
        print(f"{'moment':28} {'entry point':24} {'signal':8} {'acknowledged':>12} {'ended':>8} {'status':>6}")
        worst: list[float] = []
        for kind in ["training step", "save (15 MB)", "reading a 15 MB checkpoint", "sampling"]:
            for label, argv in entry_points().items():
                for signum in SIGNALS:
                    for _ in range(trials):
                        ack, ended, status = moment(kind, argv, signum, files)
                        shown = "never" if ack is None else f"{ack * 1000:.0f} ms"
                        worst.append(float("inf") if ack is None else ack)
                        name = signal.Signals(signum).name
                        print(f"{kind:28} {label:24} {name:8} {shown:>12} {ended:7.2f}s {status:>6}", flush=True)
        finite = [w for w in worst if w != float("inf")]
        print(
            f"acknowledged: median {statistics.median(finite) * 1000:.0f} ms, at most {max(finite) * 1000:.0f} ms; "
            f"never: {len(worst) - len(finite)} of {len(worst)}"
        )


if __name__ == "__main__":
    main()
