# Everything sets itself up: the first target that needs Python builds .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test bench train clean

setup: $(STAMP)

# torch first, pinned: its CPU wheel is on this machine's disk, and an unpinned
# torch pulled in by another package would fetch a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e '.[dev,distributed]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

train: $(STAMP)
	$(VENV)/bin/aluette train configs/default.yaml

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
