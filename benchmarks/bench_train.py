"""End-to-end learner samples per second (collection + PPO updates) with the
default config's settings, for a few rollouts (no evaluation or checkpoints).
Also prints how many CPUs the process kept busy: on a shared machine the
other load slows it, and samples per CPU-second say what the code costs; and
the share of the wall time spent in PPO's updates (the rest collects the
rollouts: the engine, the policies' moves, the league's opponents).

    python benchmarks/bench_train.py [--rollouts 6] [--repeats 1] [--snapshots N]
                                     [--config C] [--set key.path=value]

Times the dense first layer (``network.sparse=false``) and the sparse one
(the layer sums the weights of the entries set to 1), the critic that sees
every hand, and the config's belief head when it has one, one after the other
in the same run; on a CPU that multiplies bfloat16 natively (AMX, AVX512-BF16),
also the last of those and the dense path with ``network.precision=bfloat16``;
prints a markdown table. With ``--repeats N`` every path runs N times, the
paths in turn each round, and the table keeps each path's fastest run: on a
shared machine a slow run says more about the neighbours than the code.
In bfloat16 it times both ways of the first layer: the fused gather (the
default without AMX tiles) and the 0/1 planes' product
(``CardTrunk.bfloat16_planes``, the default with AMX tiles), so the choice can be
measured again. Last, the config's own path with its update compiled
(``torch_compile=true``; the compile happens in the warm-up rollout). The
league's pool holds the config's
``pool_size`` snapshots (``--snapshots``), as a run's does after its first
few million samples.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from aluette_env.players import load_player
from training.config import load_config
from training.sb3.network import PolicyPlayer, amx_tiles
from training.sb3.train import build_env, build_model, frozen_player, native_bfloat16
from training.league import POLICY_ENTRIES as FIXED
from training.league import OpponentPool

ROOT = Path(__file__).resolve().parents[1]


def warm_model(cfg, run_dir: Path, planes: bool | None = None, snapshots: int | None = None):
    """(model, learner samples per rollout) on the config's self-play env, after
    one warm-up rollout (numba compile, allocations); no TensorBoard.
    ``planes``: the bfloat16 first layer's way (None: the CPU's own choice).
    ``snapshots``: past policies in the league's pool (None: the config's
    ``pool_size``, what a run holds after its first ``pool_size`` snapshot
    intervals: in ``make train`` after 10 M of its 80 M samples)."""
    fixed = {s: load_player(s) for s in cfg.selfplay.opponents if s not in FIXED}
    pool = OpponentPool(cfg.selfplay.opponents, fixed, np.random.default_rng(0))
    env = build_env(cfg, pool, seed=0)
    cfg.logging.tensorboard = False
    model = build_model(cfg, env, run_dir)
    if planes is not None:
        model.policy.features_extractor.bfloat16_planes = planes
    pool.latest = PolicyPlayer(model.policy, temperature=1.0)
    n = cfg.selfplay.pool_size if snapshots is None else snapshots
    pool.snapshots += [(f"snapshot_{k}", frozen_player(model.policy, f"snapshot_{k}"))
                       for k in range(n)]
    per_rollout = env.num_envs * cfg.ppo.n_steps
    model.learn(per_rollout)
    return model, per_rollout


def time_one(cfg, rollouts: int, planes: bool | None = None, snapshots: int | None = None
             ) -> tuple[float, float, float, int, int, float]:
    """(learner samples/s, CPUs busy, samples per CPU-second, samples per
    rollout, learner seats, share of the wall time in the PPO updates) of
    ``rollouts`` rollouts after a warm-up."""
    torch.set_num_threads(cfg.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        model, per_rollout = warm_model(cfg, Path(tmp), planes, snapshots)
        updating = [0.0]
        update = model.train

        def timed_update() -> None:
            t = time.perf_counter()
            update()
            updating[0] += time.perf_counter() - t
        model.train = timed_update
        start, cpu = time.perf_counter(), time.process_time()
        model.learn(per_rollout * rollouts, reset_num_timesteps=False)
        dt, cpu = time.perf_counter() - start, time.process_time() - cpu
    n = per_rollout * rollouts
    return n / dt, cpu / dt, n / cpu, per_rollout, model.n_envs, updating[0] / dt


def timed_paths(config: str, sets: list[str], native: bool
                ) -> list[tuple[str, list[str], str | None]]:
    """The paths timed, in order: (name, their settings over the config's and
    ``sets``, the bfloat16 first layer's way forced by ``--planes``: "yes" the 0/1
    planes, "no" the gather, None the CPU's default). ``native``: the CPU
    multiplies bfloat16 natively (its paths are added)."""
    f32 = "network.precision=float32"
    paths = [("dense first layer", ["network.sparse=false", "network.critic=seat",
                                    "network.belief=0", f32], None),
             ("sparse first layer", ["network.sparse=true", "network.critic=seat",
                                     "network.belief=0", f32], None),
             ("sparse, critic sees every hand", ["network.sparse=true",
                                                 "network.critic=privileged",
                                                 "network.belief=0", f32], None)]
    own = load_config(config, sets).network
    if own.belief > 0:  # the config's own belief head, on the privileged trunk it needs
        paths.append((f"sparse, critic sees every hand, belief head ({own.belief:g})",
                      ["network.sparse=true", "network.critic=privileged", f32], None))
    if native:  # the same, its products in bfloat16, the default way first
        name, last, _ = paths[-1]
        bf16 = last[:-1] + ["network.precision=bfloat16"]
        for flag, way in (("no", "gathered"), ("yes", "0/1 planes")):
            paths.append((f"{name}, bfloat16 products (first layer {way})", bf16, flag))
        paths.append(("dense first layer, bfloat16 products",
                      paths[0][1][:-1] + ["network.precision=bfloat16"], None))
    # The config's own path (its precision, the CPU's way of the first layer), its
    # update compiled: the warm-up rollout holds the compile.
    # Each path above with its update as written; the config's own path (its
    # precision, the CPU's way of the first layer) last, its update compiled.
    paths = [(name, settings + ["torch_compile=false"], flag) for name, settings, flag in paths]
    paths.append(("the config's own path, update compiled (`torch_compile`)",
                  ["torch_compile=true"], None))
    return paths


def cpu_name() -> str:
    """The processor's model name (Linux's /proc/cpuinfo, else the platform's)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of each path, in turn; the fastest is kept")
    parser.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    parser.add_argument("--snapshots", type=int, default=None,
                        help="past policies in the league's pool (default: the config's "
                             "selfplay.pool_size, as a run holds them after its first ones)")
    parser.add_argument("--set", action="append", default=[], metavar="key.path=value")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--planes", choices=("yes", "no"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # one path, its settings in --set: prints its figures as JSON
        planes = None if args.planes is None else args.planes == "yes"
        print(json.dumps(time_one(load_config(args.config, args.set), args.rollouts, planes,
                                  args.snapshots)))
        return
    paths = timed_paths(args.config, args.set, native_bfloat16())
    if args.repeats < 1 or args.rollouts < 1:
        parser.error("--rollouts and --repeats must be at least 1")
    if args.snapshots is not None and args.snapshots < 0:
        parser.error(f"--snapshots must be 0 or more, got {args.snapshots}")
    best: dict[str, tuple] = {}
    for _ in range(args.repeats):
        # Each in a fresh process: no path inherits another's state.
        for name, extra, flag in paths:
            sets = [x for v in args.set + extra for x in ("--set", v)]
            flags = [] if flag is None else ["--planes", flag]
            if args.snapshots is not None:
                flags += ["--snapshots", str(args.snapshots)]
            out = subprocess.run([sys.executable, __file__, "--one", "--rollouts",
                                  str(args.rollouts), "--config", args.config, *sets, *flags],
                                 capture_output=True, text=True, check=True).stdout
            row = (name, *json.loads(out.strip().splitlines()[-1]))
            if name not in best or row[1] > best[name][1]:
                best[name] = row
    rows = [best[name] for name, _, _ in paths]
    cfg = load_config(args.config, args.set)
    per_rollout = int(rows[0][4])
    bf16 = ("AMX tiles" if amx_tiles() else "AVX512-BF16") if native_bfloat16() else "emulated"
    print(f"CPU: {cpu_name()} (bfloat16: {bf16}).\n")
    pool = cfg.selfplay.pool_size if args.snapshots is None else args.snapshots
    print(f"`{Path(args.config).name}`: {cfg.num_games:,} games, {rows[0][5]:,} learner seats, "
          f"{pool} snapshots in the league's pool, "
          f"trunk {cfg.network.trunk}, {cfg.ppo.n_epochs} epochs, {cfg.torch_threads} torch "
          f"threads; {args.rollouts} × {per_rollout:,} samples timed per path, after a warm-up "
          f"rollout, the paths one after the other, each in its own process"
          + (f"; the fastest of {args.repeats} runs of each, the paths in turn" if args.repeats > 1
             else "") + ".\n")
    print("| path | learner samples/s (wall) | CPUs busy | learner samples per CPU-second | "
          "vs dense | wall time in updates |\n|---|---:|---:|---:|---:|---:|")
    for name, rate, busy, per_cpu, _, _, updating in rows:
        print(f"| {name} | {rate:,.0f} | {busy:.2f} | {per_cpu:,.0f} | {rate / rows[0][1]:.2f}× "
              f"| {updating:.0%} |")


if __name__ == "__main__":
    main()
