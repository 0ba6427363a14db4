"""`pytest --codeblocks`: run every Python block of the Markdown pages as the site shows it.

Loaded by the root conftest.py only when --codeblocks is given. The chains are pytest-codeblocks' own
collection (`extract_from_file`: a block with the cont blocks after it merged in, the line it starts
on, what it imports or skips, its expected output), checked against tools/mgsite/mgsite/blocks.py,
the reader the site build uses: a page the two read differently fails to collect, so a block is run
exactly when the site shows it as a runnable block. Our reader's code replaces pytest-codeblocks'
only where 0.18 cannot give it: an embed (pytest-codeblocks has the `--8<--` line, not the file's
lines), and a block indented in a tab, an admonition or a list (pytest-codeblocks drops its blank
lines, in the code and in the expected output). A page with a problem (an unknown marker, a
```Python fence, a snippet marker in prose, ...: tests/page_rules.py) fails to collect, with the
page and line.

A chain (a block and the cont blocks after it) runs as one program, in a fresh interpreter of its
own, from an empty directory: what the copy button gives the reader. Its stdout must equal the
expected output shown under it, it must exit with 0, and it must run to its last line: a block that
ends the interpreter early (`sys.exit()`, `raise SystemExit`, `exit()`, `quit()`, `os._exit(0)`)
fails, and the run goes on with the next chain.

With the built site given (MICROGPT_BUILT_SITE, as `make test` runs), the interpreter is a fresh
virtualenv with the wheel the site serves, installed with the site's own install command
(tests/sitecheck.py's `reader`): the pages run against what a reader installs. Without it, they run
with this interpreter and the package as installed here (`make test-package`, a page being written).

A block that needs torch or numpy skips where that is not installed; with MICROGPT_REQUIRE_TORCH=1
(CI installs torch) it must run, never skip. The reader's virtualenv borrows them from this
environment, after the wheel on sys.path: nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import page_rules
import pytest
from mgsite import blocks as mdblocks
from pytest_codeblocks import extract_from_file
from sitecheck import reader

# What the fresh interpreter runs: argv = [name of the chain, modules the chain needs, folders to borrow
# them from]. The borrowed folders go at the end of sys.path (after the wheel); the needed modules are
# imported first, so a missing one fails as an ImportError and not half-way. END is written only once
# the chain's last line has run.
END = "\nthe chain ran to its end"
RUNNER = f"""import importlib, sys
name, needs, borrowed = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
sys.path.extend(borrowed)
for module in needs:
    importlib.import_module(module)
exec(compile(sys.stdin.read(), name, "exec"), {{"__name__": "__main__"}})
sys.stdout.flush()
sys.__stderr__.write({END!r})
"""


@dataclass
class Chain:
    """One chain of a page: its code, its first line, its checked output, what it needs (torch, numpy)."""

    code: str
    lineno: int
    expected: str | None
    needs: str | None


def code_blocks(path: Path, root: Path) -> list[Chain]:
    """The chains of a page, in page order, as pytest-codeblocks collects them (see the top of this file);
    ValueError lists the page's problems, or where pytest-codeblocks reads it otherwise than the site."""
    name = path.relative_to(root) if path.is_relative_to(root) else path
    page = mdblocks.parse(path.read_text(encoding="utf-8"), str(name), root)
    problems = page.problems + page_rules.problems(page)
    if problems:
        raise ValueError("\n".join(problems))
    # a fence with attributes (```python {mg-highlight="..."}) has the syntax 'python {...}' there
    collected = [b for b in extract_from_file(path) if (b.syntax or "").split("{")[0].strip() == "python"]
    chains = []
    for k, site in enumerate(page.chains()):
        head, last = site[0], site[-1]
        block = collected[k] if k < len(collected) else None
        if block is None or (block.lineno, block.importorskip) != (head.line, head.needs):
            found = f"line {block.lineno}, needing {block.importorskip}" if block else "none"
            raise ValueError(f"{name}:{head.line}: pytest-codeblocks' next chain is not this one ({found})")
        # what pytest-codeblocks read: the page's lines (an embed's --8<-- line), blank lines dropped if indented
        written = "".join(line + "\n" for b in site for line in b.body)
        shown = "".join(line + "\n" for line in last.expected.body) if last.expected else None
        output = [last.expected] if last.expected else []
        differs = "code" if _read(written, site) != _read(block.code, site) else ""
        if (shown is None) != (block.expected_output is None) or (
            _read(shown or "", output) != _read(block.expected_output or "", output)
        ):
            differs = "expected output"
        if differs:
            raise ValueError(f"{name}:{head.line}: pytest-codeblocks reads this chain's {differs} otherwise")
        code = block.code if not any(b.embed or b.indent for b in site) else "".join(b.code for b in site)
        expected = block.expected_output if not (last.expected and last.expected.indent) else shown
        chains.append(Chain(code, block.lineno, expected, block.importorskip))
    if len(collected) > len(chains):
        raise ValueError(f"{name}:{collected[len(chains)].lineno}: a python block the site does not run")
    return chains


def _read(text: str, fences: list[mdblocks.Fence]) -> str:
    """Text as pytest-codeblocks 0.18 reads it: without blank lines where a fence is indented."""
    if not any(f.indent for f in fences):
        return text
    return "".join(line for line in text.splitlines(keepends=True) if line.strip())


class ChainFailed(Exception):
    """What the chain did wrong, as the report shows it."""


def interpreter() -> Path:
    """The reader's virtualenv with the served wheel when the built site is given, else this Python."""
    site = os.environ.get("MICROGPT_BUILT_SITE")
    return reader(Path(site)) if site else Path(sys.executable)


def borrowed(python: Path, module: str) -> list[str]:
    """The folder holding `module` in this environment, when `python` is another one."""
    if python == Path(sys.executable):
        return []
    spec = importlib.util.find_spec(module)
    return [str(Path(spec.origin).parent.parent)] if spec and spec.origin else []


def run_chain(chain: Chain, where: str, python: Path) -> subprocess.CompletedProcess:
    """Run the chain in a fresh `python`, from an empty directory, with nothing of this session on its path."""
    needs = [chain.needs] if chain.needs else []
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    extra = [p for module in needs for p in borrowed(python, module)]
    with tempfile.TemporaryDirectory(prefix="microgpt-block-") as empty:
        return subprocess.run(
            [str(python), "-c", RUNNER, where, " ".join(needs), *extra],
            input=chain.code,
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )


class Block(pytest.Item):
    def __init__(self, *, chain: Chain, **kwargs):
        super().__init__(**kwargs)
        self.chain = chain

    def runtest(self):
        chain, where = self.chain, f"{self.path.name}, block at line {self.chain.lineno}"
        if chain.needs and os.environ.get("MICROGPT_REQUIRE_TORCH") != "1":
            pytest.importorskip(chain.needs)
        result = run_chain(chain, where, interpreter())
        shown = f"```python\n{chain.code}```\n"
        if result.returncode != 0:
            raise ChainFailed(f"{where} exited with {result.returncode}:\n{shown}\n{result.stderr}")
        if not result.stderr.endswith(END):
            raise ChainFailed(
                f"{where} ended before its last line (sys.exit, SystemExit, exit(), quit() or os._exit?):\n{shown}"
                f"\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
            )
        if chain.expected is not None and result.stdout != chain.expected:
            raise ChainFailed(f"{where}:\n{shown}\nExpected output\n{chain.expected}\nbut got\n{result.stdout}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ChainFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.chain.lineno - 1, f"block at line {self.chain.lineno}"


class Page(pytest.File):
    def collect(self):
        try:
            chains = code_blocks(self.path, self.config.rootpath)
        except ValueError as problems:
            raise self.CollectError(str(problems)) from None
        for chain in chains:
            yield Block.from_parent(self, name=f"line {chain.lineno}", chain=chain)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """Collect .md pages with Page instead of pytest-codeblocks' own reader (which only gives --codeblocks)."""
    collected = yield
    if file_path.suffix != ".md":
        return collected
    return [c for c in collected if c.__class__.__module__ != "pytest_codeblocks.plugin"] + [
        Page.from_parent(parent, path=file_path)
    ]
