"""One PPO update, in the order it runs: the rollout, the advantages, every loss
term, the optimiser step.

:class:`AluettePPO` is sb3-contrib's ``MaskablePPO`` (its ``learn`` loop,
callbacks, logger, learning-rate schedule and checkpoints) with its two steps
written out here:

1. **The rollout** (:meth:`AluettePPO.collect_rollouts`): the all-seat games
   (:class:`training.rollouts.AllSeatGames`) play ``n_steps`` decisions of
   every learner column, sampling the policy (:meth:`.network.CardPolicy.sample`),
   and :func:`fill_buffer` hands them to SB3's rollout buffer.
2. **The advantages**: GAE(lambda) over the buffer, SB3's
   ``RolloutBuffer.compute_returns_and_advantage``.
3. **The losses** (:meth:`AluettePPO.train`), on each minibatch of each epoch:
   the clipped policy loss, the value loss, the entropy bonus and the belief
   head's loss, summed with their weights in one line.
4. **The optimiser step**: backward, the gradient's norm clipped, Adam's step.

With :attr:`AluettePPO.compile_update` (the config's ``torch_compile``) the
network's passes of step 3 (:meth:`.network.CardPolicy.evaluate`, forward and
backward) run compiled by ``torch.compile``; the loss terms stay as written.

:meth:`AluettePPO.train` is ``MaskablePPO.train`` term for term (the same
numbers from the same batches: ``tests/test_ppo.py``) plus the belief loss and
the logs under ``losses/`` (CleanRL's names). CleanRL's ``ppo.py`` is the model.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.utils import explained_variance

from ..rollouts import Rollout
from .network import hidden_planes
from .vecenv import AllSeatVecEnv


def fill_buffer(buffer: MaskableRolloutBuffer, rollout: Rollout) -> None:
    """The adapter from the all-seat games to SB3: ``rollout``'s ``n_steps`` rows
    added to the (reset) ``buffer`` through its public ``add``, which keeps its
    position and fullness.

    SB3's own ``collect_rollouts`` adds one row per ``env.step``; these games
    cannot be stepped so: a column's next observation exists only once the
    seats after it have played, and a deal's points land on each column's
    *last* decision of the deal, rows after it was made. So the games play the
    whole rollout into arrays first (:meth:`AllSeatGames.collect`), and the rows
    go in here, once they are final. A copy of a few tens of MB a rollout."""
    if buffer.pos != 0 or len(rollout.observations) != buffer.buffer_size:
        raise ValueError(f"fill_buffer needs an empty buffer of {len(rollout.observations)} "
                         f"rows, got one of {buffer.buffer_size} at row {buffer.pos}")
    for t in range(buffer.buffer_size):
        buffer.add(rollout.observations[t], rollout.actions[t], rollout.rewards[t],
                   rollout.episode_starts[t], torch.from_numpy(rollout.values[t]),
                   torch.from_numpy(rollout.log_probs[t]),
                   action_masks=rollout.action_masks[t])


def rollout_arrays(buffer: MaskableRolloutBuffer) -> dict[str, np.ndarray]:
    """Arrays for :class:`Rollout` in the dtypes and shapes of ``buffer``'s, so
    :func:`fill_buffer` copies without conversion (every row is written)."""
    arrays = {name: np.empty_like(getattr(buffer, name)) for name in Rollout.FIELDS}
    arrays["actions"] = arrays["actions"][..., 0]  # SB3 keeps a trailing action dim
    return arrays


#: torch.compile's backend for :attr:`AluettePPO.compile_update` (tests trace
#: with "eager": the same capture, without generating code).
COMPILE_BACKEND = "inductor"


class AluettePPO(MaskablePPO):
    """MaskablePPO whose rollout is the all-seat games' and whose update is
    written out term by term (the module's docstring)."""

    #: The update's network passes compiled by torch.compile (config ``torch_compile``).
    compile_update = False

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_compiled"]

    def _evaluate(self):
        """The policy's :meth:`~.network.CardPolicy.evaluate` as the update calls it:
        compiled once for the policy when :attr:`compile_update` is set (a second
        graph for the rollout's last, shorter minibatch)."""
        if not self.compile_update:
            return self.policy.evaluate
        compiled = getattr(self, "_compiled", None)
        if compiled is None or compiled[0] is not self.policy:
            self._compiled = compiled = (self.policy, torch.compile(
                self.policy.evaluate, dynamic=False, backend=COMPILE_BACKEND))
        return compiled[1]

    def _setup_learn(self, *args, **kwargs):
        # Without TensorBoard or printing, SB3's default logger writes nowhere but
        # still makes an empty SB3-<date> folder in the temporary directory at each
        # learn(); the run's own files (metrics.jsonl) hold what it records.
        if self.tensorboard_log is None and self.verbose == 0 and not self._custom_logger:
            self.set_logger(Logger(folder=None, output_formats=[]))
        return super()._setup_learn(*args, **kwargs)

    def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps,
                         use_masking: bool = True) -> bool:
        if not isinstance(env, AllSeatVecEnv):
            raise TypeError(f"AluettePPO plays the all-seat games (AllSeatVecEnv), got "
                            f"{type(env).__name__}")
        # 1. The rollout: the policy samples every learner decision.
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        callback.on_rollout_start()
        policy = self.policy

        def decide(obs: np.ndarray, masks: np.ndarray):
            actions, values, log_probs = policy.sample(torch.as_tensor(obs, dtype=torch.float32),
                                                       masks)
            return actions.numpy(), values.numpy(), log_probs.numpy()

        rollout = env.games.collect(n_rollout_steps, decide, **rollout_arrays(rollout_buffer))
        fill_buffer(rollout_buffer, rollout)
        self.num_timesteps += n_rollout_steps * env.num_envs
        elapsed = round(time.time() - self.start_time / 1e9, 6)
        for _, ret, length in rollout.episodes:
            self.ep_info_buffer.append({"r": ret, "l": length, "t": elapsed})
        callback.update_locals(locals())
        if not callback.on_step():
            return False
        # 2. The advantages: GAE(lambda), backwards over the rows,
        #    delta_t = r_t + gamma * V_{t+1} * (1 - start_{t+1}) - V_t and
        #    A_t = delta_t + gamma * lambda * (1 - start_{t+1}) * A_{t+1};
        #    the returns (the value's target) A_t + V_t. After the last row, the
        #    bootstrap of each column's next decision (AllSeatGames._bootstrap).
        rollout_buffer.compute_returns_and_advantage(
            last_values=torch.as_tensor(rollout.last_values), dones=rollout.last_dones)
        callback.on_rollout_end()
        return True

    def train(self) -> None:
        """The update on the rollout in the buffer: ``n_epochs`` passes over it in
        shuffled minibatches of ``batch_size``, one optimiser step each."""
        policy, buffer = self.policy, self.rollout_buffer
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)
        clip_range_vf = None if self.clip_range_vf is None else \
            self.clip_range_vf(self._current_progress_remaining)
        # Before they are normalised: how much noise each advantage carries (what
        # a critic that sees every hand is meant to lower).
        self.logger.record("train/advantage_variance", float(np.var(buffer.advantages)))
        self.logger.record("train/return_variance", float(np.var(buffer.returns)))
        logs: dict[str, list[float]] = {"policy_gradient_loss": [], "value_loss": [],
                                        "entropy_loss": [], "belief_loss": [],
                                        "clip_fraction": []}
        continue_training = True
        evaluate = self._evaluate()
        for _ in range(self.n_epochs):
            approx_kl_divs = []
            for batch in buffer.get(self.batch_size):
                out = evaluate(batch.observations, batch.actions.long().flatten(),
                               batch.action_masks, belief=True)
                values = out.values.flatten()
                advantages = batch.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

                # 3a. The policy: the clipped surrogate.
                ratio = torch.exp(out.log_prob - batch.old_log_prob)
                policy_loss = -torch.min(advantages * ratio,
                                         advantages * torch.clamp(ratio, 1 - clip_range,
                                                                  1 + clip_range)).mean()
                # 3b. The value: squared error to the returns (optionally clipped
                #     around the rollout's values).
                if clip_range_vf is not None:
                    values = batch.old_values + torch.clamp(values - batch.old_values,
                                                            -clip_range_vf, clip_range_vf)
                value_loss = torch.nn.functional.mse_loss(batch.returns, values)
                # 3c. The entropy bonus (a loss: minus the mean entropy).
                entropy_loss = -torch.mean(out.entropy)
                # 3d. The belief head: who holds each card the seat cannot see
                #     (the privileged planes), on every belief_every-th row.
                belief_loss = None
                if out.beliefs is not None:
                    belief_loss = torch.nn.functional.binary_cross_entropy_with_logits(
                        out.beliefs, hidden_planes(batch.observations[::policy.belief_every]))

                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                if belief_loss is not None:
                    loss = loss + policy.belief_coef * belief_loss

                logs["policy_gradient_loss"].append(policy_loss.item())
                logs["value_loss"].append(value_loss.item())
                logs["entropy_loss"].append(entropy_loss.item())
                if belief_loss is not None:
                    logs["belief_loss"].append(belief_loss.item())
                logs["clip_fraction"].append(
                    torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
                # The approximate KL of the new policy from the rollout's
                # (http://joschu.net/blog/kl-approx.html), to stop early at target_kl.
                with torch.no_grad():
                    log_ratio = out.log_prob - batch.old_log_prob
                    approx_kl_div = torch.mean((torch.exp(log_ratio) - 1) - log_ratio).numpy()
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    break

                # 4. The optimiser step.
                policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), self.max_grad_norm)
                policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break

        self.logger.record("train/explained_variance", explained_variance(
            buffer.values.flatten(), buffer.returns.flatten()))
        for name, values in logs.items():
            if values:
                self.logger.record(f"train/{name}", np.mean(values))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)
        for key, value in list(self.logger.name_to_value.items()):
            if key.startswith("train/") and "loss" in key:
                self.logger.record("losses/" + key.removeprefix("train/"), value)
