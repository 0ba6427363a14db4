"""The dataset (one document per line) and a character-level tokenizer with a BOS token."""

import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from microgpt.errors import InputError


def default_data_path() -> Path:
    """The shipped dataset: 5,163 US Census 1990 first names, one per line."""
    return Path(str(resources.files("microgpt") / "names.txt"))


def load_docs(path: str | Path, seed: int = 42) -> list[str]:
    """Read a UTF-8 file with one document per line; strip lines, drop empty ones, shuffle with seed."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"data file not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"data path is a directory, not a file: {path}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"data file is not valid UTF-8: {path} (byte {e.start})") from None
    docs = [line.strip() for line in text.splitlines() if line.strip()]
    if not docs:
        raise InputError(f"data file has no documents (every line is empty): {path}")
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
        unknown = sorted(set(doc) - set(self.chars))
        if unknown:
            raise InputError(f"characters not in the vocabulary: {''.join(unknown)!r}")
        return [self.bos, *(self.chars.index(ch) for ch in doc), self.bos]

    def decode(self, ids: list[int]) -> str:
        """Token ids back to text; BOS tokens are dropped."""
        return "".join(self.chars[i] for i in ids if i != self.bos)
