"""The interactive graphs, diagrams and self-checks: every number comes from microgpt.course.trace.

A page asks for them with blocks (shortcodes.py; CONTRIBUTING.md shows how). `render` makes a graph's
one piece of HTML: the widget with its traces embedded as JSON (docs/javascripts/widgets/ draws them)
or the diagram's complete SVG (drawn by microgpt/course/diagrams.py) with its legend. A Markdown tree
processor (`CheckForms`) turns each self-check, once its Markdown is parsed, into its form.
Anything unknown or malformed fails the build.
"""

from __future__ import annotations

import html
import json
import re
from xml.etree.ElementTree import Element, fromstring

from markdown.treeprocessors import Treeprocessor

from mgsite.errors import PageError
from mgsite.pages import where
from microgpt.course import trace as T
from microgpt.course.diagrams import DIAGRAMS, layout

# A number as a reader or an author writes it: digits, an optional point, an optional - or − sign.
# docs/javascripts/widgets/format.js parses with the same pattern (tests/browser/test_browser_widgets.py).
PLAIN_DECIMAL = re.compile(r"[-−]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")  # [0-9]: in Python \d is any Unicode digit


def parse_decimal(text: str) -> float | None:
    """The number in text if it is a plain decimal (PLAIN_DECIMAL), else None."""
    s = text.strip()
    return float(s.replace("−", "-")) if PLAIN_DECIMAL.fullmatch(s) else None


def _attr_json(obj: object) -> str:
    """JSON for a single-quoted attribute (double quotes left alone keeps the page small)."""
    s = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")


# what each legend key of microgpt.course.diagrams means, under the diagram; a key may carry a sample
# after a space ("local 2": a number from that graph's own arrows), shown where LEGEND writes {sample}
KEY = '<span class="ag-key ag-key--{}" aria-hidden="true">{}</span> '
LEGEND = {
    "const": KEY.format("const", "") + "dashed box: a constant, a leaf the op made for a plain number",
    "forward": KEY.format("arrow", "→") + "data flows from the children to the node they make",
    "backward": KEY.format("arrow", "←") + "grad flows from a node back to its children",
    "local": KEY.format("label", "{sample}") + "number on an arrow: the local gradient ∂node/∂child",
    "vector-bar": KEY.format("vector", "") + "a vector the forward pass made: its .grad at every position",
    "matrix-bar": KEY.format("matrix", "") + "a weight matrix: its .grad",
    "log-bar": KEY.format("label", "×10") + "bars on a log scale: each grid line is ten times the one to its left",
    "flow": KEY.format("arrow", "↑") + "the gradient flows up from the loss; the branches' share joins at the adds",
}


# ---------------------------------------------------------------------------- self-checks
# A self-check's form; {answer} is an input (data-answer) or the options' fieldset (data-choice).
FORM = """<form class="autograd-check" id="{uid}" novalidate="novalidate">
<p class="autograd-check__title" id="{uid}-title">Check yourself</p><div class="autograd-check__question"/>
{answer}<button type="submit" class="ag-btn ag-btn--primary">Check</button>
<button type="button" class="ag-btn" data-action="show">Show answer</button></div>
<details class="autograd-check__hint"><summary>Hint</summary><div class="autograd-check__hint-text"/></details>
<p class="autograd-check__status" id="{uid}-status" role="status" aria-live="polite"></p>
<div class="autograd-check__explain" tabindex="-1" hidden=""><p class="autograd-check__explain-title">Why</p></div>
</form>"""
NUMBER = """<div class="autograd-check__answer"><label for="{uid}-in">Your answer</label>
<input id="{uid}-in" name="answer" type="text" inputmode="decimal" autocomplete="off" spellcheck="false" size="9"
aria-describedby="{uid}-status"/>"""
CHOICES = """<fieldset class="autograd-check__choices" aria-describedby="{uid}-status"><legend>Choose one</legend>
{options}</fieldset><div class="autograd-check__answer">"""
# "Option k:" names each radio in words; an option written only in math would have no name
OPTION = """<label class="autograd-choice"><input type="radio" name="{uid}" value="{k}"/>
<span class="autograd-choice__num">Option {k}:</span> <span class="autograd-choice__text"/></label>"""


def _fill(slot: Element | None, source: Element) -> None:
    """Move source's content (its text and children) into the empty element slot."""
    assert slot is not None, "a slot of FORM is missing"
    slot.text = source.text
    slot.extend(list(source))


def check_form(el: Element, uid: str, page: str) -> None:
    """Validate a parsed <div class="autograd-check"> and make it its form: the question, an input or a radio
    per option, Check, Show answer, a hint, a status line read out, the explanation hidden until answered."""
    attrs = dict(el.attrib)
    hint = next((c for c in el if c.get("class") == "check-hint"), None)
    explain = next((c for c in el if c.get("class") == "check-explain"), None)
    ol = next((c for c in el if c.tag == "ol"), None) if "data-choice" in attrs else None
    what = f"{page}: check {''.join(el.itertext()).strip()[:60]!r}"
    if ("data-answer" in attrs) == ("data-choice" in attrs):
        raise PageError(f"{what}: give exactly one of answer=NUMBER or choice=N (the right option)")
    if hint is None or explain is None:
        raise PageError(f"{what}: add its /// hint and /// explain blocks inside it")
    for part in (hint, explain, ol):
        if part is not None:
            el.remove(part)
    if not "".join(el.itertext()).strip():
        raise PageError(f"{what}: the question is missing")
    options = list(ol if ol is not None else [])
    if "data-choice" in attrs:
        choice = attrs["data-choice"]
        if not options:
            raise PageError(f'{what}: choice= needs an ordered list ("1. …") of the options')
        if not re.fullmatch(r"[1-9][0-9]*", choice) or int(choice) > len(options):
            raise PageError(f"{what}: choice={choice} must be an option's number, 1 to {len(options)}")
        kind = {"data-choice": choice}
        items = "".join(OPTION.format(uid=uid, k=k) for k in range(1, len(options) + 1))
        answer = CHOICES.format(uid=uid, options=items)
    else:
        number, tolerance = parse_decimal(attrs["data-answer"]), attrs.get("data-tolerance")
        if number is None:
            raise PageError(f"{what}: answer={attrs['data-answer']} is not a plain decimal such as 6 or -1.5")
        if tolerance is not None and (parse_decimal(tolerance) is None or tolerance.strip()[0] in "-−"):
            raise PageError(f"{what}: tolerance={tolerance} is not a plain non-negative decimal number")
        kind = {"data-answer": attrs["data-answer"], "data-tolerance": tolerance or repr(1e-9 * max(1, abs(number)))}
        answer = NUMBER.format(uid=uid)
    form = fromstring(FORM.format(uid=uid, answer=answer))
    _fill(form.find("*[@class='autograd-check__question']"), el)
    for li, slot in zip(options, form.iterfind(".//*[@class='autograd-choice__text']")):
        _fill(slot, li[0] if len(li) == 1 and li[0].tag == "p" and not (li.text or "").strip() else li)  # loose list
    _fill(form.find(".//*[@class='autograd-check__hint-text']"), hint)
    why = form[-1]  # the explanation, after its title
    why[0].tail = explain.text
    why.extend(list(explain))
    tail = el.tail
    el.clear()
    el.tag, el.text, el.tail, el.attrib = "form", form.text, tail, {**form.attrib, **kind}
    el.extend(list(form))


class CheckForms(Treeprocessor):
    """Every self-check of a page, once md_in_html has parsed it, becomes its form (check_form)."""

    def run(self, root: Element) -> None:
        assert self.md is not None  # registered by the extension, with its Markdown
        checks = [el for el in root.iter("div") if el.get("class") == "autograd-check"]
        for k, el in enumerate(checks, start=1):
            first = next((text for text in el.itertext() if text.strip()), "")  # the question's first words
            check_form(el, f"ag-check-{k}", where(self.md, first))


# ---------------------------------------------------------------------------- widgets and markers
def render(kind: str, attrs: dict[str, str]) -> str:
    if kind in ("widget", "playground"):
        name = attrs.get("preset", "fab" if kind == "widget" else "diamond")
        choices = [n for n, p in T.PRESETS.items() if kind == "widget" or p[2]]  # playground: few enough orders
        if name not in choices:
            raise PageError(f"unknown preset {name!r}; choose from {', '.join(choices)}")
        if kind == "playground":
            data = f"data-trace='{_attr_json(layout(T.trace_preset(name)))}'"
        else:  # every preset, for the widget's menu; the step-through widget never looks the orders up
            traces = {n: {k: v for k, v in layout(T.trace_preset(n)).items() if k != "orders"} for n in T.PRESETS}
            data = f"data-traces='{_attr_json(traces)}'"
        fallback = '<p class="autograd-fallback">This interactive graph needs JavaScript.</p>'
        return f'<div class="autograd-{kind}" data-preset="{name}" {data}>{fallback}</div>'
    if kind == "diagram":
        name = attrs.get("diagram", "")
        if name not in DIAGRAMS:
            raise PageError(f"unknown diagram {name!r}; choose from {', '.join(DIAGRAMS)}")
        svg, legend = DIAGRAMS[name]()
        items = "".join(f"<li>{legend_item(k)}</li>" for k in legend)
        caption = (
            f'<figcaption><ul class="autograd-legend" aria-label="Legend">{items}</ul></figcaption>' if items else ""
        )
        scroll = f'<div class="autograd-scroll">{svg}</div>'
        return f'<figure class="autograd-diagram" data-diagram="{name}">{scroll}{caption}</figure>'
    raise PageError(f"unknown graph {kind!r}; use widget, playground or diagram")


def legend_item(key: str) -> str:
    """A legend key's line: LEGEND's words, with the key's sample (after a space) where they say {sample}."""
    name, _, sample = key.partition(" ")
    return LEGEND[name].replace("{sample}", html.escape(sample))
