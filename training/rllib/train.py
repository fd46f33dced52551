"""Self-play training on Ray RLlib (new API stack), from the same config files.

Read top to bottom: start Ray (embedded, or join a cluster), build PPO with
the lockstep multi-agent env (:mod:`.env`), the masked actor-critic and the
fixed players (:mod:`.module`) and the seating (:mod:`.seating`); then loop
``algo.train()`` and, between iterations, copy snapshots into the pool slots,
evaluate (duplicate deals against fixed players), checkpoint atomically, log
to TensorBoard and stop cleanly on SIGINT/SIGTERM. The run folder is the SB3
backend's (:mod:`training.runs`) with RLlib's own checkpoints for resuming:

- ``rllib/checkpoint_<samples>/``: ``Algorithm.save_to_path`` (modules,
  optimizer, connector and metrics state); ``state.json`` names the latest;
- ``latest.pt`` / ``best.pt``: the learner module alone (``torch.save`` of its
  state and network config), what players and ``aluette export`` load.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from ..config import ConfigError, TrainConfig
from ..runs import (
    CheckpointError, atomic_path, evaluate_run, open_run, publish_best, remove_partial_writes,
    end_message, stop_requests, write_json,
)
from .env import ACTION_SPACE, OBSERVATION_SPACE, LockstepMatches, aec_env
from .module import FixedPlayerModule, MaskedActorCritic, ModulePlayer
from .seating import LEARNER, Seating, fixed_modules, snapshot_modules

BACKEND = "rllib"


def network_config(cfg: TrainConfig) -> dict:
    return cfg.network.model_dump()


def learner_spec(model_config: dict):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    return RLModuleSpec(module_class=MaskedActorCritic, model_config=model_config,
                        observation_space=OBSERVATION_SPACE, action_space=ACTION_SPACE)


def start_ray(cfg: TrainConfig, address: str | None = None, log=print) -> bool:
    """Join ``address`` (or ``rllib.address``, or RAY_ADDRESS), else start an embedded
    Ray with ``rllib.num_cpus``. Returns whether this call started Ray."""
    import ray
    if ray.is_initialized():
        return False
    address = address or cfg.rllib.address or os.environ.get("RAY_ADDRESS")
    quiet = dict(include_dashboard=False, log_to_driver=True, logging_level="ERROR",
                 configure_logging=True)
    if address:
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as err:
            hint = "" if os.environ.get("RAY_AUTH_MODE") else \
                " (a cluster from `ray start` checks tokens: export RAY_AUTH_MODE=token)"
            raise ConfigError(f"cannot join the Ray cluster at {address!r} (from --address, "
                              f"rllib.address or RAY_ADDRESS): {err}{hint}") from None
        log(f"joined the Ray cluster at {address}: "
            f"{ray.cluster_resources().get('CPU', 0):.0f} CPUs")
    else:
        # "local": a new Ray of our own, even if `ray start` left a cluster running here.
        ray.init(address="local", num_cpus=cfg.rllib.num_cpus, **quiet)
    return True


def build_algorithm(cfg: TrainConfig, filled_snapshots: list[str]):
    """PPO on the new API stack: every module, the env and the PPO settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("aluette-aec", aec_env)
    net = network_config(cfg)
    specs = {LEARNER: learner_spec(net)}
    for module_id in snapshot_modules(cfg):
        specs[module_id] = learner_spec(net)
    for spec, module_id in fixed_modules(cfg).items():
        specs[module_id] = RLModuleSpec(module_class=FixedPlayerModule,
                                        model_config={"spec": spec, "seed": cfg.seed},
                                        observation_space=OBSERVATION_SPACE,
                                        action_space=ACTION_SPACE)
    r, ppo = cfg.rllib, cfg.ppo
    env = LockstepMatches if r.env == "batched" else "aluette-aec"
    config = (
        PPOConfig()
        .environment(env, env_config={"num_games": cfg.num_games, "num_deals": cfg.env.num_deals,
                                      "seed": cfg.seed},
                     # RLlib's check steps random (illegal) cards, which the engine refuses.
                     disable_env_checking=True)
        .env_runners(num_env_runners=r.num_env_runners,
                     num_envs_per_env_runner=r.num_envs_per_env_runner,
                     gym_env_vectorize_mode="sync", rollout_fragment_length="auto",
                     num_cpus_per_env_runner=1)
        .learners(num_learners=r.num_learners)
        .multi_agent(policies=set(specs), policy_mapping_fn=Seating(cfg, filled_snapshots),
                     policies_to_train=[LEARNER], count_steps_by="agent_steps")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(train_batch_size_per_learner=r.train_batch_size // max(1, r.num_learners),
                  minibatch_size=ppo.batch_size, num_epochs=ppo.n_epochs,
                  lr=ppo.learning_rate, gamma=ppo.gamma, lambda_=ppo.gae_lambda,
                  clip_param=ppo.clip_range,
                  entropy_coeff=ppo.ent_coef, vf_loss_coeff=ppo.vf_coef,
                  grad_clip=ppo.max_grad_norm, grad_clip_by="global_norm", use_kl_loss=False)
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def set_seating(algo, seating: Seating) -> None:
    """A new agent-to-module mapping on every env runner (as ``Algorithm.add_module`` does)."""
    def apply(env_runner, fn=seating):
        env_runner.config._is_frozen = False
        env_runner.config.multi_agent(policy_mapping_fn=fn)
        env_runner.config._is_frozen = True

    algo.env_runner_group.foreach_env_runner(apply)


def save_module(module_state: dict, cfg: TrainConfig, timesteps: int, path: Path) -> None:
    """The learner module alone, as tensors (loadable with ``weights_only=True``)."""
    state = {k: torch.as_tensor(np.asarray(v)) for k, v in module_state.items()}
    with atomic_path(path) as tmp:
        torch.save({"backend": BACKEND, "timesteps": timesteps, "model_config": network_config(cfg),
                    "state": state}, tmp)


class Trainer:
    """One run: the algorithm, the run folder and its state between iterations."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, state: dict, algo, log=print):
        self.cfg, self.run_dir, self.state, self.algo, self.log = cfg, run_dir, state, algo, log
        self.stop_requested = False
        self.eval_module = learner_spec(network_config(cfg)).build()
        self.writer = None
        if cfg.logging.tensorboard:
            from torch.utils.tensorboard import SummaryWriter
            self.writer = SummaryWriter(str(run_dir / "tb" / "rllib"))
        self._start_wall = time.perf_counter()
        n = state["timesteps"]
        self.next = {k: (n // every + 1) * every for k, every in (
            ("snapshot", cfg.selfplay.snapshot_interval), ("eval", cfg.eval.interval),
            ("checkpoint", cfg.checkpoint.interval))}

    @property
    def timesteps(self) -> int:
        return self.state["timesteps"]

    def learner_state(self) -> dict:
        return self.algo.get_weights([LEARNER])[LEARNER]

    # -- the loop -----------------------------------------------------------------

    def run(self) -> None:
        cfg = self.cfg
        bar = None
        if cfg.logging.progress_bar:
            from tqdm import tqdm
            bar = tqdm(total=cfg.total_timesteps, initial=self.timesteps, unit="sample",
                       unit_scale=True, dynamic_ncols=True, desc=cfg.run_name)
        try:
            while self.timesteps < cfg.total_timesteps and not self.stop_requested:
                t0 = time.perf_counter()
                result = self.algo.train()
                seconds = time.perf_counter() - t0
                sampled = result["env_runners"]["num_module_steps_sampled"]
                learner_steps = int(sampled.get(LEARNER, 0))
                self.state["timesteps"] += learner_steps
                self.log_iteration(result, learner_steps / seconds)
                if bar is not None:
                    bar.update(learner_steps)
                    bar.set_postfix_str(f"{learner_steps / seconds:,.0f} samples/s")
                self.between_iterations()
            if not self.stop_requested and (not self.state["evals"] or
                                            self.state["evals"][-1]["timesteps"] != self.timesteps):
                self.evaluate()
            self.checkpoint()
        finally:
            if bar is not None:
                bar.close()
            if self.writer is not None:
                self.writer.close()

    def between_iterations(self) -> None:
        n = self.timesteps
        if n >= self.next["snapshot"]:
            self.next["snapshot"] = (n // self.cfg.selfplay.snapshot_interval + 1) \
                * self.cfg.selfplay.snapshot_interval
            self.add_snapshot()
        if n >= self.next["eval"]:
            self.next["eval"] = (n // self.cfg.eval.interval + 1) * self.cfg.eval.interval
            self.evaluate()
        if n >= self.next["checkpoint"]:
            self.next["checkpoint"] = (n // self.cfg.checkpoint.interval + 1) \
                * self.cfg.checkpoint.interval
            self.checkpoint()

    def log_iteration(self, result: dict, rate: float) -> None:
        """TensorBoard: CleanRL's groups (charts/, losses/) and RLlib's timers."""
        self.scalar("charts/samples_per_second", rate)
        returns = result["env_runners"].get("module_episode_returns_mean", {})
        if LEARNER in returns:
            self.scalar("charts/episodic_return", returns[LEARNER])
        learner = result.get("learners", {}).get(LEARNER, {})
        for ours, theirs in (("policy_loss", "policy_loss"), ("value_loss", "vf_loss"),
                             ("entropy", "entropy"), ("total_loss", "total_loss")):
            if theirs in learner:
                self.scalar(f"losses/{ours}", learner[theirs])
        timers = result.get("timers", {})
        for ours, theirs in (("sampling_s", "env_runner_sampling_timer"),
                             ("learning_s", "learner_update_timer")):
            if theirs in timers:
                self.scalar(f"timers/{ours}", timers[theirs])

    # -- pool, evaluation, checkpoints ----------------------------------------------

    def add_snapshot(self) -> None:
        """Copy the learner into the oldest snapshot slot (an empty one first)."""
        filled: list[str] = self.state["snapshots"]
        slots = snapshot_modules(self.cfg)
        grow = len(filled) < len(slots)
        slot = slots[len(filled)] if grow else filled.pop(0)
        filled.append(slot)
        self.algo.set_weights({slot: self.learner_state()})
        if grow:  # the seating draws only from filled slots
            set_seating(self.algo, Seating(self.cfg, filled))

    def evaluate(self) -> dict:
        cfg = self.cfg
        self.eval_module.set_state(self.learner_state())
        player = ModulePlayer(self.eval_module, name=f"{cfg.run_name}@{self.timesteps}")
        record = evaluate_run(
            cfg, player, self.state, self.run_dir, self.timesteps,
            self.state["wall_time_s"] + time.perf_counter() - self._start_wall,
            # best.pt is replaced only once state.json records this best (checkpoint).
            save_best=lambda: save_module(self.learner_state(), cfg, self.timesteps,
                                          self.run_dir / f"best_{self.timesteps}.pt"),
            scalar=self.scalar)
        self.log(f"{self.timesteps:,} samples: " + ", ".join(
            f"vs {k} {v['points_per_deal']:+.3f}" for k, v in record["results"].items()))
        return record

    def scalar(self, tag: str, value: float) -> None:
        if self.writer is not None:
            self.writer.add_scalar(tag, float(value), self.timesteps)

    def checkpoint(self) -> None:
        """RLlib checkpoint to a temporary folder renamed into place, then state.json
        (the commit point: it names the checkpoint), then latest.pt, best.pt and the
        pruning: a kill at any point leaves a state.json whose checkpoint exists."""
        n = self.timesteps
        folder = self.run_dir / "rllib"
        folder.mkdir(exist_ok=True)
        final = folder / f"checkpoint_{n}"
        tmp = Path(tempfile.mkdtemp(dir=folder, prefix=".tmp_"))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; give the usual folder mode
        self.algo.save_to_path(str(tmp.resolve()))
        if final.exists():  # the same step count again (a resumed, finished run)
            shutil.rmtree(final)
        os.replace(tmp, final)
        self.state["wall_time_s"] += time.perf_counter() - self._start_wall
        self._start_wall = time.perf_counter()
        self.state["checkpoint"] = f"rllib/{final.name}"
        write_json(self.run_dir / "state.json", self.state)
        save_module(self.learner_state(), self.cfg, n, self.run_dir / "latest.pt")
        publish_best(self.run_dir, self.state, suffix=".pt")
        for pending in self.run_dir.glob("best_*.pt"):  # bests state.json does not record
            pending.unlink(missing_ok=True)
        numbered = sorted(folder.glob("checkpoint_*"), key=lambda p: int(p.name.split("_")[1]))
        for old in numbered[:-self.cfg.checkpoint.keep]:
            if old != final:
                shutil.rmtree(old, ignore_errors=True)


def train(cfg: TrainConfig, resume: Path | None = None, force: bool = False,
          address: str | None = None, log=print) -> Path:
    """Train (or resume) a run with RLlib; returns its folder. Raises ConfigError /
    CheckpointError with one-line messages."""
    run_dir, state = open_run(cfg, resume, force)
    checkpoint = None
    if state["checkpoint"] is not None:  # something was trained: continue from it
        if state.get("backend") != BACKEND:
            raise CheckpointError(f"{run_dir}: not a run of backend rllib (its checkpoint is "
                                  f"{state['checkpoint']}); resume it with its own config")
        checkpoint = run_dir / state["checkpoint"]
        if not (checkpoint / "rllib_checkpoint.json").is_file():
            raise CheckpointError(f"{checkpoint}: missing or incomplete RLlib checkpoint")
    state["backend"] = BACKEND
    remove_partial_writes(run_dir)
    for leftover in (run_dir / "rllib").glob(".tmp_*"):  # a checkpoint cut short by a kill
        shutil.rmtree(leftover, ignore_errors=True)
    torch.set_num_threads(cfg.torch_threads)
    started = start_ray(cfg, address, log)
    algo = None
    try:
        algo = build_algorithm(cfg, state["snapshots"])
        if checkpoint is not None:
            try:
                algo.restore_from_path(str(checkpoint.resolve()))
            except Exception as err:  # noqa: BLE001 - any damage to the checkpoint files
                raise CheckpointError(f"{checkpoint}: corrupt RLlib checkpoint "
                                      f"({type(err).__name__}: {err})") from None
            log(f"resuming {run_dir} at {state['timesteps']:,} samples "
                f"({len(state['snapshots'])} snapshots in the pool)")
        else:
            log(f"training {cfg.run_name} with RLlib for {cfg.total_timesteps:,} learner samples "
                f"-> {run_dir}")
        trainer = Trainer(cfg, run_dir, state, algo, log)
        with stop_requests(trainer):
            trainer.run()
    finally:
        if algo is not None:
            algo.stop()
        if started:
            import ray
            ray.shutdown()
    log(end_message(run_dir, state, state["timesteps"], run_dir / state["checkpoint"],
                    trainer.stop_requested))
    return run_dir
