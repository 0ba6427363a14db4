"""Plant known bugs in microgpt/ one at a time and report which ones the unit tests catch without PyTorch.

Each mutant is one textual change to one file; the change must apply exactly once, so this script
fails loudly when the code it mutates has moved. Every mutant runs in a throwaway copy of the
repository, with `import torch` made to fail, so the torch comparisons skip and only the tests
that need nothing but the standard library stand between the bug and a green run.

    .venv/bin/python scripts/check_mutants.py          # about 30 s per mutant
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNIT_TESTS = [
    "tests/package/test_engine.py",
    "tests/package/test_model.py",
    "tests/package/test_golden.py",
    "tests/package/test_train.py",
]

# name: (file, original text, mutated text)
MUTANTS = {
    "rmsnorm epsilon 1e-5 -> 1e-6": ("microgpt/model.py", "(ms + 1e-5)", "(ms + 1e-6)"),
    "KV cache window one position short": (
        "microgpt/model.py",
        "k_h = [k[hs] for k in keys[layer]]\n        v_h = [v[hs] for v in values[layer]]",
        "k_h = [k[hs] for k in keys[layer][-4:]]\n        v_h = [v[hs] for v in values[layer][-4:]]",
    ),
    "attention excludes the current position": (
        "microgpt/model.py",
        "k_h = [k[hs] for k in keys[layer]]\n        v_h = [v[hs] for v in values[layer]]",
        "k_h = [k[hs] for k in keys[layer][:-1] or keys[layer]]\n"
        "        v_h = [v[hs] for v in values[layer][:-1] or values[layer]]",
    ),
    "attention scaled by head_dim, not its square root": ("microgpt/model.py", "s / head_dim**0.5", "s / head_dim"),
    "no MLP residual": (
        "microgpt/model.py",
        "x = [a + b for a, b in zip(mlp(rmsnorm(x), layer, model), x)]",
        "x = mlp(rmsnorm(x), layer, model)",
    ),
    "ReLU gradient 1 at 0": ("microgpt/engine.py", "float(self.data > 0)", "float(self.data >= 0)"),
    "loss averaged over len(tokens), not the positions": (
        "microgpt/train.py",
        "loss = (1 / n) * sum(losses)",
        "loss = (1 / len(tokens)) * sum(losses)",
    ),
    "topological sort without its visited set": ("microgpt/engine.py", "elif v not in visited:", "else:"),
    "backward assigns instead of accumulating": (
        "microgpt/engine.py",
        "child.grad += local_grad * v.grad",
        "child.grad = local_grad * v.grad",
    ),
}

NO_TORCH = "raise ImportError('torch is hidden by scripts/check_mutants.py')\n"


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def run_mutant(file: str, before: str, after: str) -> bool:
    """True when the unit tests fail on the mutant (the mutant is killed)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        for rel in tracked_files():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            if (ROOT / rel).is_file():
                shutil.copy2(ROOT / rel, copy / rel)
        target = copy / file
        text = target.read_text(encoding="utf-8")
        if text.count(before) != 1:
            sys.exit(f"check_mutants: {file} no longer contains exactly one {before!r}; update MUTANTS")
        target.write_text(text.replace(before, after), encoding="utf-8")
        hide = Path(tmp) / "hide"
        hide.mkdir()
        (hide / "torch.py").write_text(NO_TORCH, encoding="utf-8")
        env = {"PYTHONPATH": f"{hide}:{copy}", "PATH": "/usr/bin:/bin", "HOME": tmp}
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *UNIT_TESTS],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return result.returncode != 0


def main() -> None:
    if run_mutant("microgpt/engine.py", "import math", "import math"):  # the unmutated copy must pass
        sys.exit("check_mutants: the unit tests fail on an unmutated copy; fix that first")
    killed = 0
    for name, (file, before, after) in MUTANTS.items():
        caught = run_mutant(file, before, after)
        killed += caught
        print(f"{'killed  ' if caught else 'SURVIVED'}  {name}", flush=True)
    print(f"{killed} of {len(MUTANTS)} mutants killed without torch")
    sys.exit(0 if killed == len(MUTANTS) else 1)


if __name__ == "__main__":
    main()
