"""Checkpoints: a trained model and its vocabulary as one JSON file, written atomically, read back with checks.

Writing replaces only a checkpoint, and is known to fit where it goes before the model is trained.
Reading checks the file against its own contents and against the bounds of limits.py before it
builds anything the size of the model, so a small file that claims a huge model fails at once.
"""

import dataclasses
import json
import math
import os
import re
import reprlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from microgpt.data import Tokenizer
from microgpt.engine import Value
from microgpt.model import GPTConfig, Matrix, Model
from microgpt.runtime import files, machine
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import MAX_PARAMETERS, Namer, check_config, how_far, with_the_others
from microgpt.runtime.units import size

FORMAT = "microgpt-checkpoint"
VERSION = 1
# Room in the file for one parameter: save() writes at most 26 bytes ("-1.2345678901234567e-308, "),
# a file re-indented by hand about 40; the rest of the file is small next to the weights.
BYTES_PER_PARAMETER = 64
MAX_BYTES = MAX_PARAMETERS * BYTES_PER_PARAMETER
# The longest a weight is in the file: json.dumps writes a float as repr() does, 17 significant digits at most
MAX_NUMBER_CHARS = len(repr(-2.2250738585072014e-308))  # 24
# What every checkpoint holds near its start, whether save() wrote it or a tool re-wrote it with its keys
# sorted ("config" comes first then, and holds no list): how a file is known to be one before it is replaced.
SIGNATURE = re.compile(rb'\A\s*\{[^\[]*?"format"\s*:\s*"microgpt-checkpoint"')
SIGNATURE_BYTES = 1 << 16
CHUNK_BYTES = 1 << 20  # what save() hands the file at a time: a few rows of the largest matrices


def save(path: str | Path, model: Model, tokenizer: Tokenizer, meta: dict[str, Any] | None = None) -> None:
    """Write the checkpoint to path atomically (see files.write_atomically), as it is made: a row of weights
    at a time, so that a signal is heard at once however large the model, and the text is never whole in memory.

    Only a checkpoint (or an empty file) is replaced: see check_out.
    """
    refuse_what_is_not_a_checkpoint(path)
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
    files.check_output(path, inputs)
    refuse_what_is_not_a_checkpoint(path)


def refuse_what_is_not_a_checkpoint(path: str | Path) -> None:
    """A file already at path is replaced only if it is a microgpt checkpoint, or empty: a mistyped --out
    (a data file, notes, `x/.`) must not cost another file. Read only up to SIGNATURE_BYTES."""
    try:
        with open(path, "rb") as f:
            head = f.read(SIGNATURE_BYTES)
    except FileNotFoundError:
        return
    except OSError:  # what files.check_output refuses (a directory, a FIFO, ...), it refuses with its reason
        return
    if head.strip() and not SIGNATURE.match(head):
        raise InputError(
            f"{os.fspath(path)} is a file that is not a microgpt checkpoint; microgpt replaces only its own "
            "checkpoints, so that no other file is lost: choose another path, or remove the file first"
        )


def check_room(
    path: str | Path,
    config: GPTConfig,
    vocab: str,
    meta: dict[str, Any],
    name: Namer = str,
    least: dict[str, int] | None = None,
) -> None:
    """Refuse, before training, a checkpoint larger than the room where it goes (machine.disk_room): the free
    space of the file system of path's directory, and the file-size limit. The temporary file is written
    before the old one goes, so all of it must fit."""
    room = machine.disk_room(files.parent_of(path))
    need = size_bound(config, vocab, meta)
    if room is None or need <= room.bytes:
        return
    remedies = how_far(config, lambda c: size_bound(c, vocab, meta) <= room.bytes, name, least=least)
    raise InputError(
        f"the checkpoint of this model takes up to {size(need)}, but {room.cause} leaves it {size(room.bytes)}; "
        + (with_the_others(remedies) + ", or " if remedies else "")
        + room.remedy(need)
    )


def load(path: str | Path, check: Callable[[GPTConfig], None] | None = None) -> tuple[Model, Tokenizer, dict[str, Any]]:
    """Read a checkpoint written by save(); raise InputError saying what is wrong with it, if anything.

    check(config), if given, may refuse the model before it is built (the command line's memory bound).
    """
    where = f"checkpoint {path}"
    doc = _parse(files.read_bytes(path, MAX_BYTES, "checkpoint"), where)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f'{where} is not a microgpt checkpoint (no "format": "{FORMAT}")')
    if doc.get("version") != VERSION:
        got = _brief(doc.get("version"))
        raise InputError(f"{where} has format version {got}; this microgpt reads version {VERSION}")
    for key in ("config", "vocab", "meta", "state_dict"):
        if key not in doc:
            raise InputError(f"{where} has no {key!r} field")
    config = _config(doc["config"], where)  # bounded: nothing the model's size has been built yet
    tokenizer = _tokenizer(doc["vocab"], config, where)
    if not isinstance(doc["meta"], dict):
        raise InputError(f"{where}: meta must be a JSON object")
    if check is not None:
        check(config)
    return Model(config, _state_dict(doc["state_dict"], config, where)), tokenizer, doc["meta"]


def _parse(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"), parse_float=_number, parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise InputError(f"{where} is not valid JSON: not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:  # NaN, Infinity, -Infinity, or an integer of thousands of digits
        raise InputError(f"{where} is not valid JSON: {e}") from None
    except RecursionError:
        raise InputError(f"{where} is not a microgpt checkpoint: its JSON is nested too deeply") from None


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


def _state_dict(state_doc: Any, config: GPTConfig, where: str) -> dict[str, Matrix]:
    """The weights, each matrix checked against the shape the config gives it before it is built."""
    if not isinstance(state_doc, dict):
        raise InputError(f"{where}: state_dict must be a JSON object of matrices")
    shapes = config.matrix_shapes()  # small: the config is within bounds
    missing, extra = [n for n in shapes if n not in state_doc], [n for n in state_doc if n not in shapes]
    if missing or extra:
        problem = f"lacks {_listed(missing)}" if missing else f"has unexpected {_listed(extra)}"
        raise InputError(f"{where}: state_dict {problem} (config: {_describe(config)})")
    state_dict = {}
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
        state_dict[name] = [[Value(_finite(x, f"{where}: {name}")) for x in row] for row in mat]
    return state_dict


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
