"""Checkpoints: a trained model and its vocabulary as one JSON file, written atomically, read back with checks.

Reading checks the file against its own contents and against the bounds of limits.py before it
builds anything the size of the model, so a small file that claims a huge model fails at once.
"""

import dataclasses
import json
import math
import reprlib
from pathlib import Path
from typing import Any

from microgpt.data import Tokenizer
from microgpt.engine import Value
from microgpt.model import GPTConfig, Matrix, Model
from microgpt.runtime import files
from microgpt.runtime.errors import InputError
from microgpt.runtime.limits import MAX_PARAMETERS, check_config

FORMAT = "microgpt-checkpoint"
VERSION = 1
# Room in the file for one parameter: save() writes at most 26 bytes ("-1.2345678901234567e-308, "),
# a file re-indented by hand about 40; the rest of the file is small next to the weights.
BYTES_PER_PARAMETER = 64
MAX_BYTES = MAX_PARAMETERS * BYTES_PER_PARAMETER


def save(path: str | Path, model: Model, tokenizer: Tokenizer, meta: dict[str, Any] | None = None) -> None:
    """Write the checkpoint to path atomically (see files.write_atomically)."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "config": dataclasses.asdict(model.config),
        "vocab": tokenizer.chars,
        "meta": meta or {},
        "state_dict": {name: [[p.data for p in row] for row in mat] for name, mat in model.state_dict.items()},
    }
    try:
        text = json.dumps(doc, allow_nan=False)  # NaN and Infinity are not JSON; refuse to write them
    except ValueError:
        raise InputError(f"cannot save checkpoint {path}: the model has parameters that are not finite") from None
    try:
        files.write_atomically(path, text.encode("ascii"))  # json.dumps escapes every non-ASCII character
    except InputError as e:
        raise InputError(f"cannot write checkpoint: {e}") from None
    except OSError as e:
        raise InputError(f"cannot write checkpoint {path}: {e.strerror or e}") from None


def load(path: str | Path) -> tuple[Model, Tokenizer, dict[str, Any]]:
    """Read a checkpoint written by save(); raise InputError saying what is wrong with it, if anything."""
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
    return Model(config, _state_dict(doc["state_dict"], config, where)), tokenizer, doc["meta"]


def _parse(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise InputError(f"{where} is not valid JSON: not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:  # NaN, Infinity, -Infinity, or an integer of thousands of digits
        raise InputError(f"{where} is not valid JSON: {e}") from None
    except RecursionError:
        raise InputError(f"{where} is not a microgpt checkpoint: its JSON is nested too deeply") from None


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
