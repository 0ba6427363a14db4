"""TEMPORARY build support for the in-browser Run buttons (issue 14). The lead drops this file at
integration: each step below is owned by another engineer and only stands in for their hook, producing
exactly the contract of the team brief, so that docs/javascripts/run/ depends on nothing else.

1. Run metadata (owner: tooling). Every Python block pytest-codeblocks runs is wrapped in
   `<div class="mg-runnable" data-mg-run="<n>">` (0-based, page order), with `data-mg-cont` on a
   continuation and `data-mg-needs="torch"|"numpy"` when it needs a package the browser lacks; the checked
   output after a block is wrapped with `data-mg-expected="<n>"`. The wrapper leaves the
   `<div class="language-python highlight">` itself untouched.
2. The wheel (owner: packaging, docs/hooks/wheel.py): `<site>/dist/<wheel>` and
   `<site>/dist/latest.json` = {"wheel": ..., "version": ...}.
3. Pyodide (owner: site, docs/hooks/vendor.py): node_modules/pyodide -> `<site>/vendor/pyodide/`.
4. The trace recorder for editable leaves (owner: widgets): `<site>/py/autograd_trace.py` exposing
   trace_preset(name, leaves).

Each step does nothing when its real owner's output is already there, so the two can coexist briefly.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import tomllib
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------- 1. run metadata

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
MARK = re.compile(r"^[ \t]*<!--[-\s]*(?P<body>pytest-codeblocks:.*?|pytest\.mark\..*?)-->[ \t]*$")
NEEDS = re.compile(r"^\s*(?:import|from)\s+(?P<module>numpy|torch)\b", re.MULTILINE)
HIGHLIGHT = re.compile(r'<div class="language-(?P<lang>[\w+-]+) highlight">')
DIV = re.compile(r"<div\b|</div>")

_roles: dict[str, list[dict | None]] = {}


def fence_roles(markdown: str) -> list[dict | None]:
    """One entry per fence with a language, in page order: the attributes its rendered block gets."""
    roles: list[dict | None] = []
    lines = markdown.split("\n")
    marks: list[str] = []
    n = -1  # index of the last runnable block
    chain_runnable = False
    chain_needs = None
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            mark = MARK.match(lines[i])
            if mark:
                marks.append(mark.group("body"))
            i += 1
            continue
        char, width = m.group("fence")[0], len(m.group("fence"))
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(char * width) and not lines[j].strip().strip(char)):
            j += 1
        language = m.group("info").strip().split(" ")[0]
        body = "\n".join(lines[i + 1 : j])
        keywords = [k.split(":", 1)[1].strip("- ") for k in marks if k.startswith("pytest-codeblocks:")]
        role = None
        if language == "python":
            cont = "cont" in keywords
            if not cont:
                chain_runnable = not any(k.startswith("pytest.mark.skip(") for k in marks)
                skips = [k[len("importorskip(") : -1] for k in keywords if k.startswith("importorskip")]
                chain_needs = skips[0] if skips else None
            found = NEEDS.search(body)
            chain_needs = chain_needs or (found.group("module") if found else None)
            if chain_runnable:
                n += 1
                role = {"data-mg-run": str(n)}
                if cont:
                    role["data-mg-cont"] = ""
                if chain_needs:
                    role["data-mg-needs"] = chain_needs
        elif any(k.startswith("expected-output") for k in keywords) and chain_runnable and n >= 0:
            role = {"data-mg-expected": str(n)}
        if language:
            roles.append(role)
        marks = []
        i = j + 1
    return roles


def block_end(html_text: str, start: int) -> int:
    """The index just after the </div> that closes the <div> opening at start."""
    depth = 0
    for m in DIV.finditer(html_text, start):
        depth += 1 if m.group() == "<div" else -1
        if depth == 0:
            return m.end()
    raise PluginError("a code block's <div> is never closed")


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri.endswith(".md"):
        _roles[page.file.src_uri] = fence_roles(markdown)
    return markdown


def on_page_content(html_text: str, page, config, files) -> str:
    roles = _roles.pop(page.file.src_uri, None)
    if roles is None or "data-mg-run" in html_text or not any(roles):
        return html_text
    blocks = list(HIGHLIGHT.finditer(html_text))
    if len(blocks) != len(roles):
        raise PluginError(f"{page.file.src_uri}: {len(blocks)} highlighted blocks for {len(roles)} fences")
    out, pos = [], 0
    for m, role in zip(blocks, roles, strict=True):
        if role is None:
            continue
        end = block_end(html_text, m.start())
        attrs = "".join(f' {k}="{v}"' if v else f" {k}" for k, v in role.items())
        out += [html_text[pos : m.start()], f'<div class="mg-runnable"{attrs}>', html_text[m.start() : end], "</div>"]
        pos = end
    out.append(html_text[pos:])
    return "".join(out)


# ---------------------------------------------------------------------------- 2. the wheel


def build_wheel(dest: Path) -> str:
    """A pure-Python wheel of microgpt/ named as pyproject.toml says; returns its file name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = project["name"], project["version"]
    stem = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}"
    wheel = f"{stem}-py3-none-any.whl"
    files = {
        p.relative_to(ROOT).as_posix(): p.read_bytes()
        for p in sorted((ROOT / "microgpt").rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    info = f"{stem}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest / wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files.items():
            zf.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    (dest / "latest.json").write_text(json.dumps({"wheel": wheel, "version": version}), encoding="utf-8")
    return wheel


# ---------------------------------------------------------------------------- 3. Pyodide, 4. recorder

PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]

# Stand-in for widgets' recorder: rebuilds a preset's graph from its trace with new leaf values and
# traces it again with the real engine (microgpt.trace, still in the wheel until widgets moves it).
RECORDER = '''"""Stand-in for the widgets' trace recorder (written by docs/hooks/_tmp_run_support.py)."""

from microgpt.engine import Value
from microgpt.trace import preset, trace


def trace_preset(name, leaves=None):
    t = preset(name)
    if not leaves:
        return t
    values = {}
    for n in t["nodes"]:
        kids = [values[c] for c in n["children"]]
        if n["leaf"]:
            values[n["id"]] = Value(float(leaves.get(n["id"], n["data"])))
        elif n["op"] == "+":
            values[n["id"]] = kids[0] + kids[1]
        elif n["op"] == "*":
            values[n["id"]] = kids[0] * kids[1]
        else:
            values[n["id"]] = getattr(kids[0], n["op"])()
    named = [(n["id"], values[n["id"]], n["op"], n["expr"]) for n in t["nodes"] if not n["const"]]
    named.sort(key=lambda x: t["forward"].index(x[0]))
    return trace(values[t["root"]], named, t["name"], t["title"])
'''


def on_post_build(config) -> None:
    if not (ROOT / "pyproject.toml").exists():
        return  # a partial copy of the project (tests/sitecheck.py's copy_project): nothing to package
    site = Path(config["site_dir"])
    if not (site / "dist" / "latest.json").exists():
        build_wheel(site / "dist")
    vendor = site / "vendor" / "pyodide"
    if not (vendor / "pyodide.mjs").exists():
        source = ROOT / "node_modules" / "pyodide"
        if not source.is_dir():
            raise PluginError("node_modules/pyodide is missing: run `npm ci` (the site serves Pyodide from it)")
        vendor.mkdir(parents=True, exist_ok=True)
        for name in PYODIDE_FILES:
            shutil.copyfile(source / name, vendor / name)
    recorder = site / "py" / "autograd_trace.py"
    if not recorder.exists():
        recorder.parent.mkdir(parents=True, exist_ok=True)
        recorder.write_text(RECORDER, encoding="utf-8")
