"""Agent-steps per second of the AEC environment under random masked play
(the loop of PettingZoo's performance_benchmark), raw and inside the three
classic wrappers, next to the PettingZoo API ceiling measured in the same run:
an AEC env that does nothing but hand out a cached observation of the same
size, so the gap between the two is what the rules and the encoding cost.

    python benchmarks/bench_env.py [--seconds 3]

Prints a markdown table. Rates are per second of this process's CPU time
(one thread), so other load on the machine does not lower them.
"""

from __future__ import annotations

import argparse
import time
from typing import ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import aluette_env
from aluette_env.observation import OBS_SIZE

PLAYS_PER_MATCH = 180  # 5 deals of 36 cards: one episode of the real env


class IdleTable(AECEnv):
    """Four agents take turns for one match's worth of plays; nothing is
    computed: every observation is the same zero vector with a nine-card
    mask, every action is accepted, the match ends with reward 0."""

    metadata: ClassVar[dict] = {"name": "idle_table_v0", "render_modes": [],
                                "is_parallelizable": False}

    def __init__(self):
        self.possible_agents = [f"player_{k}" for k in range(4)]
        mask = np.zeros(48, np.int8)
        mask[:9] = 1
        self._view = {"observation": np.zeros(OBS_SIZE, np.int8), "action_mask": mask}
        self._space = spaces.Dict({"observation": spaces.Box(0, 1, (OBS_SIZE,), np.int8),
                                   "action_mask": spaces.Box(0, 1, (48,), np.int8)})

    def observation_space(self, agent):
        return self._space

    def action_space(self, agent):
        return spaces.Discrete(48)

    def observe(self, agent):
        return {key: value.copy() for key, value in self._view.items()}

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.plays = 0
        self.agent_selection = self.agents[0]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.plays += 1
        if self.plays == PLAYS_PER_MATCH:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[self.plays % 4]
        self._accumulate_rewards()


def idle_table_wrapped():
    """The idle table inside the same three wrappers as ``aluette_env.env()``."""
    env = wrappers.TerminateIllegalWrapper(IdleTable(), illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def agent_steps_per_second(make_env, seconds: float) -> float:
    env, rng, steps, seed = make_env(), np.random.default_rng(0), 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            legal = None if term or trunc else np.flatnonzero(obs["action_mask"])
            env.step(None if legal is None else int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per row")
    args = parser.parse_args(argv)
    rows = [("PettingZoo API ceiling: an AEC env that computes nothing, raw", IdleTable),
            ("the same inside the 3 classic wrappers", idle_table_wrapped),
            ("`aluette_env.raw_env()` (observations + masks)", aluette_env.raw_env),
            ("`aluette_env.env()` (the 3 classic wrappers)", aluette_env.env)]
    print("| environment (a random legal card each step) | agent-steps per CPU-second |\n"
          "|---|---:|")
    for what, make_env in rows:
        print(f"| {what} | {agent_steps_per_second(make_env, args.seconds):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
