"""What a built page shows a reader, as data, to compare two builds of the same pages (MkDocs and Zensical).

Read with html.parser, never changed: each code block's language, run attributes (data-mg-*), title,
first line number and code; each formula's MathML; each graph's element and its data-*; each self-check's
form (its attributes and its text).
"""

from __future__ import annotations

from html.parser import HTMLParser

GRAPHS = ("autograd-widget", "autograd-playground", "autograd-diagram", "mg-train")
KEPT = ("data-mg-", "data-preset", "data-diagram", "data-answer", "data-choice", "data-tolerance", "data-trace")


class Features(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, ...]] = []
        self.open: list[tuple[str, list[str], int]] = []  # (kind, text so far, depth) of what is being read
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.depth += tag not in ("br", "img", "input", "hr", "meta", "link")
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        kept = tuple(f"{k}={a[k]}" for k in sorted(a) if k.startswith(KEPT))
        if tag == "div" and "highlight" in classes:
            self.found.append(("block", *[c for c in classes if c.startswith("language-")], *kept))
        elif tag == "span" and "filename" in classes:
            self.open.append(("title", [], self.depth))
        elif tag == "code" and self.open == [] and self.found and self.found[-1][0] == "block":
            self.open.append(("code", [], self.depth))
        elif tag == "math":
            self.open.append(("math", [], self.depth))
        elif any(c.startswith(GRAPHS) for c in classes):
            self.found.append(("graph", tag, classes[0], *kept))
        elif tag == "form" and "autograd-check" in classes:
            self.found.append(("check", *kept))
            self.open.append(("check-text", [], self.depth))
        if self.open and self.open[-1][0] == "math":
            self.open[-1][1].append(f"<{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1][2] == self.depth:
            kind, text, _ = self.open.pop()
            self.found.append((kind, "".join(text)))
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        for _, text, _ in self.open:
            text.append(data)


def features(page_html: str) -> list[tuple[str, ...]]:
    """What the page shows (see the top of this file), in page order."""
    reader = Features()
    reader.feed(page_html)
    reader.close()
    return reader.found
