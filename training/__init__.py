"""Self-play training of Aluette policies, from config files in ``configs/``.

- :mod:`.config`: the typed config (pydantic), validated before anything runs.
- :mod:`.runs`: run folders (atomic writes, state, resume, the learning curve).
- :mod:`.selfplay`: the learner's view on the batched engine and the opponent
  pool, shared by every backend.
- :mod:`.imitation`: a rule-based player's demonstrations, for a behaviour-cloning
  start (``pretrain``).
- :mod:`.sb3`: the Stable-Baselines3 / sb3-contrib MaskablePPO backend.
- :mod:`.rllib`: the Ray RLlib PPO backend (``backend: rllib``; the optional
  ``[distributed]`` extra), one machine or a cluster.
- :mod:`.players`: torch policies as players (greedy or sampled), for every backend.
- :mod:`.export`: a trained policy as a torch-free ONNX player.
- :mod:`.cli`: the ``aluette train`` / ``aluette export`` commands (entry points).

May import: :mod:`aluette_env` and the training libraries; :mod:`aluette_env`
never imports this package.
"""

import os

# Before torch loads OpenMP: its threads sleep, not spin, while they wait. On a
# shared machine a spinning thread burns the core its sibling needs; measured
# (benchmarks/bench_train.py, 2 torch threads, two other busy processes): 2,356
# learner samples/s spinning, 26,784 sleeping. A user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
