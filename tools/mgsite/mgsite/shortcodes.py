"""What a page asks the build to attach, written in one form: pymdownx.blocks' generic blocks.

    /// widget | relu                step-through widget (any preset of microgpt.course.trace.PRESETS)
    ///
    /// playground | shared         visit-order playground (a preset with few enough orders)
    ///
    /// diagram | shared             a picture drawn at build time (microgpt.course.diagrams.DIAGRAMS)
    ///
    /// train                        the training page's Train widget (Train.html)
    ///

    //// check | answer=6           a self-check: answer=NUMBER [tolerance=NUMBER], or choice=N with
    **Predict first.** ...          the options as an ordered list after the question; its hint and
                                    its explanation are blocks of their own inside it, Markdown all
    /// hint                        through (math, links, code)
    Look at how many edges leave $a$.
    ///

    /// explain
    Two paths each carry 3, and `+=` adds them: 6.
    ///
    ////

Each is a Block class registered through pymdownx.blocks' documented API (BlocksExtension in
extension.py). A graph's block becomes its one piece of HTML (graphs.render), stashed as raw HTML as
Python-Markdown stashes a raw block; a self-check becomes the <div class="autograd-check"> with its
hint and explanation that graphs.CheckForms turns into its form once the inline patterns have run.
A block pymdownx.blocks does not take (an unknown name, a missing argument) would be left as a
paragraph: `Unread` fails the build on it, as the blocks themselves do on a bad argument.
"""

from __future__ import annotations

import html
import re
from xml.etree.ElementTree import Element, SubElement

from markdown import Markdown
from markdown.treeprocessors import Treeprocessor
from pymdownx.blocks.block import Block

from mgsite import blocks, graphs
from mgsite.errors import PageError
from mgsite.pages import where
from microgpt.course.live import SETTINGS, command_line, form_json


class _Shortcode(Block):
    """A block of ours (extension.py registers it); an error names the page it is on (pages.where)."""

    def fail(self, header: str, message: str) -> PageError:
        return PageError(f"{where(self.md, header)}: /// {self.NAME}: {message}")


class _Html(_Shortcode):
    """A block that is one piece of HTML, made from its argument; it holds no Markdown."""

    def html(self) -> str:
        raise NotImplementedError

    def on_validate(self, parent: Element) -> bool:
        try:
            self.made = self.html()
        except PageError as e:
            raise self.fail(f"/// {self.NAME} | {self.argument or ''}".rstrip(" |"), str(e)) from None
        return True

    def on_create(self, parent: Element) -> Element:
        return SubElement(parent, "p")

    def on_end(self, block: Element) -> None:
        if len(block) or (block.text or "").strip():
            raise self.fail(f"/// {self.NAME}", "holds nothing between its /// lines")
        # a paragraph that is only a stashed placeholder is replaced by the raw HTML, <p> and all; with
        # the newline a raw HTML block of the page's own keeps (the same HTML as one written in the page)
        block.text = self.md.htmlStash.store(self.made + "\n")


class Widget(_Html):
    NAME, ARGUMENT = "widget", True

    def html(self) -> str:
        return graphs.render("widget", {"preset": self.argument})


class Playground(_Html):
    NAME, ARGUMENT = "playground", True

    def html(self) -> str:
        return graphs.render("playground", {"preset": self.argument})


class Diagram(_Html):
    NAME, ARGUMENT = "diagram", True

    def html(self) -> str:
        return graphs.render("diagram", {"diagram": self.argument})


class Train(_Html):
    """The training page's Train widget. The element carries the form's settings, bounds and defaults as
    JSON (data-mg-train), read from microgpt/course/live.py, where they are written once;
    docs/javascripts/train/ builds the form from them and runs microgpt.course.live in the reader's
    browser. Until then, and without JavaScript, it shows the command line that runs the same training."""

    NAME, ARGUMENT = "train", False

    def html(self) -> str:
        default = command_line({name: s.default for name, s in SETTINGS.items()})
        fallback = (
            '<p class="mg-train__fallback">The Train control needs JavaScript. The same run on your machine: '
            f"<code>{html.escape(default)}</code></p>"
        )
        return f'<div class="mg-train" data-mg-train="{html.escape(form_json())}">{fallback}</div>'


CHECK_ARGUMENT = re.compile(r"(?P<key>answer|choice|tolerance)=(?P<value>\S+)")


class Check(_Shortcode):
    """A self-check: its argument, then graphs.CheckForms makes its form."""

    NAME, ARGUMENT = "check", None  # taken without one too, so that its error names what is missing

    def on_validate(self, parent: Element) -> bool:
        found = list(CHECK_ARGUMENT.finditer(self.argument or ""))
        if not found or " ".join(m[0] for m in found) != " ".join(self.argument.split()):
            header = f"//// check | {self.argument or ''}".rstrip(" |")
            raise self.fail(header, "write answer=NUMBER [tolerance=NUMBER], or choice=N")
        self.attrs = {f"data-{m['key']}": m["value"] for m in found}
        return True

    def on_create(self, parent: Element) -> Element:
        return SubElement(parent, "div", {"class": "autograd-check", **self.attrs})


class _CheckPart(_Shortcode):
    """The hint or the explanation, inside a check."""

    PART = ""

    def on_validate(self, parent: Element) -> bool:
        if parent.get("class") != "autograd-check":
            raise self.fail(f"/// {self.NAME}", "stands only inside a //// check … //// block")
        return True

    def on_create(self, parent: Element) -> Element:
        return SubElement(parent, "div", {"class": self.PART})


class Hint(_CheckPart):
    NAME, PART = "hint", "check-hint"


class Explain(_CheckPart):
    NAME, PART = "explain", "check-explain"


BLOCKS: list[type[_Shortcode]] = [Widget, Playground, Diagram, Train, Check, Hint, Explain]

# what pymdownx.blocks leaves as a paragraph when it does not take a block's header
UNREAD = re.compile(r"^/{3,}\s*[\w-]")
# the page syntax these blocks (and the install line's embed) replaced; the build names the new form
FORMER = {
    re.compile(
        r'<div class="(?:autograd-(?:widget|playground|diagram|check)|check-(?:hint|explain))"|\{\{\s*train_widget'
    ): "write it as a block (/// widget | NAME, //// check | …)",
    re.compile(r"\{\{\s*install_command\s*\}\}"): f"embed the install line: {blocks.INSTALL_EMBED}",
}


class Unread(Treeprocessor):
    """A block's header left as text (an unknown name, a missing argument) fails the build."""

    def run(self, root: Element) -> None:
        assert self.md is not None  # registered by the extension, with its Markdown
        for el in root.iter("p"):
            if UNREAD.match(el.text or ""):
                header = (el.text or "").split("\n")[0]
                names = ", ".join(b.NAME for b in BLOCKS)
                raise PageError(f"{where(self.md, header)}: {header!r} is not a block this site reads ({names})")


def refuse_former(md: Markdown, lines: list[str]) -> None:
    """The marker syntax before these blocks (raw <div class="autograd-…">, {{ train_widget }}, {{ install_command }})
    fails the build."""
    for former, instead in FORMER.items():
        m = next((m for line in lines if (m := former.search(line))), None)
        if m:
            raise PageError(f"{where(md, m[0])}: {m[0]!r}: {instead}")
