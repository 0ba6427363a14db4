# Every target creates .venv and installs what it needs when that is missing or stale.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test build lint bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[docs,test,torch]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $(STAMP)

serve: $(STAMP)  ## serve the site at http://127.0.0.1:8000/backprop/, reloading on edits to docs/ and microgpt/
	$(BIN)/mkdocs serve

test: $(STAMP) lint  ## everything CI runs: lint, unit tests, every docs block, site and browser tests, strict build
	$(BIN)/pytest tests docs README.md --codeblocks
	$(BIN)/mkdocs build --strict

build: $(STAMP)  ## build the site into site/
	$(BIN)/mkdocs build --strict

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)  ## print the performance figures: ms per step, backward nodes/s, deepest chain, peak memory
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf $(VENV) site .cache .pytest_cache .ruff_cache .hypothesis
