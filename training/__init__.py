"""Self-play training of Aluette policies, from config files in ``configs/``.

- :mod:`.config`: every typed config (pydantic) and its loader, validated before
  anything runs: training runs, expert iteration, recipes.
- :mod:`.runs`: run folders (state, resume, SIGKILL safety), for every backend;
  :mod:`.atomic` (atomic writes), :mod:`.evaluate` (a run's evaluations),
  :mod:`.curve` (the learning curve) and :mod:`.stopping` (the stop on a signal)
  beside it.
- :mod:`.league`: who the learner meets (the opponent and partner pools, PFSP),
  and :mod:`.rollouts`: its games on the batched engine, shared by every
  backend (:mod:`.selfplay`: their deprecated old name).
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


def busy_elsewhere(reads: int = 3, gap: float = 0.005) -> float | None:
    """How many other processes are running or ready to run now: the median of
    ``reads`` reads of Linux's count of runnable tasks (``/proc/loadavg``'s
    fourth field), ``gap`` seconds apart, less this process. None where there
    is no such count."""
    import time
    counts = []
    for k in range(reads):
        try:
            with open("/proc/loadavg", encoding="ascii") as f:
                counts.append(int(f.read().split()[3].split("/")[0]) - 1)
        except (OSError, ValueError, IndexError):
            return None
        if k + 1 < reads:
            time.sleep(gap)
    return float(sorted(counts)[len(counts) // 2])


def omp_wait_policy(load: float | None = None, cpus: int | None = None) -> str | None:
    """``PASSIVE`` when other processes already keep every core busy, else None
    (OpenMP's default: waiting threads spin a while before they sleep).

    ``load`` is how many other processes want a core now (:func:`busy_elsewhere`;
    the 1-minute load average where that cannot be read). Not the load average
    first: it trails the machine by minutes, so a run started just after another
    finished would sleep on cores that have become free, and sleeping costs the
    default config's learner about a fifth of its speed on an idle machine
    (three rollouts of ``benchmarks/bench_train.py``'s model in a fresh process
    each, alternated: 28,676 and 26,114 learner samples/s sleeping against
    34,693 and 33,596 spinning; a whole ``make train`` run, 45 s against 35 s a
    million samples). Spinning costs far
    more when the cores are taken: on a machine shared with two busy processes
    (load about 4), 2,356 learner samples/s spinning against 26,784 sleeping,
    because a spinning thread burns the core its sibling needs.
    """
    if load is None:
        load = busy_elsewhere()
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
