"""microgpt run as a user without privileges, also when the tests run as root (as CI's do).

Root reads and writes any file, so what microgpt does for an ordinary user (a file it may not read,
a directory it may not write) can be seen only as another user: the user nobody, in a directory of
its own under /tmp, with a copy of the package (the tests' own may be under a directory only root
enters) and a Python that nobody may run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "microgpt"


class Runner:
    """Runs microgpt in a directory of its own, as one user: user None is the user running the tests."""

    def __init__(self, work: Path, python: str, env: dict[str, str], user: int | None, group: int | None = None):
        self.work, self.python, self.env, self.user, self.group = work, python, env, user, group

    def run(self, *args: str) -> subprocess.CompletedProcess:
        """`python -m microgpt *args`, in the runner's directory."""
        return self.python_code("", *args, module="microgpt")

    def python_code(self, code: str, *args: str, module: str = "") -> subprocess.CompletedProcess:
        """Python code (or the module), in the runner's directory, as the runner's user."""
        command = [self.python, "-m", module, *args] if module else [self.python, "-c", code, *args]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=300, cwd=self.work, env=self.env, preexec_fn=self.become
        )

    def become(self) -> None:
        """In the child, before it starts: the default disposition of every signal a test sends (the suite may
        have started with some ignored), no core file, and the runner's user."""
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_DFL)
        import resource  # POSIX only, as is all of this: Windows has no such module, and test_cli imports this one

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.user is not None:
            os.setgroups([])
            os.setgid(self.group if self.group is not None else self.user)
            os.setuid(self.user)


def python_for(user: int, group: int) -> str | None:
    """A Python of 3.11 or later that the user may run: this one, else the system's; None if there is none."""
    for python in dict.fromkeys([sys.executable, shutil.which("python3") or "", "/usr/bin/python3"]):
        if not python:
            continue
        probe = Runner(Path("/"), python, {"PATH": os.defpath}, user, group)
        try:
            check = probe.python_code("import sys; sys.exit(sys.version_info < (3, 11))")
        except OSError:  # under a directory the user may not enter
            continue
        if check.returncode == 0:
            return python
    return None


@contextlib.contextmanager
def as_nobody() -> Iterator[Runner | str]:
    """A Runner as the user nobody, with a directory to work in and a home, both nobody's; or, where that cannot
    be (the tests do not run as root, no such user, no Python nobody may run), why not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        yield "the tests do not run as root: as the user they run as, they are unprivileged already"
        return
    import pwd  # POSIX only (see become): Windows has no user database module

    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        yield "this system has no user nobody"
        return
    python = python_for(nobody.pw_uid, nobody.pw_gid)
    if python is None:
        yield "no Python 3.11+ that the user nobody may run (this one is under a directory only root reads)"
        return
    sandbox = Path(tempfile.mkdtemp(prefix="microgpt-unprivileged-"))  # under /tmp: nobody may reach it
    try:
        shutil.copytree(PACKAGE, sandbox / "package" / "microgpt")
        for path in [sandbox, *sandbox.rglob("*")]:
            path.chmod(path.stat().st_mode | (0o555 if path.is_dir() else 0o444))
        work, home = sandbox / "work", sandbox / "home"
        for directory in (work, home):
            directory.mkdir()
            os.chown(directory, nobody.pw_uid, nobody.pw_gid)
        env = {"PATH": os.defpath, "HOME": str(home), "PYTHONPATH": str(sandbox / "package"), "LC_ALL": "C.UTF-8"}
        yield Runner(work, python, env, nobody.pw_uid, nobody.pw_gid)
    finally:
        shutil.rmtree(sandbox)


def give(path: Path, runner: Runner) -> None:
    """Make path, and all under it, the runner's user's own."""
    if runner.user is not None:
        for each in [path, *(path.rglob("*") if path.is_dir() else [])]:
            os.chown(each, runner.user, runner.group if runner.group is not None else runner.user)
