"""The Ray RLlib training backend (``backend: rllib`` in a training config).

- :mod:`.env`: Aluette as an RLlib ``MultiAgentEnv`` (lockstep batched matches,
  or the AEC env).
- :mod:`.module`: the action-masking actor-critic RLModule, fixed players as
  modules, a trained module as a player.
- :mod:`.seating`: the agent-to-module mapping (learner, snapshots, fixed players).
- :mod:`.train`: the training loop, run folders, checkpoints, resume.
- :mod:`.players`: RLlib run folders as player specs (entry point
  ``aluette.loaders: rllib``) and the export source.

Importing this package imports nothing; its modules import ray (the optional
``[distributed]`` extra).
"""
