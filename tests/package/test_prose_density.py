"""The measure of how dense a page reads (tests/prose_density.py): where a sentence ends, what a word
is, and which parts of a built page are running text. tests/site/test_site_density.py holds the pages to it."""

import pytest
from prose_density import WORD, density, reading_length, running_text, sentences, words

# ---------------------------------------------------------------------------- splitting sentences


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("One idea. Another idea.", ["One idea.", "Another idea."]),
        ("Does it? Yes! It does.", ["Does it?", "Yes!", "It does."]),
        ("A list item without a full stop", ["A list item without a full stop"]),
        # abbreviations never end a sentence, whatever follows
        (
            "Use a tape, e.g. PyTorch's, or a sort, i.e. ours. Done.",
            ["Use a tape, e.g. PyTorch's, or a sort, i.e. ours.", "Done."],
        ),
        (
            "Karpathy et al. wrote it, cf. the notes. Then more.",
            ["Karpathy et al. wrote it, cf. the notes.", "Then more."],
        ),
        (
            "Add, multiply, etc. and the rest. Then etc. The end.",
            ["Add, multiply, etc. and the rest.", "Then etc.", "The end."],
        ),
        # decimals, versions and dotted names are not ends
        (
            "The loss is 3.2958 at step 0.25 of Python 3.11 here.",
            ["The loss is 3.2958 at step 0.25 of Python 3.11 here."],
        ),
        ("It reads x.grad and numpy.linalg here.", ["It reads x.grad and numpy.linalg here."]),
        # a sentence may start with a number, a code span, a formula or a lower-case name
        ("It ends here. 30 diamonds follow.", ["It ends here.", "30 diamonds follow."]),
        (f"It ends here. {WORD} starts the next.", ["It ends here.", f"{WORD} starts the next."]),
        ("The rule is one line. microgpt's engine uses it.", ["The rule is one line.", "microgpt's engine uses it."]),
        # closing quotes and brackets after the full stop; an opening one before the next sentence
        ('He said "stop." Then he went.', ['He said "stop."', "Then he went."]),
        (
            "(It is a leaf.) So nothing happens. (Another aside.)",
            ["(It is a leaf.)", "So nothing happens.", "(Another aside.)"],
        ),
        # a colon or a semicolon never ends a sentence
        ("Two parts: one; and two. End.", ["Two parts: one; and two.", "End."]),
        # a code span or formula ending in a full stop is one word; the full stop after it ends the sentence
        (f"The grad is {WORD}. So it adds {WORD}.", [f"The grad is {WORD}.", f"So it adds {WORD}."]),
    ],
)
def test_sentences_split_at_full_stops_that_end_one(text, want):
    assert sentences(text) == want


def test_words_count_code_and_formulas_once_and_punctuation_never():
    assert words(f"The {WORD} of {WORD}'s node — is 3.0 (about).") == 8
    assert words("— … : ;") == 0


# ---------------------------------------------------------------------------- reading the article


def article(body: str) -> str:
    nav, footer = "<nav><p>Not the article.</p></nav>", "<footer><p>Nor this.</p></footer>"
    return f'<html><body>{nav}<article class="md-content__inner md-typeset">{body}</article>{footer}</body></html>'


def test_running_text_is_paragraphs_and_list_items_of_the_article():
    html = article("<h1>Title</h1><p>First paragraph.</p><ul><li>An item.</li><li><p>A loose item.</p></li></ul>")
    assert running_text(html) == ["First paragraph.", "An item.", "A loose item."]


def test_a_nested_list_is_its_own_item():
    html = article("<ul><li>Outer item<ul><li>Inner item.</li></ul></li></ul>")
    assert running_text(html) == ["Inner item.", "Outer item"]


def test_inline_code_and_math_are_one_word_and_display_math_is_left_out():
    html = article(
        '<p>The <code>a.grad</code> of <span class="arithmatex"><math><mrow><mi>f</mi><mo>=</mo><mn>6</mn>'
        '<mspace width="1em" /></mrow></math></span> is six.</p>'
        '<div class="arithmatex"><math display="block"><mi>x</mi></math></div>'
        '<p>Then <math display="block"><mi>y</mi><mo>.</mo></math> done.</p>'
    )
    assert running_text(html) == [f"The {WORD} of {WORD} is six.", "Then done."]


@pytest.mark.parametrize(
    "left_out",
    [
        '<div class="language-python highlight"><pre><code>print(1)\n</code></pre></div>',
        "<table><tr><td><p>A cell.</p></td></tr></table>",
        "<figure><p>A caption.</p><svg><text>3.0</text></svg></figure>",
        '<div class="autograd-diagram"><svg><text>node a</text></svg></div>',
        '<div class="admonition note"><p class="admonition-title">Note title</p></div>',
        '<details class="note"><summary>An aside\'s title</summary></details>',
        '<p class="mg-marks"><span class="mg-mark">Checked output</span></p>',
        '<form class="autograd-check"><p class="autograd-check__title">Check yourself</p>'
        '<div class="autograd-check__explain" hidden=""><p>The answer, explained.</p></div></form>',
        '<div class="jp-Cell jp-CodeCell"><p>A code cell.</p></div>',
    ],
)
def test_what_is_not_running_text_is_left_out(left_out):
    html = article(f"<p>Kept.</p>{left_out}<p>Kept too.</p>")
    assert running_text(html) == ["Kept.", "Kept too."]


def test_an_aside_in_a_note_and_a_self_check_question_are_running_text():
    html = article(
        '<details class="note"><summary>Aside</summary><p>Inside the note.</p></details>'
        '<form class="autograd-check"><div class="autograd-check__question"><p>What is it?</p></div>'
        '<details class="autograd-check__hint"><summary>Hint</summary><div><p>Count edges.</p></div></details></form>'
    )
    assert running_text(html) == ["Inside the note.", "What is it?", "Count edges."]


def test_a_footnote_reference_is_not_a_word():
    html = article('<p>Thresholds differ.<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup> Done.</p>')
    assert running_text(html) == ["Thresholds differ. Done."]


def test_density_counts_long_sentences_and_the_average():
    long = " ".join(["word"] * 41) + "."
    measured = density(article(f"<p>Short one here. {long}</p>"))
    assert (measured.sentences, measured.words, len(measured.long)) == (2, 44, 1)
    assert measured.average == 22.0


# ---------------------------------------------------------------------------- how long a page reads


def test_reading_length_counts_headings_tables_and_self_check_answers_but_not_code_or_formulas():
    html = article(
        "<h2>A heading</h2>"
        "<p>Two words.</p>"
        '<div class="language-python highlight"><pre><code>print(1)\n</code></pre></div>'
        '<math display="block"><mi>x</mi></math>'
        "<table><tr><th>name</th><th>value</th></tr><tr><td>a cell</td><td><code>x.grad</code></td></tr></table>"
        '<form class="autograd-check"><div class="autograd-check__explain" hidden=""><p>The answer, explained.</p>'
        "</div></form>"
        '<details class="note"><summary>Aside</summary><p>Collapsed but read.</p></details>'
    )
    # 2 (heading) + 2 + (name, value, a, cell, one code span) 5 + 3 + (Aside) 1 + 3
    assert reading_length(html) == 16


def test_reading_length_leaves_the_density_measure_as_it_was():
    html = article("<table><tr><td><p>A cell.</p></td></tr></table><p>Kept.</p>")
    assert running_text(html) == ["Kept."]
    assert reading_length(html) == 3
