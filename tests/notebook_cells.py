"""What the notebook's PyTorch cells are called and print when PyTorch is missing: read by
tests/package/test_notebook.py and tests/site/test_install.py. A helper, not a test."""

TORCH_CELLS = ("torch-check", "torch-check-challenge")  # cell ids of the PyTorch comparisons
SKIPPED = "PyTorch is not installed: skipped this check"
