"""scripts/site-python, which the Makefile and .ci/run ask for the Python that builds the site (3.12 or newer)."""

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "site-python"

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")


def fake_python(folder: Path, name: str, version: tuple[int, int]) -> Path:
    """An executable that answers the script's version check as a Python of `version` would."""
    path = folder / name
    old = "1" if version < (3, 12) else "0"
    path.write_text(f"#!/bin/sh\nexit {old}\n")
    path.chmod(0o755)
    return path


def run_script(path_dirs: list[Path], tmp_path: Path) -> subprocess.CompletedProcess:
    """The script with only `path_dirs` on PATH and no pyenv: it sees the fakes and nothing of this machine's."""
    env = {"PATH": os.pathsep.join(map(str, path_dirs)), "HOME": str(tmp_path / "home")}
    env["PYENV_ROOT"] = str(tmp_path / "no-pyenv")
    return subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, text=True)


@pytest.mark.parametrize("name", ["python3.14", "python3.19", "python3"])
def test_a_python_newer_than_3_13_or_named_python3_is_found(tmp_path, name):
    found = fake_python(tmp_path, name, (3, 14))
    result = run_script([tmp_path], tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == str(found), result


def test_python3_older_than_3_12_is_not_taken(tmp_path):
    fake_python(tmp_path, "python3", (3, 11))
    result = run_script([tmp_path], tmp_path)
    assert result.returncode == 1 and result.stdout == "", result


def test_3_13_and_3_12_come_before_newer_ones(tmp_path):
    fake_python(tmp_path, "python3.14", (3, 14))
    preferred = fake_python(tmp_path, "python3.12", (3, 12))
    result = run_script([tmp_path], tmp_path)
    assert result.stdout.strip() == str(preferred), result
