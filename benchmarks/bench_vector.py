"""Agent-steps per second of the batched engine (observations and masks
included) for N = 1, 64, 1,024 and 16,384 games on one core, and where the
time of a step goes; and what a learner's index lists (``sparse=True``) add.

    python benchmarks/bench_vector.py [--seconds 2] [--profile-steps 2000]
    python benchmarks/bench_vector.py --compare REF_DIR [--rounds 10] [--steps 1000]

Prints markdown tables. Rates are per second of this process's CPU time (numba
and numpy on one thread), so other load on the machine does not lower them.

``--compare`` times this checkout's ``VectorGame`` against another checkout's
(REF_DIR, e.g. ``git worktree add /tmp/ref <commit>``) on the same workload, in
the default game and the signs variant: one process per checkout (each its own
numba cache), compiled and warmed up first, then timed in turn (A B, B A, ...),
and prints the ratio of their rates (above 1: this checkout is faster).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1  # noqa: E402
from aluette_env.vector import VectorGame, kernels  # noqa: E402


def first_legal(mask: np.ndarray) -> np.ndarray:
    return mask.argmax(1)


def steps_per_second(n: int, seconds: float) -> float:
    game = VectorGame(n, seed=0)
    game.reset()
    game.step(first_legal(game.mask))  # compile / warm up
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        game.step(first_legal(game.mask))
        steps += n
    return steps / (time.process_time() - start)


def profile(n: int = 1024, steps: int = 2000) -> None:
    game = VectorGame(n, seed=0)
    game.reset()
    parts = dict.fromkeys(["choose action (argmax of mask)", "check legality", "play + score",
                           "deal new hands", "write observations + masks"], 0.0)
    keys = list(parts)
    for _ in range(steps):
        t0 = time.process_time()
        a = first_legal(game.mask)
        t1 = time.process_time()
        kernels.find_illegal(game._st, a, game._everyone)
        t2 = time.process_time()
        kernels.play(game._st, a, game._everyone, kernels.STRENGTH_ARRAY, game._res,
                     game.rewards, game.deal_done, game.match_done)
        t3 = time.process_time()
        done = np.flatnonzero(game.deal_done)
        ended = game.match_done[done]
        game._deal(done[~ended])
        game._new_matches(done[ended])
        t4 = time.process_time()
        game._observe()
        t5 = time.process_time()
        for k, dt in zip(keys, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            parts[k] += dt
    total = sum(parts.values())
    print(f"\nWhere the time of one batch step goes at N = {n:,} "
          f"({total / steps * 1e6:.0f} µs of CPU a step, {steps:,} steps):\n")
    print("| part | share | µs a step |\n|---|---:|---:|")
    for k, v in parts.items():
        print(f"| {k} | {100 * v / total:.1f} % | {v / steps * 1e6:.1f} |")


def sparse_observe(n: int = 1024, steps: int = 2000) -> None:
    """CPU time of writing a step's observations, masks and a learner's index
    lists (``sparse=True``: each seat to act's ones and the privileged cards)."""
    game = VectorGame(n, seed=0, sparse=True)
    game.reset()
    spent = 0.0
    for _ in range(steps):
        game.step(first_legal(game.mask))
        t = time.process_time()
        game._observe()
        spent += time.process_time() - t
    print(f"\nWith `sparse=True` (a learner's index lists as well), N = {n:,}: writing "
          f"observations + masks + lists takes {spent / steps * 1e6:.1f} µs of CPU a step.")


def serve_timings(variant: str, n: int, steps: int) -> None:
    """The worker of ``--compare``: one game of ``variant`` at ``n`` games, warmed
    up; it prints the digest of the first ``steps`` steps' actions (the two
    checkouts must play the same workload) and the checkout it imported, then
    the CPU seconds of ``steps`` more steps for each line read on stdin."""
    game = VectorGame(n, seed=0, variant=ALUETTE_SIGNS_V0 if variant == "signs" else ALUETTE_V1)
    game.reset()
    digest = hashlib.sha256()
    for _ in range(steps):  # compile and warm up
        actions = first_legal(game.mask)
        digest.update(actions.astype(np.int8).tobytes())
        game.step(actions)
    print(digest.hexdigest(), Path(kernels.__file__).resolve().parents[2], flush=True)
    for _ in sys.stdin:
        start = time.process_time()
        for _ in range(steps):
            game.step(first_legal(game.mask))
        print(time.process_time() - start, flush=True)


def compare(ref: Path, rounds: int, n: int, steps: int) -> None:
    """This checkout's ``VectorGame`` against ``ref``'s, in turn (see the docstring)."""
    here = Path(__file__).resolve().parents[1]
    trees = {"this checkout": here, "REF_DIR": ref.resolve()}
    print(f"`VectorGame` of {here} against {ref.resolve()}: N = {n:,}, {steps:,} steps a "
          f"timing, {rounds} rounds (A B, B A, ...), CPU seconds of each process.\n")
    print("| variant | this checkout, agent-steps per CPU-second (median) | REF_DIR (median) "
          "| rate ratio, this / REF_DIR (total CPU time) | median of the rounds' ratios |\n"
          "|---|---:|---:|---:|---:|")
    for variant in ("default", "signs"):
        workers = {}
        for name, tree in trees.items():
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])}
            workers[name] = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--worker", variant,
                 "--n", str(n), "--steps", str(steps)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
        digests = {}
        for name, w in workers.items():
            digests[name], imported = w.stdout.readline().rstrip("\n").split(" ", 1)
            if Path(imported) != trees[name]:
                sys.exit(f"the {name} worker imported aluette_env from {imported}, not "
                         f"{trees[name]}")
        if len(set(digests.values())) != 1:
            sys.exit(f"{variant}: the two checkouts play different games ({digests}); "
                     f"no comparison")
        spent: dict[str, list[float]] = {name: [] for name in trees}
        for r in range(rounds):
            for name in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                workers[name].stdin.write("go\n")
                workers[name].stdin.flush()
                spent[name].append(float(workers[name].stdout.readline()))
        for w in workers.values():
            w.stdin.close()
            w.wait()
        a, b = np.array(spent["this checkout"]), np.array(spent["REF_DIR"])
        print(f"| {variant} | {n * steps / np.median(a):,.0f} | {n * steps / np.median(b):,.0f} "
              f"| {b.sum() / a.sum():.3f} | {np.median(b / a):.3f} |", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row")
    parser.add_argument("--profile-steps", type=int, default=2000)
    parser.add_argument("--compare", metavar="REF_DIR", type=Path,
                        help="time this checkout's VectorGame against REF_DIR's instead")
    parser.add_argument("--rounds", type=int, default=10, help="with --compare")
    parser.add_argument("--n", type=int, default=1024, help="games, with --compare")
    parser.add_argument("--steps", type=int, default=1000, help="steps a timing, with --compare")
    parser.add_argument("--worker", choices=("default", "signs"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        serve_timings(args.worker, args.n, args.steps)
        return
    if args.compare:
        if not (args.compare / "aluette_env" / "vector").is_dir():
            parser.error(f"--compare {args.compare}: not a checkout of this project (no "
                         f"aluette_env/vector in it)")
        compare(args.compare, args.rounds, args.n, args.steps)
        return
    kind = "numba kernels" if kernels.HAVE_NUMBA else "pure-Python fallback (numba missing)"
    print(f"`VectorGame`, {kind}, one thread; the first legal card each step, observations "
          f"and masks written every step.\n")
    print("| N games | agent-steps per CPU-second | bytes per game |\n|---:|---:|---:|")
    for n in (1, 64, 1024, 16384):
        rate = steps_per_second(n, args.seconds)
        print(f"| {n:,} | {rate:,.0f} | {VectorGame(n).bytes_per_game():.0f} |", flush=True)
    profile(steps=args.profile_steps)
    sparse_observe(steps=args.profile_steps)


if __name__ == "__main__":
    main()
