"""RLlib on Aluette through RLlib's own ``PettingZooEnv``: PPO on the new API
stack, one masked policy shared by the four seats.

Tested with ray[rllib] 2.60.0, torch 2.13.0, pettingzoo 1.27.0 (``pip install
'aluette-rl[distributed]'``). This is RLlib's generic path for any PettingZoo
AEC env, not the project's RLlib backend (``aluette train`` with ``backend:
rllib`` steps many tables at once in its own env runner and is much faster).
``PettingZooEnv`` hands RLlib the seat to act with its ``{"observation",
"action_mask"}`` dict; the RLModule is the project's ``MaskedActorCritic``
(illegal cards' logits at the lowest float, RLlib's action-masking pattern), so
no illegal card is sampled. The rewards of a deal's end reach the seats that
are not acting at their next turn (RLlib sums them until then).

    python examples/rllib_pettingzoo.py            # ten training iterations
    python examples/rllib_pettingzoo.py --quick    # one small iteration (the test)
"""

from __future__ import annotations

import argparse
import time

import aluette_env
from aluette_env.commands import seed_int


def main(argv: list[str] | None = None) -> dict:
    # usage suppressed: a bad argument is one line on stderr (exit 2), as aluette's own
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], usage=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="one small iteration")
    parser.add_argument("--seed", type=seed_int, default=0, help="0 to 2**32 - 1")
    args = parser.parse_args(argv)
    iterations, batch = (1, 144) if args.quick else (10, 4000)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    from training.rllib.module import MaskedActorCritic

    register_env("aluette", lambda config: PettingZooEnv(aluette_env.env(num_deals=1)))
    ray.init(address="local", num_cpus=1, include_dashboard=False, logging_level="ERROR")
    config = (
        PPOConfig()
        .environment("aluette")
        .env_runners(num_env_runners=0)
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=MaskedActorCritic,
                                   model_config={"trunk": [128], "pi": [64], "vf": [64]})}))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 512),
                  num_epochs=2, lr=3e-4, gamma=1.0)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    try:
        steps, seconds = 0, 0.0
        for _ in range(iterations):
            start = time.perf_counter()
            result = algo.train()
            seconds += time.perf_counter() - start
            steps = result["env_runners"]["num_env_steps_sampled_lifetime"]
        print(f"rllib: {steps} env steps in {iterations} iterations at {steps / seconds:.0f} "
              f"steps/s (sampling and learning, one process)")
        return {"steps": steps, "steps_per_second": steps / seconds}
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
