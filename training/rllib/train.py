"""Self-play training on Ray RLlib (new API stack), from the same config files.

Read top to bottom: check what the run asks of Ray before starting it (CPUs,
the cluster address), start Ray (embedded, or join a cluster), build PPO with
the table env runner (:mod:`.runner`: whole matches of the batched engine,
the SB3 backend's all-seat league) and the masked actor-critic
(:mod:`.module`); then loop ``algo.train()`` and, between iterations, take
snapshots into the league, evaluate (duplicate deals against fixed players),
checkpoint atomically, log to TensorBoard and stop cleanly on SIGINT/SIGTERM.
The run folder is the SB3 backend's (:mod:`training.runs`) with RLlib's own
checkpoints for resuming:

- ``rllib/checkpoint_<samples>/``: ``Algorithm.save_to_path`` (module,
  optimizer, connector and metrics state); ``state.json`` names the latest;
- ``pool/snapshot_<samples>.pt``: the league's past snapshots (``state.json``
  names those in the pool);
- ``latest.pt`` / ``best.pt``: the learner module alone (``torch.save`` of its
  state and network config), what players and ``aluette export`` load.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import socket
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

from aluette_env.commands import CommandFailed

from ..config import ConfigError, TrainConfig
from ..atomic import atomic_path, write_json, write_text
from ..evaluate import evaluate_run
from ..runs import (
    CheckpointError, checkpoint_steps, open_run, prune, publish_best, remove_partial_writes,
)
from ..stopping import end_message, stop_requests
from .checkpoints import readable, rllib_checkpoints
from .env import ACTION_SPACE, OBSERVATION_SPACE
from .module import ModulePlayer, module_spec

BACKEND = "rllib"
#: The module that learns (RLlib's single-agent module id).
LEARNER = "default_policy"
#: Seconds to wait for a cluster address to answer before giving up.
CONNECT_TIMEOUT_S = 5.0
#: After a kill -9 of the driver, what ends the Ray processes it started.
CLEANUP_HINT = ("if this process is killed with kill -9, end the Ray processes it started "
                "with `ray stop` (it stops every Ray on this machine)")


# -- before Ray starts ------------------------------------------------------------------


def cpus_needed(cfg: TrainConfig) -> int:
    """CPUs the run reserves in Ray: one per env runner and one per learner process
    (the driver, sampling with 0 runners or learning with 0 learners, reserves none)."""
    return cfg.rllib.num_env_runners + cfg.rllib.num_learners


def check_cpus(cfg: TrainConfig, available: float, where: str) -> None:
    """ConfigError when Ray could never place the run's actors (it would wait forever)."""
    r = cfg.rllib
    if cpus_needed(cfg) > available:
        raise ConfigError(
            f"rllib.num_env_runners={r.num_env_runners} and rllib.num_learners="
            f"{r.num_learners} need {cpus_needed(cfg)} CPUs (one each), but {where} has "
            f"{available:g}; lower them, or raise "
            + ("rllib.num_cpus" if where.startswith("the embedded") else "the cluster's CPUs"))


def resolve_address(cfg: TrainConfig, address: str | None) -> str | None:
    return address or cfg.rllib.address or os.environ.get("RAY_ADDRESS") or None


def check_address(address: str) -> None:
    """``address`` is ``auto`` or ``HOST:PORT`` and something listens there; else
    ConfigError naming the cause, within CONNECT_TIMEOUT_S."""
    where = f"cannot join the Ray cluster at {address!r} (from --address, rllib.address or " \
            f"RAY_ADDRESS)"
    if address == "auto":
        return
    m = re.fullmatch(r"(?:ray://)?\[?([A-Za-z0-9._\-:]*[A-Za-z0-9])\]?:(\d{1,5})", address)
    if not m or not 0 < int(m.group(2)) < 65536:
        raise ConfigError(f"{where}: not an address; expected HOST:PORT (e.g. 10.0.0.5:6379) "
                          f"or 'auto'")
    host, port = m.group(1), int(m.group(2))
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except socket.gaierror:
        raise ConfigError(f"{where}: unknown host {host!r}") from None
    except ConnectionRefusedError:
        raise ConfigError(f"{where}: connection refused, nothing listens on port {port} there "
                          f"(start the head with `ray start --head --port={port}`)") from None
    except TimeoutError:
        raise ConfigError(f"{where}: no answer within {CONNECT_TIMEOUT_S:g} s (host down, "
                          f"or the port is filtered)") from None
    except OSError as err:
        raise ConfigError(f"{where}: {err.strerror or err}") from None


@contextmanager
def interruptible_start():
    """While Ray starts: SIGTERM interrupts like Ctrl-C, so the ``finally`` that
    stops Ray still runs (the default SIGTERM would leave its processes behind)."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def start_ray(cfg: TrainConfig, address: str | None = None, log=print) -> bool:
    """Join ``address`` (or ``rllib.address``, or RAY_ADDRESS), else start an embedded
    Ray with ``rllib.num_cpus``. Returns whether this call started Ray."""
    import ray
    if ray.is_initialized():
        return False
    address = resolve_address(cfg, address)
    quiet = {"include_dashboard": False, "log_to_driver": True, "logging_level": "ERROR",
             "configure_logging": True}
    if address:
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as err:
            text = " ".join(str(err).split())
            auth = re.search(r"auth|token", text, re.IGNORECASE)
            hint = " (a cluster from `ray start` checks tokens: export RAY_AUTH_MODE=token)" \
                if auth and not os.environ.get("RAY_AUTH_MODE") else ""
            raise ConfigError(f"cannot join the Ray cluster at {address!r} (from --address, "
                              f"rllib.address or RAY_ADDRESS): {text[:300]}{hint}") from None
        cpus = ray.cluster_resources().get("CPU", 0)
        log(f"joined the Ray cluster at {address}: {cpus:.0f} CPUs")
        try:
            check_cpus(cfg, cpus, f"the cluster at {address}")
        except ConfigError:
            ray.shutdown()
            raise
    else:
        # "local": a new Ray of our own, even if `ray start` left a cluster running here.
        # No idle worker processes started ahead (one a CPU): the run's actors (env
        # runners, remote learners) start what they need, and those beyond them would
        # only import Ray and wait, about a second of CPU each; with no actor (the quick
        # config) every one. The key is Ray 2.60's (pinned); test_rllib's runs start
        # this embedded Ray, and an unknown key would stop its raylet.
        ray.init(address="local", num_cpus=cfg.rllib.num_cpus,
                 _system_config={"prestart_worker_first_driver": False}, **quiet)
    return True


# -- the algorithm --------------------------------------------------------------------


def build_algorithm(cfg: TrainConfig, seed: int | None = None):
    """PPO on the new API stack with the table env runner (:mod:`.runner`); ``seed``
    (default ``cfg.seed``) seeds the deals and draws of the runners."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from .runner import TableEnvRunner
    logging.getLogger("ray.rllib.algorithms.algorithm_config").addFilter(_NewStackNotice())
    r, ppo = cfg.rllib, cfg.ppo
    config = (
        PPOConfig()
        .environment(observation_space=OBSERVATION_SPACE, action_space=ACTION_SPACE,
                     env_config={"train_config": cfg.model_dump(),
                                 "seed": cfg.seed if seed is None else seed},
                     disable_env_checking=True)
        .env_runners(env_runner_cls=TableEnvRunner, num_env_runners=r.num_env_runners,
                     num_envs_per_env_runner=1, num_cpus_per_env_runner=1,
                     create_env_on_local_worker=r.num_env_runners == 0,
                     sample_timeout_s=r.sample_timeout_s)
        .learners(num_learners=r.num_learners)
        .rl_module(rl_module_spec=module_spec(cfg.network))
        .training(train_batch_size_per_learner=r.train_batch_size // max(1, r.num_learners),
                  minibatch_size=ppo.batch_size, num_epochs=ppo.n_epochs,
                  lr=ppo.learning_rate if ppo.learning_rate_end is None else
                  [[0, ppo.learning_rate], [cfg.total_timesteps, ppo.learning_rate_end]],
                  gamma=ppo.gamma, lambda_=ppo.gae_lambda,
                  clip_param=ppo.clip_range,
                  # SB3's value loss is not clipped; RLlib's default clips each squared
                  # error at 10, which zeroes the value gradient wherever a match's return
                  # (up to 10 points) is still badly predicted, and learned slower per sample.
                  vf_clip_param=float("inf"),
                  entropy_coeff=ppo.ent_coef, vf_loss_coeff=ppo.vf_coef,
                  grad_clip=ppo.max_grad_norm, grad_clip_by="global_norm", use_kl_loss=False)
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


class _NewStackNotice(logging.Filter):
    """Drops RLlib's notice that PPO runs on its new API stack (chosen here on purpose)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "on the new API stack" not in record.getMessage()


def save_module(module_state: dict, cfg: TrainConfig, timesteps: int, path: Path) -> None:
    """The learner module alone, as tensors (loadable with ``weights_only=True``)."""
    state = {k: torch.as_tensor(np.array(v)) for k, v in module_state.items()}
    with atomic_path(path) as tmp:
        torch.save({"backend": BACKEND, "timesteps": timesteps,
                    "model_config": cfg.network.model_dump(), "state": state}, tmp)


def learner_samples(result: dict) -> int:
    """Learner samples of one ``algo.train()`` (every decision of a learner seat); 0
    when no env runner returned its matches in time (RLlib then leaves the count
    out, or NaN)."""
    n = result.get("env_runners", {}).get("num_env_steps_sampled", 0)
    return int(n) if n == n else 0  # NaN != NaN


class Trainer:
    """One run: the algorithm, the run folder and its state between iterations."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, state: dict, algo, log=print):
        self.cfg, self.run_dir, self.state, self.algo, self.log = cfg, run_dir, state, algo, log
        self.stop_requested = False
        self.eval_module = module_spec(cfg.network).build()
        self.snapshots: list[tuple[str, dict]] = []
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
        if not self.snapshots and cfg.selfplay.opponents.get("snapshots", 0) > 0:
            self.add_snapshot()  # league games draw snapshots from the start
        bar = None
        if cfg.logging.progress_bar:
            from tqdm import tqdm
            bar = tqdm(total=cfg.total_timesteps, initial=self.timesteps, unit="sample",
                       unit_scale=True, dynamic_ncols=True, desc=cfg.run_name)
        empty = 0  # iterations in a row that got no samples
        try:
            while self.timesteps < cfg.total_timesteps and not self.stop_requested:
                t0 = time.perf_counter()
                result = self.algo.train()
                seconds = time.perf_counter() - t0
                n = learner_samples(result)
                if n == 0:
                    empty += 1
                    if empty >= cfg.rllib.max_empty_iterations:
                        raise CommandFailed(
                            f"the env runners returned no samples in {empty} iterations in a "
                            f"row (rllib.sample_timeout_s = {cfg.rllib.sample_timeout_s:g} s "
                            f"each); the run resumes from its last checkpoint with --resume "
                            f"{self.run_dir}")
                    self.log(f"no samples within rllib.sample_timeout_s "
                             f"({cfg.rllib.sample_timeout_s:g} s); sampling again")
                    continue
                empty = 0
                self.state["timesteps"] += n
                self.log_iteration(result, n / seconds)
                if bar is not None:
                    bar.update(n)
                    bar.set_postfix_str(f"{n / seconds:,.0f} samples/s")
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
        returns = result["env_runners"].get("module_episode_return_mean", {})
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

    # -- league, evaluation, checkpoints ----------------------------------------------

    def push_league(self) -> None:
        """The snapshots to every env runner (they redraw their league opponents)."""
        snapshots = list(self.snapshots)
        self.algo.env_runner_group.foreach_env_runner(lambda r: r.set_league(snapshots))

    def load_league(self) -> None:
        """The pool snapshots ``state.json`` names, from ``pool/`` (a damaged one is
        left out, said in the log: an opponent less is no reason to lose the run)."""
        for name in list(self.state["snapshots"]):
            path = self.run_dir / "pool" / name
            try:
                record = torch.load(path, map_location="cpu", weights_only=True)
                self.snapshots.append((name, {k: v.numpy() for k, v in record["state"].items()}))
            except Exception as err:  # noqa: BLE001 - any damage to the file
                self.log(f"{path}: missing or corrupt pool snapshot ({type(err).__name__}); "
                         f"left out of the pool")
                self.state["snapshots"].remove(name)
        if self.snapshots:
            self.push_league()

    def add_snapshot(self) -> None:
        """The learner as it is now into the league (the oldest leaves a full pool)."""
        n = self.timesteps
        name = f"snapshot_{n}.pt"
        weights = {k: np.asarray(v) for k, v in self.learner_state().items()}
        save_module(weights, self.cfg, n, self.run_dir / "pool" / name)
        self.snapshots = [s for s in self.snapshots if s[0] != name] + [(name, weights)]
        self.snapshots = self.snapshots[-self.cfg.selfplay.pool_size:]
        # The file of a dropped snapshot stays until state.json stops naming it (prune).
        self.state["snapshots"] = [s[0] for s in self.snapshots]
        self.push_league()

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
        (the commit point: it names the checkpoint and the pool), then latest.pt,
        best.pt and the pruning: a kill at any point leaves a state.json whose
        checkpoint and snapshots exist."""
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
        prune(self.run_dir, self.state, self.cfg.checkpoint.keep)  # the pool's files
        numbered = sorted(folder.glob("checkpoint_*"), key=checkpoint_steps)
        for old in numbered[:-self.cfg.checkpoint.keep]:
            if old != final:
                shutil.rmtree(old, ignore_errors=True)


# -- resuming ---------------------------------------------------------------------------


def resume_candidates(run_dir: Path, state: dict) -> list[Path]:
    """The checkpoint ``state.json`` names, then the older numbered ones, newest
    first, that look complete; CheckpointError when none does."""
    named = run_dir / state["checkpoint"]
    n = state["timesteps"]
    older = sorted((p for p in (run_dir / "rllib").glob("checkpoint_*")
                    if p != named and 0 < checkpoint_steps(p) <= n and readable(p)),
                   key=checkpoint_steps, reverse=True)
    candidates = ([named] if readable(named) else []) + older
    if not candidates:
        raise CheckpointError(f"{named}: missing or incomplete RLlib checkpoint, and no older "
                              f"readable one in {run_dir / 'rllib'}")
    return candidates


def roll_back(run_dir: Path, state: dict, checkpoint: Path, log) -> None:
    """Make ``state`` the state of an older checkpoint (the fallback), said in the log."""
    steps = checkpoint_steps(checkpoint)
    named = run_dir / state["checkpoint"]
    why = "is missing or incomplete" if not readable(named) else "cannot be restored"
    log(f"{named} {why}; falling back to {checkpoint.name} ({steps:,} samples, state.json "
        f"said {state['timesteps']:,})")
    state["timesteps"] = steps
    state["checkpoint"] = f"rllib/{checkpoint.name}"
    state["evals"] = [e for e in state["evals"] if e["timesteps"] <= steps]
    write_text(run_dir / "metrics.jsonl", "".join(json.dumps(e) + "\n" for e in state["evals"]))
    write_json(run_dir / "state.json", state)  # it names a checkpoint that exists again


def restore(algo, run_dir: Path, state: dict, candidates: list[Path], log) -> None:
    """Restore the first candidate that RLlib can read; fall back to older ones."""
    for checkpoint in candidates:
        try:
            algo.restore_from_path(str(checkpoint.resolve()))
        except Exception as err:  # noqa: BLE001 - any damage to the checkpoint files
            log(f"{checkpoint}: corrupt RLlib checkpoint ({type(err).__name__}); trying an "
                f"older one")
            continue
        if checkpoint != run_dir / state["checkpoint"]:
            roll_back(run_dir, state, checkpoint, log)
        return
    raise CheckpointError(f"{run_dir}: no RLlib checkpoint of this run can be restored "
                          f"(tried {', '.join(c.name for c in candidates)})")


def forget_new_run(run_dir: Path) -> None:
    """Remove what :func:`open_run` wrote for a run that never started, so the same
    command can run again (only those files; the folder only if then empty)."""
    for name in ("state.json", "config.yaml"):
        (run_dir / name).unlink(missing_ok=True)
    try:
        run_dir.rmdir()
    except OSError:
        pass


def train(cfg: TrainConfig, resume: Path | None = None, force: bool = False,
          address: str | None = None, log=print) -> Path:
    """Train (or resume) a run with RLlib; returns its folder. Raises ConfigError /
    CheckpointError with one-line messages."""
    import ray
    address = resolve_address(cfg, address)
    if address and not ray.is_initialized():
        check_address(address)
    elif not address:
        check_cpus(cfg, cfg.rllib.num_cpus,
                   f"the embedded Ray (rllib.num_cpus; this machine has {os.cpu_count()} CPUs)")
    run_dir, state = open_run(cfg, resume, force, find_checkpoints=rllib_checkpoints)
    candidates: list[Path] = []
    if state["checkpoint"] is not None:  # something was trained: continue from it
        if state.get("backend") != BACKEND:
            raise CheckpointError(f"{run_dir}: not a run of backend rllib (its checkpoint is "
                                  f"{state['checkpoint']}); resume it with its own config")
        candidates = resume_candidates(run_dir, state)
    state["backend"] = BACKEND
    remove_partial_writes(run_dir)
    for leftover in (run_dir / "rllib").glob(".tmp_*"):  # a checkpoint cut short by a kill
        shutil.rmtree(leftover, ignore_errors=True)
    torch.set_num_threads(cfg.torch_threads)
    started, algo, trainer = False, None, None
    try:
        with interruptible_start():
            try:
                started = start_ray(cfg, address, log)
            except BaseException:
                if resume is None:
                    forget_new_run(run_dir)
                raise
            if started and not address:
                log(CLEANUP_HINT)
            seed = cfg.seed + (checkpoint_steps(candidates[0]) if candidates else 0)
            algo = build_algorithm(cfg, seed)
            if candidates:
                restore(algo, run_dir, state, candidates, log)
                log(f"resuming {run_dir} at {state['timesteps']:,} samples "
                    f"({len(state['snapshots'])} snapshots in the pool)")
            else:
                log(f"training {cfg.run_name} with RLlib for {cfg.total_timesteps:,} learner "
                    f"samples -> {run_dir}")
            if cfg.rllib.num_env_runners:
                nodes = algo.env_runner_group.foreach_env_runner(lambda r: r.node_id(),
                                                                 local_env_runner=False)
                log(f"{len(nodes)} env runners on {len(set(nodes))} Ray node(s): "
                    + ", ".join(n[:12] for n in nodes))
            trainer = Trainer(cfg, run_dir, state, algo, log)
            trainer.load_league()
        with stop_requests(trainer):
            trainer.run()
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
    log(end_message(run_dir, state, state["timesteps"], run_dir / state["checkpoint"],
                    trainer.stop_requested))
    return run_dir
