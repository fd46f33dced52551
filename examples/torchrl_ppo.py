"""TorchRL on Aluette: a masked actor collects with ``Collector`` and
learns with a few PPO updates.

Tested with torchrl 0.14.1, tensordict 0.14.3, torch 2.13.0, pettingzoo 1.27.0
(``pip install 'aluette-rl[recipes]'``). TorchRL's ``PettingZooWrapper`` takes
``aluette_env.env()`` as it is (``use_mask=True``: one seat acts at a time); the
four seats form one group, ``players``, that shares one policy and one critic.
Per step the group carries ``mask`` (the seat to act) and ``action_mask`` (its
legal cards; all True for the seats not acting). The actor samples from a
``MaskedCategorical`` over the legal cards, so it never plays an illegal card
(TorchRL's ``RandomPolicy`` samples the action spec and ignores the mask). The
critic values every seat at every step (the rewards reach all four seats at a
deal's end), advantages come from GAE per seat, and the PPO loss is taken on
the acting seats' steps only.

    python examples/torchrl_ppo.py            # a short training run
    python examples/torchrl_ppo.py --quick    # two small batches (the test)
"""

from __future__ import annotations

import argparse
import time

import aluette_env
from aluette_env.commands import seed_int
from aluette_env.game import AGENTS

GROUP = "players"


def main(argv: list[str] | None = None) -> dict:
    # usage suppressed: a bad argument is one line on stderr (exit 2), as aluette's own,
    # and before TorchRL and torch load (seconds)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], usage=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="two small batches")
    parser.add_argument("--seed", type=seed_int, default=0, help="0 to 2**32 - 1")
    return train(parser.parse_args(argv))


def train(args: argparse.Namespace) -> dict:
    import torch
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    def make_env(seed: int) -> PettingZooWrapper:
        return PettingZooWrapper(env=aluette_env.env(num_deals=1), use_mask=True,
                                 group_map={GROUP: list(AGENTS)}, seed=seed)

    batches, frames = (2, 72) if args.quick else (20, 2304)
    torch.manual_seed(args.seed)

    env = make_env(args.seed)
    check_env_specs(env)
    obs_key = (GROUP, "observation", "observation")
    size = env.observation_spec[obs_key].shape[-1]

    class Net(nn.Module):
        def __init__(self, out: int):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(size, 128), nn.Tanh(), nn.Linear(128, out))

        def forward(self, obs: torch.Tensor) -> torch.Tensor:
            return self.body(obs.float())

    actor = ProbabilisticActor(
        TensorDictModule(Net(48), in_keys=[obs_key], out_keys=[(GROUP, "logits")]),
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")], distribution_class=MaskedCategorical,
        return_log_prob=True, log_prob_key=(GROUP, "sample_log_prob"))
    critic = ValueOperator(Net(1), in_keys=[obs_key], out_keys=[(GROUP, "state_value")])

    collector = Collector(make_env(args.seed + 1), actor, frames_per_batch=frames,
                          total_frames=frames * batches)
    gae = GAE(gamma=1.0, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01)
    for module in (gae, loss):
        module.set_keys(reward=(GROUP, "reward"), done=(GROUP, "done"),
                        terminated=(GROUP, "terminated"), value=(GROUP, "state_value"),
                        advantage=(GROUP, "advantage"), value_target=(GROUP, "value_target"))
    loss.set_keys(action=(GROUP, "action"), sample_log_prob=(GROUP, "sample_log_prob"))
    optimizer = torch.optim.Adam(loss.parameters(), lr=3e-4)

    collect_seconds, steps, illegal, losses = 0.0, 0, 0, []
    start = time.perf_counter()
    for data in collector:
        collect_seconds += time.perf_counter() - start
        acting = data[GROUP, "mask"]
        chosen = data[GROUP, "action"][acting]
        legal = data[GROUP, "action_mask"][acting]
        illegal += int((~legal.gather(-1, chosen[:, None])).sum())
        steps += data.numel()
        with torch.no_grad():
            gae(data)
        # The acting seats' steps, flat, under the group's keys as the modules read them.
        turns = TensorDict({GROUP: data[GROUP][acting]}, batch_size=[int(acting.sum())])
        for _ in range(4):
            parts = loss(turns)
            total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
        losses.append(float(total.detach()))
        start = time.perf_counter()
    print(f"torchrl: {steps} env steps collected at {steps / collect_seconds:.0f} steps/s "
          f"(masked actor, illegal cards: {illegal}); {len(losses)} PPO batches, last loss "
          f"{losses[-1]:+.3f}")
    return {"steps_per_second": steps / collect_seconds, "illegal": illegal, "losses": losses}


if __name__ == "__main__":
    main()
