"""microgpt: a small, pure-Python GPT built on a scalar autograd engine. Importing it runs nothing.

Each name below is imported from its module on first use, so `python -m microgpt` loads only what
it needs, and loads it where a Ctrl-C is caught (see __main__.py).
"""

import importlib  # loaded by every Python at start-up: importing microgpt still loads none of its modules

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see __main__.py

# The version is written once, here; pyproject.toml reads it (setuptools' dynamic version).
__version__ = "0.1.0"

_MODULE_OF = {
    "Adam": "microgpt.optim",
    "GPTConfig": "microgpt.model",
    "Model": "microgpt.model",
    "Tokenizer": "microgpt.data",
    "Value": "microgpt.engine",
    "default_data_path": "microgpt.data",
    "gpt": "microgpt.model",
    "load_docs": "microgpt.data",
}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> object:
    """`from microgpt import Value`: the name from its module, imported now."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'microgpt' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # what a type checker sees: the same names, with their types
    from microgpt.data import Tokenizer as Tokenizer
    from microgpt.data import default_data_path as default_data_path
    from microgpt.data import load_docs as load_docs
    from microgpt.engine import Value as Value
    from microgpt.model import GPTConfig as GPTConfig
    from microgpt.model import Model as Model
    from microgpt.model import gpt as gpt
    from microgpt.optim import Adam as Adam
