"""Checkpoints: a trained model and its vocabulary as one JSON file, written atomically, read back with checks."""

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from microgpt.data import Tokenizer
from microgpt.engine import Value
from microgpt.errors import InputError
from microgpt.model import GPTConfig, Model, init_params

FORMAT = "microgpt-checkpoint"
VERSION = 1
CONFIG_FIELDS = ("vocab_size", "n_layer", "n_embd", "n_head", "block_size")


def expected_shapes(config: GPTConfig) -> dict[str, tuple[int, int]]:
    """Every matrix a model of this config has, by name, as (rows, columns), in init_params' order."""
    # derived from init_params itself, so the model's shapes are written down in one place only
    return {name: (len(mat), len(mat[0])) for name, mat in init_params(config).items()}


def save(path: str | Path, model: Model, tokenizer: Tokenizer, meta: dict[str, Any] | None = None) -> None:
    """Write the checkpoint to path atomically: a temporary file in the same directory, then a rename."""
    path = Path(path)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "config": {name: getattr(model.config, name) for name in CONFIG_FIELDS},
        "vocab": tokenizer.chars,
        "meta": meta or {},
        "state_dict": {name: [[p.data for p in row] for row in mat] for name, mat in model.state_dict.items()},
    }
    try:
        text = json.dumps(doc, allow_nan=False)  # NaN and Infinity are not JSON; refuse to write them
    except ValueError:
        raise InputError(f"cannot save checkpoint {path}: the model has parameters that are not finite") from None
    tmp = None
    try:
        # the rename only replaces path if both live on the same file system, hence dir=path.parent
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points at them
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise InputError(f"cannot write checkpoint {path}: {e.strerror or e}") from None
    finally:
        if tmp is not None:  # anything went wrong, Ctrl-C included: leave no half-written file behind
            Path(tmp).unlink(missing_ok=True)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a finite number")


def load(path: str | Path) -> tuple[Model, Tokenizer, dict[str, Any]]:
    """Read a checkpoint written by save(); raise InputError saying what is wrong with it, if anything."""
    where = f"checkpoint {path}"
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"checkpoint not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"checkpoint path is a directory, not a file: {path}") from None
    except OSError as e:
        raise InputError(f"cannot read {where}: {e.strerror or e}") from None
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise InputError(f"{where} is not valid JSON: not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:  # NaN, Infinity or -Infinity
        raise InputError(f"{where} is not valid JSON: {e}") from None
    except RecursionError:
        raise InputError(f"{where} is not a microgpt checkpoint: its JSON is nested too deeply") from None

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f'{where} is not a microgpt checkpoint (no "format": "{FORMAT}")')
    if doc.get("version") != VERSION:
        raise InputError(f"{where} has format version {doc.get('version')!r}; this microgpt reads version {VERSION}")
    for key in ("config", "vocab", "meta", "state_dict"):
        if key not in doc:
            raise InputError(f"{where} has no {key!r} field")

    config_doc = doc["config"]
    if not isinstance(config_doc, dict) or set(config_doc) != set(CONFIG_FIELDS):
        raise InputError(f"{where}: config must have exactly the fields {', '.join(CONFIG_FIELDS)}")
    for name in CONFIG_FIELDS:
        if type(config_doc[name]) is not int:
            raise InputError(f"{where}: config {name} must be a whole number, got {config_doc[name]!r}")
    try:
        config = GPTConfig(**config_doc)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None

    vocab = doc["vocab"]
    if not isinstance(vocab, str) or list(vocab) != sorted(set(vocab)):
        raise InputError(f"{where}: vocab must be a string of distinct characters in sorted order")
    if len(vocab) + 1 != config.vocab_size:
        raise InputError(
            f"{where}: vocab has {len(vocab)} characters, so vocab_size must be {len(vocab) + 1}, "
            f"but config says {config.vocab_size}"
        )
    if not isinstance(doc["meta"], dict):
        raise InputError(f"{where}: meta must be a JSON object")

    state_doc = doc["state_dict"]
    shapes = expected_shapes(config)
    if not isinstance(state_doc, dict):
        raise InputError(f"{where}: state_dict must be a JSON object of matrices")
    missing, extra = [n for n in shapes if n not in state_doc], [n for n in state_doc if n not in shapes]
    if missing or extra:
        problem = f"lacks {', '.join(missing)}" if missing else f"has unexpected {', '.join(extra)}"
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
    return Model(config, state_dict), Tokenizer(vocab), doc["meta"]


def _finite(x: Any, where: str) -> float:
    if type(x) in (int, float):  # not bool, though bool is an int
        try:
            if math.isfinite(x := float(x)):
                return x
        except OverflowError:
            pass
    raise InputError(f"{where} holds {str(x)[:40]}, which is not a finite number")


def _describe(config: GPTConfig) -> str:
    return ", ".join(f"{name} {getattr(config, name)}" for name in CONFIG_FIELDS)
