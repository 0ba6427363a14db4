"""The suite's own safety nets: a hanging test fails instead of stalling CI."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_test_that_never_returns_fails_on_the_configured_timeout(tmp_path, pytestconfig):
    assert float(pytestconfig.getini("timeout")) > 0, "pyproject.toml sets no per-test timeout"
    hang = tmp_path / "test_hang.py"
    hang.write_text("def test_spins_forever():\n    while True:\n        pass\n", encoding="utf-8")
    # the project's own pytest configuration, with the limit lowered so this test is quick
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-o",
            "timeout=2",
            str(hang),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Timeout" in result.stdout + result.stderr
