"""microgpt: a small, pure-Python GPT built on a scalar autograd engine. Importing it runs nothing."""

from importlib.metadata import PackageNotFoundError, version

from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, gpt
from microgpt.optim import Adam

__all__ = ["Adam", "GPTConfig", "Model", "Tokenizer", "Value", "default_data_path", "gpt", "load_docs"]

# The version is written once, in pyproject.toml; installing the package records it in its metadata.
try:
    __version__ = version("microgpt-backprop")
except PackageNotFoundError:  # imported from a source tree that was never installed (e.g. PYTHONPATH=.)
    __version__ = "0+unknown"
