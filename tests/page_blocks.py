"""`pytest --codeblocks`: run every Python block of the Markdown pages as the site shows it.

Loaded by the root conftest.py only when --codeblocks is given. Pages are read by
docs/hooks/mdblocks.py, the reader the site build uses, so a block is run exactly when the site
shows it as a runnable block; a page with a problem (an unknown marker, a ```Python fence, a
snippet marker in prose, ...) fails to collect, with the page and line. The blocks are run by
pytest-codeblocks' own test item: a chain (a block and the cont blocks after it) runs as one
program, and its stdout must equal the expected output shown under it.

With MICROGPT_REQUIRE_TORCH=1 (CI installs torch) a block that needs torch must run, never skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import mdblocks
import pytest
from pytest_codeblocks import CodeBlock
from pytest_codeblocks.plugin import MarkdownFile as CodeblocksFile
from pytest_codeblocks.plugin import TestBlock


def code_blocks(path: Path, root: Path) -> list[CodeBlock]:
    """pytest-codeblocks' CodeBlocks for a page: one per chain; ValueError lists the page's problems."""
    name = path.relative_to(root) if path.is_relative_to(root) else path
    page = mdblocks.parse(path.read_text(encoding="utf-8"), str(name), root)
    if page.problems:
        raise ValueError("\n".join(page.problems))
    require = os.environ.get("MICROGPT_REQUIRE_TORCH") == "1"
    blocks = []
    for chain in page.chains():
        head, last = chain[0], chain[-1]
        code = "".join(block.code for block in chain)
        if head.needs and require:
            code = f"import {head.needs}  # MICROGPT_REQUIRE_TORCH=1: a block that needs it must run\n" + code
        expected = "".join(line + "\n" for line in last.expected.body) if last.expected else None
        importorskip = None if require else head.needs
        blocks.append(CodeBlock(code, head.line, "python", expected, importorskip=importorskip))
    return blocks


class Page(pytest.File):
    def collect(self):
        try:
            blocks = code_blocks(self.path, self.config.rootpath)
        except ValueError as problems:
            raise self.CollectError(str(problems)) from None
        for block in blocks:
            item = TestBlock.from_parent(self, name=f"line {block.lineno}")
            item.obj = block
            yield item


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """Collect .md pages with Page instead of pytest-codeblocks' own reader."""
    collected = yield
    if file_path.suffix != ".md":
        return collected
    return [c for c in collected if not isinstance(c, CodeblocksFile)] + [Page.from_parent(parent, path=file_path)]
