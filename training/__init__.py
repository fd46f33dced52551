"""Self-play training of Aluette policies, from config files in ``configs/``.

- :mod:`.config`: the typed config (pydantic), validated before anything runs.
- :mod:`.runs`: run folders (atomic writes, state, resume, the learning curve).
- :mod:`.selfplay`: the learner's view on the batched engine and the opponent
  pool, shared by every backend.
- :mod:`.sb3`: the Stable-Baselines3 / sb3-contrib MaskablePPO backend.
- :mod:`.rllib`: the Ray RLlib PPO backend (``backend: rllib``; the optional
  ``[distributed]`` extra), one machine or a cluster.
- :mod:`.players`: torch policies as players (greedy or sampled), for every backend.
- :mod:`.export`: a trained policy as a torch-free ONNX player.
- :mod:`.cli`: the ``aluette train`` / ``aluette export`` commands (entry points).

May import: :mod:`aluette_env` and the training libraries; :mod:`aluette_env`
never imports this package.
"""
