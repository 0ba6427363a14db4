"""The command line: `python -m microgpt` (a short demo), `python -m microgpt train` and `python -m microgpt sample`."""

import argparse
import math
import os
import random
import signal
import sys
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from microgpt import __version__, checkpoint
from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.errors import InputError
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.sample import sample
from microgpt.train import Progress, check_fits, train

DEMO_STEPS = 300  # `python -m microgpt` alone: about 20 s at ~15 steps/s
DEMO_SAMPLES = 10
DEFAULT_OUT = "microgpt.ckpt.json"
EXIT_USAGE = 2  # bad input of any kind, as argparse does for bad arguments
EXIT_INTERRUPTED = 130  # 128 + SIGINT, the shell's convention; the checkpoint is still written

EPILOG = f"""\
With no command, microgpt trains on the shipped names for {DEMO_STEPS} steps and prints {DEMO_SAMPLES} samples;
it writes no file. Exit status: 0 done, 2 bad input (one line on stderr), 130 stopped by Ctrl-C
(train still saves what it had trained, and says so)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="microgpt",
        description="A small pure-Python GPT.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"microgpt {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{train,sample}")

    t = commands.add_parser(
        "train",
        help="train a model and write a checkpoint",
        description="Train on one document per step and write a JSON checkpoint.",
    )
    t.add_argument("--steps", type=int, default=1000, help="training steps (default: 1000)")
    t.add_argument("--data", type=Path, help="UTF-8 text, one document per line (default: the shipped names)")
    t.add_argument("--seed", type=int, default=42, help="seed for the shuffle and the initial weights (default: 42)")
    t.add_argument("--out", type=Path, default=Path(DEFAULT_OUT), help=f"checkpoint to write (default: {DEFAULT_OUT})")
    t.add_argument("--lr", type=float, default=0.01, help="Adam learning rate, decayed linearly to 0 (default: 0.01)")
    t.add_argument("--n-layer", type=int, default=1, help="transformer blocks (default: 1)")
    t.add_argument("--n-embd", type=int, default=16, help="embedding width (default: 16)")
    t.add_argument("--n-head", type=int, default=4, help="attention heads; must divide --n-embd (default: 4)")
    t.add_argument("--block-size", type=int, default=16, help="longest sequence, in tokens (default: 16)")

    s = commands.add_parser(
        "sample",
        help="print samples from a checkpoint",
        description="Print samples from a trained checkpoint, one per line.",
    )
    s.add_argument("--ckpt", type=Path, required=True, help="checkpoint written by `microgpt train`")
    s.add_argument("-n", type=int, default=20, help="how many samples (default: 20)")
    s.add_argument("--temperature", type=float, default=0.5, help="< 1 sharpens, > 1 flattens (default: 0.5)")
    s.add_argument("--seed", type=int, default=42, help="seed for sampling (default: 42)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version, or a usage error argparse has already printed
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        if args.command == "train":
            return cmd_train(args)
        if args.command == "sample":
            return cmd_sample(args)
        return cmd_demo()
    except InputError as e:
        print(f"microgpt: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # outside training (which handles Ctrl-C itself): nothing to save
        print("microgpt: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `microgpt sample -n 1000 | head`: stop quietly, as a C program would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def cmd_demo() -> int:
    docs = load_docs(default_data_path())
    tokenizer = Tokenizer.from_docs(docs)
    model = Model.init(GPTConfig(tokenizer.vocab_size))
    done, interrupted = fit(model, tokenizer, docs, DEMO_STEPS, lr=0.01)
    if interrupted:
        print(f"stopped at step {done}; sampling from what was trained so far", file=sys.stderr)
    print(f"{DEMO_SAMPLES} samples at temperature 0.5:", file=sys.stderr)
    print_samples(model, tokenizer, DEMO_SAMPLES, temperature=0.5, seed=42)
    return EXIT_INTERRUPTED if interrupted else 0


def cmd_train(args: argparse.Namespace) -> int:
    if args.steps < 1:
        raise InputError(f"--steps must be at least 1, got {args.steps}")
    if not (math.isfinite(args.lr) and args.lr > 0):
        raise InputError(f"--lr must be a positive finite number, got {args.lr}")
    for flag in ("n_layer", "n_embd", "n_head", "block_size"):
        if getattr(args, flag) < 1:
            raise InputError(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    if args.n_embd % args.n_head:
        raise InputError(f"--n-embd {args.n_embd} must be divisible by --n-head {args.n_head}")
    check_writable(args.out)  # before training, not after it
    data = args.data if args.data is not None else default_data_path()
    try:
        docs = load_docs(data, seed=args.seed)
    except OSError as e:  # load_docs turns the common cases into InputError; this is the rest
        raise InputError(f"cannot read data file {data}: {e.strerror or e}") from None
    check_fits(docs, args.block_size)
    tokenizer = Tokenizer.from_docs(docs)
    config = GPTConfig(tokenizer.vocab_size, args.n_layer, args.n_embd, args.n_head, args.block_size)
    model = Model.init(config, seed=args.seed)

    done, interrupted = fit(model, tokenizer, docs, args.steps, args.lr)
    meta = {
        "steps": done,
        "steps_planned": args.steps,
        "interrupted": interrupted,
        "seed": args.seed,
        "lr": args.lr,
        "data": str(data),
        "microgpt_version": __version__,
    }
    checkpoint.save(args.out, model, tokenizer, meta)
    if interrupted:
        print(f"interrupted at step {done} of {args.steps}; saved what was trained so far", file=sys.stderr)
    print(f"wrote {args.out} ({done} steps); try: python -m microgpt sample --ckpt {args.out}")
    return EXIT_INTERRUPTED if interrupted else 0


def cmd_sample(args: argparse.Namespace) -> int:
    if args.n < 0:
        raise InputError(f"-n must be 0 or more, got {args.n}")
    if not (math.isfinite(args.temperature) and args.temperature > 0):
        raise InputError(f"--temperature must be a positive finite number, got {args.temperature}")
    model, tokenizer, _ = checkpoint.load(args.ckpt)
    print_samples(model, tokenizer, args.n, args.temperature, args.seed)
    return 0


def check_writable(out: Path) -> None:
    """Fail now, with a clear message, if the checkpoint could not be written when training ends."""
    parent = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise InputError(f"--out is a directory, not a file: {out}")
    if not parent.is_dir():
        raise InputError(f"--out: directory does not exist: {parent}")
    if not os.access(parent, os.W_OK):
        raise InputError(f"--out: directory is not writable: {parent}")


def print_samples(model: Model, tokenizer: Tokenizer, n: int, temperature: float, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(n):
        print(sample(model, tokenizer, rng, temperature), flush=True)


def fit(model: Model, tokenizer: Tokenizer, docs: list[str], steps: int, lr: float) -> tuple[int, bool]:
    """Train with a progress line; return (steps done, whether Ctrl-C stopped it early)."""
    optimizer = Adam(model.params, lr=lr, total_steps=steps)
    progress = ProgressLine(sys.stderr, steps)
    done = 0
    try:
        with stop_requested_by_ctrl_c() as stop:
            for p in train(model, optimizer, tokenizer, docs, steps):
                if not math.isfinite(p.loss):
                    raise InputError(f"training diverged at step {p.step} (loss {p.loss}); try a smaller --lr")
                progress.update(p)
                done = p.step
                if stop:
                    break
    except (ArithmeticError, ValueError) as e:
        if isinstance(e, InputError):
            raise
        # a learning rate far too large sends the weights to where exp() overflows or log() meets 0
        raise InputError(f"training diverged at step {done + 1} ({e}); try a smaller --lr") from None
    finally:
        progress.finish()
    return done, bool(stop) and done < steps


@contextmanager
def stop_requested_by_ctrl_c() -> Iterator[list[bool]]:
    """Turn the first Ctrl-C into a request to stop after the current step, so no update is left half-done.

    The yielded list becomes non-empty once Ctrl-C was pressed; a second Ctrl-C interrupts at once.
    """
    requested: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        requested.append(True)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.SIG_IGN:  # started in the background with Ctrl-C ignored: keep it so
            raise ValueError
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # also raised when not in the main thread, where signals cannot be handled
        yield requested
        return
    try:
        yield requested
    finally:
        signal.signal(signal.SIGINT, previous)


class ProgressLine:
    """Step, loss, speed and time left: redrawn on one line on a terminal, else a line every tenth of the run."""

    def __init__(self, stream: TextIO, steps: int, window: int = 50):
        self.stream, self.steps = stream, steps
        self.live = stream.isatty()
        self.every = max(1, steps // 10)
        self.recent: deque[float] = deque(maxlen=window)  # one document's loss is noisy: show a running mean
        self.start = time.perf_counter()
        self.last_draw, self.width, self.pending = 0.0, 0, ""

    def update(self, p: Progress) -> None:
        self.recent.append(p.loss)
        elapsed = time.perf_counter() - self.start
        rate = p.step / elapsed if elapsed > 0 else 0.0
        eta = (p.steps - p.step) / rate if rate else 0.0
        line = (
            f"step {p.step:{len(str(p.steps))}d}/{p.steps} | loss {p.loss:.4f} | "
            f"avg of last {len(self.recent)} {sum(self.recent) / len(self.recent):.4f} | "
            f"{rate:.1f} steps/s | ETA {int(eta) // 60}:{int(eta) % 60:02d}"
        )
        now = time.perf_counter()
        if self.live:
            if p.step in (1, p.steps) or now - self.last_draw >= 0.1:
                self.stream.write("\r" + line.ljust(self.width))
                self.stream.flush()
                self.width, self.last_draw, self.pending = len(line), now, ""
            else:
                self.pending = line
        elif p.step == 1 or p.step % self.every == 0 or p.step == p.steps:
            print(line, file=self.stream, flush=True)
            self.pending = ""
        else:
            self.pending = line

    def finish(self) -> None:
        """Show the last step reached, and end the line."""
        if self.live:
            if self.pending:
                self.stream.write("\r" + self.pending.ljust(self.width))
            if self.width or self.pending:
                self.stream.write("\n")
        elif self.pending:
            self.stream.write(self.pending + "\n")
        self.stream.flush()
