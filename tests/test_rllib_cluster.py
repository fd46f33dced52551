"""The RLlib backend on more than one node: a local Ray cluster (ray.cluster_utils)
whose head has no CPU for actors, so the env runner and both learners of
configs/rllib_quick.yaml go to the worker node; the run then resumes from its
checkpoint on the same cluster, its env runner on the worker node again and its
learner in the driver. Its own file, so that it runs beside test_rllib.py when
the tests run in parallel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import NEEDS_RLLIB
from training.config import load_config

pytestmark = [pytest.mark.rllib, pytest.mark.cluster, NEEDS_RLLIB]

QUICK = Path(__file__).resolve().parents[1] / "configs" / "rllib_quick.yaml"


def test_two_node_cluster_runner_off_the_head_two_learners_and_resume(ray_cluster, tmp_path):
    """A local Ray cluster of two nodes (conftest.ray_cluster): the head (where the
    driver is) has no CPU for actors, so the env runner and both learners go to the
    worker node; then the run resumes from its checkpoint on the same cluster, its
    env runner on the worker node again and its learner in the driver."""
    import ray

    from training.rllib.train import train

    worker = ray_cluster.worker
    assert ray_cluster.head_node.node_id != worker.node_id
    cfg = load_config(QUICK, [
        f"output_dir={tmp_path}", "num_games=8", "env.num_deals=1",
        "rllib.num_env_runners=1", "rllib.num_learners=2",
        "rllib.train_batch_size=128", "ppo.batch_size=32", "total_timesteps=150",
        "eval.opponents=[random]", "eval.deals=20", "logging.tensorboard=false"])
    lines: list[str] = []
    run = train(cfg, address=ray_cluster.address, log=lines.append)
    placed = next(line for line in lines if "env runners on" in line)
    assert placed == f"1 env runners on 1 Ray node(s): {worker.node_id[:12]}", placed
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] == 180 and (run / state["checkpoint"]).is_dir()
    assert not ray.is_initialized()  # the driver left the cluster; the cluster stays
    # Resumed on the same cluster with the learner in the driver (force: another
    # placement): the remote learners' checkpoint restores into the driver's
    # learner, and the league's pool goes to an env runner started again on the
    # worker node (one actor process, not three).
    cfg.total_timesteps = 300
    cfg.rllib.num_learners = 0
    lines.clear()
    train(cfg, resume=run, force=True, address=ray_cluster.address, log=lines.append)
    assert f"resuming {run} at 180 samples" in "\n".join(lines)
    placed = next(line for line in lines if "env runners on" in line)
    assert placed == f"1 env runners on 1 Ray node(s): {worker.node_id[:12]}", placed
    assert json.loads((run / "state.json").read_text())["timesteps"] == 360
