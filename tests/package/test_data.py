"""The dataset loader and the character tokenizer (the command line's checks of a data file: test_limits.py)."""

import pytest

from microgpt.data import Tokenizer, default_data_path, load_docs


def write(tmp_path, content: bytes | str, name: str = "docs.txt"):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def test_load_docs_strips_lines_and_drops_empty_ones(tmp_path):
    path = write(tmp_path, "  anna \n\n\tbob\n   \nzoë\r\n")
    assert sorted(load_docs(path)) == ["anna", "bob", "zoë"]


def test_load_docs_shuffles_the_same_way_for_the_same_seed(tmp_path):
    path = write(tmp_path, "".join(f"doc{i}\n" for i in range(50)))
    assert load_docs(path, seed=7) == load_docs(path, seed=7)
    assert load_docs(path, seed=7) != load_docs(path, seed=8)
    assert sorted(load_docs(path, seed=7)) == sorted(f"doc{i}" for i in range(50))


def test_shipped_dataset_is_lowercase_names_without_duplicates():
    docs = load_docs(default_data_path())
    assert len(docs) == 5163
    assert len(set(docs)) == len(docs)
    assert all(doc.isalpha() and doc.islower() for doc in docs)


def test_load_docs_drops_a_byte_order_mark(tmp_path):
    path = write(tmp_path, b"\xef\xbb\xbfanna\nbob\n")
    docs = load_docs(path)
    assert sorted(docs) == ["anna", "bob"]
    assert "\ufeff" not in Tokenizer.from_docs(docs).chars


def test_only_newline_and_crlf_end_a_document(tmp_path):
    # form feed, vertical tab, NEL, the Unicode line and paragraph separators, a lone CR, the file
    # separators: str.splitlines() splits at all of them, a line of a data file does not
    inside = ["a\x0cb", "c\x0bd", "e\x85f", "g\u2028h", "i\u2029j", "k\rl", "m\x1cn", "o\x1dp", "q\x1eR"]
    path = write(tmp_path, "\n".join(inside) + "\r\nlast\r\n")
    assert sorted(load_docs(path)) == sorted([*inside, "last"])


def test_load_docs_keeps_control_characters_inside_a_document(tmp_path):
    path = write(tmp_path, "a\x00b\n\x1b[31mred\n")
    assert sorted(load_docs(path)) == ["\x1b[31mred", "a\x00b"]


def test_tokenizer_vocabulary_is_the_sorted_distinct_characters_plus_bos():
    tok = Tokenizer.from_docs(["emma", "olivia", "ava"])
    assert tok.chars == "aeilmov"
    assert tok.bos == 7
    assert tok.vocab_size == 8


def test_encode_frames_a_document_with_bos_on_both_sides():
    tok = Tokenizer("abc")
    assert tok.encode("cab") == [3, 2, 0, 1, 3]
    assert tok.encode("") == [3, 3]


def test_decode_inverts_encode_on_every_shipped_document():
    docs = load_docs(default_data_path())
    tok = Tokenizer.from_docs(docs)
    assert all(tok.decode(tok.encode(doc)) == doc for doc in docs)


def test_decode_drops_bos_tokens():
    tok = Tokenizer("ab")
    assert tok.decode([2, 0, 2, 1, 2]) == "ab"


def test_encode_refuses_a_character_not_in_the_vocabulary():
    with pytest.raises(ValueError):
        Tokenizer("abc").encode("aZb")
