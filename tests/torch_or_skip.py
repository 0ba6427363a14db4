"""Import torch for a test module, or skip it; with MICROGPT_REQUIRE_TORCH=1 (set by CI) a missing torch fails."""

import importlib
import os

import pytest


def require_torch():
    try:
        return importlib.import_module("torch")
    except ImportError:
        if os.environ.get("MICROGPT_REQUIRE_TORCH") == "1":
            pytest.fail(
                "MICROGPT_REQUIRE_TORCH=1, but torch is not installed: pip install torch==2.13.0", pytrace=False
            )
        pytest.skip(
            "torch is not installed: pip install torch==2.13.0 to compare against PyTorch", allow_module_level=True
        )
