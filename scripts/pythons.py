"""The Pythons the package claims, and where this machine has each: one line per claimed version.

    python3 scripts/pythons.py            # "3.12 /root/.pyenv/versions/3.12.1/bin/python3", or "3.12 -" if none
    python3 scripts/pythons.py --claimed  # "3.11", "3.12", "3.13": the versions alone

The versions are pyproject.toml's classifiers ("Programming Language :: Python :: 3.12"), written once
there. Each is looked for as pythonX.Y on PATH, then python3 if it is that version, then under pyenv
(the newest patch release it holds), as scripts/site-python looks for the site's. `make test` runs the
package's tests on each one found (scripts/test-pythons); CI sets up every claimed one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLASSIFIER = re.compile(r"^Programming Language :: Python :: (3\.\d+)$")


def claimed() -> list[str]:
    """The versions pyproject.toml's classifiers name, oldest first."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = [m.group(1) for c in project.get("classifiers", []) if (m := CLASSIFIER.match(c))]
    return sorted(found, key=lambda v: tuple(map(int, v.split("."))))


def _is(python: str, version: str) -> bool:
    try:
        said = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except OSError:
        return False
    return said.returncode == 0 and said.stdout.strip() == version


def find(version: str) -> str | None:
    """This machine's Python `version` (a path), or None."""
    on_path = [shutil.which(f"python{version}"), shutil.which("python3")]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    patches = sorted(
        pyenv.glob(f"{version}.*/bin/python3"),
        key=lambda p: [int(n) if n.isdigit() else -1 for n in p.parts[-3].split(".")],
        reverse=True,
    )
    for python in [*on_path, *map(str, patches)]:
        if python and _is(python, version):
            return python
    return None


def main(argv: list[str]) -> int:
    versions = claimed()
    if not versions:
        print("pyproject.toml claims no Python: no 'Programming Language :: Python :: 3.N'", file=sys.stderr)
        return 1
    for version in versions:
        print(version if "--claimed" in argv else f"{version} {find(version) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
