"""Imported only by the fork server of test_runs.py's SIGKILL test (never
collected, never imported by a test): one tiny SB3 run in a scratch folder, so
that what a first run loads lazily (torch's optimizer machinery, matplotlib's
backend, the numba functions from their cache) is in the server before it forks.
Each child then reaches its first file write in a fraction of a second instead of
some three seconds of loading, over the test's nineteen children."""

import shutil
import tempfile

from conftest import QUICK, TINY
from training.config import load_config
from training.sb3.train import train

_scratch = tempfile.mkdtemp(prefix="warm-sb3-")
try:
    train(load_config(QUICK, TINY + [f"output_dir={_scratch}", "total_timesteps=512"]),
          log=lambda line: None)
finally:
    shutil.rmtree(_scratch, ignore_errors=True)
