"""Embedded code shows the file's true lines: the title, the gutter and the code agree with the file."""

import re

from sitecheck import (
    EMBED_TITLE,
    GUTTER,
    ROOT,
    build,
    copy_project,
    embed_problems,
    html_blocks,
    scan_fences,
    site_pages,
)

SNIPPET_BODY = re.compile(r"""^\s*-+8<-+\s+(["'])(?P<target>.+)\1\s*$""")


def embeds(pages):
    for page, page_html in pages.items():
        for block in html_blocks(page_html):
            if block.title and EMBED_TITLE.match(block.title):
                yield page, block


def gutter(block):
    return [int(m.group("shown")) for m in GUTTER.finditer(block.html)]


def test_every_embedded_block_shows_the_files_lines(built_site):
    found = list(embeds(site_pages(built_site)))
    assert any(page == "backward-pass.md" for page, _ in found)
    problems = [f"{page}: {problem}" for page, block in found for problem in embed_problems(block)]
    assert not problems, "\n".join(problems)


def test_every_snippet_fence_is_a_titled_numbered_block(built_site):
    pages = site_pages(built_site)
    for page, page_html in pages.items():
        fences = [
            f
            for f in scan_fences((ROOT / "docs" / page).read_text(encoding="utf-8"))
            if f.language == "python" and len(f.body) == 1 and SNIPPET_BODY.match(f.body[0])
        ]
        shown = [b for b in html_blocks(page_html) if b.title and EMBED_TITLE.match(b.title)]
        assert len(shown) == len(fences), f"{page}: {len(fences)} embeds in the .md, {len(shown)} numbered on the site"


def test_backward_gutter_skips_the_nested_section_markers(built_site):
    page = site_pages(built_site)["backward-pass.md"]
    block = next(b for b in html_blocks(page) if b.title and b.title.startswith("microgpt/engine.py — lines"))
    numbers = gutter(block)
    lines = (ROOT / "microgpt" / "engine.py").read_text(encoding="utf-8").split("\n")
    skipped = set(range(numbers[0], numbers[-1] + 1)) - set(numbers)
    assert skipped, "the backward section has nested sections, so its gutter must skip their marker lines"
    assert all("# --8<-- [" in lines[n - 1] for n in skipped)


def test_numbers_follow_lines_added_to_the_file(tmp_path, built_site):
    """Add lines at the top of engine.py, rebuild (without the notebook, for speed): every number moves."""
    added = 3
    project = copy_project(tmp_path / "project")
    engine = project / "microgpt" / "engine.py"
    engine.write_text("# added\n" * added + engine.read_text(encoding="utf-8"), encoding="utf-8")
    result = build(project, tmp_path / "site")
    assert result.returncode == 0, result.stderr

    before = {(p, i): b for i, (p, b) in enumerate(embeds(site_pages(built_site)))}
    after = {(p, i): b for i, (p, b) in enumerate(embeds(site_pages(tmp_path / "site")))}
    assert before.keys() == after.keys()
    moved = 0
    for key, old in before.items():
        new = after[key]
        assert embed_problems(new, root=project) == []
        if old.title.startswith("microgpt/engine.py"):
            assert gutter(new) == [n + added for n in gutter(old)]
            first, last = gutter(new)[0], gutter(new)[-1]
            assert new.title.endswith(f"{first}–{last}" if first != last else f"line {first}")
            moved += 1
    assert moved >= 4  # backward, topo, seed, chain on the backward pass page
