"""Numbers in prose are checked (tests/prose_numbers.py): a number changed in the text alone fails."""

import json
import re
import subprocess
import sys
import textwrap

import pytest
from sitecheck import ROOT, markdown_pages

pytest.importorskip("yaml", reason="PyYAML (a mkdocs dependency) reads the front matter")

import prose_numbers  # noqa: E402

PAGE = """
    ```python
    a, b = 2.0, -3.0
    print(a * b, a + b)
    ```

    <!--pytest-codeblocks:expected-output-->
    ```text
    -6.0 -1.0
    ```

    """


def check(prose: str, front: str = "", name: str = "docs/page.md") -> list[str]:
    return prose_numbers.check(front + textwrap.dedent(PAGE).lstrip("\n") + prose + "\n", name, ROOT)


def test_every_page_and_the_readme_pass():
    problems = [p for page in markdown_pages() for p in prose_numbers.check(page.read_text(), str(page))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "prose",
    [
        "The product is $-6$ and the sum $-1.0$.",  # printed: value and sign match
        "The product is −6.0, written with a Unicode minus sign.",
        "From $a = 2.0$ and $b = -3.0$, as the code has them.",  # in the code
        "1. An ordered list item's number is a label.",
        '=== "3–4: a tab\'s step numbers are labels too"',
        "Text encoded as UTF-8 or hashed with SHA-256: names, not numbers.",
    ],
)
def test_numbers_printed_or_in_the_code_pass(prose):
    assert check(prose) == []


@pytest.mark.parametrize(
    ("prose", "number"),
    [
        ("The product is $-7$.", "-7"),  # a changed number
        ("The product is $6.0$.", "6.0"),  # a sign flipped
        ("The sum is −1.5.", "−1.5"),
        ("It took 1,500 steps.", "1,500"),
        ("Here $a$ holds 15.", "15"),  # a small whole number is a claim like any other
        ("1. An item that says 7 of something.", "7"),  # only the item's own number is a label
        ("At $h = 10^{-7}$ the error grows.", "1e-7"),
        ("Version 0.19.1 of KaTeX.", "0.19.1"),
    ],
)
def test_a_number_neither_printed_nor_in_the_code_fails_with_page_and_line(prose, number):
    problems = check(prose)
    assert len(problems) == 1 and problems[0].startswith("docs/page.md:11: " + number + " "), problems


def test_a_number_with_thousands_separators_is_one_number_in_prose_and_in_math():
    assert prose_numbers.numbers("It read 23,104 words, $L = 11{,}794$.") == ["23,104", "11{,}794"]
    assert prose_numbers.value("11{,}794") == prose_numbers.value("11,794") == prose_numbers.value("11794")
    assert check("The product is $-6{,}000$.")[0].startswith("docs/page.md:11: -6{,}000 ")


def test_the_readme_example_from_the_issue_fails_when_its_number_changes():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "$\\partial f/\\partial a = b = -3$" in readme
    changed = readme.replace("$\\partial f/\\partial a = b = -3$", "$\\partial f/\\partial a = b = -4$")
    problems = prose_numbers.check(changed, "README.md")
    line = changed.split("\n").index(next(x for x in changed.split("\n") if "b = -4$" in x)) + 1
    assert [p.split(" is not")[0] for p in problems] == [f"README.md:{line}: -4"]


def test_an_exemption_with_a_reason_passes_and_is_needed():
    front = '---\nunchecked_numbers:\n  "1990": the year of the census\n---\n'
    assert check("The names come from the 1990 census.", front) == []
    unused = check("No year here.", front)
    assert len(unused) == 1 and "lists 1990" in unused[0]


@pytest.mark.parametrize(
    "front",
    [
        '---\nunchecked_numbers:\n  "1990":\n---\n',  # no reason
        "---\nunchecked_numbers: [1990]\n---\n",
        '---\nhide: [toc]\nunchecked_numbers:\n  "1990": the year\n---\n',  # an unknown key
    ],
)
def test_a_malformed_front_matter_fails(front):
    assert check("The 1990 census.", front)


def test_the_readme_keeps_its_exemptions_in_a_leading_comment():
    front = '<!--\nunchecked_numbers:\n  "1990": the year of the census\n-->\n'
    assert check("The 1990 census.", front, name="README.md") == []
    assert check("The 1990 census.", name="README.md")


def test_the_command_lists_violations_and_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent(PAGE).lstrip("\n") + "The product is 7.5.\n")
    cmd = [sys.executable, "-m", "tests.prose_numbers", str(page)]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1 and f"{page}:11: 7.5 is not printed" in result.stdout, result.stdout
    page.write_text(textwrap.dedent(PAGE).lstrip("\n") + "The product is -6.0.\n")
    assert subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).returncode == 0


def test_the_node_version_the_pages_ask_for_is_the_one_package_json_allows():
    engines = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["engines"]["node"]
    oldest = re.fullmatch(r">=(\d+)", engines)[1]
    stated = re.findall(r"Node\.js (\d+) or newer", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert stated and set(stated) == {oldest}, (stated, engines)
