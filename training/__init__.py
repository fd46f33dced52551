"""Self-play training of Aluette policies, from config files in ``configs/``.

- :mod:`.config`: every typed config (pydantic) and its loader, validated before
  anything runs: training runs, expert iteration, recipes.
- :mod:`.runs`: run folders (state, resume, SIGKILL safety), for every backend;
  :mod:`.atomic` (atomic writes), :mod:`.evaluate` (a run's evaluations),
  :mod:`.curve` (the learning curve) and :mod:`.stopping` (the stop on a signal)
  beside it.
- :mod:`.selfplay`: the learner's view on the batched engine and the opponent
  pool, shared by every backend.
- :mod:`.imitation`: a rule-based player's demonstrations, for a behaviour-cloning
  start (``pretrain``).
- :mod:`.sb3`: the Stable-Baselines3 / sb3-contrib MaskablePPO backend.
- :mod:`.rllib`: the Ray RLlib PPO backend (``backend: rllib``; the optional
  ``[distributed]`` extra), one machine or a cluster.
- :mod:`.players`: torch policies as players (greedy or sampled), for every backend.
- :mod:`.expert_iteration`: the search distilled into the policy (its data, the
  distillation, the loop); :mod:`.recipe`: the stages as one command.
- :mod:`.export`: a trained policy as a torch-free ONNX player.
- :mod:`.cli`, :mod:`.export`, :mod:`.exploit`: the ``aluette train`` / ``export``
  / ``exploit`` commands, registered as ``aluette.commands`` entry points through
  the public plugin API :mod:`aluette_env.commands`.

May import: :mod:`aluette_env` (of its apps, only :mod:`aluette_env.commands`) and
the training libraries; :mod:`aluette_env` never imports this package (it finds
the commands, players and loaders through entry points).
"""

import os


def omp_wait_policy(load: float | None = None, cpus: int | None = None) -> str | None:
    """``PASSIVE`` when other processes already keep every core busy, else None
    (OpenMP's default: waiting threads spin a while before they sleep).

    Measured with the default config's 2 torch threads: on a machine shared
    with two busy processes (load about 4, ``benchmarks/bench_train.py``),
    2,356 learner samples/s spinning against 26,784 sleeping, because a
    spinning thread burns the core its sibling needs; on the idle machine,
    ``aluette train configs/default.yaml`` for 90 s reached 3.98 M samples
    spinning against 3.04 M sleeping. So sleep only when the cores are taken.
    """
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # not every platform has it
            return None
    cpus = cpus or os.cpu_count() or 1
    return "PASSIVE" if load >= cpus else None


# Before torch loads OpenMP; a user's own setting wins.
if "OMP_WAIT_POLICY" not in os.environ and omp_wait_policy():
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
