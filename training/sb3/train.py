"""The SB3 backend: self-play training of a MaskablePPO policy from a config file.

Read top to bottom: build the run folder and the opponent pool, build (or
resume) the model (:class:`.ppo.AluettePPO`: its rollout and update are written
out in :mod:`.ppo`) on the self-play VecEnv, then ``model.learn`` with one
callback that snapshots opponents, evaluates (duplicate, against fixed
players), checkpoints atomically, logs and stops cleanly on SIGINT/SIGTERM.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import LinearSchedule

from aluette_env.game import NUM_ACTIONS, NUM_CARDS
from aluette_env.players import load_player

from ..players import mask_logits
from ..config import ConfigError, TrainConfig, partner_games, selfplay_games
from ..atomic import atomic_path, copy_file, write_json, write_text
from ..evaluate import evaluate_run
from ..runs import (
    CheckpointError, checkpoint_steps, open_run, prune, publish_best, remove_partial_writes,
)
from ..stopping import end_message, stop_requests
from ..league import POLICY_ENTRIES, OpponentPool, PartnerPool, careless_temperature
from ..rollouts import AllSeatGames
from . import resume as run_state
from .checkpoints import load_model, save_model
from .league import SnapshotStack
from .network import CardPolicy, CardTrunk, PolicyPlayer, amx_tiles
from .ppo import AluettePPO
from .vecenv import AllSeatVecEnv, input_space


def native_bfloat16() -> bool:
    """This CPU multiplies bfloat16 in hardware (AMX tiles or AVX512-BF16), where
    autocast's products run several times faster than float32's (8,192 x 256 x 128:
    0.3 ms against 2.0 ms, 2 threads, AMX); elsewhere they are emulated, slower."""
    return amx_tiles() or bool(getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)())


def learner_precision(setting: str) -> str:
    """The config's ``network.precision`` as the policy's: 'auto' is 'bfloat16' on
    a CPU that multiplies it natively (:func:`native_bfloat16`), else 'float32'."""
    if setting == "auto":
        return "bfloat16" if native_bfloat16() else "float32"
    return setting


def policy_kwargs(cfg: TrainConfig) -> dict:
    """The config's network as SB3 ``policy_kwargs`` of :class:`CardPolicy`."""
    act = torch.nn.ReLU if cfg.network.activation == "relu" else torch.nn.Tanh
    return dict(features_extractor_class=CardTrunk,
                features_extractor_kwargs=dict(widths=tuple(cfg.network.trunk),
                                               activation=cfg.network.activation,
                                               privileged=cfg.network.critic == "privileged"),
                net_arch=dict(pi=list(cfg.network.pi), vf=list(cfg.network.vf)),
                activation_fn=act, belief_coef=cfg.network.belief,
                precision=learner_precision(cfg.network.precision))


def build_model(cfg: TrainConfig, env, run_dir: Path) -> AluettePPO:
    # The masked categorical's argument checks cost 5% of a run (profiled); the
    # masks come from the engine and the logits from the network.
    torch.distributions.Distribution.set_default_validate_args(False)
    model = AluettePPO(
        CardPolicy, env, seed=cfg.seed, device="cpu", verbose=0,
        tensorboard_log=str(run_dir / "tb") if cfg.logging.tensorboard else None,
        policy_kwargs=policy_kwargs(cfg), **ppo_settings(cfg),
    )
    model.compile_update = learner_compile(cfg)
    return model


def cpp_compiler() -> bool:
    """torch.compile finds the C++ compiler its code is built with."""
    from torch._inductor.cpp_builder import get_cpp_compiler
    try:
        get_cpp_compiler()
    except Exception:  # noqa: BLE001 - torch's own error, over lines
        return False
    return True


def learner_compile(cfg: TrainConfig) -> bool:
    """The config's ``torch_compile`` as the update's: 'auto' compiles where it was
    measured faster, a CPU with AMX tiles whose bfloat16 products the config asks
    for (docs/experiments/learner-speed.md), when a C++ compiler is there."""
    if cfg.torch_compile == "auto":
        return (learner_precision(cfg.network.precision) == "bfloat16" and amx_tiles()
                and cpp_compiler())
    return cfg.torch_compile


def check_torch_compile(cfg: TrainConfig) -> None:
    """``torch_compile: true`` finds the C++ compiler torch.compile builds with
    (ConfigError in one line, before any work, where there is none)."""
    if cfg.torch_compile is True and not cpp_compiler():
        raise ConfigError("torch_compile: torch.compile builds with a C++ compiler and none "
                          "was found (g++ or clang++ on PATH, or CXX); install one or set "
                          "torch_compile=false")


def check_warm_start(cfg: TrainConfig) -> None:
    """Whether ``network.warm_start`` fits the config's network, on an untrained copy
    of it built without games (CheckpointError / ModelError naming the file), so a
    new run refused for it leaves no run folder behind."""
    if not cfg.network.warm_start:
        return
    variant = cfg.env.variant
    policy = CardPolicy(input_space(learner_input_kind(cfg), variant),
                        spaces.Discrete(variant.num_actions), lambda _: 0.0,
                        **policy_kwargs(cfg))
    load_onnx_weights(policy, cfg.network.warm_start)


def ppo_settings(cfg: TrainConfig) -> dict:
    """The config's PPO settings as MaskablePPO's arguments: ``learning_rate_end``
    makes the learning rate a linear schedule over the run (SB3 counts its
    progress from the run's total_timesteps, also when a run resumes)."""
    settings = cfg.ppo.model_dump()
    end = settings.pop("learning_rate_end")
    settings.pop("credit")  # the games' (build_env), not the learner's
    if end is not None:
        settings["learning_rate"] = LinearSchedule(cfg.ppo.learning_rate, end, 1.0)
    return settings


def learner_input_kind(cfg: TrainConfig) -> str:
    """What the learner's network reads (training.rollouts.INPUTS) under ``cfg``."""
    if cfg.network.critic == "privileged":
        return "privileged"
    return "indices" if cfg.network.sparse else "dense"


def build_partners(cfg: TrainConfig, pool: OpponentPool,
                   rng: np.random.Generator) -> PartnerPool | None:
    """The partner population of ``selfplay.partners`` (None without partner games);
    its careless entries (``latest:temperature=T``) are set by :func:`careless_partners`
    once the policy exists."""
    partners = cfg.selfplay.partners
    if partners is None:
        return None
    fixed = {spec: load_player(spec, seed=cfg.seed) for spec in partners.weights
             if spec != "snapshots" and careless_temperature(spec) is None}
    return PartnerPool(partners.weights, fixed, pool, rng)


def careless_partners(partners: PartnerPool | None, policy, seed: int) -> None:
    """The live policy, sampling at each ``latest:temperature=T`` entry's T, as partners."""
    if partners is None:
        return
    for entry in partners.weights:
        t = careless_temperature(entry)
        if t is not None:
            player = PolicyPlayer(policy, name=entry, temperature=t, seed=seed)
            player.live = True  # the learner itself: never frozen in a snapshot stack
            partners.careless[entry] = player


def build_env(cfg: TrainConfig, pool: OpponentPool, seed: int,
              partners: PartnerPool | None = None):
    """The self-play env of a config: its all-seat games."""
    inputs = learner_input_kind(cfg)
    return AllSeatVecEnv(AllSeatGames(cfg.num_games, selfplay_games(cfg), pool,
                                      cfg.env.num_deals, seed=seed, inputs=inputs,
                                      variant=cfg.env.variant,
                                      joint=SnapshotStack(seed), num_partnered=partner_games(cfg),
                                      partners=partners, credit=cfg.ppo.credit))


def pretrain_policy(policy, demos, epochs: int, batch_size: int, learning_rate: float,
                    vf_coef: float, seed: int, log=print) -> dict:
    """Behaviour cloning (``pretrain`` in the config): fit the policy's masked
    action distribution to the demonstrated cards (cross-entropy) and its value
    head to the returns that followed (squared error, weighted ``vf_coef`` as in
    PPO), with its own Adam. Returns the last epoch's mean losses and how often
    the greedy card is the demonstrated one."""
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    n = len(demos)
    for epoch in range(epochs):
        totals = np.zeros(3)
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            obs = torch.as_tensor(demos.observations[idx], dtype=torch.float32)
            actions = torch.as_tensor(demos.actions[idx])
            features = policy.extract_features(obs, policy.pi_features_extractor)
            latent_pi, latent_vf = policy.mlp_extractor(features)
            logits = mask_logits(policy.action_net(latent_pi), demos.masks[idx])
            cross_entropy = torch.nn.functional.cross_entropy(logits, actions)
            value_loss = torch.nn.functional.mse_loss(policy.value_net(latent_vf).flatten(),
                                                      torch.as_tensor(demos.returns[idx]))
            optimizer.zero_grad()
            (cross_entropy + vf_coef * value_loss).backward()
            optimizer.step()
            agreement = (logits.argmax(1) == actions).float().mean()
            totals += len(idx) * np.array([cross_entropy.item(), value_loss.item(),
                                           agreement.item()])
        cross_entropy, value_loss, agreement = totals / n
        log(f"pretrain epoch {epoch + 1}/{epochs}: cross-entropy {cross_entropy:.3f}, value "
            f"loss {value_loss:.3f}, greedy card = demonstrated {agreement:.1%}")
    policy.set_training_mode(False)
    return {"cross_entropy": cross_entropy, "value_loss": value_loss, "agreement": agreement}


def recorded_demonstrations(cfg: TrainConfig):
    """The decisions of ``pretrain.records`` (None: no records), each record checked
    as it is read (ConfigError naming the file): read before a new run's folder
    is written, so a bad record leaves none behind."""
    if cfg.pretrain is None or cfg.pretrain.records is None:
        return None
    from ..imitation import record_demonstrations
    try:
        return record_demonstrations(cfg.pretrain.records, cfg.pretrain.record_seats)
    except ValueError as err:
        raise ConfigError(f"pretrain.records: {err}") from None


def pretrain(cfg: TrainConfig, policy, log=print, people=None) -> dict:
    """The config's behaviour-cloning start (``pretrain``): demonstrations of its
    rule-based player and, with ``pretrain.records``, ``people``'s
    (:func:`recorded_demonstrations`, read here when not given), then
    :func:`pretrain_policy`. Returns what it did, for ``state.json``."""
    from ..imitation import Demonstrations, demonstrations
    pc = cfg.pretrain
    start = time.perf_counter()
    demos = demonstrations(load_player(pc.player, seed=cfg.seed), pc.samples, cfg.num_games,
                           cfg.env.num_deals, seed=cfg.seed)
    recorded = time.perf_counter() - start
    log(f"pretrain: {len(demos):,} decisions of {pc.player} recorded in {recorded:.1f} s")
    if pc.records is not None:
        people = recorded_demonstrations(cfg) if people is None else people
        log(f"pretrain: {len(people):,} decisions from the records in {pc.records}")
        demos = Demonstrations.concat([demos, people])
    fit = pretrain_policy(policy, demos, pc.epochs, pc.batch_size, pc.learning_rate,
                          cfg.ppo.vf_coef, cfg.seed, log)
    return {"player": pc.player, "samples": len(demos),
            "seconds": time.perf_counter() - start, **fit}


#: The trunk's first layer: the one that reads the observation.
FIRST_LAYER = "features_extractor.net.0.weight"


def widen_first_layer(key: str, value, own):
    """A model of an earlier observation layout reads a prefix of today's
    vector (aluette_env.observation): its first layer gets today's width with
    the new inputs at zero weight, so the network starts as that model played."""
    if key == FIRST_LAYER and value.ndim == 2 and value.shape[0] == own.shape[0] \
            and value.shape[1] < own.shape[1]:
        wide = torch.zeros_like(own)
        wide[:, :value.shape[1]] = value
        return wide
    return value


#: The action layer's parameters: a default-game model (48 cards) warm-starting a
#: policy of the signs variant (58 actions) gets the ten sign actions appended.
ACTION_LAYER = ("action_net.weight", "action_net.bias")


def widen_actions(key: str, value, own):
    """A default-game model's action layer (the 48 cards) in a network of the
    signs variant (the cards, then the ten sign actions, docs/RULES.md S1): the
    sign rows at zero, so the start plays its cards as the model did and makes
    each sign, or none, with the same chance (its sign inputs, widened by
    :func:`widen_first_layer`, are read with zero weights: it reads no sign yet)."""
    if key in ACTION_LAYER and value.shape[0] == NUM_CARDS and own.shape[0] == NUM_ACTIONS \
            and value.shape[1:] == own.shape[1:]:
        wide = torch.zeros_like(own)
        wide[:NUM_CARDS] = value
        return wide
    return value


def load_onnx_weights(policy, path: str) -> None:
    """Start ``policy`` from an exported model's weights (its ONNX initializers are
    named after the SB3 policy's parameters: trunk, policy head, action layer;
    an earlier observation layout's first layer is widened by
    :func:`widen_first_layer`, and a default-game model's action layer in a
    policy of the signs variant by :func:`widen_actions`); CheckpointError naming the file when the
    architectures differ, ModelError when it is no playable policy (its logits not
    finite on real positions: NaN or infinite weights)."""
    import onnx
    from onnx import numpy_helper

    from aluette_env.players.onnx_policy import OnnxPlayer
    OnnxPlayer(path)  # the checks a player's load makes (ModelError), finite logits included
    try:
        model = onnx.load(path)
    except Exception as err:  # noqa: BLE001 - any unreadable file
        raise CheckpointError(f"{path}: not a readable ONNX model ({type(err).__name__})") from None
    own = policy.state_dict()
    weights = {}
    for init in model.graph.initializer:
        key = init.name.removeprefix("policy.")
        if key not in own:
            continue
        value = torch.as_tensor(numpy_helper.to_array(init).copy())
        value = widen_actions(key, widen_first_layer(key, value, own[key]), own[key])
        if value.shape != own[key].shape:
            raise CheckpointError(f"{path}: {key} has shape {tuple(value.shape)}, this network's "
                                  f"is {tuple(own[key].shape)}; set network to the model's "
                                  f"architecture")
        weights[key] = value
    # What the policy computes; a critic's own layers (the value head, the privileged
    # critic's layer over the hidden cards) are not in an export and start fresh.
    needed = [k for k in own if k.startswith(("features_extractor.", "mlp_extractor.policy_net.",
                                               "action_net."))
              and not k.startswith("features_extractor.hidden.")]
    missing = [k for k in needed if k not in weights]
    if missing:
        raise CheckpointError(f"{path}: no weights for {', '.join(missing[:3])}; not a policy "
                              f"of this architecture")
    for key in list(own):  # aliases of the shared trunk
        for alias in ("pi_features_extractor.", "vf_features_extractor."):
            if key.startswith(alias):
                weights[key] = weights.get("features_extractor." + key.removeprefix(alias),
                                           own[key])
    own.update(weights)
    policy.load_state_dict(own)


class TrainCallback(BaseCallback):
    """Snapshots, evaluation, checkpoints, progress and clean stopping.

    A checkpoint falls due in a step but is taken at the next rollout boundary
    (or at the end), once the rollout in progress is trained: with the random
    states and the games in progress (:mod:`training.sb3.resume`), so a run
    resumed from it is the run never stopped. ``resume_from``: the checkpoint
    whose state is put back when training starts (after SB3 has reset the env)."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, pool: OpponentPool, state: dict,
                 partners: PartnerPool | None = None, resume_from: Path | None = None,
                 log=print):
        super().__init__()
        self.cfg, self.run_dir, self.pool, self.state = cfg, run_dir, pool, state
        self.partners, self.resume_from, self.log = partners, resume_from, log
        self.checkpoint_due = False
        self.stop_requested = False
        self.bar = None
        self._t_last, self._n_last = time.perf_counter(), 0
        self._rate = 0.0
        self._start_wall = time.perf_counter()

    # -- SB3 hooks ------------------------------------------------------------------

    def _on_training_start(self) -> None:
        n = self.num_timesteps
        if n == 0 and "pretrain" in self.state and not self.state["evals"]:
            self.evaluate()  # where the clone starts: the curve's first point
        self._n_last = n
        self._next = {k: (n // every + 1) * every for k, every in (
            ("snapshot", self.cfg.selfplay.snapshot_interval),
            ("eval", self.cfg.eval.interval), ("checkpoint", self.cfg.checkpoint.interval))}
        if self.resume_from is not None:
            self.restore(self.resume_from)
            self.resume_from = None
        if self.cfg.logging.progress_bar:
            from tqdm import tqdm
            self.bar = tqdm(total=self.cfg.total_timesteps, initial=n, unit="sample",
                            unit_scale=True, dynamic_ncols=True, desc=self.cfg.run_name)

    def _on_step(self) -> bool:
        n = self.num_timesteps
        if self.bar is not None:
            self.bar.update(n - self.bar.n)
        now = time.perf_counter()
        if now - self._t_last > 5:
            self._rate = (n - self._n_last) / (now - self._t_last)
            self._t_last, self._n_last = now, n
            self.logger.record("charts/samples_per_second", self._rate)
            if self.bar is not None:
                self.bar.set_postfix_str(self._postfix())
        if n >= self._next["snapshot"]:
            self._next["snapshot"] += self.cfg.selfplay.snapshot_interval
            self.add_snapshot()
        if n >= self._next["eval"]:
            self._next["eval"] += self.cfg.eval.interval
            self.evaluate()
        if n >= self._next["checkpoint"]:
            self._next["checkpoint"] += self.cfg.checkpoint.interval
            self.checkpoint_due = True  # taken once this rollout is trained
        return not self.stop_requested

    def _on_rollout_start(self) -> None:
        if self.checkpoint_due:
            self.checkpoint()

    def _on_rollout_end(self) -> None:
        buf = self.model.ep_info_buffer
        if buf:
            self.logger.record("charts/episodic_return", float(np.mean([e["r"] for e in buf])))
        if self.pool.pfsp:
            self.log_league()

    def log_league(self) -> None:
        """The league's table in TensorBoard: each fixed player's deal win rate
        against the learner and its share of the league games; the snapshots'
        together (their mean and highest win rate, their total share)."""
        rows = self.pool.table()
        snaps = [r for r in rows if r["name"] not in self.pool.fixed]
        for r in rows:
            if r["name"] in self.pool.fixed:
                key = r["name"].replace("/", "_")
                self.logger.record(f"league/win_rate_{key}", r["win_rate"])
                self.logger.record(f"league/share_{key}", r["share"])
        if snaps:
            self.logger.record("league/win_rate_snapshots_mean",
                               float(np.mean([r["win_rate"] for r in snaps])))
            self.logger.record("league/win_rate_snapshots_max",
                               float(max(r["win_rate"] for r in snaps)))
            self.logger.record("league/share_snapshots", float(sum(r["share"] for r in snaps)))

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

    # -- the work -----------------------------------------------------------------

    def _postfix(self) -> str:
        last = self.state["evals"][-1] if self.state["evals"] else None
        text = f"{self._rate:,.0f} samples/s"
        if last:
            text += " · " + ", ".join(f"vs {k} {v['points_per_deal']:+.3f}"
                                      for k, v in last["results"].items())
        return text

    def add_snapshot(self) -> None:
        n = self.num_timesteps
        pool_dir = self.run_dir / "pool"
        pool_dir.mkdir(exist_ok=True)
        path = pool_dir / f"snapshot_{n}.pt"
        with atomic_path(path) as tmp:
            torch.save(self.model.policy.state_dict(), tmp)
        self.pool.snapshots.append((path.name, frozen_player(self.model.policy, path.name)))
        self.state["snapshots"].append(path.name)
        while len(self.pool.snapshots) > self.cfg.selfplay.pool_size:
            name, _ = self.pool.snapshots.pop(0)
            self.state["snapshots"].remove(name)
            # The file stays until state.json stops naming it (prune, at the checkpoint).
        self.pool.win_rates.forget({name for name, _ in self.pool.players()})

    def evaluate(self) -> dict:
        cfg = self.cfg
        player = PolicyPlayer(self.model.policy, name=f"{cfg.run_name}@{self.num_timesteps}")
        # best.zip itself is replaced only once state.json records this best
        # (publish_best at the next checkpoint): a crash cannot make them disagree.
        record = evaluate_run(
            cfg, player, self.state, self.run_dir, self.num_timesteps,
            self.state["wall_time_s"] + time.perf_counter() - self._start_wall,
            save_best=lambda: save_model(self.model,
                                         self.run_dir / f"best_{self.num_timesteps}.zip"),
            scalar=self.logger.record)
        if self.bar is not None:
            self.bar.set_postfix_str(self._postfix())
        self.logger.dump(self.num_timesteps)
        return record

    def restore(self, checkpoint: Path) -> None:
        """The random states, the games and the counters kept in ``checkpoint``
        (none in one saved before they were: the run goes on from fresh ones);
        a state that does not fit this run (a forced resume that changed the
        games or the pools) or cannot be read is said in the log, and the games
        start afresh."""
        env = self.model.get_env()
        try:
            saved = run_state.read_from(checkpoint)
            if saved is None:
                return
            extra = run_state.restore(saved, self.model, env, self.pool, self.partners,
                                      self.revive)
            self._next = {k: int(v) for k, v in extra["next"].items()}
        except Exception as err:  # noqa: BLE001 - a foreign or damaged state: not the run's end
            self.log(f"{checkpoint}: its random states and games do not fit this run "
                     f"({str(err)[:200]}); they start afresh")
            self.model._last_obs = env.reset()

    def revive(self, name: str, weights: dict) -> PolicyPlayer:
        """A frozen snapshot of the policy with ``weights``, named ``name``."""
        snap = copy.deepcopy(self.model.policy)
        snap.load_state_dict(weights)
        return frozen_player(snap, name)

    def checkpoint(self) -> None:
        self.checkpoint_due = False
        n = self.num_timesteps
        self.state["timesteps"] = n
        self.state["wall_time_s"] += time.perf_counter() - self._start_wall
        self._start_wall = time.perf_counter()
        name = f"checkpoint_{n}.zip"
        if self.pool.pfsp:
            self.state["league"] = self.pool.win_rates.to_json()
        # Order matters for a SIGKILL at any point (see training.runs): the model,
        # then state.json naming it (the commit), then the copy and the clean-up.
        saved = run_state.capture(self.model, self.model.get_env(), self.pool, self.partners,
                                  {"next": self._next})
        save_model(self.model, self.run_dir / name, saved)
        self.state["checkpoint"] = name
        write_json(self.run_dir / "state.json", self.state)
        copy_file(self.run_dir / name, self.run_dir / "latest.zip")
        publish_best(self.run_dir, self.state)
        prune(self.run_dir, self.state, self.cfg.checkpoint.keep)


def frozen_player(policy, name: str) -> PolicyPlayer:
    """A copy of the policy that later training does not change (an opponent)."""
    snap = copy.deepcopy(policy)
    snap.set_training_mode(False)
    return PolicyPlayer(snap, name=name, temperature=1.0)


def saved_steps(path: Path) -> int | None:
    """The sample count inside an SB3 checkpoint zip, None if unreadable (cheap:
    reads the small ``data`` entry, not the weights)."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:
            return int(json.loads(z.read("data"))["num_timesteps"])
    except Exception:  # noqa: BLE001 - missing, truncated or foreign file: unusable
        return None


def readable_checkpoints(run_dir: Path) -> list[tuple[str, int]]:
    """(name, samples) of the run's checkpoints that can be read (numbered ones and
    ``latest.zip``), newest first: what a damaged ``state.json`` is rebuilt from."""
    found = []
    for path in [*Path(run_dir).glob("checkpoint_*.zip"), Path(run_dir) / "latest.zip"]:
        steps = saved_steps(path)
        if steps:  # None (unreadable) or 0 (nothing trained)
            found.append((path.name, steps))
    # The numbered file before latest.zip at the same count: state.json names those.
    return sorted(found, key=lambda f: (f[1], f[0] != "latest.zip"), reverse=True)


def resume_point(run_dir: Path, state: dict, log) -> Path | None:
    """The checkpoint to resume from: the one ``state.json`` names (or, for older
    runs, latest.zip) when it holds the state's step count; otherwise the newest
    numbered checkpoint at or below it, with the state rolled back to it, said in
    the log. None when the run has no checkpoint yet (it restarts from scratch)."""
    n = state["timesteps"]
    first = run_dir / (state["checkpoint"] or "latest.zip")
    if saved_steps(first) == n and n > 0:
        return first
    numbered = sorted(run_dir.glob("checkpoint_*.zip"), key=checkpoint_steps, reverse=True)
    for path in [run_dir / "latest.zip", *numbered]:
        steps = saved_steps(path)
        if steps is None or steps > n or steps == 0:
            continue
        why = ("is missing or unreadable" if saved_steps(first) is None else
               f"holds {saved_steps(first):,} samples")
        log(f"{first} {why} but state.json says {n:,}; falling back to {path.name} "
            f"({steps:,} samples)")
        state["timesteps"] = steps
        state["checkpoint"] = path.name
        state["evals"] = [e for e in state["evals"] if e["timesteps"] <= steps]
        return path
    if n > 0:
        raise CheckpointError(f"{run_dir}: state.json says {n:,} samples but no checkpoint "
                              f"at or below that step can be read")
    return None


def train(cfg: TrainConfig, resume: Path | None = None, force: bool = False,
          log=print, force_hint: str | None = None) -> Path:
    """Train (or resume) a run; returns its folder. Raises ConfigError /
    CheckpointError with one-line messages (``force_hint``: what the caller's user
    does to resume a run whose config differs; default: pass --force)."""
    torch.set_num_threads(cfg.torch_threads)
    check_torch_compile(cfg)
    people = None
    if resume is None:  # every input a new run reads is checked before its folder is written
        check_warm_start(cfg)
        people = recorded_demonstrations(cfg)
    run_dir, state = open_run(cfg, resume, force, find_checkpoints=readable_checkpoints, log=log,
                              force_hint=force_hint)
    start_from = None
    if resume is not None:
        remove_partial_writes(run_dir)
        start_from = resume_point(run_dir, state, log)
        publish_best(run_dir, state)
        prune(run_dir, state, cfg.checkpoint.keep)
        # Evaluations after the last checkpoint died with the process: the log
        # restarts from the state's, so none is written twice.
        write_text(run_dir / "metrics.jsonl", "".join(json.dumps(e) + "\n" for e in state["evals"]))
        if state["timesteps"] >= cfg.total_timesteps:
            log(f"{run_dir} is finished at {state['timesteps']:,} samples (total_timesteps "
                f"{cfg.total_timesteps:,}); to train on, resume with a larger "
                f"--set total_timesteps=...")
            return run_dir
    rng = np.random.default_rng(cfg.seed + state["timesteps"])
    fixed = {spec: load_player(spec, seed=cfg.seed) for spec in cfg.selfplay.opponents
             if spec not in POLICY_ENTRIES}
    pfsp = cfg.selfplay.pfsp.model_dump() if cfg.selfplay.pfsp else None
    pool = OpponentPool(cfg.selfplay.opponents, fixed, rng, pfsp=pfsp)
    pool.win_rates.load(state.get("league"))  # a resumed run's table
    partners = build_partners(cfg, pool, rng)
    env = build_env(cfg, pool, seed=cfg.seed + state["timesteps"], partners=partners)
    if start_from is not None:
        # The config's PPO settings apply (a --force resume may change them), and the
        # env may have another number of learner seats (selfplay weights).
        model = load_model(start_from, env=env, cls=AluettePPO, **ppo_settings(cfg))
        model.policy.precision = learner_precision(cfg.network.precision)
        model.compile_update = learner_compile(cfg)
        if model.num_timesteps != state["timesteps"]:
            raise CheckpointError(f"{start_from}: holds {model.num_timesteps} steps "
                                  f"but state.json says {state['timesteps']}")
        if cfg.logging.tensorboard:
            model.tensorboard_log = str(run_dir / "tb")
        for name in list(state["snapshots"]):
            path = run_dir / "pool" / name
            try:
                sd = torch.load(path, map_location="cpu", weights_only=True)
                snap = copy.deepcopy(model.policy)
                snap.load_state_dict(sd)
            except Exception as err:  # noqa: BLE001
                # An opponent less is no reason to lose the run.
                log(f"{path}: missing or corrupt pool snapshot ({type(err).__name__}); "
                    f"left out of the pool")
                state["snapshots"].remove(name)
                continue
            pool.snapshots.append((name, frozen_player(snap, name)))
        while len(pool.snapshots) > cfg.selfplay.pool_size:  # a forced resume may lower it
            state["snapshots"].remove(pool.snapshots.pop(0)[0])
        n = len(pool.snapshots)
        log(f"resuming {run_dir} at {model.num_timesteps:,} samples "
            f"({n} snapshot{'' if n == 1 else 's'} in the pool)")
    else:
        model = build_model(cfg, env, run_dir)
        if cfg.network.warm_start:
            load_onnx_weights(model.policy, cfg.network.warm_start)
        log(f"training {cfg.run_name} for {cfg.total_timesteps:,} learner samples -> {run_dir}"
            + (f" (warm start: {cfg.network.warm_start})" if cfg.network.warm_start else ""))
        if cfg.pretrain is not None:
            state["pretrain"] = pretrain(cfg, model.policy, log, people)
            # The clone's time is part of the run's: the curve's wall time starts here.
            state["wall_time_s"] += state["pretrain"]["seconds"]
    pool.latest = PolicyPlayer(model.policy, name="latest", temperature=1.0, seed=cfg.seed)
    careless_partners(partners, model.policy, cfg.seed)

    # The checkpoint's random states and games in progress replace the fresh ones
    # seeded above when training starts.
    callback = TrainCallback(cfg, run_dir, pool, state, partners, start_from, log)
    if isinstance(env, AllSeatVecEnv) and not pool.snapshots \
            and (cfg.selfplay.opponents.get("snapshots", 0) > 0
                 or (partners is not None and partners.weights.get("snapshots", 0) > 0)):
        callback.init_callback(model)
        callback.add_snapshot()  # league games draw snapshots from the start
    with stop_requests(callback):
        remaining = cfg.total_timesteps - model.num_timesteps
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callback,
                        reset_num_timesteps=start_from is None, tb_log_name="ppo",
                        log_interval=1)
        if not callback.stop_requested and (not state["evals"] or
                                            state["evals"][-1]["timesteps"] != model.num_timesteps):
            callback.evaluate()
        callback.checkpoint()
    log(end_message(run_dir, state, model.num_timesteps, run_dir / "latest.zip",
                    callback.stop_requested))
    return run_dir
