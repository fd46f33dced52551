"""Expert iteration: the fast policy learns what the search knows.

One iteration of the loop (``aluette expert-iteration configs/history/expert_iteration.yaml``):

1. **Expert data** (:func:`generate`, also ``aluette expert-data CONFIG``). The
   current policy plays whole matches against itself on the batched engine
   (every seat, sampled at ``data.temperature``); from each shard's matches
   ``data.positions_per_shard`` decisions with more than one legal card are
   drawn, and :meth:`ExpertPlayer.card_values` labels each with the expert's
   value of every legal card (the expert guided by, and rolling out with, the
   same policy; ``data.worlds`` worlds). Shards are independent (each has its
   own seed), written atomically, and computed by ``data.workers`` processes;
   a stopped or killed run resumes by computing the missing shards only.
2. **Distillation** (:func:`distill`). The policy (the previous iteration's, or
   ``start`` for the first) is fitted by cross-entropy to a target that mixes the
   expert's own card (``best_weight``) with a softmax of its card values at
   temperature ``tau`` (deal points); a KL term (``anchor``) to the guiding
   policy's probabilities keeps it near the policy that made the data where
   the expert has nothing to say; the data sets of the ``replay`` iterations
   before are fitted too; the value head is fitted, on the policy's
   features (its error does not reach the shared trunk), to the returns that
   followed in self-play (the undiscounted return PPO's value head learns).
3. **PPO** (:func:`ppo_phase`, when ``ppo.config`` names a training config). The
   distilled policy is trained on by self-play with that config, warm-started
   from its export, as a training run folder ``iter-N/ppo`` (resumable like any
   run). Its ``best.zip`` is the iteration's policy where it beats the distilled
   policy head to head over ``ppo.keep_deals`` pairs (:func:`kept_stage`,
   ``iter-N/keep.json``); otherwise the distilled policy is, so a phase that
   loses what the distillation gained does not pass the loss on
   (``ppo.keep: ppo`` keeps the phase's policy always, as v5 and v7's loops did).
4. **Export and evaluation.** The fitted (and PPO) policies are exported to ONNX
   (with :func:`training.export.export_policy`'s own verification) and evaluated
   by duplicate deals against each of ``eval.opponents`` (``iter-N/eval.json``).
   The next iteration's data is labelled by the expert running on the
   iteration's policy, and the next distillation starts from it.

The package, a module per job:

- :mod:`.data`: the data set's format (:data:`FIELDS`, ``dataset.json`` and
  ``shard-NNNNN.npz`` files) and the shards that make it (:func:`generate`,
  :func:`load_dataset`);
- :mod:`.distill`: the distillation (:func:`distill`);
- :mod:`.loop`: the loop (:func:`run_loop`, :func:`ppo_phase`, :func:`kept_stage`) and the
  ``expert-data`` and ``expert-iteration`` commands.

Its config (:class:`~training.config.LoopConfig`, read by
:func:`~training.config.load_loop_config`) is in :mod:`training.config` with
every other; its names are re-exported here.

May import numpy and :mod:`aluette_env` at the top; torch and SB3 only inside
the functions that need them (data generation needs neither).
"""

from ..config import (
    MAX_SHARDS, DataConfig, DistillConfig, LoopConfig, LoopEvalConfig, NetworkSpec,
    PPOPhaseConfig, check_policy, load_loop_config, ppo_config,
)
from .data import (
    FIELDS, FORMAT, FORMAT_VERSION, MANIFEST, ExpertData, check_data_folder, expert_move,
    generate, label_shard, load_dataset, open_dataset, shard_path, shard_problem,
)
from .distill import distill, distill_losses, new_model, onnx_path, targets
from .loop import DATA_COMMAND, LOOP_COMMAND, kept_stage, ppo_phase, run_loop

__all__ = [
    "DATA_COMMAND", "FIELDS", "FORMAT", "FORMAT_VERSION", "LOOP_COMMAND", "MANIFEST",
    "MAX_SHARDS", "DataConfig", "DistillConfig", "ExpertData", "LoopConfig", "LoopEvalConfig",
    "NetworkSpec", "PPOPhaseConfig", "check_data_folder", "check_policy", "distill",
    "distill_losses", "expert_move", "generate", "kept_stage", "label_shard", "load_dataset",
    "load_loop_config", "new_model", "onnx_path", "open_dataset", "ppo_config", "ppo_phase",
    "run_loop", "shard_path", "shard_problem", "targets",
]
