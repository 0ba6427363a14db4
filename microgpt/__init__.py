"""microgpt: a small, pure-Python GPT built on a scalar autograd engine. Importing it runs nothing."""

from microgpt.data import Tokenizer, default_data_path, load_docs
from microgpt.engine import Value
from microgpt.model import GPTConfig, Model, gpt
from microgpt.optim import Adam

__all__ = ["Adam", "GPTConfig", "Model", "Tokenizer", "Value", "default_data_path", "gpt", "load_docs"]

# The version is written once, here; pyproject.toml reads it (setuptools' dynamic version).
__version__ = "0.1.0"
