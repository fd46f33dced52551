"""Tianshou on Aluette: a DQN learns team 0's seats against random opponents.

Tested with tianshou 2.0.1, torch 2.13.0, pettingzoo 1.27.0 (``pip install
'aluette-rl[recipes]'``). Tianshou's own ``PettingZooEnv`` wraps ``aluette_env.env()``
with the infos numbered (``numeric_infos=True``: Tianshou's replay buffers refuse
text and None, which name agents in the default infos); the action mask goes to
the policies as ``mask``. ``MultiAgentOffPolicyAlgorithm``
dispatches each seat to its algorithm: one DQN for player_0 and player_2,
Tianshou's masked random player for player_1 and player_3.

    python examples/tianshou_dqn.py            # a short training run
    python examples/tianshou_dqn.py --quick    # a few hundred steps (the test)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import aluette_env
from aluette_env.commands import seed_int


def main(argv: list[str] | None = None) -> dict:
    # usage suppressed: a bad argument is one line on stderr (exit 2), as aluette's own,
    # and before Tianshou and torch load (seconds)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], usage=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="a few hundred steps")
    parser.add_argument("--seed", type=seed_int, default=0, help="0 to 2**32 - 1")
    return train(parser.parse_args(argv))


def train(args: argparse.Namespace) -> dict:
    import torch
    from tianshou.algorithm import (
        DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(aluette_env.env(num_deals=1, numeric_infos=True))

    epochs, steps_per_epoch, envs = (1, 100, 1) if args.quick else (5, 5000, 8)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    env = make_env()
    space = env.observation_space["observation"]
    net = Net(state_shape=space.shape, action_shape=env.action_space.n, hidden_sizes=[128, 128])
    dqn = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                             eps_training=0.1, eps_inference=0.0),
              optim=AdamOptimizerFactory(lr=1e-3), gamma=1.0, target_update_freq=100)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    # One algorithm object per seat: the DQN plays both seats of team 0.
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn, opponent, dqn, opponent],
                                             env=env)

    train_envs = DummyVectorEnv([make_env for _ in range(envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    train = Collector[CollectStats](algorithm, train_envs,
                                    VectorReplayBuffer(20_000, len(train_envs)),
                                    exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=False)
    train.reset()
    warmup = 256 if args.quick else 64 * envs * 10
    start = time.perf_counter()
    train.collect(n_step=warmup)  # fills the buffer first: the collection speed alone
    seconds = time.perf_counter() - start
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=epochs,
        epoch_num_steps=steps_per_epoch, collection_step_num_env_steps=10 * envs,
        test_step_num_episodes=2, batch_size=64, update_step_num_gradient_steps_per_sample=0.1,
        test_in_training=False, show_progress=False,
        multi_agent_return_reduction=lambda returns: returns[:, 0]))
    print(f"tianshou: collected {warmup} env steps at {warmup / seconds:.0f} steps/s "
          f"(DQN and random seats), then trained {epochs * steps_per_epoch} steps; best test "
          f"return of player_0: {result.best_reward:+.2f}")
    return {"steps_per_second": warmup / seconds, "best_reward": result.best_reward}


if __name__ == "__main__":
    main()
