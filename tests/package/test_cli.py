"""The command line, run as a user runs it: `python -m microgpt ...` in a subprocess (or main() in-process
where nothing about the process itself is under test)."""

import dataclasses
import functools
import io
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
from datetime import date, timedelta
from pathlib import Path

import pytest
from unprivileged import Runner, as_nobody, give

from microgpt import model
from microgpt.cli import console
from microgpt.cli import main as cli
from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.model import GPTConfig, Model
from microgpt.runtime import checkpoint, limits, machine, speed
from microgpt.runtime.counts import values_per_step
from microgpt.train import Progress

TINY = ["--n-embd", "4", "--n-head", "1"]  # a few hundred steps a second, so these tests stay fast
EXIT_SIGINT, EXIT_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM
ACKNOWLEDGED = "stopping after this step, then saving what was trained"  # a stop during training, at once
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals, FIFOs and devices")


def microgpt(*args: str, cwd=None, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "microgpt", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout, **kwargs
    )


def microgpt_with_hook(hook: str, *args: str, timeout: float = 60, preexec_fn=None) -> subprocess.CompletedProcess:
    """Run the command line in a fresh Python after `hook` (code that patches microgpt) has run.

    This is how a signal is delivered at an exact point (a given step, the middle of the save):
    deterministically, not by timing luck.
    """
    script = (
        "import os, signal, sys\n"
        + textwrap.dedent(hook)
        + "\nfrom microgpt.cli import main as cli\nsys.exit(cli.main())"
    )
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec_fn or restore_default_signals,
    )


# Every signal a test sends a child. The suite may start with some of them ignored (SIGHUP under `nohup`
# or some CI runners, SIGINT in a background job), and a child inherits that: microgpt rightly keeps an
# ignored signal ignored, so a test that sends one gives its child the default disposition first.
SENT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def restore_default_signals() -> None:
    """Run in the child before it starts (preexec_fn): the default disposition for every signal the tests send."""
    for signum in SENT_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a child ended by SIGQUIT leaves no core file behind


# The line every run prints before its first step: what it will do, and what that costs on this machine
ESTIMATE = re.compile(
    r"microgpt: .*: (about|at most) .+ of CPU time and .+ of memory \(at this machine's speed, measured .+\)"
)


def is_progress(line: str) -> bool:
    """A line that says how a run goes (its estimate, then a step), not what went wrong."""
    return line.startswith("step ") or bool(ESTIMATE.fullmatch(line))


def one_error_line(stderr: str) -> str:
    """The only line on stderr apart from the run's estimate and progress lines; it must be a microgpt error."""
    (line,) = [line for line in stderr.splitlines() if not is_progress(line)]
    assert line.startswith("microgpt: error: "), line
    return line.removeprefix("microgpt: error: ")


@pytest.fixture(autouse=True)
def own_home(tmp_path_factory, monkeypatch):
    """A home and a cache directory of each test's own, which no other test reads or writes, and never the
    user's: this machine's speed is kept there already (as the reference machine's, so that no run of the
    command line measures it, and so that a file's first fsync is the run's own), and none is known yet in
    this process. The test's tmp_path stays its own too."""
    home = tmp_path_factory.mktemp("home")
    cache = home / ".cache"
    (cache / "microgpt").mkdir(parents=True)
    settled = [{"on": date.today().isoformat(), "busy": 0.0, "train": 1.0, "sample": 1.0}] * speed.MEASUREMENTS
    doc = {"format": speed.FORMAT, "machines": {speed.machine_key(): settled}}
    (cache / "microgpt" / speed.FILE_NAME).write_text(json.dumps(doc))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    speed._current.cache_clear()
    yield home
    speed._current.cache_clear()


@pytest.fixture
def ckpt(tmp_path_factory):
    """A checkpoint written by the command line, in its own directory, as this test's home is."""
    path = tmp_path_factory.mktemp("ckpt") / "model.json"
    result = microgpt("train", "--steps", "20", *TINY, "--out", str(path))
    assert result.returncode == 0, result.stderr
    return path


def write_checkpoint(path, vocab: str, change=None):
    """A small untrained checkpoint over vocab; change(doc) may edit its JSON first."""
    tokenizer = Tokenizer(vocab)
    checkpoint.save(path, Model.init(GPTConfig(tokenizer.vocab_size, n_embd=4, n_head=1, block_size=8)), tokenizer)
    if change is not None:
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc))
    return path


# --- the ordinary runs -----------------------------------------------------------------------


def test_train_shows_loss_and_writes_a_loadable_checkpoint(ckpt):
    model, tokenizer, meta = checkpoint.load(ckpt)
    assert (model.config.n_embd, model.config.n_head) == (4, 1)
    assert tokenizer.chars == "abcdefghijklmnopqrstuvwxyz"
    assert meta["steps"] == meta["steps_planned"] == 20
    assert meta["interrupted"] is False


def test_train_reports_progress_and_where_it_wrote(tmp_path):
    out = tmp_path / "m.json"
    result = microgpt("train", "--steps", "20", *TINY, "--out", str(out))
    assert result.returncode == 0
    assert f"wrote {out} (20 steps)" in result.stdout
    lines = result.stderr.splitlines()
    # not a terminal: whole lines, one every tenth of the run, so a log stays readable
    assert "\r" not in result.stderr
    assert ESTIMATE.fullmatch(lines[0]) and lines[0].startswith("microgpt: 20 steps of a 472-parameter model on ")
    assert lines[1].startswith("step  1/20 | loss ")
    assert lines[-1].startswith("step 20/20 | loss ")
    assert len(lines) == 12
    assert all("steps/s" in line and "ETA" in line for line in lines[1:])


def test_train_writes_the_default_checkpoint_in_the_current_directory(tmp_path):
    result = microgpt("train", "--steps", "2", *TINY, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert os.listdir(tmp_path) == [cli.DEFAULT_OUT]
    checkpoint.load(tmp_path / cli.DEFAULT_OUT)


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as a console's stderr does."""

    def isatty(self):
        return True


def test_progress_line_redraws_one_line_on_a_terminal():
    stream = Terminal()
    progress = console.ProgressLine(stream, steps=3)
    for step in (1, 2, 3):
        progress.update(Progress(step, 3, 2.5))
    progress.finish()
    text = stream.getvalue()
    assert text.startswith("\rstep 1/3 | loss 2.5000")
    assert text.count("\n") == 1 and text.endswith("\n")
    assert "step 3/3" in text.split("\r")[-1]


def test_progress_line_that_cannot_be_written_does_not_stop_the_training():
    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    progress = console.ProgressLine(Full(), steps=3)
    for step in (1, 2, 3):
        progress.update(Progress(step, 3, 2.5))  # would raise if a failed write escaped
    progress.finish()
    assert progress.broken


def test_sample_prints_n_lines_of_vocabulary_characters(ckpt):
    result = microgpt("sample", "--ckpt", str(ckpt), "-n", "7")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 7
    assert all(set(line) <= set("abcdefghijklmnopqrstuvwxyz") for line in lines)
    assert ESTIMATE.fullmatch(result.stderr.rstrip("\n"))  # one line, before the first sample
    assert result.stderr.startswith("microgpt: 7 samples of at most 16 tokens: at most ")


def test_sample_is_reproducible_by_seed(ckpt):
    a, b = (microgpt("sample", "--ckpt", str(ckpt), "-n", "20", "--seed", "5").stdout for _ in range(2))
    c = microgpt("sample", "--ckpt", str(ckpt), "-n", "20", "--seed", "6", "--temperature", "1.5").stdout
    assert a == b
    assert a != c


def test_bare_command_trains_briefly_prints_samples_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "DEMO_STEPS", 3)  # the real default (300 steps) takes ~20 s
    assert cli.main([]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == cli.DEMO_SAMPLES
    assert "step 3/3" in err
    assert os.listdir(tmp_path) == []


def test_help_lists_the_commands_the_exit_statuses_and_the_rule_for_out(capsys):
    assert cli.main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "{train,sample}" in out and "130 Ctrl-C (SIGINT), 143 SIGTERM, 129 SIGHUP" in out
    assert cli.main(["train", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "any other file, a symbolic link, a directory, a device, a FIFO, the data file itself and a path" in out
    assert f"at most {limits.MAX_PARAMETERS:,} parameters" in out


def test_the_documents_are_checked_against_block_size_before_the_model_is_built(tmp_path, monkeypatch, capsys):
    calls = []

    def counting_check_fits(docs, block_size, *args):
        calls.append(block_size)
        return real_check_fits(docs, block_size, *args)

    def init(*args, **kwargs):
        calls.append("built")
        return real_init(*args, **kwargs)

    real_check_fits, real_init = limits.check_fits, Model.init
    monkeypatch.setattr(cli, "check_fits", counting_check_fits)
    monkeypatch.setattr(Model, "init", init)
    assert cli.main(["train", "--steps", "2", *TINY, "--out", str(tmp_path / "m.json")]) == 0
    assert calls == [16, "built"]


def test_readme_states_the_bounds_and_exit_statuses_the_code_has():
    from microgpt.data import default_data_path, load_docs

    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
    default_model = GPTConfig(Tokenizer.from_docs(load_docs(default_data_path())).vocab_size)
    n_params = limits.parameter_count(default_model)
    assert f"at most {limits.MAX_PARAMETERS:,} parameters (the default has {n_params:,})" in readme
    assert f"UTF-8 file of at most {limits.MAX_DATA_BYTES // 2**20} MiB" in readme
    memory = limits.size(limits.MAX_VALUES_PER_PASS * limits.BYTES_PER_VALUE)
    assert (
        f"builds at most {limits.MAX_VALUES_PER_PASS:,} Values, the numbers of its graph (a step that large keeps "
        f"them all, about {memory}; a sample keeps only part of them)"
    ) in readme
    assert f"bounds `--block-size` at each width ({limits.longest_block(default_model)} at the default width)" in readme
    assert f"exits {EXIT_SIGINT} (Ctrl-C) or {EXIT_SIGTERM} (SIGTERM); SIGHUP (a closed terminal) does" in readme
    assert f"the same with {128 + signal.SIGHUP}" in readme
    assert f"exit {cli.EXIT_USAGE}, never a traceback" in readme
    assert f"(`microgpt: Ctrl-C (SIGINT): {ACKNOWLEDGED}`, however long the step)" in readme
    assert f"quietly with exit {cli.EXIT_BROKEN_PIPE}" in readme
    assert limits.MAX_STEPS == limits.MAX_SAMPLES
    assert f"`--steps` and `-n` are at most {limits.MAX_STEPS:,}" in readme
    assert f"(`microgpt: SIGTERM: {cli.SAVING_FIRST}`)" in readme


def test_readme_says_where_the_speed_is_kept(monkeypatch, tmp_path):
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert speed.cache_dir() == tmp_path / ".cache" / "microgpt"
    assert f"They are kept in `{speed.FILE_NAME}`" in readme
    assert "`~/.cache/microgpt/` on Linux, or `$XDG_CACHE_HOME/microgpt/` if that is set to an absolute path" in readme
    assert speed.MEASUREMENTS == 5 and "The first five runs on a machine measure it once each" in readme
    assert speed.MAX_AGE_DAYS == 7 and "A measurement is kept for a week" in readme
    (tmp_path / "xdg").mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert speed.cache_dir() == tmp_path / "xdg" / "microgpt"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # the XDG spec: ignored
    assert speed.cache_dir() == tmp_path / ".cache" / "microgpt"
    assert "must be an absolute path to a directory that exists, other than the root" in readme


# microgpt/course/ is not listed: its row says what it holds, and ARCHITECTURE.md draws each of its modules
@pytest.mark.parametrize("folder", ["microgpt", "microgpt/runtime", "microgpt/cli"])
def test_readme_layout_lists_every_module_of_each_folder_of_the_package(folder):
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.split("\n") if line.startswith(f"| `{folder}/` |"))
    listed = set(re.findall(r"`(\w+)`", row.split("|")[2]))
    modules = {p.stem for p in (Path(__file__).parents[2] / folder).glob("*.py") if not p.stem.startswith("_")}
    assert listed == modules


def test_the_package_folder_holds_only_the_taught_modules_and_three_subpackages():
    package = Path(__file__).parents[2] / "microgpt"
    subpackages = {"runtime", "cli", "course"}
    assert {p.name for p in package.iterdir() if p.is_dir() and not p.name.startswith("__")} == subpackages
    for sub in subpackages:
        assert (package / sub / "__init__.py").is_file()


def test_train_flags_for_the_models_shape_come_from_gptconfig(capsys):
    assert cli.main(["train", "--help"]) == 0
    out = capsys.readouterr().out
    for name in ("n_layer", "n_embd", "n_head", "block_size"):
        default = GPTConfig.__dataclass_fields__[name].default
        assert f"--{name.replace('_', '-')}" in out and f"(default: {default})" in out


# --- bad input: one line, exit 2, nothing written --------------------------------------------


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "empty.txt").write_text("\n \n")
    (d / "latin1.txt").write_bytes("ren\xe9e\n".encode("latin-1"))
    (d / "long.txt").write_text("ann\n" + "x" * 20 + "\n")
    (d / "corrupt.json").write_text('{"format": ')
    (d / "future.json").write_text(json.dumps({"format": "microgpt-checkpoint", "version": 9}))
    (d / "subdir").mkdir()
    assert sorted(os.listdir(d)) == BAD_FILES
    return d


BAD_FILES = ["corrupt.json", "empty.txt", "future.json", "latin1.txt", "long.txt", "subdir"]


TRAIN_ERRORS = {
    "steps-zero": (["--steps", "0"], "--steps must be from 1 to 1000000000, got 0"),
    "steps-beyond-the-bound": (["--steps", "1000000001"], "--steps 1000000001 would take "),
    "steps-of-400-digits": (["--steps", "1" + "0" * 400], "--steps a number of 401 digits would take about 10^"),
    "steps-arabic-indic": (["--steps", "\u0663"], "argument --steps: invalid value '\u0663': a whole number from 1 "),
    "steps-fullwidth": (["--steps", "\uff13"], "argument --steps: invalid value '\uff13': a whole number from 1 "),
    "steps-underscore": (["--steps", "1_000"], "argument --steps: invalid value '1_000': a whole number from 1 "),
    "steps-spaced": (["--steps", " 5"], "argument --steps: invalid value ' 5': a whole number from 1 to "),
    "seed-negative": (["--seed", "-1"], "--seed must be from 0 to 18446744073709551615, got -1"),
    "seed-devanagari": (["--seed", "\u0967"], "argument --seed: invalid value '\u0967': a whole number from 0 to "),
    "n-embd-arabic-indic": (["--n-embd", "\u0668"], "argument --n-embd: invalid value '\u0668': a positive whole"),
    "lr-negative": (["--lr", "-0.1"], "argument --lr: invalid value '-0.1': a positive number from 5e-324 to 1.7e308"),
    "lr-overflows": (["--lr", "1e999"], "argument --lr: invalid value '1e999': a positive number from "),
    "lr-underflows": (["--lr", "1e-999"], "argument --lr: invalid value '1e-999': a positive number from "),
    "lr-nan": (["--lr", "nan"], "argument --lr: invalid value 'nan': a positive number in ASCII digits (0-9), such"),
    "lr-arabic-indic": (["--lr", "\u0660.\u0660\u0661"], "argument --lr: invalid value '\u0660.\u0660\u0661': a"),
    "n-layer-zero": (["--n-layer", "0"], "--n-layer must be a positive whole number, got 0"),
    "block-size-negative": (["--block-size", "-3"], "--block-size must be a positive whole number, got -3"),
    "indivisible-heads": (["--n-embd", "10", "--n-head", "4"], "--n-embd (10) must be divisible by --n-head (4)"),
    "too-large": (["--n-embd", "1024"], "a model with vocab_size 27, n_layer 1, n_embd 1024, n_head 1, block_size 16 "),
    "missing-data": (["--data", "{d}/nope.txt"], "data file not found: {d}/nope.txt"),
    "data-is-directory": (["--data", "{d}/subdir"], "data file must be a regular file, but {d}/subdir is a directory"),
    "empty-data": (["--data", "{d}/empty.txt"], "data file has no documents (every line is empty): {d}/empty.txt"),
    "undecodable-data": (["--data", "{d}/latin1.txt"], "data file is not valid UTF-8: {d}/latin1.txt (byte 3)"),
    "document-too-long": (
        ["--data", "{d}/long.txt"],
        "a document is 20 characters long, but --block-size 16 fits at most 15",
    ),
    "out-dir-missing": (["--out", "{d}/no/such/dir/m.json"], "--out: directory does not exist: {d}/no/such/dir"),
    "out-is-directory": (["--out", "{d}"], "--out: {d} is a directory, not a file"),
    "out-is-not-a-checkpoint": (
        ["--out", "{d}/long.txt"],
        "--out: {d}/long.txt is not valid JSON: Expecting value at line 1 column 1; microgpt replaces only its own",
    ),
    "out-under-a-file": (["--out", "{d}/long.txt/m.json"], "--out: {d}/long.txt is a regular file, not a directory"),
    "out-file-dot": (["--out", "{d}/long.txt/."], "--out: {d}/long.txt is a regular file, not a directory"),
    "out-file-dot-dot": (["--out", "{d}/long.txt/.."], "--out: {d}/long.txt is a regular file, not a directory"),
    "out-file-slash": (["--out", "{d}/long.txt/"], "--out: {d}/long.txt is a regular file, not a directory"),
    "out-directory-dot": (["--out", "{d}/subdir/."], "--out: {d}/subdir/. names a directory, not a file"),
    "out-directory-dot-dot": (["--out", "{d}/subdir/.."], "--out: {d}/subdir/.. names a directory, not a file"),
    "out-deeper-under-a-file": (["--out", "{d}/long.txt/x/m.json"], "--out: {d}/long.txt is a regular file, not a"),
    "out-ends-in-slash": (["--out", "{d}/new/"], "--out: {d}/new/ names a directory, not a file"),
    "out-empty": (["--out", ""], "--out: the path is empty"),
    "data-empty-path": (["--data", ""], "data file: the path is empty"),
    "out-name-too-long": (["--out", "{d}/" + "a" * 256], "--out: {d}/" + "a" * 256 + ": File name too long"),
    "diverges": (["--lr", "1e6", "--steps", "5"], "training diverged at step "),
}


@pytest.mark.parametrize("case", TRAIN_ERRORS, ids=list(TRAIN_ERRORS))
def test_bad_train_input_exits_2_with_one_line_and_writes_nothing(tmp_path, bad_files, case, capsys):
    args, message = TRAIN_ERRORS[case]
    args = [a.format(d=bad_files) for a in args]
    out = tmp_path / "m.json"
    assert cli.main(["train", "--steps", "3", *TINY, "--out", str(out), *args]) == 2
    stderr = capsys.readouterr().err
    assert one_error_line(stderr).startswith(message.format(d=bad_files))
    assert os.listdir(tmp_path) == []
    assert sorted(os.listdir(bad_files)) == BAD_FILES  # the inputs are untouched, whatever went wrong


def test_checks_on_out_come_before_the_training(tmp_path, capsys):
    assert cli.main(["train", *TINY, "--out", str(tmp_path / ("a" * 256))]) == 2
    stderr = capsys.readouterr().err
    assert "step " not in stderr  # refused at once, not after 1000 steps


SAMPLE_ERRORS = {
    "missing-ckpt": (["--ckpt", "{d}/nope.json"], "checkpoint not found: {d}/nope.json"),
    "ckpt-is-directory": (["--ckpt", "{d}/subdir"], "checkpoint must be a regular file, but {d}/subdir is a directory"),
    "corrupt-ckpt": (["--ckpt", "{d}/corrupt.json"], "checkpoint {d}/corrupt.json is not valid JSON: "),
    "future-ckpt": (["--ckpt", "{d}/future.json"], "checkpoint {d}/future.json has format version 9; "),
    "negative-n": (["--ckpt", "{ckpt}", "-n", "-1"], "-n must be from 0 to 1000000000, got -1"),
    "n-beyond-the-bound": (["--ckpt", "{ckpt}", "-n", "1000000001"], "-n must be from 0 to 1000000000, got 1000000001"),
    "n-arabic-indic": (["--ckpt", "{ckpt}", "-n", "\u0663"], "argument -n: invalid value '\u0663': a whole number"),
    "zero-temperature": (
        ["--ckpt", "{ckpt}", "--temperature", "0"],
        "argument --temperature: invalid value '0': a positive number",
    ),
    "nan-temperature": (["--ckpt", "{ckpt}", "--temperature", "nan"], "argument --temperature: invalid value 'nan'"),
    "infinite-temperature": (["--ckpt", "{ckpt}", "--temperature", "inf"], "argument --temperature: invalid value"),
    "overflowing-temperature": (
        ["--ckpt", "{ckpt}", "--temperature", "1e999"],
        "argument --temperature: invalid value '1e999'",
    ),
    "tiny-temperature": (["--ckpt", "{ckpt}", "--temperature", "1e-310"], "sampling at --temperature 1e-310 overflow"),
}


@pytest.mark.parametrize("case", SAMPLE_ERRORS, ids=list(SAMPLE_ERRORS))
def test_bad_sample_input_exits_2_with_one_line(bad_files, ckpt, case, capsys):
    args, message = SAMPLE_ERRORS[case]
    assert cli.main(["sample", *(a.format(d=bad_files, ckpt=ckpt) for a in args)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert one_error_line(err).startswith(message.format(d=bad_files))


def test_a_huge_temperature_samples_uniformly_without_error(ckpt, capsys):
    assert cli.main(["sample", "--ckpt", str(ckpt), "-n", "5", "--temperature", "1e308"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_finite_but_huge_weights_end_in_one_error_line(tmp_path, capsys):
    def huge(doc):
        for mat in doc["state_dict"].values():
            for row in mat:
                row[:] = [1e308 * (-1) ** j for j in range(len(row))]

    path = write_checkpoint(tmp_path / "huge.json", "ab", huge)
    assert cli.main(["sample", "--ckpt", str(path), "-n", "3"]) == 2
    assert one_error_line(capsys.readouterr().err).endswith(f"the weights in {path} too large")


ARGUMENT_ERRORS = {
    "bad-int": (
        ["train", "--steps", "many"],
        "argument --steps: invalid value 'many': a whole number from 1 to 1000000000 ",
    ),
    "missing-required": (["sample"], "the following arguments are required: --ckpt (see: microgpt sample --help)"),
    "unknown-command": (["fly"], "argument {train,sample}: invalid choice: 'fly'"),
    "newline-in-argument": (["train", "--bogus\nsecond line"], "unrecognized arguments: --bogus\\nsecond line"),
    "escape-in-argument": (["train", "\x1b[31mred"], "unrecognized arguments: \\x1b[31mred"),
}


@pytest.mark.parametrize("case", ARGUMENT_ERRORS, ids=list(ARGUMENT_ERRORS))
def test_argument_errors_are_one_line_without_a_usage_block(case, capsys):
    args, message = ARGUMENT_ERRORS[case]
    assert cli.main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert one_error_line(err).startswith(message)


def test_argument_error_from_the_real_command_line_is_one_line():
    result = microgpt("train", "--steps", "many")
    assert result.returncode == 2
    assert result.stderr == (
        "microgpt: error: argument --steps: invalid value 'many': a whole number from 1 to 1000000000 in ASCII "
        "digits (0-9) is expected (see: microgpt train --help)\n"
    )


def test_a_path_with_a_newline_stays_on_one_line(tmp_path, capsys):
    assert cli.main(["sample", "--ckpt", str(tmp_path / "two\nlines.json")]) == 2
    assert one_error_line(capsys.readouterr().err) == f"checkpoint not found: {tmp_path}/two\\nlines.json"


# --- --out writes only regular files, and never the data ------------------------------------


def train_into(out, *args: str, capsys) -> tuple[int, str]:
    status = cli.main(["train", "--steps", "2", *TINY, "--out", str(out), *args])
    return status, capsys.readouterr().err


@posix_only
def test_out_refuses_a_fifo_before_training(tmp_path, capsys):
    os.mkfifo(tmp_path / "fifo")
    status, err = train_into(tmp_path / "fifo", capsys=capsys)
    assert status == 2
    assert one_error_line(err) == f"--out: {tmp_path}/fifo is a FIFO (named pipe); microgpt writes only regular files"
    assert "step " not in err
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)


@posix_only
def test_out_refuses_a_device_node(tmp_path, capsys):
    # our own device node (root may make one), so that a regression could only ever replace a test file
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        node = "/dev/null"  # not root: nothing here could replace /dev/null anyway
    status, err = train_into(node, capsys=capsys)
    assert status == 2
    assert one_error_line(err) == f"--out: {node} is a character device; microgpt writes only regular files"
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_out_refuses_a_symbolic_link_and_leaves_it_and_its_target_alone(tmp_path, capsys):
    target = tmp_path / "target.json"
    target.write_text("precious")
    (tmp_path / "link.json").symlink_to(target)
    status, err = train_into(tmp_path / "link.json", capsys=capsys)
    assert status == 2
    assert "is a symbolic link" in one_error_line(err)
    assert os.readlink(tmp_path / "link.json") == str(target)
    assert target.read_text() == "precious"


@pytest.mark.parametrize("how", ["same-path", "symlink", "hard-link"])
def test_out_refuses_the_data_file_itself(tmp_path, capsys, how):
    data = tmp_path / "data.txt"
    data.write_text("anna\nbob\n")
    out = {"same-path": data, "symlink": tmp_path / "alias.txt", "hard-link": tmp_path / "hard.txt"}[how]
    if how == "symlink":
        (tmp_path / "data-link.txt").symlink_to(data)
        out, data_arg = data, tmp_path / "data-link.txt"  # --data through a link, --out the file itself
    elif how == "hard-link":
        os.link(data, out)
    status, err = train_into(out, "--data", str(data_arg if how == "symlink" else data), capsys=capsys)
    assert status == 2
    assert "writing it would destroy the input" in one_error_line(err)
    assert data.read_text() == "anna\nbob\n"


def test_out_refuses_the_shipped_data_when_training_on_it(capsys):
    from microgpt.data import default_data_path

    status, err = train_into(default_data_path(), capsys=capsys)
    assert status == 2
    assert "is the data file" in one_error_line(err)


def test_out_keeps_an_existing_files_permissions(tmp_path, ckpt, capsys):
    out = tmp_path / "m.json"
    out.write_bytes(ckpt.read_bytes())
    out.chmod(0o640)
    status, _ = train_into(out, capsys=capsys)
    assert status == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert checkpoint.load(out)[2]["steps"] == 2


@posix_only
def test_a_new_checkpoint_honours_the_umask(tmp_path):
    out = tmp_path / "m.json"
    result = subprocess.run(
        [sys.executable, "-m", "microgpt", "train", "--steps", "1", *TINY, "--out", str(out)],
        capture_output=True,
        timeout=60,
        preexec_fn=lambda: os.umask(0o027),
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # 0o666 less the umask, like any new file


def test_out_with_a_name_of_250_bytes_is_written(tmp_path, capsys):
    out = tmp_path / ("a" * 245 + ".json")
    status, _ = train_into(out, capsys=capsys)
    assert status == 0
    assert os.listdir(tmp_path) == [out.name]


# --- --out replaces only what is microgpt's own, for any user ---------------------------------


@pytest.fixture(params=["this-user", "unprivileged"])
def runner(request, tmp_path_factory, own_home):
    """A directory to work in and a way to run the command line there, as the user running the tests and as an
    unprivileged user (see tests/unprivileged.py), each with this machine's speed kept already."""
    if request.param == "this-user":
        yield Runner(tmp_path_factory.mktemp("work"), sys.executable, dict(os.environ), None)
        return
    with as_nobody() as nobody:
        if isinstance(nobody, str):
            pytest.skip(nobody)
        key = nobody.python_code("from microgpt.runtime import speed; print(speed.machine_key())").stdout.strip()
        home = Path(nobody.env["HOME"])
        kept = (own_home / ".cache" / "microgpt" / speed.FILE_NAME).read_text()
        (home / ".cache" / "microgpt").mkdir(parents=True)
        (home / ".cache" / "microgpt" / speed.FILE_NAME).write_text(kept.replace(speed.machine_key(), key))
        give(home, nobody)
        yield nobody


def written_by_microgpt(runner: Runner, name: str) -> Path:
    """A checkpoint the command line wrote, at name in the runner's directory, owned by the runner's user."""
    result = runner.run("train", "--steps", "1", *TINY, "--out", name)
    assert result.returncode == 0, result.stderr
    return runner.work / name


# What is at --out, its mode, and why a run refuses it as root and as another user (None: it is replaced)
OUT_CASES = {
    # the issue's case: only the first 64 KiB were read, and a blank start counted as empty
    "notes-after-a-blank-start": (b" " * 65536 + b"my notes\n", 0o644, ("line 1 column 65537",) * 2),
    "only-whitespace": (b"  \n\t\n", 0o644, ("is not empty: it holds 5 bytes of whitespace",) * 2),
    "users-json-that-says-it-is-one": (
        b'{"format": "microgpt-checkpoint", "version": 1, "notes": "mine"}',
        0o644,
        ("has no 'config' field",) * 2,
    ),
    # the issue's case: a user who may not read it had a file replaced that may only be written
    "write-only-log": (b"log\n", 0o200, ("is not valid JSON", "cannot read file wo.txt: Permission denied")),
    "write-only-checkpoint": ("checkpoint", 0o200, (None, "cannot read file wo.txt: Permission denied")),
    "read-only-checkpoint": ("checkpoint", 0o444, ("is read-only (for you)",) * 2),
    "a-checkpoint": ("checkpoint", 0o600, (None, None)),
    "empty": (b"", 0o600, (None, None)),
}


@posix_only
@pytest.mark.parametrize("case", OUT_CASES, ids=list(OUT_CASES))
def test_out_replaces_only_microgpts_own_checkpoint_or_an_empty_file_whoever_runs_it(runner, case):
    content, mode, (as_root, as_another) = OUT_CASES[case]
    out = runner.work / "wo.txt"
    if content == "checkpoint":
        written_by_microgpt(runner, "wo.txt")
    else:
        out.write_bytes(content)
        give(out, runner)
    out.chmod(mode)
    before = out.read_bytes()
    result = runner.run("train", "--steps", "2", *TINY, "--out", "wo.txt")
    why = as_root if runner.user is None and os.geteuid() == 0 else as_another
    if why is None:
        assert result.returncode == 0, result.stderr
        assert checkpoint.load(out)[2]["steps"] == 2 and stat.S_IMODE(out.stat().st_mode) == mode
    else:
        assert result.returncode == 2, result.stderr
        line = one_error_line(result.stderr)
        assert line.startswith("--out: ") and why in line, line
        advice = "make it writable or choose another path" if "read-only" in why else "or remove the file first"
        assert line.endswith(advice), line
        assert out.read_bytes() == before and result.stdout == ""
    assert sorted(os.listdir(runner.work)) == ["wo.txt"]


# --- reading is bounded, and only regular files are read -------------------------------------


@posix_only
@pytest.mark.parametrize("flag", ["--data", "--ckpt"])
def test_dev_zero_as_input_fails_at_once(flag):
    command = "train" if flag == "--data" else "sample"
    result = microgpt(command, flag, "/dev/zero", timeout=30)
    assert result.returncode == 2
    assert one_error_line(result.stderr).endswith("/dev/zero is a character device")


@posix_only
def test_a_fifo_as_data_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    result = microgpt("train", "--data", str(tmp_path / "fifo"), "--out", str(tmp_path / "m.json"), timeout=30)
    assert result.returncode == 2
    assert one_error_line(result.stderr).endswith("fifo is a FIFO (named pipe)")


def test_data_larger_than_the_bound_is_refused_from_its_size(tmp_path, capsys):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(limits.MAX_DATA_BYTES + 1)
    status, err = train_into(tmp_path / "m.json", "--data", str(big), capsys=capsys)
    assert status == 2
    assert f"is too large: {limits.MAX_DATA_BYTES + 1:,} bytes" in one_error_line(err)


# --- crafted checkpoints and sizes: refused before anything of that size is built -------------


@pytest.fixture
def forbid_building_a_model(monkeypatch):
    """Once called, every path that allocates a model's worth of memory fails the test if it is reached."""

    def built(*args, **kwargs):
        raise AssertionError("a model of the claimed size was about to be built")

    real_shapes = GPTConfig.matrix_shapes

    def shapes(config):  # of one block at most, to count the parameters; never of every block
        return real_shapes(config) if config.n_layer <= 1 else built()

    def forbid():
        speed.current()  # measuring the speed builds a small model of its own: done before anything is forbidden
        monkeypatch.setattr(model, "init_params", built)
        monkeypatch.setattr(Model, "init", built)
        monkeypatch.setattr(GPTConfig, "matrix_shapes", shapes)

    return forbid


def test_a_small_checkpoint_claiming_a_huge_model_fails_before_building_it(tmp_path, forbid_building_a_model, capsys):
    def claim_huge(doc):
        doc["config"].update(n_embd=100000, block_size=100000000, n_layer=1000000)
        doc["state_dict"] = {}

    path = write_checkpoint(tmp_path / "crafted.json", "ab", claim_huge)
    assert path.stat().st_size < 400
    forbid_building_a_model()
    assert cli.main(["sample", "--ckpt", str(path)]) == 2
    line = one_error_line(capsys.readouterr().err)
    claimed = 2 * 3 * 100000 + 100000000 * 100000 + 1000000 * 12 * 100000**2  # embeddings, positions, blocks
    assert f"has {claimed:,} parameters, which need " in line
    assert f"of memory at {limits.bytes_per_parameter()} bytes each; microgpt builds at most " in line


def test_train_sizes_beyond_the_bound_fail_before_building_the_model(tmp_path, forbid_building_a_model, capsys):
    forbid_building_a_model()
    args = ["--n-embd", "100000", "--n-layer", "1000000", "--block-size", "100000000"]
    status, err = train_into(tmp_path / "m.json", *args, capsys=capsys)
    assert status == 2
    line = one_error_line(err)
    claimed = 2 * 27 * 100000 + 100000000 * 100000 + 1000000 * 12 * 100000**2  # embeddings, positions, blocks
    assert f"has {claimed:,} parameters, which need " in line
    assert f"{limits.MAX_PARAMETERS:,} ({limits.MAX_PARAMETERS * limits.bytes_per_parameter() // 10**6} MB)" in line
    assert os.listdir(tmp_path) == []


# --- output: escaped, encodable, and failures of stdout are one line --------------------------


def test_control_characters_from_the_data_are_printed_escaped(tmp_path, capsys):
    path = write_checkpoint(tmp_path / "ctrl.json", "\x00\x1b")
    assert cli.main(["sample", "--ckpt", str(path), "-n", "20"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x00" not in out
    assert "\\x1b" in out and "\\x00" in out


@pytest.mark.parametrize(
    ("text", "shown"),
    [("anna", "anna"), ("a\x1b[2Jb", "a\\x1b[2Jb"), ("a\nb\tc", "a\\nb\\tc"), ("x\u2028y\u202ez", "x\\u2028y\\u202ez")],
)
def test_printable_escapes_every_character_that_is_not_printable(text, shown):
    assert console.printable(text) == shown


def test_samples_survive_a_legacy_encoding_on_stdout(tmp_path):
    data = tmp_path / "cjk.txt"
    data.write_text("中文\n文中\nü中\n", encoding="utf-8")
    out = tmp_path / "m.json"
    assert microgpt("train", "--steps", "2", *TINY, "--data", str(data), "--out", str(out)).returncode == 0
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    result = subprocess.run(
        [sys.executable, "-m", "microgpt", "sample", "--ckpt", str(out), "-n", "20"],
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    stdout = result.stdout.decode("cp1252")
    assert "\\u4e2d" in stdout or "\\u6587" in stdout  # not encodable in cp1252: written as escapes
    assert "中" not in stdout and "文" not in stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_to_a_full_device_is_one_error_line(ckpt):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "microgpt", "sample", "--ckpt", str(ckpt)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2
    assert one_error_line(result.stderr) == "cannot write to standard output: No space left on device"


@posix_only
def test_a_reader_that_goes_away_stops_sampling_quietly(ckpt):
    proc = subprocess.Popen(
        [sys.executable, "-m", "microgpt", "sample", "--ckpt", str(ckpt), "-n", "100000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline()  # streamed one by one: the first sample comes at once
        proc.stdout.close()
        stderr = proc.stderr.read()
        assert proc.wait(timeout=30) == cli.EXIT_BROKEN_PIPE
    finally:
        proc.kill()
    assert ESTIMATE.fullmatch(stderr.rstrip("\n"))  # the estimate, and not a word more


# --- Ctrl-C and SIGTERM ------------------------------------------------------------------------

SIGNAL_AT_STEP_3 = """
import microgpt.train
real_step, calls = microgpt.train.train_step, []
def train_step(*args):
    loss = real_step(*args)
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.{first})
    return loss
microgpt.train.train_step = train_step
"""

SIGNAL_DURING_SAVE = """
import microgpt.runtime.checkpoint
real_fsync, real_save, saving, sent = os.fsync, microgpt.runtime.checkpoint.save, [], []
def save(*args, **kwargs):
    saving.append(1)
    return real_save(*args, **kwargs)
def fsync(fd):
    if saving and not sent:  # the checkpoint's data, half-way through the save (not the speed cache's, say)
        sent.append(1)
        os.kill(os.getpid(), signal.{during_save})
    real_fsync(fd)
os.fsync = fsync
microgpt.runtime.checkpoint.save = save
"""


def assert_saved_completely(out, steps: int, planned: int):
    _, _, meta = checkpoint.load(out)  # loads: the file is whole
    assert (meta["steps"], meta["steps_planned"], meta["interrupted"]) == (steps, planned, steps < planned)
    assert os.listdir(out.parent) == [out.name]  # no temporary file left


@posix_only
@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_stop_signal_finishes_the_step_saves_says_so_and_exits_128_plus_signal(tmp_path, name, status):
    out = tmp_path / "m.json"
    result = microgpt_with_hook(SIGNAL_AT_STEP_3.format(first=name), "train", "--steps", "50", *TINY, "--out", str(out))
    assert result.returncode == status, result.stderr
    assert_saved_completely(out, steps=3, planned=50)
    assert "at step 3 of 50; saved what was trained so far" in result.stderr
    assert f"wrote {out} (3 steps)" in result.stdout
    assert "Traceback" not in result.stderr


SIGNAL_AT_THE_START_OF_STEP_3 = """
import microgpt.train
real_step, calls = microgpt.train.train_step, []
def train_step(*args):
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.{name})  # as the step begins: a large step would take seconds from here
    loss = real_step(*args)
    if len(calls) == 3:
        os.write(2, b"-- step 3 done --\\n")
    return loss
microgpt.train.train_step = train_step
"""


@posix_only
@pytest.mark.parametrize(
    ("name", "said"), [("SIGINT", "Ctrl-C (SIGINT)"), ("SIGTERM", "SIGTERM"), ("SIGHUP", "SIGHUP")]
)
def test_a_stop_signal_is_acknowledged_at_once_before_the_step_ends(tmp_path, name, said):
    out = tmp_path / "m.json"
    hook = SIGNAL_AT_THE_START_OF_STEP_3.format(name=name)
    result = microgpt_with_hook(hook, "train", "--steps", "50", *TINY, "--out", str(out))
    assert result.returncode == 128 + getattr(signal, name), result.stderr
    lines = [line for line in result.stderr.splitlines() if not is_progress(line)]
    assert lines == [
        f"microgpt: {said}: {ACKNOWLEDGED}",
        "-- step 3 done --",
        f"microgpt: {said} at step 3 of 50; saved what was trained so far",
    ]
    assert_saved_completely(out, steps=3, planned=50)


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_stop_with_a_stderr_that_cannot_be_written_still_finishes_the_step_and_saves(tmp_path):
    out = tmp_path / "m.json"
    at_step_3 = SIGNAL_AT_THE_START_OF_STEP_3.format(name="SIGINT")
    at_step_3 = at_step_3.replace('os.write(2, b"-- step 3 done --\\n")', "pass")  # it would fail: stderr is full
    hook = 'os.dup2(os.open("/dev/full", os.O_WRONLY), 2)\n' + at_step_3
    result = microgpt_with_hook(hook, "train", "--steps", "50", *TINY, "--out", str(out))
    assert result.returncode == EXIT_SIGINT
    assert_saved_completely(out, steps=3, planned=50)
    assert f"wrote {out} (3 steps)" in result.stdout


def test_an_acknowledgement_on_a_terminal_goes_below_the_progress_line():
    stream = Terminal()
    line = console.ProgressLine(stream, steps=10)
    line.update(Progress(1, 10, 2.5))
    line.interject("microgpt: Ctrl-C (SIGINT): stopping after this step, then saving what was trained")
    line.update(Progress(10, 10, 2.0))
    line.finish()
    shown = stream.getvalue().split("\n")
    assert shown[0].startswith("\rstep  1/10 | loss 2.5000")
    assert shown[1] == "microgpt: Ctrl-C (SIGINT): stopping after this step, then saving what was trained"
    assert shown[2].startswith("\rstep 10/10 | loss 2.0000")  # drawn again, on a line of its own
    assert shown[3] == ""


@posix_only
@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_stop_signal_during_the_save_is_acknowledged_at_once_and_cannot_lose_it(tmp_path, name, status):
    out = write_checkpoint(tmp_path / "m.json", "ab")  # an older checkpoint, replaced whole or not at all
    result = microgpt_with_hook(
        SIGNAL_DURING_SAVE.format(during_save=name), "train", "--steps", "5", *TINY, "--out", str(out)
    )
    assert result.returncode == status, result.stderr
    assert_saved_completely(out, steps=5, planned=5)
    said = "Ctrl-C (SIGINT)" if name == "SIGINT" else name
    assert [line for line in result.stderr.splitlines() if not is_progress(line)] == [
        f"microgpt: {said}: {cli.SAVING_FIRST}",  # while the write is held
        f"microgpt: {said} arrived during the save; the checkpoint is complete",
    ]


@posix_only
def test_a_second_signal_during_the_save_after_ctrl_c_changes_nothing(tmp_path):
    out = tmp_path / "m.json"
    hook = SIGNAL_AT_STEP_3.format(first="SIGINT") + SIGNAL_DURING_SAVE.format(during_save="SIGTERM")
    result = microgpt_with_hook(hook, "train", "--steps", "50", *TINY, "--out", str(out))
    assert result.returncode == 130  # the first signal says why the run stopped
    assert_saved_completely(out, steps=3, planned=50)
    assert "Ctrl-C (SIGINT) at step 3 of 50; saved what was trained so far" in result.stderr


@posix_only
def test_every_line_on_stderr_but_the_progress_line_begins_with_microgpt(tmp_path, ckpt, monkeypatch, capsys):
    out = tmp_path / "m.json"
    stopped = microgpt_with_hook(
        SIGNAL_AT_STEP_3.format(first="SIGTERM"), "train", "--steps", "9", *TINY, "--out", str(out)
    )
    during_save = microgpt_with_hook(
        SIGNAL_DURING_SAVE.format(during_save="SIGHUP"), "train", "--steps", "2", *TINY, "--out", str(out)
    )
    monkeypatch.setattr(cli, "DEMO_STEPS", 2)
    monkeypatch.chdir(tmp_path)
    in_process = [
        cli.main([]),
        cli.main(["sample", "--ckpt", str(ckpt), "-n", "2"]),
        cli.main(["train", "--steps", "0"]),
    ]
    assert in_process == [0, 0, 2]
    lines = (stopped.stderr + during_save.stderr + capsys.readouterr().err).splitlines()
    assert len([line for line in lines if not line.startswith("step ")]) >= 9
    assert all(line.startswith(("step ", "microgpt: ")) for line in lines), lines


@posix_only
def test_a_child_of_the_tests_gets_the_default_disposition_of_every_signal_whatever_the_suite_inherited():
    def ignored_then_restored():
        for signum in SENT_SIGNALS:  # as under `nohup` (SIGHUP) or in a background job (SIGINT)
            signal.signal(signum, signal.SIG_IGN)
        restore_default_signals()

    code = f"import signal; print([signal.getsignal(s) is signal.SIG_DFL for s in {list(map(int, SENT_SIGNALS))}])"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, preexec_fn=ignored_then_restored
    )
    # SIGINT: Python installs its own handler in any child whose SIGINT is not ignored
    assert result.stdout.strip() == str([False, True, True, True]), result.stderr


def sighup_ignored() -> None:
    """A child started as under `nohup`: SIGHUP ignored, the rest at their defaults."""
    restore_default_signals()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@posix_only
def test_an_ignored_sighup_stays_ignored_while_training_and_while_loading(tmp_path):
    out = tmp_path / "m.json"
    hook = SIGNAL_AT_STEP_3.format(first="SIGHUP")
    result = microgpt_with_hook(hook, "train", "--steps", "5", *TINY, "--out", str(out), preexec_fn=sighup_ignored)
    assert result.returncode == 0, result.stderr
    assert "SIGHUP" not in result.stderr
    assert_saved_completely(out, steps=5, planned=5)
    out.unlink()
    loading = signal_while_loading(tmp_path, "SIGHUP", "microgpt.cli.main", preexec_fn=sighup_ignored)
    assert loading.returncode == 0, loading.stderr
    assert "SIGHUP" not in loading.stderr
    assert checkpoint.load(out)[2]["steps"] == 1


STOP_DURING_START_UP = """
import microgpt.cli.main
real_read_docs = microgpt.cli.main.read_docs
def read_docs(*args, **kwargs):
    os.kill(os.getpid(), signal.{name})
    return real_read_docs(*args, **kwargs)
microgpt.cli.main.read_docs = read_docs
"""


@posix_only
@pytest.mark.parametrize(("name", "status", "said"), [("SIGINT", 130, "Ctrl-C (SIGINT)"), ("SIGTERM", 143, "SIGTERM")])
def test_a_stop_signal_during_start_up_is_one_line_and_writes_nothing(tmp_path, name, status, said):
    out = tmp_path / "m.json"
    result = microgpt_with_hook(STOP_DURING_START_UP.format(name=name), "train", *TINY, "--out", str(out))
    assert result.returncode == status
    assert result.stderr == f"microgpt: stopped by {said}\n"
    assert os.listdir(tmp_path) == []


LONG_TRAIN = [sys.executable, "-m", "microgpt", "train", "--steps", "100000", *TINY]


def ctrl_c_once_training(argv: list[str], to_the_group: bool = False) -> tuple[int, str, str]:
    """Start argv, send SIGINT once its first training step is shown (to its whole process group, as
    a terminal's Ctrl-C does, with to_the_group), and return its status, stdout and the rest of stderr."""
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=to_the_group,  # a group of its own, as a terminal's foreground job is
        preexec_fn=restore_default_signals,
    )
    try:
        assert ESTIMATE.fullmatch(proc.stderr.readline().rstrip("\n"))
        assert proc.stderr.readline().startswith("step      1/100000 | loss ")
        if to_the_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, stdout, stderr


@posix_only
def test_ctrl_c_from_outside_saves_what_was_trained_and_ends_by_the_signal(tmp_path):
    out = tmp_path / "m.json"
    returncode, stdout, stderr = ctrl_c_once_training([*LONG_TRAIN, "--out", str(out)])
    assert returncode == -signal.SIGINT  # saved and said, then stopped by the signal itself: a shell sees 130
    assert "Traceback" not in stderr
    _, _, meta = checkpoint.load(out)
    assert meta["interrupted"] is True
    assert 1 <= meta["steps"] < 100000
    assert f"Ctrl-C (SIGINT) at step {meta['steps']} of 100000; saved what was trained so far" in stderr
    assert f"wrote {out} ({meta['steps']} step" in stdout
    assert os.listdir(tmp_path) == ["m.json"]


@posix_only
def test_help_that_cannot_be_written_is_one_error_line():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "microgpt", "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": ""},  # buffered, as a terminal-less run is
            timeout=60,
        )
    assert result.returncode == 2
    assert one_error_line(result.stderr) == "cannot write to standard output: No space left on device"


@posix_only
def test_version_into_a_pipe_whose_reader_left_exits_quietly():
    reader, writer = os.pipe()
    os.close(reader)
    with os.fdopen(writer, "w") as pipe:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
        result = subprocess.run(
            [sys.executable, "-m", "microgpt", "--version"], stdout=pipe, stderr=subprocess.PIPE, text=True, env=env
        )
    assert (result.returncode, result.stderr) == (cli.EXIT_BROKEN_PIPE, "")


@posix_only
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ctrl_c_ends_a_shell_loop_that_runs_microgpt(tmp_path):
    train = shlex.join(LONG_TRAIN)
    script = f'for i in 1 2; do {train} --out "{tmp_path}/m$i.json"; echo "status $?"; done; echo "after the loop"'
    _, stdout, _ = ctrl_c_once_training(["bash", "-c", script], to_the_group=True)
    assert "after the loop" not in stdout and "status" not in stdout  # bash stopped, as for any C program
    assert checkpoint.load(tmp_path / "m1.json")[2]["interrupted"] is True
    assert os.listdir(tmp_path) == ["m1.json"]


@posix_only
def test_a_stop_signal_during_the_last_step_says_the_run_was_finished(tmp_path):
    out = tmp_path / "m.json"
    result = microgpt_with_hook(
        SIGNAL_AT_STEP_3.format(first="SIGINT"), "train", "--steps", "3", *TINY, "--out", str(out)
    )
    assert result.returncode == EXIT_SIGINT, result.stderr
    assert_saved_completely(out, steps=3, planned=3)
    assert "Ctrl-C (SIGINT) during the last step; saved the finished run" in result.stderr
    assert "during the save" not in result.stderr


@posix_only
def test_a_closed_stdout_after_training_says_the_checkpoint_was_written(tmp_path):
    out = tmp_path / "m.json"
    closed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; os.close(1); from microgpt.cli import main as cli; sys.exit(cli.main(sys.argv[1:]))",
            "train",
            "--steps",
            "2",
            *TINY,
            "--out",
            str(out),
        ],
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    assert closed.returncode == 2
    assert one_error_line(closed.stderr).endswith(f"(the checkpoint {out} was written)")
    assert checkpoint.load(out)[2]["steps"] == 2


@posix_only
def test_sigquit_during_the_save_stops_the_program_once_the_file_is_in_place(tmp_path):
    # Ctrl-\ stops at once, without saving; during the save, "at once" waits for the rename, so no
    # temporary file is left behind (only SIGKILL and SIGSTOP cannot wait)
    out = write_checkpoint(tmp_path / "m.json", "ab")
    result = microgpt_with_hook(
        SIGNAL_DURING_SAVE.format(during_save="SIGQUIT"), "train", "--steps", "5", *TINY, "--out", str(out)
    )
    assert result.returncode == -signal.SIGQUIT, result.stderr
    assert_saved_completely(out, steps=5, planned=5)
    assert "Traceback" not in result.stderr


# --- start-up: a Ctrl-C while Python loads microgpt ---------------------------------------------

SIGNAL_WHILE_LOADING = """
import os, runpy, signal, sys
signum, module, how = getattr(signal, sys.argv.pop(1)), sys.argv.pop(1), sys.argv.pop(1)
class SignalAt:  # sends the signal, as a Ctrl-C or a `kill` would, the moment Python looks for `module`
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == module:
            sys.meta_path.remove(SignalAt)
            os.kill(os.getpid(), signum)
        return None
sys.meta_path.insert(0, SignalAt)
sys.argv[0] = "microgpt"
if how == "python -m":
    runpy.run_module("microgpt", run_name="__main__", alter_sys=True)  # what `python -m microgpt` does
else:  # what the script pip writes for the `microgpt` command does
    from microgpt.__main__ import main
    sys.exit(main())
"""


def signal_while_loading(
    tmp_path, name: str, module: str, how: str = "python -m", preexec_fn=None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", SIGNAL_WHILE_LOADING, name, module, how, "train", "--steps", "1", *TINY]
        + ["--out", str(tmp_path / "m.json")],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=preexec_fn or restore_default_signals,
    )


@posix_only
@pytest.mark.parametrize(
    "module",
    # the command line's first import, one deep in the standard library, its last, and one loaded while it runs
    # (as the shipped names are found, on every Python: 3.13 loads encodings.utf_8_sig at start-up already)
    ["microgpt.cli.main", "json.scanner", "microgpt.sample", "importlib.readers"],
)
@pytest.mark.parametrize("how", ["python -m", "the microgpt command"])
def test_ctrl_c_while_python_loads_microgpt_is_one_line_and_ends_by_the_signal(tmp_path, module, how):
    result = signal_while_loading(tmp_path, "SIGINT", module, how)
    assert result.returncode == -signal.SIGINT, result.stderr  # a shell shows 130
    assert result.stderr == "microgpt: stopped by Ctrl-C (SIGINT)\n"
    assert result.stdout == ""
    assert os.listdir(tmp_path) == []


@posix_only
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("module", ["microgpt.cli.main", "json.scanner", "microgpt.sample"])
def test_sigterm_or_sighup_while_python_loads_microgpt_is_one_line_too(tmp_path, name, module):
    # the first tenth of a second: before, these ended the program silently (the right status, no line)
    result = signal_while_loading(tmp_path, name, module)
    assert result.returncode == -getattr(signal, name), result.stderr  # a shell shows 143 or 129
    assert result.stderr == f"microgpt: stopped by {name}\n"
    assert os.listdir(tmp_path) == []


def test_the_script_pip_writes_imports_nothing_more_than_microgpt_main_before_main_runs():
    # pip's script imports microgpt.__main__, then calls main(): until then a Ctrl-C is Python's traceback,
    # so that import must be as short as it can be
    code = "import sys; before = set(sys.modules); import microgpt.__main__; print(sorted(set(sys.modules) - before))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "['microgpt', 'microgpt.__main__']", result.stderr


def test_the_microgpt_command_runs_what_python_m_microgpt_runs():
    import tomllib

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"]["microgpt"] == "microgpt.__main__:main"


def test_importing_the_package_loads_none_of_its_modules():
    code = "import sys; before = set(sys.modules); import microgpt; print(sorted(set(sys.modules) - before))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout == "['microgpt']\n", result.stderr


def test_the_packages_names_load_from_their_modules_on_first_use():
    import microgpt
    from microgpt import data, engine, optim

    assert (microgpt.Value, microgpt.Adam, microgpt.load_docs) == (engine.Value, optim.Adam, data.load_docs)
    assert set(microgpt.__all__) <= set(dir(microgpt))
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        microgpt.nothing  # noqa: B018


def test_the_names_a_type_checker_sees_are_the_names_the_package_loads():
    """microgpt/__init__.py lists its names twice (lazily for Python, as imports for mypy): they must agree."""
    import ast

    import microgpt

    tree = ast.parse(Path(microgpt.__file__).read_text(encoding="utf-8"))
    (block,) = [node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"]
    imported = {alias.asname or alias.name: node.module for node in block.body for alias in node.names}  # type: ignore[attr-defined]
    assert imported == microgpt._MODULE_OF


# --- the exit status, whatever stdout and stderr can take ----------------------------------------


def microgpt_into(*args: str, stdout=subprocess.DEVNULL, stderr=None, buffered: bool = True, close=()):
    """Run `python -m microgpt args` with the given streams, stdout and stderr buffered as in a pipe or
    not (`python -u`); close is the descriptors to close before it starts (2: `2>&-`)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"

    def start():
        restore_default_signals()
        for fd in close:
            os.close(fd)

    return subprocess.run(
        [sys.executable, "-m", "microgpt", *args],
        stdout=stdout,
        stderr=stderr,
        env=env,
        timeout=60,
        preexec_fn=start,
    )


BUFFERING = pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@BUFFERING
@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_bad_input_exits_2_whether_or_not_stderr_can_be_written(tmp_path, stderr, buffered):
    args = ["sample", "--ckpt", str(tmp_path / "missing.json")]
    with open("/dev/full", "w") as full:
        streams = {"stderr": full} if stderr == "full" else {"close": [2]}
        result = microgpt_into(*args, stdout=subprocess.PIPE, buffered=buffered, **streams)
    assert result.returncode == cli.EXIT_USAGE  # not 120, Python's status when its last flush fails
    assert result.stdout == b""  # the error did not go to stdout instead


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@BUFFERING
@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_run_that_cannot_show_its_progress_still_exits_0(tmp_path, stderr, buffered):
    out = tmp_path / "m.json"
    with open("/dev/full", "w") as full:
        streams = {"stderr": full} if stderr == "full" else {"close": [2]}
        result = microgpt_into("train", "--steps", "2", *TINY, "--out", str(out), buffered=buffered, **streams)
    assert result.returncode == 0
    assert checkpoint.load(out)[2]["steps"] == 2


@posix_only
@BUFFERING
def test_train_into_a_pipe_whose_reader_left_exits_141_as_the_readme_says(tmp_path, buffered):
    # `microgpt train ... 2>&1 | head -1`, once head has gone: both streams into a pipe nobody reads
    out = tmp_path / "m.json"
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = microgpt_into(
            "train", "--steps", "2", *TINY, "--out", str(out), stdout=writer, stderr=writer, buffered=buffered
        )
    finally:
        os.close(writer)
    assert result.returncode == cli.EXIT_BROKEN_PIPE
    assert checkpoint.load(out)[2]["steps"] == 2  # the work is saved all the same


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@BUFFERING
@pytest.mark.parametrize(
    "args", [["--help"], ["--version"], ["train", "--help"]], ids=["help", "version", "train-help"]
)
def test_help_and_version_that_cannot_be_written_are_one_error_line(args, buffered):
    with open("/dev/full", "w") as full:
        result = microgpt_into(*args, stdout=full, stderr=subprocess.PIPE, buffered=buffered)
    assert result.returncode == cli.EXIT_USAGE
    assert one_error_line(result.stderr.decode()) == "cannot write to standard output: No space left on device"


# --- the cost of a run: known, and bounded, before any work --------------------------------------


def test_a_document_too_long_for_a_step_to_afford_is_refused_before_anything_is_built(
    tmp_path, forbid_building_a_model, capsys
):
    # the issue's case: one 600-character document, --block-size 601 (125 s and 5.7 GB for one step)
    data = tmp_path / "long.txt"
    data.write_text("ab" * 300 + "\n")
    forbid_building_a_model()
    status = cli.main(["train", "--data", str(data), "--block-size", "601", "--out", str(tmp_path / "m.json")])
    assert status == 2
    err = capsys.readouterr().err
    line = one_error_line(err)
    assert "block_size 601 reads up to 601 tokens in a step or a sample: a step builds " in line
    assert re.search(r"Values \(about 5\.\d+ GB and \d+ s\), a sample ", line), line
    assert "; microgpt allows 8,000,000 Values at most; most of it is attention over up to 601 positions" in line
    most = limits.longest_block(GPTConfig(3, block_size=601))  # a block that fits no document of 600 characters
    assert line.endswith(f"shorten the documents to at most {most - 1} characters and use --block-size {most}")
    assert os.listdir(tmp_path) == ["long.txt"]


def test_a_checkpoint_whose_samples_would_run_for_months_is_refused_before_it_is_built(
    tmp_path, forbid_building_a_model, capsys
):
    # the issue's case: n_embd 1, block_size 999,000, inside the parameter bound (months for `sample -n 1`)
    def claim_long_blocks(doc):
        doc["config"].update(n_embd=1, n_head=1, n_layer=1, block_size=999_000)
        doc["state_dict"] = {}

    path = write_checkpoint(tmp_path / "crafted.json", "ab", claim_long_blocks)
    assert limits.parameter_count(GPTConfig(3, n_embd=1, n_head=1, block_size=999_000)) <= limits.MAX_PARAMETERS
    forbid_building_a_model()
    assert cli.main(["sample", "--ckpt", str(path), "-n", "1"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "reads up to 999,000 tokens in a step or a sample: a step builds " in line
    assert re.search(r"a sample [\d,]+ Values \(about [\d.]+ GB and [\d.]+ (days|years)\)", line), line
    assert re.search(r"with the other settings as they are, block_size can be at most [\d,]+$", line), line


def test_the_longest_run_allowed_shows_a_long_eta_and_never_reads_as_divergence(tmp_path, monkeypatch, capsys):
    real_train = cli.train
    monkeypatch.setattr(cli, "train", lambda *args: itertools.islice(real_train(*args), 3))  # 3 steps of a billion
    status = cli.main(["train", "--steps", str(limits.MAX_STEPS), *TINY, "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "diverged" not in err
    assert re.search(r"ETA [\d.,]+ (days|years)", err), err
    assert err.startswith(f"microgpt: {limits.MAX_STEPS:,} steps of a 472-parameter model on 5,163 documents: about ")


@pytest.mark.parametrize(
    ("steps", "rate", "shown"),
    [(0, 5.0, "0:00"), (245, 1.0, "4:05"), (10**6, 2.0, "5.8 days"), (2**1024, 30.0, "about 10^299 years")],
)
def test_time_left_is_minutes_and_seconds_then_larger_units(steps, rate, shown):
    assert console.time_left(steps, rate) == shown


def test_help_gives_examples_with_what_each_costs_here_the_bounds_and_what_makes_a_run_slow(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    text = " ".join(out.split())
    here = speed.current()
    docs = load_docs(default_data_path())
    assert f"examples, with the CPU time ({here.source}) and the memory each takes:" in text
    for command in cli.EXAMPLES:
        assert f"{command} # {cli.example_cost(command, docs, here)}" in text
        cli.build_parser().parse_args(shlex.split(command)[3:])  # each example is a valid command line
    assert f"Where the times come from: this machine's speed, measured {here.measured} ({cli.kept(here)})" in text
    assert "how busy the machine is now (its load average)" in text and "kept for a week" in text
    assert "--temperature must be a positive number" in text
    assert f"a model has at most {limits.MAX_PARAMETERS:,} parameters" in text
    assert f"a step or a sample builds at most {limits.MAX_VALUES_PER_PASS:,} Values (a step that large" in text
    assert f"takes about {cli.bound_step(here)}; a sample less)" in text
    assert (
        f"--steps and -n are at most {limits.MAX_STEPS:,}; --data is at most {limits.MAX_DATA_BYTES // 2**20} MiB"
        in text
    )
    assert "So time grows with --steps, with the square of --n-embd" in text
    assert max(map(len, out.splitlines())) <= 100


def test_a_refusal_that_states_no_time_measures_nothing(tmp_path, monkeypatch, capsys):
    """The speed is measured when a figure needs it (the first runs take half a second for it): never for a
    usage error, a path, or a memory or disk room refused, so that each of these is refused at once."""
    monkeypatch.setattr(speed, "current", lambda: pytest.fail("measured the speed for a refusal that needs no time"))
    (tmp_path / "notes.txt").write_text("not a checkpoint")
    assert cli.main(["train", "--steps", "many"]) == 2
    assert cli.main(["train", "--help"]) == 0
    assert cli.main(["train", "--out", str(tmp_path / "notes.txt" / ".")]) == 2
    with monkeypatch.context() as patched:
        patched.setattr(machine, "disk_room", lambda directory: room(1000))
        assert cli.main(["train", "--out", str(tmp_path / "m.json")]) == 2
        patched.setattr(machine, "memory_room", lambda: room(1000))
        assert cli.main(["train", "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("microgpt: error: ") == 4 and "leaves this process 1 kB" in err and "leaves it 1 kB" in err


def test_each_examples_figures_are_what_its_run_says_before_its_first_step(tmp_path, monkeypatch, capsys):
    """--help's figure for each example is the estimate that run itself prints (runs stopped before a step)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "fit", lambda *args: 0)  # no step: the estimate is printed, then an untrained save
    monkeypatch.setattr(machine, "resident", lambda: (30 * 10**6, 30 * 10**6))  # as a fresh process holds
    monkeypatch.setattr(cli, "print_samples", lambda *args, **kwargs: None)
    docs = load_docs(default_data_path())
    for command in cli.EXAMPLES:  # the train example writes the checkpoint the sample example reads
        assert cli.main(shlex.split(command)[3:]) == 0
        (said,) = [line for line in capsys.readouterr().err.splitlines() if ESTIMATE.fullmatch(line)]
        time, memory = cli.example_cost(command, docs, speed.current()).split(", ")
        if " sample " not in command:
            assert f": {time} of CPU time and {memory} of memory (" in said, (command, said)
        else:  # --help cannot know the checkpoint's size: it takes the most the train example can write
            run_time, run_memory = re.search(r": (at most .+) of CPU time and (.+) of memory \(", said).groups()
            assert time.startswith("at most ") and quantity(run_time) <= quantity(time) <= 1.1 * quantity(run_time)
            assert quantity(run_memory) <= quantity(memory) <= 1.1 * quantity(run_memory), (said, memory)


def quantity(text: str) -> float:
    """A time or a size as microgpt writes it ('at most 1.2 min', '40.9 MB'), in seconds or bytes."""
    number, unit = text.removeprefix("at most ").removeprefix("about ").split()
    scale = {"s": 1, "min": 60, "h": 3600, "days": 86400, "bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
    return float(number.replace(",", "")) * scale


# --- the machine's own bounds: memory, disk, and the speed it runs at ------------------------------


def room(n: int, cause: str = "a test's limit (ulimit -v 1)", flag: str = "ulimit -v") -> machine.Room:
    return machine.Room(n, cause, "the address-space limit", True, 10**6, flag)


def test_a_step_larger_than_the_memory_left_is_refused_at_once_with_how_far_each_setting_goes(
    tmp_path, forbid_building_a_model, monkeypatch, capsys
):
    data = tmp_path / "long.txt"
    data.write_text("ab" * 150 + "\n")  # one document of 300 characters: a step over 301 tokens, 1.7 GB
    monkeypatch.setattr(machine, "memory_room", lambda: room(10**9))
    forbid_building_a_model()
    args = ["train", "--data", str(data), "--block-size", "320", "--out", str(tmp_path / "m.json")]
    assert cli.main(args) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith("a training step over 301 tokens needs about ")
    assert "of memory, but a test's limit (ulimit -v 1) leaves this process 1 GB; " in line
    most = int(re.search(r"--n-embd can be at most (\d+)", line)[1])
    longest = int(re.search(r"documents at most ([\d,]+) characters long \(the longest has 300\)", line)[1])
    config = GPTConfig(3, n_embd=16, block_size=320)

    def fits(c: GPTConfig, positions: int = 301) -> bool:  # in the share of the room an offer may fill
        needed = limits.model_bytes(c, training=True) + limits.step_bytes(c, positions)
        return needed * limits.MEMORY_MARGIN + limits.MEMORY_SLACK <= 10**9 * limits.OFFER_SHARE

    assert fits(dataclasses.replace(config, n_embd=most)) and not fits(dataclasses.replace(config, n_embd=most + 4))
    assert fits(config, longest + 1) and not fits(config, longest + 2)
    assert re.search(r"or the address-space limit would have to be [\d.]+ GB or more \(ulimit -v \d+\)$", line)


def test_memory_that_runs_out_during_training_anyway_costs_only_the_step_it_ran_out_in(tmp_path, monkeypatch, capsys):
    # the bounds leave room for the run, but other programs may take the machine's memory meanwhile
    real_step, calls = cli.train.__globals__["train_step"], []

    def step_that_runs_out(*args):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError
        return real_step(*args)

    monkeypatch.setattr("microgpt.train.train_step", step_that_runs_out)
    out = tmp_path / "m.json"
    assert cli.main(["train", "--steps", "10", *TINY, "--out", str(out)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert re.fullmatch(rf"out of memory( \(.+ now\))? at step 3; saved the 2 steps before it to {out}", line), line
    assert_saved_completely(out, steps=2, planned=10)


@posix_only
@pytest.mark.parametrize("command", ["train", "sample"])
def test_under_an_address_space_limit_a_run_too_large_is_refused_at_once(tmp_path, ckpt, command):
    # the issue's cases: a step at the block-330 bound, and a sample, under `ulimit -v`; refused before any work
    limit = 400 * 2**20
    if command == "train":
        args = ["train", "--block-size", "330", "--data", str(tmp_path / "long.txt"), "--out", str(tmp_path / "m.json")]
        (tmp_path / "long.txt").write_text("a" * 329 + "\n")
    else:  # four blocks keep their keys and values alive: about 1.06 GB at the longest sample
        deep = GPTConfig(3, n_layer=4, n_embd=16, n_head=4, block_size=142)
        checkpoint.save(tmp_path / "long.json", Model.init(deep), Tokenizer("ab"))
        args = ["sample", "--ckpt", str(tmp_path / "long.json"), "-n", "1"]

    def limited():
        restore_default_signals()
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    result = subprocess.run(
        [sys.executable, "-m", "microgpt", *args], capture_output=True, text=True, timeout=60, preexec_fn=limited
    )
    assert result.returncode == 2, result.stderr
    line = one_error_line(result.stderr)
    assert f"the address-space limit (ulimit -v {limit // 1024}, " in line, line
    assert not [line for line in result.stderr.splitlines() if line.startswith("step ")] and result.stdout == ""
    assert os.listdir(tmp_path) in (["long.txt"], ["long.json"])


def test_a_checkpoint_larger_than_the_room_where_it_goes_is_refused_before_training(
    tmp_path, forbid_building_a_model, monkeypatch, capsys
):
    free = machine.Room(200_000, f"the free space on the file system of {tmp_path}", "free on that file system")
    monkeypatch.setattr(machine, "disk_room", lambda directory: free)
    forbid_building_a_model()
    assert cli.main(["train", "--n-embd", "64", "--out", str(tmp_path / "m.json")]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert re.match(r"--out: the checkpoint of this model takes up to 1\.\d+ MB, but ", line), line
    assert f"but the free space on the file system of {tmp_path} leaves it 200 kB; " in line
    most = int(re.search(r"--n-embd can be at most (\d+)", line)[1])
    assert re.search(r", or [\d.]+ MB would have to be free on that file system, against 200 kB now$", line), line
    vocab = "".join(sorted(set("".join(load_docs(default_data_path())))))
    meta = cli.run_meta(cli.build_parser().parse_args(["train"]), str(default_data_path()), 1000)
    bound = functools.partial(checkpoint.size_bound, vocab=vocab, meta=meta)
    assert bound(GPTConfig(27, n_embd=most)) <= 200_000 < bound(GPTConfig(27, n_embd=most + 4))
    assert os.listdir(tmp_path) == []


@posix_only
def test_under_a_file_size_limit_a_checkpoint_too_large_is_refused_before_training(tmp_path):
    # the issue's case: `ulimit -f 100` and a checkpoint of about 1.2 MB: refused before the first step
    def limited():
        restore_default_signals()
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (100 * 1024, 100 * 1024))

    out = tmp_path / "m.json"
    result = subprocess.run(
        [sys.executable, "-m", "microgpt", "train", "--n-embd", "64", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited,
    )
    assert result.returncode == 2, result.stderr
    line = one_error_line(result.stderr)
    assert "the file-size limit (ulimit -f 100 in bash, 102 kB) leaves it 102 kB" in line, line
    assert re.search(r"--n-embd can be at most \d+ \(a multiple of --n-head 4\)", line), line
    assert re.search(r"or the file-size limit would have to be [\d.]+ MB or more \(ulimit -f \d+\)$", line), line
    assert not [line for line in result.stderr.splitlines() if line.startswith("step ")]
    assert os.listdir(tmp_path) == []


def test_every_run_says_what_it_will_cost_before_its_first_step(tmp_path, ckpt, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "DEMO_STEPS", 2)
    runs = {
        "demo": [],
        "train": ["train", "--steps", "2", *TINY],
        "sample": ["sample", "--ckpt", str(ckpt), "-n", "2"],
    }
    for name, args in runs.items():
        assert cli.main(args) == 0
        first = capsys.readouterr().err.splitlines()[0]
        assert ESTIMATE.fullmatch(first), (name, first)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A cache directory of this test's own with nothing in it, and no speed measured yet in this process."""
    (tmp_path / "cache").mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    speed._current.cache_clear()
    yield tmp_path / "cache" / "microgpt" / speed.FILE_NAME
    speed._current.cache_clear()


@pytest.fixture
def quick_measure(monkeypatch):
    """measure() at once, as an idle machine twice as slow as the reference would measure (the real one: below)."""
    monkeypatch.setattr(speed, "measure", lambda: {"train": 2.0, "sample": 2.0})
    monkeypatch.setattr(speed, "busy", lambda: 0.0)  # an idle machine, whatever the neighbours do meanwhile


def measured(on: date | str, train: float = 2.0, sample: float = 2.0, busy: float = 0.0) -> dict:
    """One measurement as speed.json keeps it."""
    return {"on": on if isinstance(on, str) else on.isoformat(), "busy": busy, "train": train, "sample": sample}


def write_speed_file(path: Path, machines: dict[str, list[dict]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": speed.FORMAT, "machines": machines}))


def again() -> speed.Speed:
    """The speed as the next run finds it."""
    speed._current.cache_clear()
    return speed.current()


def test_the_speed_is_measured_by_the_first_runs_and_the_median_kept_in_the_users_cache(fresh_cache, monkeypatch):
    first = speed.current()  # the real probe
    assert first.measured == "just now" and first.kept == f"kept in {fresh_cache}" and not first.not_kept
    (entry,) = json.loads(fresh_cache.read_text())["machines"].values()
    assert [set(m) for m in entry] == [{"on", "busy", "train", "sample"}]
    assert speed.FASTEST <= entry[0]["train"] <= speed.SLOWEST
    later = iter([{"train": 9.0, "sample": 9.0}] + [{"train": 2.0, "sample": 3.0}] * 3)  # one moment of contention
    monkeypatch.setattr(speed, "measure", lambda: next(later))
    monkeypatch.setattr(speed, "busy", lambda: 0.0)
    for _ in range(speed.MEASUREMENTS - 1):  # each later run measures once more, until there are MEASUREMENTS
        again()
    monkeypatch.setattr(speed, "measure", lambda: pytest.fail("measured again"))
    settled = again()
    assert settled.measured == f"{speed.MEASUREMENTS} times since {date.today().isoformat()}"
    assert settled.factors == {"train": 2.0, "sample": 3.0}  # the median: neither the unlucky one nor the first


def test_a_measurement_counts_the_load_of_its_moment_and_an_estimate_the_load_of_its_own(fresh_cache, monkeypatch):
    write_speed_file(fresh_cache, {speed.machine_key(): [measured(date.today(), 1.4, 1.4, busy=1.0)] * 5})
    monkeypatch.setattr(speed, "busy", lambda: 0.0)
    idle = again()
    assert idle.factors == pytest.approx(
        {"train": 1.4 / (1 + speed.BUSY_SMALL), "sample": 1.4 / (1 + speed.BUSY_SMALL)}
    )
    monkeypatch.setattr(speed, "busy", lambda: 1.0)
    busy = again()
    small = values_per_step(speed.PROBE_CONFIG, speed.PROBE_TOKENS)
    assert busy.rates(small).train == pytest.approx(idle.rates(small).train * (1 + speed.BUSY_SMALL))
    bound = limits.MAX_VALUES_PER_PASS
    assert busy.rates(bound).train == pytest.approx(idle.rates(bound).train * (1 + speed.BUSY_BOUND))


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{",
        '{"format": "other"}',
        '{"format": "microgpt-speed", "machines": {"KEY": {"since": "2026-01-01", "train": [1.0], "sample": [1.0]}}}',
        json.dumps({"format": speed.FORMAT, "machines": {"KEY": [measured(date.today(), -1.0)]}}),
    ],
    ids=["empty", "corrupt", "foreign", "first-format", "nonsense-factor"],
)
def test_a_speed_file_that_is_not_ours_or_not_sane_is_measured_again_and_replaced(fresh_cache, quick_measure, content):
    fresh_cache.parent.mkdir(parents=True)
    fresh_cache.write_text(content.replace("KEY", speed.machine_key()))
    assert speed.current().measured == "just now"
    assert len(json.loads(fresh_cache.read_text())["machines"][speed.machine_key()]) == 1


@pytest.mark.parametrize(
    ("factor", "kept"),
    [(0.0011, False), (speed.FASTEST / 2, False), (speed.FASTEST, True), (speed.SLOWEST, True), (1e3, False)],
)
def test_factors_outside_what_the_probe_can_measure_are_discarded(fresh_cache, quick_measure, factor, kept):
    # the issue's case: five factors of 0.0011 made `train --steps 2` announce about 0.00021 s, 1,000 times too low
    write_speed_file(fresh_cache, {speed.machine_key(): [measured(date.today(), factor, factor)] * 5})
    here = again()
    assert (here.factors["train"] == factor) is kept
    assert (here.measured == "just now") is not kept  # a factor discarded is measured again


def test_measurements_age_out_and_are_taken_again(fresh_cache, quick_measure):
    # the issue's case: a cache copied from a machine 4 times faster, with the same name, was never measured again
    today = date.today()
    old, recent = today - timedelta(days=speed.MAX_AGE_DAYS), today - timedelta(days=speed.MAX_AGE_DAYS - 1)
    write_speed_file(fresh_cache, {speed.machine_key(): [measured(old, 0.5)] * 3 + [measured(recent, 0.5)] * 2})
    here = again()  # the three aged out: this run measures once more
    assert here.measured == f"3 times since {recent.isoformat()}"
    kept = json.loads(fresh_cache.read_text())["machines"][speed.machine_key()]
    assert [m["on"] for m in kept] == [recent.isoformat()] * 2 + [today.isoformat()]
    for _ in range(2):
        again()
    assert again().factors["train"] == 2.0  # the faster machine's measurements are outvoted, then age out


def test_a_measurement_dated_later_than_today_is_discarded(fresh_cache, quick_measure):
    future = date.today() + timedelta(days=1)
    write_speed_file(fresh_cache, {speed.machine_key(): [measured(future, 0.5)] * 5})
    assert again().measured == "just now"


def test_the_writer_keeps_the_running_machines_entry_whatever_the_others_say(fresh_cache, quick_measure):
    # the issue's case: twenty other entries dated 2099 made the writer drop the run's own entry every time
    today = date.today()
    recent = {f"recent {i}": [measured(today - timedelta(days=i % 5))] for i in range(speed.MAX_ENTRIES)}
    write_speed_file(fresh_cache, {f"machine {i}": [measured("2099-01-01")] for i in range(speed.MAX_ENTRIES)} | recent)
    for runs in range(1, speed.MEASUREMENTS + 1):
        assert again().measured == ("just now" if runs == 1 else f"{runs} times since {today.isoformat()}")
    machines = json.loads(fresh_cache.read_text())["machines"]
    assert len(machines) == speed.MAX_ENTRIES and len(machines[speed.machine_key()]) == speed.MEASUREMENTS
    kept = set(machines) - {speed.machine_key()}
    assert kept < set(recent)  # a date later than today was not measured: those entries go
    oldest_kept = min(recent[key][0]["on"] for key in kept)
    assert all(recent[key][0]["on"] <= oldest_kept for key in set(recent) - kept)  # the least recent go first


def test_the_writer_never_writes_more_than_its_reader_reads(fresh_cache, quick_measure):
    # the issue's case: from a valid 65,388-byte file the writer wrote 65,553 bytes, which the next run discarded
    today = date.today()

    def others(key_length: int) -> dict[str, list[dict]]:
        return {f"{i} " + "m" * key_length: [measured(today)] * 5 for i in range(speed.MAX_ENTRIES - 1)}

    length = max(  # the longest keys that keep the file within the bound
        n
        for n in range(0, speed.MAX_FILE_BYTES, 50)
        if len(json.dumps({"format": speed.FORMAT, "machines": others(n)})) <= speed.MAX_FILE_BYTES
    )
    write_speed_file(fresh_cache, others(length))
    assert speed.MAX_FILE_BYTES - 1000 < len(fresh_cache.read_bytes()) <= speed.MAX_FILE_BYTES
    assert len(speed._read(fresh_cache, today)) == speed.MAX_ENTRIES - 1  # valid, all of it
    for _ in range(speed.MEASUREMENTS):
        again()
    assert len(fresh_cache.read_bytes()) <= speed.MAX_FILE_BYTES
    kept = speed._read(fresh_cache, today)  # read back whole, the run's own entry with every measurement
    assert len(kept[speed.machine_key()]) == speed.MEASUREMENTS and len(kept) > 1
    assert again().measured == f"{speed.MEASUREMENTS} times since {today.isoformat()}"


def test_a_speed_that_cannot_be_kept_is_said_once_on_the_estimate_line(fresh_cache, quick_measure, tmp_path, capsys):
    fresh_cache.parent.parent.mkdir(parents=True, exist_ok=True)
    fresh_cache.parent.write_text("a file where the cache directory would be")
    here = speed.current()
    assert here.measured == "just now" and here.not_kept and not here.kept
    assert cli.main(["train", "--steps", "1", *TINY, "--out", str(tmp_path / "m.json")]) == 0
    err = capsys.readouterr().err
    (said,) = [line for line in err.splitlines() if ESTIMATE.fullmatch(line)]
    assert said.endswith(f"; not kept, so each run measures it: {here.not_kept})"), said
    assert err.count("not kept") == 1 and str(fresh_cache.parent) in said


def test_each_machine_and_python_keeps_its_own_speed(fresh_cache, quick_measure, monkeypatch):
    speed.current()
    monkeypatch.setattr(speed, "machine_key", lambda: "another machine")
    assert again().measured == "just now"
    assert len(json.loads(fresh_cache.read_text())["machines"]) == 2


@posix_only
@pytest.mark.parametrize(
    ("variables", "why"),
    [
        ({"HOME": ""}, "HOME is empty"),
        ({"HOME": "relhome"}, "HOME (relhome) is not an absolute path"),
        ({"HOME": "/"}, "HOME (/) is the file system's root"),
        ({"HOME": "{tmp}/missing"}, "HOME ({tmp}/missing) is not a directory that exists"),
        ({"HOME": "{tmp}/file"}, "HOME ({tmp}/file) is not a directory that exists"),
        ({"XDG_CACHE_HOME": "/"}, "XDG_CACHE_HOME (/) is the file system's root"),
        ({"XDG_CACHE_HOME": "{tmp}/missing"}, "XDG_CACHE_HOME ({tmp}/missing) is not a directory that exists"),
        ({"XDG_CACHE_HOME": "relxdg", "HOME": "relhome"}, "HOME (relhome) is not an absolute path"),
    ],
    ids=[
        "home-empty",
        "home-relative",
        "home-root",
        "home-missing",
        "home-a-file",
        "xdg-root",
        "xdg-missing",
        "both-relative",
    ],
)
def test_home_and_xdg_cache_home_are_validated_alike_and_nothing_is_written_elsewhere(tmp_path, variables, why):
    # the issue's cases: HOME='' wrote /.cache/microgpt/speed.json, HOME=relhome wrote under the current directory,
    # and a missing home was created
    (tmp_path / "file").write_text("not a directory")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    env |= {name: value.format(tmp=tmp_path) for name, value in variables.items()}
    roots = {p: os.path.exists(p) for p in ("/.cache", "/microgpt")}
    result = microgpt("train", "--steps", "1", *TINY, "--out", str(tmp_path / "m.json"), cwd=cwd, env=env)
    assert result.returncode == 0, result.stderr
    (said,) = [line for line in result.stderr.splitlines() if ESTIMATE.fullmatch(line)]
    assert said.endswith(f"; not kept, so each run measures it: {why.format(tmp=tmp_path)})"), said
    assert os.listdir(cwd) == [] and not (tmp_path / "missing").exists()
    assert {p: os.path.exists(p) for p in roots} == roots  # nothing at the file system's root


def test_a_home_with_no_cache_directory_yet_gets_one(tmp_path, monkeypatch, quick_measure):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME")
    here = again()
    assert here.kept == f"kept in {tmp_path / '.cache' / 'microgpt' / speed.FILE_NAME}"


# --- every setting a refusal offers is accepted, used as offered --------------------------------


class Accepted(Exception):
    """The run passed every check and was about to build its model."""


ACCEPTED_HOOK = """
import microgpt.model, microgpt.cli.main
def accepted(*args, **kwargs):
    os.write(1, b"ACCEPTED\\n")
    os._exit(0)
microgpt.model.Model.init = accepted  # train: every check passed
microgpt.cli.main.print_samples = accepted  # sample: every check passed, and the checkpoint was read
"""


@dataclasses.dataclass
class Advice:
    """One thing a refusal offers: settings, documents no longer than so many characters, a vocabulary of so many
    tokens, a limit (ulimit -v, ulimit -f) or room (free space, available memory), another --out."""

    flags: dict[str, str] = dataclasses.field(default_factory=dict)
    documents: int | None = None
    vocabulary: int | None = None
    limit: tuple[str, int] | None = None
    room: tuple[str, int] | None = None


def advice_in(line: str) -> list[Advice]:
    """Every alternative the refusal offers, each as it would be used."""
    number = r"([\d,]+)"
    found = []
    for m in re.finditer(
        rf"with (--[a-z-]+) {number}, (--[a-z-]+) can be at most {number}((?:, or --[a-z-]+ at most {number}[^,;)]*)*)",
        line,
    ):
        found.append(Advice({m[1]: m[2], m[3]: m[4]}))
        found += [Advice({m[1]: m[2], o[1]: o[2]}) for o in re.finditer(rf"or (--[a-z-]+) at most {number}", m[5])]
        line = line.replace(m[0], "")
    for m in re.finditer(rf"(--[a-z-]+) (?:can be )?at most {number}", line):
        found.append(Advice({m[1]: m[2]}))
    for m in re.finditer(rf"use (--[a-z-]+) {number} or more", line):
        found.append(Advice({m[1]: m[2]}))
    for m in re.finditer(
        rf"(?:shorten the documents to|documents(?: can be)?) at most {number} characters(?: long)?"
        rf"(?: and use (--[a-z-]+) {number})?",
        line,
    ):
        found.append(Advice({m[2]: m[3]} if m[2] else {}, documents=int(m[1].replace(",", ""))))
    for m in re.finditer(rf"the vocabulary (?:can be )?at most {number} tokens", line):
        found.append(Advice(vocabulary=int(m[1].replace(",", ""))))
    for m in re.finditer(r"\(ulimit -([vf]) (\d+)\)", line):
        found.append(Advice(limit=(m[1], int(m[2]) * 1024)))
    for m in re.finditer(r"([\d.]+ [kMG]?B) would have to be (free on that file system|available)", line):
        found.append(Advice(room=(m[2].split()[0], int(quantity(m[1])))))
    for m in re.finditer(r"give the path of the file itself, (\S+)$", line):
        found.append(Advice({"--out": shlex.split(m[1])[0]}))
    return [
        Advice({k: v.replace(",", "") for k, v in a.flags.items()}, a.documents, a.vocabulary, a.limit, a.room)
        for a in found
    ]


def with_flags(args: list[str], flags: dict[str, str]) -> list[str]:
    """args with each flag set to its value: replaced where it is given, else added."""
    args = list(args)
    for flag, value in flags.items():
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    return args


def data_of(args: list[str]) -> list[str]:
    """The documents a train command line reads, in file order."""
    path = args[args.index("--data") + 1] if "--data" in args else default_data_path()
    return [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def run_limited(args: list[str], limits_set: dict[int, int]) -> subprocess.CompletedProcess:
    """The command line in a fresh Python under these resource limits, stopped as it would build the model."""

    def limited():
        restore_default_signals()
        import resource

        for which, value in limits_set.items():
            resource.setrlimit(which, (value, value))

    return microgpt_with_hook(ACCEPTED_HOOK, *args, preexec_fn=limited, timeout=300)


def ulimits(limit: tuple[str, int] | None) -> dict[int, int]:
    import resource

    return {} if limit is None else {{"v": resource.RLIMIT_AS, "f": resource.RLIMIT_FSIZE}[limit[0]]: limit[1]}


def take(advice: Advice, args: list[str], tmp_path: Path, base_limits: dict[int, int], rooms: dict, monkeypatch):
    """Run args with the advice taken, the rest as it was; return the stderr of a run that was not accepted."""
    args = with_flags(args, advice.flags)
    if advice.documents is not None or advice.vocabulary is not None:
        docs = data_of(args)
        if advice.documents is not None:
            docs = [doc[: advice.documents] for doc in docs]
        if advice.vocabulary is not None:  # the same documents, in fewer characters
            chars = sorted(set("".join(docs)))
            keep = {ch: chars[i % (advice.vocabulary - 1)] for i, ch in enumerate(chars)}
            docs = ["".join(keep[ch] for ch in doc) for doc in docs]
        data = tmp_path / f"advised-{len(list(tmp_path.iterdir()))}.txt"
        data.write_text("\n".join(docs) + "\n", encoding="utf-8")
        args = with_flags(args, {"--data": str(data)})
    if advice.room is not None:
        kind, n = advice.room
        rooms = {**rooms, kind: n}
    limits_set = {**base_limits, **ulimits(advice.limit)}
    if limits_set:
        result = run_limited(args, limits_set)
        return None if result.returncode == 0 and result.stdout == "ACCEPTED\n" else result.stderr
    with monkeypatch.context() as patched:
        if "free" in rooms:
            patched.setattr(
                machine,
                "disk_room",
                lambda directory: machine.Room(rooms["free"], "a test's disk", "free on that file system"),
            )
        if "available" in rooms:
            patched.setattr(
                machine, "memory_room", lambda: machine.Room(rooms["available"], "a test's memory", "available")
            )

        def accepted(*a, **k):
            raise Accepted

        patched.setattr(Model, "init", accepted)
        try:
            status = cli.main(args)
        except Accepted:
            return None
        return f"exit {status}"


def refused(args: list[str], base_limits: dict[int, int], rooms: dict, monkeypatch, capsys) -> str:
    """The refusal of args (one error line), under the limits and the room given."""
    if base_limits:
        result = run_limited(args, base_limits)
        assert result.returncode == 2, result.stdout + result.stderr
        return one_error_line(result.stderr)
    with monkeypatch.context() as patched:
        if "free" in rooms:
            patched.setattr(
                machine,
                "disk_room",
                lambda directory: machine.Room(rooms["free"], "a test's disk", "free on that file system"),
            )
        if "available" in rooms:
            patched.setattr(
                machine, "memory_room", lambda: machine.Room(rooms["available"], "a test's memory", "available")
            )
        capsys.readouterr()
        assert cli.main(args) == 2
        return one_error_line(capsys.readouterr().err)


def many_characters(tmp_path: Path) -> str:
    """Data of 40,000 distinct characters, ten to a document."""
    chars = [chr(0x20000 + i) for i in range(40_000)]  # CJK, beyond the first plane
    path = tmp_path / "many.txt"
    path.write_text("\n".join("".join(chars[i : i + 10]) for i in range(0, len(chars), 10)) + "\n", encoding="utf-8")
    return str(path)


def one_letter_names(tmp_path: Path) -> str:
    path = tmp_path / "letters.txt"
    path.write_text("a\nb\nc\n", encoding="utf-8")
    return str(path)


def long_documents(tmp_path: Path, length: int) -> str:
    path = tmp_path / f"long{length}.txt"
    path.write_text(("ab" * length)[:length] + "\nanna\n", encoding="utf-8")
    return str(path)


MB = 2**20
ADVISED = {  # a refused command line, the limits it runs under, the room it is given
    "width-beyond-the-pass": (lambda d: ["--n-embd", "200"], {}, {}),
    "a-block-no-document-fits": (lambda d: ["--n-embd", "200", "--block-size", "8"], {}, {}),
    "documents-too-long": (lambda d: ["--data", long_documents(d, 20)], {}, {}),
    "depth-beyond-the-parameters": (
        lambda d: ["--n-layer", "30", "--n-embd", "64", "--block-size", "2", "--data", one_letter_names(d)],
        {},
        {},
    ),
    "vocabulary-beyond-the-parameters": (lambda d: ["--data", many_characters(d), "--block-size", "11"], {}, {}),
    "attention-beyond-the-pass": (lambda d: ["--data", long_documents(d, 600), "--block-size", "601"], {}, {}),
    "steps-beyond-the-bound": (lambda d: ["--steps", "10000000000"], {}, {}),
    "memory-available": (
        lambda d: ["--data", long_documents(d, 200), "--block-size", "202"],
        {},
        {"available": 300 * 10**6},
    ),
    "disk-free": (lambda d: ["--n-embd", "64"], {}, {"free": 200_000}),
    "address-space-limit": (lambda d: ["--data", long_documents(d, 200), "--block-size", "202"], {"v": 500 * MB}, {}),
    "file-size-limit": (lambda d: ["--n-embd", "64"], {"f": 100 * 1024}, {}),
}


@posix_only
@pytest.mark.parametrize("case", ADVISED, ids=list(ADVISED))
def test_every_setting_a_refusal_offers_is_accepted_when_used_as_offered(tmp_path, case, monkeypatch, capsys):
    make, limits_given, rooms = ADVISED[case]
    args = ["train", *make(tmp_path), "--out", str(tmp_path / "m.json")]
    base_limits = {which: value for kind, n in limits_given.items() for which, value in ulimits((kind, n)).items()}
    line = refused(args, base_limits, rooms, monkeypatch, capsys)
    offered = advice_in(line)
    assert offered, line  # every one of these refusals offers a way out
    for advice in offered:
        taken = advice
        if advice.limit is not None:  # a limit raised replaces the one given
            limits_after = {k: v for k, v in base_limits.items() if k not in ulimits(advice.limit)}
        else:
            limits_after = base_limits
        assert take(taken, args, tmp_path, limits_after, rooms, monkeypatch) is None, (line, advice)


@posix_only
def test_what_a_refusal_of_out_offers_is_accepted_when_done(tmp_path, ckpt, capsys):
    def train(out: Path) -> str:
        status, err = train_into(out, capsys=capsys)
        return "" if status == 0 else one_error_line(err)

    notes, theirs = tmp_path / "notes.txt", tmp_path / "theirs.json"
    notes.write_text("my notes\n")
    theirs.write_bytes(ckpt.read_bytes())
    (tmp_path / "to-notes").symlink_to(notes)
    (tmp_path / "to-checkpoint").symlink_to(theirs)
    assert train(tmp_path / "to-notes").endswith("microgpt replaces only regular files: choose another path")
    line = train(tmp_path / "to-checkpoint")
    assert line.endswith(f"give the path of the file itself, {theirs}"), line
    assert train(theirs) == "" and checkpoint.load(theirs)[2]["steps"] == 2  # as offered
    line = train(notes)
    assert line.endswith("choose another path, or remove the file first"), line
    notes.unlink()
    assert train(notes) == ""  # removed, as offered
    theirs.chmod(0o444)
    assert train(theirs).endswith("is read-only (for you); make it writable or choose another path")
    theirs.chmod(0o644)
    assert train(theirs) == ""  # made writable, as offered


def test_a_name_that_cannot_be_pasted_is_said_so_and_one_that_can_is_quoted_for_the_shell(tmp_path, capsys):
    # the issue's case: the try: line escaped 'P/new\nline.json', so that pasting it named another file
    for name in ("new\nline.json", "with space's.json", "-dash.json", "plain.json"):
        out = tmp_path / name
        assert cli.main(["train", "--steps", "1", *TINY, "--out", str(out)]) == 0
        said = capsys.readouterr().out
        if name.isprintable():
            command = said.split("; try: ", 1)[1].strip()
            args = shlex.split(command)  # as a shell reads it when pasted
            parsed = cli.build_parser().parse_args(args[3:])
            assert parsed.ckpt == str(out), command
        else:
            assert "try:" not in said and "its name holds a character that is not printable" in said, said


def test_numbers_in_a_refusal_are_written_as_they_are_typed(capsys):
    # the issue's case: `sample --seed -<10**50>` printed "got -about 10^50"
    typed = "-" + str(10**50)
    assert cli.main(["sample", "--ckpt", "x.json", "--seed", typed]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line == f"--seed must be from 0 to {limits.MAX_SEED}, got {typed}"
    assert cli.main(["train", "--steps", "9" * 5000]) == 2  # more digits than the command line reads
    assert "a number of 5,000 digits" in one_error_line(capsys.readouterr().err)
    for beyond in ("1e999", "1e-999", "0"):  # a float's range, and its ends typed back are read within it
        assert cli.main(["sample", "--ckpt", "x.json", "--temperature", beyond]) == 2
        least, most = re.findall(r"a positive number from (\S+) to (\S+),", one_error_line(capsys.readouterr().err))[0]
        for end in (least, most):
            assert (
                0
                < cli.build_parser().parse_args(["sample", "--ckpt", "x.json", "--temperature", end]).temperature
                < float("inf")
            )
