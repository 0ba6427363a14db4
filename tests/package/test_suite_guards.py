"""The suite's own safety nets: a hanging test fails instead of stalling CI; a group of tests stays on one worker."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.xdist_group("guard")
def test_an_xdist_group_is_kept_on_one_worker(request):
    """`make test` runs with --dist loadgroup: a file whose module-wide fixtures are costly (the broken-site
    builds, the notebook's run, the reader's virtualenv) marks its tests with
    xdist_group, and they run on one worker, each fixture made once. xdist puts the group in the test's node
    id; a pytest that ignores that (9.2 with xdist 3.8) spreads every group over the workers, silently."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist with --dist loadgroup")
    assert request.node.nodeid.endswith("@guard"), f"{request.node.nodeid}: xdist_group was ignored"
