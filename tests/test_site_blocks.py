"""Nothing is skipped silently: every Python block on the site is run by pytest, or visibly marked."""

from sitecheck import ROOT, SITE_TOTALS, block_accounting, fence_problems, site_pages


def pages_and_readme():
    pages = [p for p in sorted((ROOT / "docs").rglob("*.md")) if not {"hooks", "vendor"} & set(p.parts)]
    readme = ROOT / "README.md"
    return pages + ([readme] if readme.exists() else [])


def test_no_fence_would_be_skipped_silently():
    problems = [p for page in pages_and_readme() for p in fence_problems(page)]
    assert not problems, "\n".join(problems)


def test_every_python_block_on_the_site_is_run_or_visibly_marked(built_site, pytestconfig):
    pages = site_pages(built_site)
    assert "backward-pass.md" in pages and "index.md" in pages
    problems, totals = [], {"shown": 0, "run": 0, "marked": 0, "torch": 0}
    lines = []
    for page, page_html in pages.items():
        page_problems, counts = block_accounting(ROOT / "docs" / page, page_html)
        problems += page_problems
        for key, value in counts.items():
            totals[key] += value
        if counts.get("shown"):
            lines.append(f"  {page:28} {counts['shown']:3} shown {counts['run']:3} run {counts['marked']:3} marked")
    summary = (
        f"Python blocks on the site: {totals['shown']}; run by pytest-codeblocks: {totals['run']} "
        f"({totals['torch']} of them need PyTorch); marked not run, reason shown: {totals['marked']}"
    )
    pytestconfig.stash[SITE_TOTALS]["lines"] = [summary, *lines]
    print(summary)
    assert not problems, "\n".join(problems)
    assert totals["shown"] == totals["run"] + totals["marked"]
