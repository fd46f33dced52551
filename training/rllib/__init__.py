"""The Ray RLlib training backend (``backend: rllib`` in a training config).

- :mod:`.runner`: the env runner that feeds RLlib batches: whole matches of
  the batched engine for thousands of games at once, one episode per
  (match, learner seat), the SB3 backend's all-seat league.
- :mod:`.module`: the action-masking actor-critic RLModule, a trained module as
  a player (and fixed players as modules, for multi-agent setups of :mod:`.env`).
- :mod:`.env`: Aluette as an RLlib ``MultiAgentEnv`` (lockstep batched matches,
  or the AEC env), for RLlib setups of your own with a module per seat.
- :mod:`.train`: the training loop, run folders, checkpoints, resume.
- :mod:`.players`: RLlib run folders as player specs (entry point
  ``aluette.loaders: rllib``) and the export source.

Importing this package imports nothing; its modules import ray (the optional
``[distributed]`` extra).
"""
