"""Does a change of the trainer leave training where it was? The first samples of
``make train`` at a fixed seed, run by two checkouts, give the same learning
curve (``metrics.jsonl``) to the last digit.

Each evaluation record is compared field by field, except what the clock or
the run's name decides (``wall_time_s``, ``eval_seconds``, the run's name in
``team_a``: ``NAME@SAMPLES``). A difference is listed with its record, field
and both values; ``--rtol`` accepts differences within that relative tolerance
(for a change that reorders a floating-point operation).

    python benchmarks/same_curve.py --before /tmp/before --after . [--samples 4000000]
    python benchmarks/same_curve.py --compare A/metrics.jsonl B/metrics.jsonl [--rtol 0]

The first form trains ``configs/default.yaml`` for ``--samples`` learner samples
(an evaluation every ``--interval``), once with each checkout first on
``PYTHONPATH``, one after the other, into ``--out``, then compares; each run
takes minutes. Exit 1 on a difference.

Used to show that writing the PPO update out (training/sb3/ppo.py, one
constant for an illegal card, the rollout added through SB3's ``add``) left
training where it was: 4 M samples, four evaluations, the same to the last
digit as the commit before (272679b).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Fields the clock decides, not the training.
CLOCK = ("wall_time_s", "eval_seconds")


def settings(run_name: str, out: Path, samples: int, interval: int) -> list[str]:
    """The ``--set`` overrides of a comparison run of configs/default.yaml."""
    return [f"run_name={run_name}", f"output_dir={out}", f"total_timesteps={samples}",
            f"eval.interval={interval}", "logging.progress_bar=false",
            "logging.tensorboard=false"]


def train(checkout: Path, run_name: str, out: Path, samples: int, interval: int) -> Path:
    """``make train``'s config trained by ``checkout``'s code; its metrics.jsonl."""
    command = [sys.executable, "-m", "aluette_env", "train", "configs/default.yaml"]
    for setting in settings(run_name, out, samples, interval):
        command += ["--set", setting]
    env = dict(os.environ, PYTHONPATH=str(checkout))
    subprocess.run(command, cwd=checkout, env=env, check=True)
    return out / run_name / "metrics.jsonl"


def comparable(record: dict) -> dict:
    """``record`` without the clock's fields and with the run's name left out of
    ``team_a``."""
    out = {k: v for k, v in record.items() if k not in CLOCK}
    out["results"] = {
        spec: {k: (v.partition("@")[1] + v.partition("@")[2] if k == "team_a" else v)
               for k, v in result.items()}
        for spec, result in record.get("results", {}).items()}
    return out


def differences(a, b, where: str = "", rtol: float = 0.0) -> list[str]:
    """Every place where ``a`` and ``b`` (JSON values) differ, beyond ``rtol`` for numbers."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}.{k}: only in {'the first' if k in a else 'the second'}"
               for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += differences(a[k], b[k], f"{where}.{k}" if where else k, rtol)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b))
                for d in differences(x, y, f"{where}[{i}]", rtol)]
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
    if numbers and math.isclose(a, b, rel_tol=rtol, abs_tol=0.0):
        return []
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def compare(first: Path, second: Path, rtol: float = 0.0) -> list[str]:
    """The differences of two metrics.jsonl, record by record (by sample count)."""
    a, b = read(first), read(second)
    if [r["timesteps"] for r in a] != [r["timesteps"] for r in b]:
        return [f"evaluated at {[r['timesteps'] for r in a]} against "
                f"{[r['timesteps'] for r in b]} samples"]
    return [d for x, y in zip(a, b)
            for d in differences(comparable(x), comparable(y), f"@{x['timesteps']}", rtol)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("FIRST", "SECOND"),
                        help="compare two metrics.jsonl files")
    parser.add_argument("--before", type=Path, help="the checkout before the change")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout after it")
    parser.add_argument("--samples", type=int, default=4_000_000)
    parser.add_argument("--interval", type=int, default=1_000_000,
                        help="learner samples between evaluations")
    parser.add_argument("--out", type=Path, default=Path("/tmp/same-curve"))
    parser.add_argument("--rtol", type=float, default=0.0,
                        help="relative tolerance of a number (0: the same to the last digit)")
    args = parser.parse_args(argv)
    if args.compare:
        first, second = args.compare
    elif args.before:
        first, second = (train(c.resolve(), name, args.out.resolve(), args.samples, args.interval)
                         for c, name in ((args.before, "before"), (args.after, "after")))
    else:
        parser.error("give --compare FIRST SECOND, or --before CHECKOUT")
    found = compare(first, second, args.rtol)
    records = len(read(first))
    for line in found:
        print(line)
    print(f"{first} and {second}: {records} evaluation(s), "
          + (f"{len(found)} difference(s)" if found else "the same"
             + (f" within rtol {args.rtol:g}" if args.rtol else " to the last digit")))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
