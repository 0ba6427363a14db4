"""What the tests of the checkers ask of every verdict's text."""

QUOTED = "     "  # a line of the reader's own code, quoted in a verdict under the line that names it


def sentence_ends(text):
    """The lines of a verdict that end a sentence: each before a line that starts one (with a capital letter), and
    the last; a raise's lines quote Python and are left out, and so are the reader's own lines, quoted under the
    line that names them. (A review found a line ending "...has its sign flipped" run on into "the largest
    difference is at entry 1": every one must end.)"""
    lines = [line for line in text.split("\n") if " raised " not in line and not line.startswith((" at line ", QUOTED))]
    return [line for line, after in zip(lines, [*lines[1:], " End"]) if after.strip()[:1].isupper()]
