# Everything sets itself up: the first target that needs Python builds .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test check bench train recipe strength clean

setup: $(STAMP)

# torch first, pinned: its CPU wheel is on this machine's disk, and an unpinned
# torch pulled in by another package would fetch a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e '.[dev,distributed,openspiel,recipes]'
	# numba compiles the engine's, the heuristics' and the search's kernels once, here,
	# into its cache beside the sources (else each test worker compiles them again)
	$(PY) -m aluette_env eval --team-a expert:worlds=2 --team-b pimc:worlds=2 --deals 5 --quiet >/dev/null
	$(PY) -m aluette_env eval --team-a heuristic:version=1 --team-b heuristic --deals 5 --quiet >/dev/null
	$(PY) -m aluette_env eval --team-a pimc:worlds=2 --team-b heuristic --signs --deals 2 --quiet >/dev/null
	touch $(STAMP)

# Tests spread over one worker a core (pytest-xdist). The processes tests start
# (browsers, servers, Ray, commands) keep the other core busy while a worker waits,
# so a third worker on 2 cores ends the suite no sooner and spends about a tenth
# more CPU (the processes the tests start take more CPU beside it). A whole file
# to one worker: module fixtures (a training run, Ray, a browser) are built once,
# and what several files use (the wheel, a tiny SB3 run) once a session
# (tests/conftest.py). Not --dist loadgroup: with pytest 9.2 and xdist 3.8 its
# xdist_group marks are silently ignored. --no-loadscope-reorder keeps
# tests/conftest.py's order: the files measured slowest first (tests/durations.json,
# and how to measure them again). PYTHONDONTWRITEBYTECODE emptied: where the machine
# sets it, every worker, server and command the tests start would compile the
# package's modules again, and pytest rewrite every test file's asserts again in each
# worker (about 4 s of CPU a worker).
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $$(nproc) --dist loadfile --no-loadscope-reorder --durations=25

# The inner loop, within 90 s on 2 cores: the suite without the tests marked
# browser, rllib, cluster or slow (markers: pyproject.toml); make test stays the
# whole suite. One worker a core: what is left computes rather than waits on other
# processes, and each worker collects the whole suite again (about 11 s of CPU).
check: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $$(nproc) --dist loadfile --no-loadscope-reorder \
		-m "not browser and not rllib and not cluster and not slow"

# Writes docs/BENCHMARKS.md (machine and date in its first line, each table under its
# command); `python benchmarks/run_all.py --quick --out -` is a quick smoke check.
bench: $(STAMP)
	$(PY) benchmarks/run_all.py

train: $(STAMP)
	$(VENV)/bin/aluette train configs/default.yaml

# From nothing to v6's level in two stages (configs/recipe.yaml: make train, then
# partner games; configs/recipe_v7.yaml goes on to the shipped v7; what each gives:
# docs/TRAINING.md#results); the same command resumes after a stop or a kill.
recipe: $(STAMP)
	$(VENV)/bin/aluette train configs/recipe.yaml

# Writes docs/STRENGTH.md and the README's short strength table
# (benchmarks/strength.py: players, seed, pairs), one pairing per core at a time.
strength: $(STAMP)
	$(PY) benchmarks/strength.py --jobs $$(nproc) --out docs/STRENGTH.md --readme README.md

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
