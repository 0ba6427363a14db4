"""What the tests of the checkers ask of every verdict's text."""


def sentence_ends(text):
    """The lines of a verdict that end a sentence: each before a line that starts one (with a capital letter), and
    the last; a raise's lines quote Python and are left out. (A review found a line ending "...has its sign
    flipped" run on into "the largest difference is at entry 1": every one must end.)"""
    lines = [line for line in text.split("\n") if " raised " not in line and not line.startswith(" at line ")]
    return [line for line, after in zip(lines, [*lines[1:], " End"]) if after.strip()[:1].isupper()]
