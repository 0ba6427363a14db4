"""The command line: `python -m microgpt` (a short demo), `python -m microgpt train` and `python -m microgpt sample`.

Every way it can fail ends in one `microgpt: error: …` line on stderr (exit 2) or, for Ctrl-C and
SIGTERM, in a saved checkpoint and exit 130 or 143 — never in a traceback or a lost run.
"""

import argparse
import dataclasses
import math
import random
import shlex
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from microgpt import __version__
from microgpt.cli.console import ProgressLine, StdoutFailed, note, say, silence_stdout, write_stdout
from microgpt.cli.options import positive_number, whole_number
from microgpt.data import Tokenizer, default_data_path
from microgpt.model import GPTConfig, Model
from microgpt.optim import Adam
from microgpt.runtime import checkpoint, files, limits, machine, speed
from microgpt.runtime.counts import MAX_VALUES_PER_PASS, values_per_pass
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import (
    MAX_DATA_BYTES,
    MAX_PARAMETERS,
    MAX_SAMPLES,
    MAX_SEED,
    MAX_STEPS,
    Fit,
    check_config,
    check_disk,
    check_fits,
    check_memory,
    read_docs,
)
from microgpt.runtime.signals import (
    STOP_SIGNALS,
    Stopped,
    StopRequest,
    exit_status,
    signal_name,
    stop_at_once,
    stop_when_safe,
    stopped_line,
)
from microgpt.runtime.units import counted, duration, size, typed
from microgpt.sample import sample
from microgpt.train import cyclic_gc_paused, train

DEMO_STEPS = 300  # `python -m microgpt` alone: see EXAMPLES
DEMO_SAMPLES = 10
DEFAULT_OUT = "microgpt.ckpt.json"
EXIT_USAGE = 2  # bad input of any kind, as argparse does for bad arguments
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a C program reports when its reader went away (`| head`)

# Shown by --help with what each costs on this machine, estimated as a run estimates itself before its
# first step (from the Values it builds and this machine's speed: see microgpt/runtime/speed.py).
EXAMPLES = [
    "python -m microgpt",
    "python -m microgpt train --steps 1000 --out names.ckpt.json",
    "python -m microgpt sample --ckpt names.ckpt.json -n 20",
]

HELP_WIDTH = 100
SAVING_FIRST = "saving the checkpoint first, then stopping"  # what a stop signal during the save says at once
SEEDS = f"a whole number from 0 to {MAX_SEED}"  # a range as it is typed: no separators

# What each of the model's shape flags means; the flags themselves and their defaults come from GPTConfig.
SHAPE_HELP = {
    "n_layer": "transformer blocks",
    "n_embd": "embedding width",
    "n_head": "attention heads; must divide --n-embd",
    "block_size": "longest document plus one, in tokens",
}


def epilog() -> str:
    """The end of --help: the examples with what each costs here, then what a run costs and the bounds."""
    docs = read_docs(default_data_path())
    default = GPTConfig(Tokenizer.from_docs(docs).vocab_size)  # the default model, on the shipped names
    here = speed.current()
    width = max(map(len, EXAMPLES))
    examples = [f"  {command:<{width}}  # {example_cost(command, docs, here)}" for command in EXAMPLES]
    rates = here.rates(values_per_pass(default, 7))  # a step on a 6-letter name, as said below
    stops = ", ".join(f"{exit_status(signum)} {signal_name(signum)}" for signum in STOP_SIGNALS)
    paragraphs = [
        f"With no command, microgpt trains on the shipped names for {DEMO_STEPS} steps and prints "
        f"{DEMO_SAMPLES} samples; it writes no file. sample's --temperature must be a positive number. "
        "Numbers are written in ASCII digits.",
        "What a run costs: each training step reads one document and builds a graph of Values, one for "
        "each number it computes: per token, in proportion to n_layer x n_embd^2, and for attention in "
        "proportion to the square of the document's length. A sample reads up to block_size tokens in the "
        f"same way. In a step a Value takes about {limits.BYTES_PER_VALUE} bytes and, on this machine, "
        f"{rates.train * 1e6:.2g} microseconds of CPU time ({rates.train_attention * 1e6:.2g} in attention over "
        f"earlier positions), backward pass included; a sample takes about {rates.sample * 1e6:.2g} microseconds "
        f"a Value ({rates.sample_attention * 1e6:.2g} in attention) and keeps only part of them. The default "
        f"model builds {values_per_pass(default, 7):,} in a step on a 6-letter name. So time grows "
        "with --steps, with the square of --n-embd and with the square of the longest document, and memory "
        "with the last two. Every run says what it will cost before its first step.",
        f"Where the times come from: this machine's speed, measured {here.measured} ({kept(here)}), scales "
        "rates measured on a reference machine, and so does how busy the machine is now (its load average): "
        "other work slows a run down. A measurement is kept for a week; delete that file to measure again.",
        f"Bounds, checked before any work, with how far each setting can go: a model has at most "
        f"{MAX_PARAMETERS:,} parameters; a step or a sample builds at most {MAX_VALUES_PER_PASS:,} Values "
        f"(a step that large takes about {bound_step(here)}; a sample less), which bounds --block-size at "
        "each width; and no more memory than this machine and its limits (ulimit -v) leave, which may bound "
        f"it further; the checkpoint must fit the free space and the file-size limit (ulimit -f) where --out "
        f"goes; --steps and -n are at most {MAX_STEPS:,}; --data is at most {MAX_DATA_BYTES // 2**20} MiB.",
        f"Exit status: 0 done; {EXIT_USAGE} bad input or output that cannot be written (one line on stderr); "
        f"{stops} (train first finishes its step and saves what it trained, and says so; then it ends by the "
        f"signal, which a shell shows as that status); {EXIT_BROKEN_PIPE} the reader of standard output went "
        "away (e.g. `| head`).",
    ]
    # a path may hold hyphens (a cache directory's): broken there, it could not be copied
    text = [
        textwrap.fill(paragraph, HELP_WIDTH, break_on_hyphens=False, break_long_words=False) for paragraph in paragraphs
    ]
    heading = f"examples, with the CPU time ({here.source}) and the memory each takes:"
    heading = textwrap.fill(heading, HELP_WIDTH, break_on_hyphens=False)
    return "\n\n".join([heading + "\n" + "\n".join(examples), *text])


def kept(here: speed.Speed) -> str:
    """Where the speed is kept, or that it is not, and why."""
    return here.kept or f"not kept, so each run measures it: {here.not_kept}"


def example_cost(command: str, docs: list[str], at: speed.Speed) -> str:
    """What an example of EXAMPLES costs, as its run would say before its first step: 'about 1.2 min, 28 MB'."""
    args = build_parser().parse_args(shlex.split(command)[3:])
    config = GPTConfig(Tokenizer.from_docs(docs).vocab_size)  # each example runs the default model
    if args.command == "train":
        cost = limits.training_run(config, docs, args.steps, at)
        return f"about {cost.time}, {size(memory_in_all(cost.bytes))}"
    if args.command == "sample":  # from the checkpoint the train example writes, at the most it can hold
        vocab = Tokenizer.from_docs(docs).chars
        meta = run_meta(build_parser().parse_args(["train"]), str(default_data_path()), 1000)
        file_bytes = checkpoint.size_bound(config, vocab, meta)
        sampling = limits.sampling_run(config, args.n, at, file_bytes)
        return f"at most {sampling.time}, {size(memory_in_all(sampling.bytes))}"
    sampling = limits.sampling_run(config, DEMO_SAMPLES, at)
    training = limits.training_run(config, docs, DEMO_STEPS, at)
    return f"{demo_time(training, sampling)}, {size(memory_in_all(max(training.bytes, sampling.bytes)))}"


def demo_time(training: limits.RunCost, sampling: limits.RunCost) -> str:
    """The demo's CPU time: about that of its steps and its samples, which may end early (at most a few per cent
    of the whole: a few samples after hundreds of steps)."""
    return f"about {duration(DEMO_STEPS * training.seconds_each + sampling.count * sampling.seconds_each)}"


def bound_step(at: speed.Speed) -> str:
    """What a training step of MAX_VALUES_PER_PASS Values takes here: '2.05 GB and 11 s to 17 s'."""
    values = MAX_VALUES_PER_PASS
    rates = at.rates(values)
    fastest, slowest = (values * rate for rate in (rates.train, rates.train_attention))
    return f"{size(values * limits.BYTES_PER_VALUE)} and {duration(fastest)} to {duration(slowest)}"


OUT_HELP = f"""checkpoint to write (default: {DEFAULT_OUT}). It must be a new file, or a microgpt checkpoint
(or an empty file), which is replaced atomically and keeps its permissions; any other file, a symbolic
link, a directory, a device, a FIFO, the data file itself and a path whose parent is not a directory
are refused before training starts, as is a checkpoint too large for the room where it goes."""


class Parser(argparse.ArgumentParser):
    """argparse, except that a usage error is one `microgpt: error:` line like every other error, that
    --help goes out as every line microgpt prints does (a stdout that cannot take it is an error), and
    that the help's end is made only when the help is shown (it measures this machine's speed)."""

    def __init__(self, *args: Any, later_epilog: Callable[[], str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.later_epilog = later_epilog

    def format_help(self) -> str:
        if self.later_epilog is not None:
            self.epilog, self.later_epilog = self.later_epilog(), None
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{message} (see: {self.prog} --help)")

    def print_help(self, file: Any = None) -> None:
        if file is None:
            write_stdout(self.format_help())
        else:
            super().print_help(file)


class Version(argparse.Action):
    """--version, written as --help is: argparse's own version action ignores a failed write."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        # no value in the namespace, as for argparse's own: SUPPRESS
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, help=kwargs.get("help"))

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        write_stdout(f"microgpt {__version__}\n")
        parser.exit()


def shape_fields() -> list[dataclasses.Field]:
    """GPTConfig's fields that are flags; vocab_size is not one, it comes from the data."""
    return [field for field in dataclasses.fields(GPTConfig) if field.name != "vocab_size"]


def flag_of(field_name: str) -> str:
    """The command-line flag of a GPTConfig field: n_embd is --n-embd."""
    return "--" + field_name.replace("_", "-")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="microgpt",
        description="A small pure-Python GPT.",
        later_epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="{train,sample}")

    t = commands.add_parser(
        "train",
        help="train a model and write a checkpoint",
        description="Train on one document per step and write a JSON checkpoint. "
        f"A model has at most {MAX_PARAMETERS:,} parameters, and a step builds at most "
        f"{MAX_VALUES_PER_PASS:,} Values (see: microgpt --help).",
    )
    t.add_argument(
        "--steps",
        type=whole_number(f"a whole number from 1 to {MAX_STEPS}"),
        default=1000,
        help=f"training steps, 1 to {MAX_STEPS} (default: 1000)",
    )
    t.add_argument(
        "--data",
        type=str,
        help=f"UTF-8 text, one document per line, {MAX_DATA_BYTES // 2**20} MiB at most (default: shipped names)",
    )
    t.add_argument(
        "--seed",
        type=whole_number(SEEDS),
        default=42,
        help="seed for the shuffle and the initial weights (default: 42)",
    )
    t.add_argument("--out", type=str, default=DEFAULT_OUT, help=OUT_HELP)
    t.add_argument(
        "--lr",
        type=positive_number("0.01"),
        default=0.01,
        help="Adam learning rate, decayed linearly to 0 (default: 0.01)",
    )
    for field in shape_fields():
        flag, default = flag_of(field.name), field.default
        kind = whole_number("a positive whole number")
        t.add_argument(flag, type=kind, default=default, help=f"{SHAPE_HELP[field.name]} (default: {default})")

    s = commands.add_parser(
        "sample",
        help="print samples from a checkpoint",
        description="Print samples from a trained checkpoint, one per line, each at most block_size tokens long. "
        "Characters that are not printable (control characters, line separators) are shown as Python "
        "escapes such as \\x1b.",
    )
    s.add_argument("--ckpt", type=str, required=True, help="checkpoint written by `microgpt train`")
    samples = f"a whole number from 0 to {MAX_SAMPLES}"
    s.add_argument(
        "-n", type=whole_number(samples), default=20, help=f"how many samples, 0 to {MAX_SAMPLES} (default: 20)"
    )
    s.add_argument(
        "--temperature",
        type=positive_number("0.5"),
        default=0.5,
        help="a positive number: < 1 sharpens, > 1 flattens (default: 0.5)",
    )
    s.add_argument("--seed", type=whole_number(SEEDS), default=42, help="seed for sampling (default: 42)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        return run_command(argv)
    except MemoryError:  # the bounds leave room for the run, but the machine's memory may go to others meanwhile
        pass  # leaving this block lets go of the traceback, and with it of what filled the memory
    note(f"microgpt: error: {out_of_memory()}")
    return EXIT_USAGE


def out_of_memory() -> str:
    room = machine.memory_room()
    return "out of memory" + ("" if room is None else f" ({room.cause} leaves this process {size(room.bytes)} now)")


def run_command(argv: list[str] | None) -> int:
    """main(), but for running out of memory."""
    try:
        with stop_at_once():  # until training starts, Ctrl-C or SIGTERM simply stops (nothing to save yet)
            args = build_parser().parse_args(argv)
            if args.command == "train":
                return cmd_train(args)
            if args.command == "sample":
                return cmd_sample(args)
            return cmd_demo()
    except SystemExit as e:  # --help or --version, written out already
        return e.code if isinstance(e.code, int) else 0
    except InputError as e:
        note(f"microgpt: error: {e}")
        return EXIT_USAGE
    except StdoutFailed as e:
        silence_stdout()
        note(f"microgpt: error: {e}")
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `microgpt sample -n 1000 | head`: stop quietly, as a C program would
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except (Stopped, KeyboardInterrupt) as e:  # KeyboardInterrupt: Ctrl-C before the handlers were in place
        return stopped(e)
    except OSError as e:  # the environment failed under us (a file vanished mid-check, ...): still one line
        where = f": {e.filename}" if e.filename else ""
        note(f"microgpt: error: {e.strerror or e}{where}")
        return EXIT_USAGE


def stopped(e: BaseException) -> int:
    """Say which stop signal ended the run where nothing was left to save; return its exit status."""
    signum = e.signum if isinstance(e, Stopped) else STOP_SIGNALS[0]  # KeyboardInterrupt: SIGINT
    note(stopped_line(signum))
    return exit_status(signum)


def cmd_demo() -> int:
    docs = read_docs(default_data_path())
    tokenizer = Tokenizer.from_docs(docs)
    config = GPTConfig(tokenizer.vocab_size)
    # the default shape on the shipped names: checked all the same, as train does
    must_fit = Fit(max(map(len, docs)) + 1, training=True, memory=machine.memory_room())
    check_config(config, fit=must_fit)
    check_fits(docs, config.block_size, config=config, fit=must_fit)
    check_memory(config, "training the default model", must_fit, fixed=True)
    training, sampling = limits.training_run(config, docs, DEMO_STEPS), limits.sampling_run(config, DEMO_SAMPLES)
    memory = max(training.bytes, sampling.bytes)
    what = f"{DEMO_STEPS} steps on the shipped names, then {DEMO_SAMPLES} samples"
    say_estimate(what, demo_time(training, sampling), memory)
    model = Model.init(config)
    progress = ProgressLine(sys.stderr, DEMO_STEPS)
    with stop_when_safe(acknowledge(progress, "then sampling from what was trained")) as stop:
        done = fit(model, tokenizer, docs, DEMO_STEPS, 0.01, stop, progress)
    if stop.signum is not None:
        note(f"microgpt: {signal_name(stop.signum)} at step {done}; sampling from what was trained so far")
    note(f"microgpt: {DEMO_SAMPLES} samples at temperature 0.5:")
    print_samples(model, tokenizer, DEMO_SAMPLES, temperature=0.5, seed=42)
    return 0 if stop.signum is None else exit_status(stop.signum)


def cmd_train(args: argparse.Namespace) -> int:
    in_range("--steps", min(args.steps, MAX_STEPS), 1, MAX_STEPS)  # more than MAX_STEPS: below, with what they take
    in_range("--seed", args.seed, 0, MAX_SEED)
    data = args.data if args.data is not None else str(default_data_path())
    try:
        checkpoint.check_out(args.out, {"data file": data})  # now, not after the training
    except InputError as e:
        raise InputError(f"--out: {e}") from None
    docs = read_docs(data, seed=args.seed)
    tokenizer = Tokenizer.from_docs(docs)
    config = GPTConfig(tokenizer.vocab_size, **{field.name: getattr(args, field.name) for field in shape_fields()})
    longest = max(map(len, docs)) + 1
    meta = run_meta(args, data, args.steps)
    must_fit = Fit(  # everything the run must fit, so that every setting a refusal offers is one the run accepts
        longest,
        training=True,
        memory=machine.memory_room(),
        disk=machine.disk_room(files.parent_of(args.out)),
        file_bytes=lambda c: checkpoint.size_bound(c, tokenizer.chars, meta),
    )
    check_config(config, flag_of, must_fit)  # the bounds: before anything the model's size is built
    check_fits(docs, config.block_size, flag_of, config, must_fit)
    check_memory(config, f"a training step over {longest:,} tokens", must_fit, flag_of)
    try:
        check_disk(config, must_fit, flag_of)
    except InputError as e:
        raise InputError(f"--out: {e}") from None
    cost = limits.training_run(config, docs, args.steps)  # the first time that needs this machine's speed
    if args.steps > MAX_STEPS:
        raise InputError(
            f"--steps {typed(args.steps)} would take {cost.time} of CPU time on this machine "
            f"({duration(cost.seconds_each)} a step); --steps can be at most {MAX_STEPS}"
        )
    n = limits.parameter_count(config)
    what = f"{counted(args.steps, 'step')} of a {n:,}-parameter model on {counted(len(docs), 'document')}"
    say_estimate(what, f"about {cost.time}", cost.bytes)
    model = Model.init(config, seed=args.seed)

    # From here to the end, Ctrl-C and SIGTERM only ask to stop: the step finishes, the save completes.
    progress = ProgressLine(sys.stderr, args.steps)
    saving = False
    training = acknowledge(progress, "then saving what was trained")

    def heard(signum: int) -> None:
        if saving:  # during the save itself: it is written whole, then the run stops
            progress.interject(f"microgpt: {signal_name(signum)}: {SAVING_FIRST}")
        else:
            training(signum)

    with stop_when_safe(heard) as stop:
        try:
            done = fit(model, tokenizer, docs, args.steps, args.lr, stop, progress)
        except OutOfMemory as e:  # the step that ran out had not updated the model yet (its update allocates little)
            saving = True
            checkpoint.save(args.out, model, tokenizer, run_meta(args, data, e.done))
            saved = f"saved the {counted(e.done, 'step')} before it to {args.out}"
            raise InputError(f"{out_of_memory()} at step {e.done + 1}; {saved}") from None
        saving = True
        before_save = stop.signum
        checkpoint.save(args.out, model, tokenizer, run_meta(args, data, done))
        if before_save is not None and done < args.steps:
            note(f"microgpt: {signal_name(before_save)} at step {done} of {args.steps}; saved what was trained so far")
        elif before_save is not None:  # during the last step: the run was complete
            note(f"microgpt: {signal_name(before_save)} during the last step; saved the finished run")
        elif stop.signum is not None:
            note(f"microgpt: {signal_name(stop.signum)} arrived during the save; the checkpoint is complete")
        try:
            say(f"wrote {args.out} ({counted(done, 'step')}); {try_sampling(args.out)}")
        except StdoutFailed as e:  # the work is saved: say so, since the line that would have cannot
            raise StdoutFailed(f"{e} (the checkpoint {args.out} was written)") from None
    return 0 if stop.signum is None else exit_status(stop.signum)


def run_meta(args: argparse.Namespace, data: str, done: int) -> dict[str, Any]:
    """What a checkpoint says about the run that made it."""
    return {
        "steps": done,
        "steps_planned": args.steps,
        "interrupted": done < args.steps,
        "seed": args.seed,
        "lr": args.lr,
        "data": data,
        "microgpt_version": __version__,
    }


def try_sampling(path: str) -> str:
    """The command that samples from the checkpoint just written, as it is pasted into a shell. A name that holds
    a character that is not printable is shown escaped (see console.printable), and pasted it would name another
    file: that is said instead."""
    if not path.isprintable():
        return "its name holds a character that is not printable (shown here as a Python escape): no command to paste"
    quoted = shlex.quote(path)
    return f"try: python -m microgpt sample --ckpt{'=' if path.startswith('-') else ' '}{quoted}"


def cmd_sample(args: argparse.Namespace) -> int:
    in_range("-n", args.n, 0, MAX_SAMPLES)
    in_range("--seed", args.seed, 0, MAX_SEED)

    def ready(config: GPTConfig, file_bytes: int) -> None:  # the config is read; the weights are not, yet
        must_fit = Fit(training=False, memory=machine.memory_room(), reading=file_bytes)
        check_memory(config, "reading this checkpoint and sampling from it", must_fit, fixed=True)
        cost = limits.sampling_run(config, args.n, file_bytes=file_bytes)
        what = f"{counted(args.n, 'sample')} of at most {counted(config.block_size, 'token')}"
        say_estimate(what, f"at most {cost.time}", cost.bytes, read=file_bytes)

    model, tokenizer, _ = checkpoint.load(args.ckpt, check=ready)  # its block_size is within the bounds
    try:
        print_samples(model, tokenizer, args.n, args.temperature, args.seed)
    except (ArithmeticError, ValueError) as e:
        if isinstance(e, InputError):
            raise
        # e.g. a temperature of 1e-310 (1 / temperature is not a float), or weights near 1e308
        raise InputError(
            f"sampling at --temperature {args.temperature} overflowed: the temperature is too small, "
            f"or the weights in {args.ckpt} too large"
        ) from None
    return 0


def in_range(flag: str, value: int, low: int, high: int) -> None:
    """Refuse a whole number out of its option's range, saying the range, each number as it is typed."""
    if not low <= value <= high:
        raise InputError(f"{flag} must be from {low} to {high}, got {typed(value)}")


def say_estimate(what: str, time: str, growth: int, read: int = 0) -> None:
    """The line every run prints before its first step: what it will do, and what that costs here."""
    here = speed.current()
    note(f"microgpt: {what}: {time} of CPU time and {size(memory_in_all(growth, read))} of memory ({here.source})")


def memory_in_all(growth: int, read: int = 0) -> int:
    """All the memory the process will hold: what it holds now (the interpreter, microgpt, what it has read, less
    the text of a checkpoint being read, read bytes, which goes before the model is built) and what the run adds;
    or what it has held already, if that is more."""
    now, peak = machine.resident()
    return max(peak, now - read + growth)


def print_samples(model: Model, tokenizer: Tokenizer, n: int, temperature: float, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(n):
        say(one_sample(model, tokenizer, rng, temperature))


def one_sample(model: Model, tokenizer: Tokenizer, rng: random.Random, temperature: float) -> str:
    """One sample, built as a training step is: with the cyclic garbage collector paused while its graph
    lives. The graph holds no cycles, and the collector would walk it again and again as it grows (at the
    bound, 5.7 to 6.6 times the sample's time, measured in issue 38); limits.sample_cost estimates a sample
    built this way. Done here, not in sample.py: the page that teaches sampling stays about sampling, and
    the site's own callers pause the collector the same way (docs/training.md, microgpt/course/live.py)."""
    with cyclic_gc_paused():
        return sample(model, tokenizer, rng, temperature)


def acknowledge(progress: ProgressLine, then: str) -> Callable[[int], None]:
    """What a stop signal during training says at once, whatever the step's size: that it was heard."""

    def say_heard(signum: int) -> None:
        progress.interject(f"microgpt: {signal_name(signum)}: stopping after this step, {then}")

    return say_heard


class OutOfMemory(Exception):
    """Memory ran out during a training step, after `done` whole steps."""

    def __init__(self, done: int):
        super().__init__(done)
        self.done = done


def fit(
    model: Model,
    tokenizer: Tokenizer,
    docs: list[str],
    steps: int,
    lr: float,
    stop: StopRequest,
    progress: ProgressLine,
) -> int:
    """Train with a progress line until done or asked to stop (after a whole step); return the steps done."""
    optimizer = Adam(model.params, lr=lr, total_steps=steps)
    run = train(model, optimizer, tokenizer, docs, steps)
    done = 0
    try:
        while not stop:
            try:
                p = next(run, None)
            except MemoryError:
                p = None  # raised below, once this block has let go of the step's graph
            except (ArithmeticError, ValueError) as e:  # ValueError: log(0), a math domain error
                # a learning rate far too large sends the weights to where exp() overflows or log() meets 0
                raise InputError(f"training diverged at step {done + 1} ({e}); try a smaller --lr") from None
            else:
                if p is None:
                    break
                if not math.isfinite(p.loss):
                    raise InputError(f"training diverged at step {p.step} (loss {p.loss}); try a smaller --lr")
                progress.update(p)
                done = p.step
                continue
            raise OutOfMemory(done)
    finally:
        progress.finish()
    return done
