# Everything sets itself up: the first target that needs Python builds .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test bench train strength clean

setup: $(STAMP)

# torch first, pinned: its CPU wheel is on this machine's disk, and an unpinned
# torch pulled in by another package would fetch a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e '.[dev,distributed]'
	touch $(STAMP)

# Tests spread over every core (pytest-xdist); files with an expensive shared fixture
# or resource stay on one worker (tests/conftest.py, WORKER_GROUPS).
test: $(STAMP)
	$(PY) -m pytest -n auto --dist loadgroup

# Writes docs/BENCHMARKS.md (machine and date in its first line, each table under its
# command); `python benchmarks/run_all.py --quick --out -` is a quick smoke check.
bench: $(STAMP)
	$(PY) benchmarks/run_all.py

train: $(STAMP)
	$(VENV)/bin/aluette train configs/default.yaml

# Writes docs/STRENGTH.md and the README's short strength table
# (benchmarks/strength.py: players, seed, pairs).
strength: $(STAMP)
	$(PY) benchmarks/strength.py --out docs/STRENGTH.md --readme README.md

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
