"""The recorded training steps the exercises' checkers take their cases from: the chapter's, and three others.

The chapter's step (the default model on "mignon") has T = 7, 27 tokens, n_embd = 16 and 4 heads of 4:
an answer that writes one of those numbers in place of the size would pass on it, and one that keeps
only the first 7 positions (or 27 logits, or 16 entries) too. The other steps change every such size,
below the chapter's and above it, one of them T alone (the chapter's model on a longer name), so that a
size an answer gets wrong can be named:

    the chapter's   "mignon"               T = 7   27 tokens   n_embd 16   4 heads of 4    block_size 16
    another         "deedee"               T = 7   27 tokens   n_embd 16   4 heads of 4    block_size 16
    longer          "evangelina"           T = 11  27 tokens   n_embd 16   4 heads of 4    block_size 16
    wider           "mary-jo"              T = 8   31 tokens   n_embd 20   5 heads of 4    block_size 16
    second          "ada"                  T = 4   27 tokens   n_embd 12   2 heads of 6    block_size 8
    third           "hassie"'s first step  T = 1    6 tokens   n_embd 6    3 heads of 2    block_size 4
    narrow          "hassie", 4 positions  T = 4    6 tokens   n_embd 6    3 heads of 2    block_size 4
    few_tokens      "ellie"                T = 6    4 tokens   n_embd 4    2 heads of 2    block_size 8

"ada" reads the token 0 twice and predicts it twice (the first index, and a repeated token); "deedee" reads
d twice and e four times (a row read more than twice: an answer that adds only pairs of reads fails); "evangelina"
reads a, e and n twice; every document ends on BOS, the last index. "narrow" is the one step with
several positions whose d_h (2) is not a perfect square: math.isqrt(d_h) and math.sqrt(d_h) differ there, and
no square number written for d_h gives its scale. "ellie" is the one step whose token table has fewer rows (4) than
the document has positions (6): an answer that bounds its loop over the positions by the table's rows loses the
last two there, one of them the first read of its row. Each step is recorded once per
interpreter, apart from the one the pages share (a reader's second backward() on that one cannot change
a checker's answers).
"""

import functools
from dataclasses import dataclass

from microgpt.course.exercises import Step, first_step, record
from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.model import GPTConfig, Model


@dataclass(frozen=True)
class Recording:
    """A recorded step, backward() done, and how a case's label names it."""

    name: str  # the document, as the labels say it: "mignon"
    step: Step

    @property
    def config(self) -> GPTConfig:
        return self.step.model.config

    @property
    def T(self) -> int:
        return len(self.step.positions)


@functools.cache
def chapters() -> Recording:
    """The chapter's step, recorded again: first_step() without its shared cache."""
    return Recording("mignon", first_step.__wrapped__())


@functools.cache
def another() -> Recording:
    """The chapter's model on another name of 6 letters: every size the chapter's, other numbers, and a token read
    four times (e) beside one read twice (d)."""
    return _chapters_model_on("deedee")


@functools.cache
def longer() -> Recording:
    """The chapter's model on a name of 10 letters: T = 11, every other size the chapter's."""
    return _chapters_model_on("evangelina")


def _chapters_model_on(name: str) -> Recording:
    tokenizer = Tokenizer.from_docs(load_docs(default_data_path()))
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size))  # first_step()'s model: the same seed
    return Recording(name, _backward(record(model, tokenizer.encode(name))))


@functools.cache
def wider() -> Recording:
    """A wider model with more heads and a vocabulary of 31 (the names' letters and " '-."): every size but d_h above
    the chapter's (ada's heads are the wider ones)."""
    tokenizer = Tokenizer.from_docs([*load_docs(default_data_path()), "mary-jo o'neil st."])
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size, n_embd=20, n_head=5, block_size=16), seed=11)
    return Recording("mary-jo", _backward(record(model, tokenizer.encode("mary-jo"))))


@functools.cache
def second() -> Recording:
    """A narrower model with fewer, wider heads, on a short name that repeats a token."""
    tokenizer = Tokenizer.from_docs(load_docs(default_data_path()))
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size, n_embd=12, n_head=2, block_size=8), seed=7)
    return Recording("ada", _backward(record(model, tokenizer.encode("ada"))))


@functools.cache
def third() -> Recording:
    """A small model whose vocabulary is the letters of one name, at the first position of that name: T = 1."""
    tokenizer = Tokenizer.from_docs(["hassie"])
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size, n_embd=6, n_head=3, block_size=4), seed=3)
    return Recording("hassie", _backward(record(model, tokenizer.encode("hassie")[:2])))


@functools.cache
def narrow() -> Recording:
    """third()'s model on the first four positions of its name: heads of 2 over several positions."""
    tokenizer = Tokenizer.from_docs(["hassie"])
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size, n_embd=6, n_head=3, block_size=4), seed=3)
    return Recording("hassie", _backward(record(model, tokenizer.encode("hassie")[:5])))


@functools.cache
def few_tokens() -> Recording:
    """A model whose vocabulary is the three letters of "ellie" and BOS, on that name: 4 rows, read at 6 positions."""
    tokenizer = Tokenizer.from_docs(["ellie"])
    model = Model.init(GPTConfig(vocab_size=tokenizer.vocab_size, n_embd=4, n_head=2, block_size=8), seed=5)
    return Recording("ellie", _backward(record(model, tokenizer.encode("ellie"))))


def _backward(step: Step) -> Step:
    step.loss.backward()
    return step
