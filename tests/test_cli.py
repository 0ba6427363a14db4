"""The command line, run as a user runs it: `python -m microgpt ...` in a subprocess."""

import io
import json
import os
import signal
import subprocess
import sys

import pytest

from microgpt import checkpoint, cli
from microgpt.train import Progress

TINY = ["--n-embd", "4", "--n-head", "1"]  # a few hundred steps a second, so these tests stay fast


def microgpt(*args: str, cwd=None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "microgpt", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "model.json"
    result = microgpt("train", "--steps", "20", *TINY, "--out", str(path))
    assert result.returncode == 0, result.stderr
    return path


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
    assert lines[0].startswith("step  1/20 | loss ")
    assert lines[-1].startswith("step 20/20 | loss ")
    assert len(lines) == 11
    assert all("steps/s" in line and "ETA" in line for line in lines)


def test_train_writes_the_default_checkpoint_in_the_current_directory(tmp_path):
    result = microgpt("train", "--steps", "2", *TINY, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert os.listdir(tmp_path) == [cli.DEFAULT_OUT]
    checkpoint.load(tmp_path / cli.DEFAULT_OUT)


def test_progress_line_redraws_one_line_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    progress = cli.ProgressLine(stream, steps=3)
    for step in (1, 2, 3):
        progress.update(Progress(step, 3, 2.5))
    progress.finish()
    text = stream.getvalue()
    assert text.startswith("\rstep 1/3 | loss 2.5000")
    assert text.count("\n") == 1 and text.endswith("\n")
    assert "step 3/3" in text.split("\r")[-1]


def test_sample_prints_n_lines_of_vocabulary_characters(ckpt):
    result = microgpt("sample", "--ckpt", str(ckpt), "-n", "7")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 7
    assert all(set(line) <= set("abcdefghijklmnopqrstuvwxyz") for line in lines)
    assert result.stderr == ""


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


def test_help_lists_the_commands_and_the_exit_statuses(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "{train,sample}" in out and "130 stopped by Ctrl-C" in out


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "empty.txt").write_text("\n \n")
    (d / "latin1.txt").write_bytes("ren\xe9e\n".encode("latin-1"))
    (d / "long.txt").write_text("ann\n" + "x" * 20 + "\n")
    (d / "corrupt.json").write_text('{"format": ')
    (d / "future.json").write_text(json.dumps({"format": "microgpt-checkpoint", "version": 9}))
    return d


TRAIN_ERRORS = {
    "steps-zero": (["--steps", "0"], "--steps must be at least 1, got 0"),
    "lr-negative": (["--lr", "-0.1"], "--lr must be a positive finite number, got -0.1"),
    "lr-nan": (["--lr", "nan"], "--lr must be a positive finite number, got nan"),
    "n-layer-zero": (["--n-layer", "0"], "--n-layer must be at least 1, got 0"),
    "block-size-negative": (["--block-size", "-3"], "--block-size must be at least 1, got -3"),
    "indivisible-heads": (["--n-embd", "10", "--n-head", "4"], "--n-embd 10 must be divisible by --n-head 4"),
    "missing-data": (["--data", "{d}/nope.txt"], "data file not found: {d}/nope.txt"),
    "empty-data": (["--data", "{d}/empty.txt"], "data file has no documents (every line is empty): {d}/empty.txt"),
    "undecodable-data": (["--data", "{d}/latin1.txt"], "data file is not valid UTF-8: {d}/latin1.txt (byte 3)"),
    "document-too-long": (["--data", "{d}/long.txt"], "a document is 20 characters long, but block_size 16 fits"),
    "out-dir-missing": (["--out", "{d}/no/such/dir/m.json"], "--out: directory does not exist: {d}/no/such/dir"),
    "out-is-directory": (["--out", "{d}"], "--out is a directory, not a file: {d}"),
    "diverges": (["--lr", "1e6", "--steps", "5"], "training diverged at step "),
}


@pytest.mark.parametrize("case", TRAIN_ERRORS, ids=list(TRAIN_ERRORS))
def test_bad_train_input_exits_2_with_one_line_and_writes_nothing(tmp_path, bad_files, case):
    args, message = TRAIN_ERRORS[case]
    args = [a.format(d=bad_files) for a in args]
    out = tmp_path / "m.json"
    result = microgpt("train", "--steps", "3", *TINY, "--out", str(out), *args)
    assert result.returncode == 2
    (line,) = [line for line in result.stderr.splitlines() if not line.startswith("step ")]  # one line, progress aside
    assert line.startswith(f"microgpt: error: {message.format(d=bad_files)}")
    assert "Traceback" not in result.stderr
    assert not out.exists()
    assert os.listdir(tmp_path) == []


SAMPLE_ERRORS = {
    "missing-ckpt": (["--ckpt", "{d}/nope.json"], "checkpoint not found: {d}/nope.json"),
    "corrupt-ckpt": (["--ckpt", "{d}/corrupt.json"], "checkpoint {d}/corrupt.json is not valid JSON: "),
    "future-ckpt": (["--ckpt", "{d}/future.json"], "checkpoint {d}/future.json has format version 9; "),
    "negative-n": (["--ckpt", "{ckpt}", "-n", "-1"], "-n must be 0 or more, got -1"),
    "zero-temperature": (["--ckpt", "{ckpt}", "--temperature", "0"], "--temperature must be a positive finite number"),
    "infinite-temperature": (["--ckpt", "{ckpt}", "--temperature", "inf"], "--temperature must be a positive finite"),
}


@pytest.mark.parametrize("case", SAMPLE_ERRORS, ids=list(SAMPLE_ERRORS))
def test_bad_sample_input_exits_2_with_one_line(bad_files, ckpt, case):
    args, message = SAMPLE_ERRORS[case]
    result = microgpt("sample", *(a.format(d=bad_files, ckpt=ckpt) for a in args))
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"microgpt: error: {message.format(d=bad_files)}")


def test_usage_error_exits_2_without_a_traceback():
    result = microgpt("train", "--steps", "many")
    assert result.returncode == 2
    assert "microgpt train: error: argument --steps: invalid int value: 'many'" in result.stderr
    assert "Traceback" not in result.stderr


def test_ctrl_c_saves_what_was_trained_and_exits_130(tmp_path):
    out = tmp_path / "m.json"
    # restore Ctrl-C's default in the child, in case this test runs where SIGINT is ignored (a background job)
    proc = subprocess.Popen(
        [sys.executable, "-m", "microgpt", "train", "--steps", "100000", *TINY, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first = proc.stderr.readline()
        assert first.startswith("step      1/100000 | loss ")
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == cli.EXIT_INTERRUPTED
    assert "Traceback" not in stderr
    assert "; saved what was trained so far" in stderr
    _, _, meta = checkpoint.load(out)
    assert meta["interrupted"] is True
    assert 1 <= meta["steps"] < 100000
    assert f"interrupted at step {meta['steps']} of 100000" in stderr
    assert f"wrote {out} ({meta['steps']} steps)" in stdout
    assert os.listdir(tmp_path) == ["m.json"]
