"""The Stable-Baselines3 backend: MaskablePPO (sb3-contrib) on torch.

- :mod:`.vecenv`: SB3's ``VecEnv`` over :class:`training.selfplay.LearnerGames`.
- :mod:`.policy`: the shared card trunk, masked logits, policies as players.
- :mod:`.checkpoints`: MaskablePPO zips, run folders as players (``aluette.loaders: sb3``).
- :mod:`.train`: the training loop (callback: snapshots, evaluation, checkpoints).
"""
