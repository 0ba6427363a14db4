"""The dataset (one document per line) and a character-level tokenizer with a BOS token."""

import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path


def default_data_path() -> Path:
    """The shipped dataset: 5,163 US Census 1990 first names, one per line."""
    return Path(str(resources.files("microgpt") / "names.txt"))


def load_docs(path: str | Path, seed: int = 42) -> list[str]:
    """Read a UTF-8 file with one document per line (see split_docs)."""
    return split_docs(Path(path).read_bytes().decode("utf-8-sig"), seed)  # -sig: drop a byte order mark


def split_docs(text: str, seed: int = 42) -> list[str]:
    """One document per line: strip each line, drop empty ones, shuffle with seed."""
    # only "\n" ends a line ("\r\n" too: strip() drops the "\r"); str.splitlines() would also
    # split at form feeds, U+0085, U+2028 and others that can sit inside a document
    docs = [line.strip() for line in text.split("\n") if line.strip()]
    random.Random(seed).shuffle(docs)
    return docs


@dataclass(frozen=True)
class Tokenizer:
    """Maps each character of the vocabulary to an id; one extra id, BOS, marks where a document begins and ends."""

    chars: str  # every character the model knows, sorted; its id is its position here

    @classmethod
    def from_docs(cls, docs: list[str]) -> "Tokenizer":
        return cls("".join(sorted(set("".join(docs)))))

    @property
    def bos(self) -> int:
        return len(self.chars)

    @property
    def vocab_size(self) -> int:
        return len(self.chars) + 1

    def encode(self, doc: str) -> list[int]:
        """A document as token ids, framed by BOS on both sides: [BOS, c1, ..., cn, BOS]."""
        return [self.bos, *(self.chars.index(ch) for ch in doc), self.bos]

    def decode(self, ids: list[int]) -> str:
        """Token ids back to text; BOS tokens are dropped."""
        return "".join(self.chars[i] for i in ids if i != self.bos)
