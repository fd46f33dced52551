"""The Stable-Baselines3 backend: MaskablePPO (sb3-contrib) on torch.

PPO, read in the order it runs (``aluette train CONFIG``, :func:`.train.train`):

1. **The config**: :mod:`training.config` (its keys: docs/CONFIG.md).
2. **The run folder**: :func:`training.runs.open_run` (new or resumed, the
   state, crash safety); :func:`.train.resume_point` picks the checkpoint.
3. **Who plays**: :class:`training.league.OpponentPool` (the league, PFSP) and
   :class:`training.league.PartnerPool` (partner games), built in
   :func:`.train.train` and :func:`.train.build_partners`.
4. **The games**: :class:`training.rollouts.AllSeatGames` over the batched engine:
   self-play, league and partner games; which seats are samples; rewards onto
   each column's last decision of a deal; the bootstrap value
   (``AllSeatGames.collect``, ``_score``, ``_bootstrap``). :class:`.vecenv.AllSeatVecEnv`
   is its SB3 face (:func:`.train.build_env`).
5. **The network**: :class:`.network.CardTrunk` (the first layer on the engine's
   index lists, :mod:`.gather`), :class:`.network.CardPolicy` (masked logits, the
   privileged critic, the belief head), built in :func:`.train.build_model`; a
   warm start in :func:`.train.load_onnx_weights`.
6. **A rollout**: :meth:`.ppo.AluettePPO.collect_rollouts` asks ``AllSeatGames``
   for whole rollouts, sampling with ``CardPolicy.sample``, and
   :func:`.ppo.fill_buffer` adds them to SB3's rollout buffer; GAE is SB3's
   ``RolloutBuffer.compute_returns_and_advantage``.
7. **The update**: :meth:`.ppo.AluettePPO.train`, written out: the clipped
   surrogate, the value, entropy and belief losses, the optimiser step
   (``MaskablePPO.train``'s numbers, ``tests/test_ppo.py``); the learning
   rate's fall in :func:`.train.ppo_settings`.
8. **Around the loop**: :class:`.train.TrainCallback`: snapshots into the league
   (:mod:`.league`'s ``SnapshotStack`` plays them in one pass), evaluations
   (:func:`training.evaluate.evaluate_run`: opponents, panel, partner panel,
   the learning curve), checkpoints (:mod:`.checkpoints`), stop requests.
9. **After**: ``aluette export`` (:mod:`training.export`) writes the ONNX player.

Modules:

- :mod:`.vecenv`: SB3's ``VecEnv`` over ``AllSeatGames``' learner columns.
- :mod:`.network`: the shared card trunk, the heads, policies as players
  (:mod:`.policy`: its deprecated old name, for checkpoints that name it).
- :mod:`.ppo`: one PPO update in the order it runs.
- :mod:`.gather`: the sparse first layer's gather-sum.
- :mod:`.league`: the snapshots played as one network a step.
- :mod:`.checkpoints`: MaskablePPO zips, run folders as players (``aluette.loaders: sb3``).
- :mod:`.train`: the training loop (callback: snapshots, evaluation, checkpoints).
"""
