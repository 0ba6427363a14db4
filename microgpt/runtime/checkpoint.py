"""Checkpoints: a trained model and its vocabulary as one JSON file, written atomically, read back with checks.

Writing replaces only a checkpoint, and is known to fit where it goes before the model is trained.
Reading checks the file against its own contents and against the bounds of limits.py before it
builds anything the size of the model, so a small file that claims a huge model fails at once.
"""

import dataclasses
import json
import math
import os
import reprlib
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from microgpt.data import Tokenizer
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model
from microgpt.runtime import files
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import MAX_PARAMETERS, check_config
from microgpt.train import cyclic_gc_paused

FORMAT = "microgpt-checkpoint"
VERSION = 1
# Room in the file for one parameter: save() writes at most 26 bytes ("-1.2345678901234567e-308, "),
# a file re-indented by hand about 40; the rest of the file is small next to the weights.
BYTES_PER_PARAMETER = 64
MAX_BYTES = MAX_PARAMETERS * BYTES_PER_PARAMETER
# The longest a weight is in the file: json.dumps writes a float as repr() does, 17 significant digits at most
MAX_NUMBER_CHARS = len(repr(-2.2250738585072014e-308))  # 24
CHUNK_BYTES = 1 << 20  # what save() hands the file at a time: a few rows of the largest matrices


def save(path: str | Path, model: Model, tokenizer: Tokenizer, meta: dict[str, Any] | None = None) -> None:
    """Write the checkpoint to path atomically (see files.write_atomically), as it is made: a row of weights
    at a time, so that a signal is heard at once however large the model, and the text is never whole in memory.

    Only a checkpoint (or an empty file) is replaced: see check_out.
    """
    refuse_what_is_not_a_checkpoint(os.fspath(path))
    try:
        files.write_atomically(path, _pieces(model, tokenizer, meta or {}))
    except _NotFinite:
        raise InputError(f"cannot save checkpoint {path}: the model has parameters that are not finite") from None
    except InputError as e:
        raise InputError(f"cannot write checkpoint: {e}") from None
    except OSError as e:
        raise InputError(f"cannot write checkpoint {path}: {e.strerror or e}") from None


class _NotFinite(InputError):
    """A weight is NaN or infinite, which JSON cannot hold."""


def _head(config: GPTConfig, vocab: str, meta: dict[str, Any]) -> str:
    """The file up to its weights: `{"format": ..., "meta": {...}, "state_dict": {`."""
    fields = {"format": FORMAT, "version": VERSION, "config": dataclasses.asdict(config), "vocab": vocab, "meta": meta}
    return json.dumps({**fields, "state_dict": {}}, allow_nan=False)[: -len("{}}")] + "{"


def _pieces(model: Model, tokenizer: Tokenizer, meta: dict[str, Any]) -> Iterator[bytes]:
    """The checkpoint's text as json.dumps would write the whole document, in pieces of about CHUNK_BYTES.

    json.dumps escapes every non-ASCII character, so the text is ASCII; it refuses NaN and Infinity,
    which are not JSON.
    """
    pending, size = [_head(model.config, tokenizer.chars, meta)], 0
    for i, (name, matrix) in enumerate(model.state_dict.items()):
        pending.append(f"{', ' if i else ''}{json.dumps(name)}: [")
        for j, row in enumerate(matrix):
            try:
                text = json.dumps([p.data for p in row], allow_nan=False)
            except ValueError:
                raise _NotFinite(name) from None
            pending.append(", " + text if j else text)
            size += len(text)
            if size >= CHUNK_BYTES:
                yield "".join(pending).encode("ascii")
                pending, size = [], 0
        pending.append("]")
    pending.append("}}")
    yield "".join(pending).encode("ascii")


def size_bound(config: GPTConfig, vocab: str, meta: dict[str, Any]) -> int:
    """The most bytes save() writes for a model of this shape: exact, but for the digits of each weight,
    taken at their most (MAX_NUMBER_CHARS). Known before the model is built or trained."""
    total = len(_head(config, vocab, meta)) + len("}}")
    for i, (name, (rows, cols)) in enumerate(config.matrix_shapes().items()):
        row = len("[]") + cols * MAX_NUMBER_CHARS + (cols - 1) * len(", ")
        total += len(", " if i else "") + len(json.dumps(name)) + len(": []") + rows * row + (rows - 1) * len(", ")
    return total


def check_out(path: str | Path, inputs: Mapping[str, str | Path] | None = None) -> None:
    """Refuse, before any work is done, a path save() would refuse: see files.check_output, and
    refuse_what_is_not_a_checkpoint."""
    files.check_output(path, inputs, judge=refuse_what_is_not_a_checkpoint)


def refuse_what_is_not_a_checkpoint(path: str) -> None:
    """A file already at path is replaced only if it shows that it is a microgpt checkpoint (read whole, with
    MAX_BYTES as its bound, parsed, and checked as load() checks it), or if it is empty (not a byte: whitespace
    may be someone's). A mistyped --out must not cost another file, nor may a file that cannot be read: what
    cannot be shown to be a checkpoint is refused, with why."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return  # a link, a directory, a device: files.check_output refuses each, saying what it is
    except (OSError, ValueError):  # missing: nothing to lose; or what files.check_output refuses, saying why
        return
    try:
        text = _read_text(path, "file", path)
        if text and not text.strip():
            raise InputError(f"{path} is not empty: it holds {len(text):,} bytes of whitespace")
        if text:
            for name, matrix in _checked(_parse(text, path), path)[3].items():
                for _ in _finite_rows(matrix, f"{path}: {name}"):
                    pass
    except InputError as e:
        raise InputError(f"{e}; {_REPLACES_ONLY}") from None


_REPLACES_ONLY = (
    "microgpt replaces only its own checkpoints and empty files, so that no other file is lost: "
    "choose another path, or remove the file first"
)


def load(
    path: str | Path, check: Callable[[GPTConfig, int], None] | None = None
) -> tuple[Model, Tokenizer, dict[str, Any]]:
    """Read a checkpoint written by save(); raise InputError saying what is wrong with it, if anything.

    check(config, file_bytes), if given, is called once the config is read and checked against the bounds,
    and before the weights are (they follow it in every checkpoint save() or a tool that sorts keys writes):
    it may refuse the model (the command line's memory bound) and say what the rest will cost.
    """
    where = f"checkpoint {path}"
    text = _read_text(path, "checkpoint", where)
    file_bytes, seen = len(text), list[GPTConfig]()

    def config_read(fields: dict[str, Any]) -> None:
        if not seen:
            seen.append(_config(fields, where))
            if check is not None:
                check(seen[0], file_bytes)

    doc = _parse(text, where, config_read)
    del text  # the file's text goes before the model is built
    config, tokenizer, meta, matrices = _checked(doc, where)
    del doc  # the matrices are the JSON's own lists: each row goes as its Values are built
    if not seen and check is not None:  # a file whose config comes after its weights
        check(config, file_bytes)
    elif seen and seen[0] != config:
        raise InputError(f"{where} is not a microgpt checkpoint: an object like its config comes before its config")
    state_dict = {}
    with cyclic_gc_paused():  # it would walk the Values built so far again and again; they hold no cycles
        for name, matrix in matrices.items():
            built = [[Value(x) for x in row] for row in _finite_rows(matrix, f"{where}: {name}")]
            state_dict[name] = built[::-1]
    return Model(config, state_dict), tokenizer, meta


def _read_text(path: str | Path, what: str, where: str) -> str:
    """The text of the file at path, read whole with MAX_BYTES as its bound (see files.read_bytes)."""
    raw = files.read_bytes(path, MAX_BYTES, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{where} is not valid JSON: not UTF-8 text (byte {e.start})") from None


def _parse(text: str, where: str, config_read: Callable[[dict[str, Any]], None] | None = None) -> Any:
    """The JSON document; config_read(fields) is called as each object with exactly GPTConfig's fields is read."""
    names = {field.name for field in dataclasses.fields(GPTConfig)}

    def pairs_read(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        fields = dict(pairs)
        if config_read is not None and fields.keys() == names:
            config_read(fields)
        return fields

    try:
        with cyclic_gc_paused():  # the JSON holds no cycles, and the collector would walk its lists again and again
            return json.loads(text, parse_float=_number, parse_constant=_reject_constant, object_pairs_hook=pairs_read)
    except InputError:  # from config_read: the config's own refusal
        raise
    except json.JSONDecodeError as e:
        raise InputError(f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:  # NaN, Infinity, -Infinity, or an integer of thousands of digits
        raise InputError(f"{where} is not valid JSON: {e}") from None
    except RecursionError:
        raise InputError(f"{where} is not a microgpt checkpoint: its JSON is nested too deeply") from None


def _checked(doc: Any, where: str) -> tuple[GPTConfig, Tokenizer, dict[str, Any], dict[str, list[list[Any]]]]:
    """The config, vocabulary, meta and matrices of a checkpoint's JSON, each checked but the numbers in the
    matrices (see _finite_rows); nothing the model's size is built."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f'{where} is not a microgpt checkpoint (no "format": "{FORMAT}")')
    if "version" not in doc:
        raise InputError(f"{where} has no 'version' field; this microgpt reads version {VERSION}")
    if doc["version"] != VERSION:
        got = _brief(doc["version"])
        raise InputError(f"{where} has format version {got}; this microgpt reads version {VERSION}")
    for key in ("config", "vocab", "meta", "state_dict"):
        if key not in doc:
            raise InputError(f"{where} has no {key!r} field")
    config = _config(doc["config"], where)  # bounded: nothing the model's size has been built yet
    tokenizer = _tokenizer(doc["vocab"], config, where)
    if not isinstance(doc["meta"], dict):
        raise InputError(f"{where}: meta must be a JSON object")
    return config, tokenizer, doc["meta"], _matrices(doc["state_dict"], config, where)


def _number(text: str) -> float:
    """float(text), called from Python: json.loads is one C call, in which no signal handler runs (a Ctrl-C
    while a large checkpoint is read would be heard only at its end, seconds later on a busy machine),
    while a Python function lets them run between two numbers. It costs about a fifth of the parse."""
    return float(text)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a finite number")


def _config(config_doc: Any, where: str) -> GPTConfig:
    """The config the file claims, checked as a command-line shape is (whole numbers, divisibility, bounds)."""
    names = [field.name for field in dataclasses.fields(GPTConfig)]
    if not isinstance(config_doc, dict) or set(config_doc) != set(names):
        raise InputError(f"{where}: config must have exactly the fields {', '.join(names)}")
    config = GPTConfig(**config_doc)  # a plain dataclass: nothing is built or checked yet
    try:
        check_config(config)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    return config


def _tokenizer(vocab: Any, config: GPTConfig, where: str) -> Tokenizer:
    if not isinstance(vocab, str) or list(vocab) != sorted(set(vocab)):
        raise InputError(f"{where}: vocab must be a string of distinct characters in sorted order")
    surrogates = [ch for ch in vocab if "\ud800" <= ch <= "\udfff"]
    if surrogates:  # JSON can spell one ("\ud800"), but it is half of a UTF-16 pair, not a character
        code = f"U+{ord(surrogates[0]):04X}"
        raise InputError(f"{where}: vocab holds a lone surrogate ({code}), which is not a character")
    if len(vocab) + 1 != config.vocab_size:
        raise InputError(
            f"{where}: vocab has {len(vocab)} characters, so vocab_size must be {len(vocab) + 1}, "
            f"but config says {config.vocab_size}"
        )
    return Tokenizer(vocab)


def _matrices(state_doc: Any, config: GPTConfig, where: str) -> dict[str, list[list[Any]]]:
    """The matrices, in the config's order, each checked against the shape the config gives it."""
    if not isinstance(state_doc, dict):
        raise InputError(f"{where}: state_dict must be a JSON object of matrices")
    shapes = config.matrix_shapes()  # small: the config is within bounds
    missing, extra = [n for n in shapes if n not in state_doc], [n for n in state_doc if n not in shapes]
    if missing or extra:
        problem = f"lacks {_listed(missing)}" if missing else f"has unexpected {_listed(extra)}"
        raise InputError(f"{where}: state_dict {problem} (config: {_describe(config)})")
    matrices = {}
    for name, (nout, nin) in shapes.items():
        mat = state_doc[name]
        if not isinstance(mat, list) or not all(isinstance(row, list) for row in mat):
            raise InputError(f"{where}: {name} must be a list of rows")
        if not mat:
            got = "empty"
        elif any(len(row) != len(mat[0]) for row in mat):
            got = "ragged (rows of different lengths)"
        else:
            got = f"{len(mat)}x{len(mat[0])}"
        if got != f"{nout}x{nin}":
            raise InputError(f"{where}: {name} is {got}, but the config ({_describe(config)}) needs {nout}x{nin}")
        matrices[name] = mat
    return matrices


def _finite_rows(matrix: list[list[Any]], where: str) -> Iterator[list[float]]:
    """The matrix's rows, last first, each as finite floats (or an InputError); each row leaves the matrix as it
    is given, so that a caller that builds from it holds one copy of the weights, not two."""
    while matrix:
        row = matrix.pop()
        if all(type(x) is float for x in row) and all(map(math.isfinite, row)):  # as a checkpoint's JSON holds them
            yield row
        else:
            yield [_finite(x, where) for x in row]


def _finite(x: Any, where: str) -> float:
    if type(x) in (int, float):  # not bool, though bool is an int
        try:
            if math.isfinite(x := float(x)):
                return x
        except OverflowError:
            pass
    raise InputError(f"{where} holds {str(x)[:40]}, which is not a finite number")


# An error is one line, whatever the file holds: what it quotes from the file is cut short.
_SHORT = reprlib.Repr()  # set field by field: Python 3.11's Repr() takes no arguments
_SHORT.maxstring = _SHORT.maxother = 40


def _brief(x: Any) -> str:
    return _SHORT.repr(x)


def _listed(names: list[str], most: int = 5) -> str:
    shown = ", ".join(_brief(name) for name in names[:most])  # quoted and cut: a name may hold a newline
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _describe(config: GPTConfig) -> str:
    return ", ".join(f"{name} {value}" for name, value in dataclasses.asdict(config).items())
