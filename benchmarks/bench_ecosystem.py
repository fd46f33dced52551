"""Aluette through other libraries: env steps per CPU-second of a random legal
card each step through each library's own entry point (PettingZoo, OpenSpiel,
OpenSpiel's ``rl_environment``, TorchRL, Tianshou, RLlib), and the CPU time per
move of OpenSpiel's ISMCTS as the ``ismcts`` player.

    python benchmarks/bench_ecosystem.py [--steps 3000] [--moves 40]

Prints markdown tables for docs/ECOSYSTEM.md. Every figure is CPU time of this
process (one thread), so a busy machine slows it less than wall time; a library
that is not installed is left out with a note.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import aluette_env
from aluette_env.game import AGENTS


def per_cpu_second(run: Callable[[int], int], steps: int) -> float:
    run(min(steps, 200))  # warm up: imports, first calls
    start = time.process_time()
    done = run(steps)
    return done / (time.process_time() - start)


def pettingzoo(steps: int) -> int:
    env, rng, done = aluette_env.env(num_deals=1), np.random.default_rng(0), 0
    while done < steps:
        env.reset(seed=done)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
    return done


def openspiel(steps: int) -> int:
    import pyspiel

    import aluette_env.openspiel  # noqa: F401 - registers the game
    game, rng, done = pyspiel.load_game("python_aluette(num_deals=1)"), \
        np.random.default_rng(0), 0
    while done < steps:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice(state.legal_actions())))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                done += 1
    return done


def rl_environment(steps: int) -> int:
    import pyspiel
    from open_spiel.python import rl_environment as rl

    import aluette_env.openspiel  # noqa: F401
    env = rl.Environment(pyspiel.load_game("python_aluette(num_deals=1)"), seed=0)
    rng, done = np.random.default_rng(0), 0
    while done < steps:
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
            done += 1
    return done


def torchrl(steps: int) -> int:
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(env=aluette_env.env(num_deals=1), use_mask=True,
                            group_map={"players": list(AGENTS)}, seed=0)

    def masked_random(td):  # TorchRL's RandomPolicy would ignore the mask
        mask = td["players", "action_mask"].float()
        td["players", "action"] = torch.multinomial(mask, 1).squeeze(-1)
        return td

    done = 0
    while done < steps:
        done += env.rollout(36, masked_random, break_when_any_done=True).numel()
    return done


def tianshou(steps: int) -> int:
    from tianshou.env.pettingzoo_env import PettingZooEnv

    env, rng, done = PettingZooEnv(aluette_env.env(num_deals=1, numeric_infos=True)), \
        np.random.default_rng(0), 0
    while done < steps:
        obs, _ = env.reset(seed=done)
        term = False
        while not term:
            obs, _, term, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
            done += 1
    return done


def rllib(steps: int) -> int:
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env, rng, done = PettingZooEnv(aluette_env.env(num_deals=1)), np.random.default_rng(0), 0
    while done < steps:
        obs, _ = env.reset(seed=done)
        over = False
        while not over:
            (agent, o), = obs.items()
            obs, _, terms, _, _ = env.step(
                {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            over = terms["__all__"]
            done += 1
    return done


PATHS = [
    ("PettingZoo `aluette_env.env()`", pettingzoo),
    ("OpenSpiel `python_aluette` (`apply_action`)", openspiel),
    ("OpenSpiel `rl_environment.Environment`", rl_environment),
    ("TorchRL `PettingZooWrapper(use_mask=True)`", torchrl),
    ("Tianshou `PettingZooEnv`", tianshou),
    ("RLlib `PettingZooEnv`", rllib),
]


def ismcts_cpu_per_move(simulations: int, moves: int) -> float:
    """Mean CPU seconds of an ismcts decision over ``moves`` positions of random
    deals (a random number of cards already played, at least two legal cards)."""
    from aluette_env.players import load_player
    player = load_player(f"ismcts:simulations={simulations}", seed=0)
    env, rng, total = aluette_env.raw_env(num_deals=1), np.random.default_rng(1), 0.0
    for k in range(moves):
        env.reset(seed=k)
        for _ in range(int(rng.integers(0, 28))):
            o = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        o = env.observe(env.agent_selection)
        start = time.process_time()
        player.act(o["observation"], o["action_mask"])
        total += time.process_time() - start
    return total / moves


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="env steps per library")
    parser.add_argument("--moves", type=int, default=40, help="ismcts moves per budget")
    args = parser.parse_args(argv)
    print("| library entry point | env steps per CPU-second (random legal cards) |\n|---|---|")
    for name, run in PATHS:
        try:
            rate = per_cpu_second(run, args.steps)
        except ImportError as err:
            print(f"| {name} | not installed ({err.name}) |")
            continue
        print(f"| {name} | {rate:,.0f} |", flush=True)
    print("\n| player | CPU ms per move |\n|---|---|")
    for simulations in (25, 100):
        ms = 1000 * ismcts_cpu_per_move(simulations, args.moves)
        print(f"| `ismcts:simulations={simulations}` | {ms:.0f} |", flush=True)


if __name__ == "__main__":
    main()
