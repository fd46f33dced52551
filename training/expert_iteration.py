"""Expert iteration: the fast policy learns what the search knows.

One iteration of the loop (``aluette expert-iteration configs/expert_iteration.yaml``):

1. **Expert data** (:func:`generate`, also ``aluette expert-data CONFIG``). The
   current policy plays whole matches against itself on the batched engine
   (every seat, sampled at ``data.temperature``); from each shard's matches
   ``data.positions_per_shard`` decisions with more than one legal card are
   drawn, and :meth:`ExpertPlayer.card_values` labels each with the expert's
   value of every legal card (the expert guided by, and rolling out with, the
   same policy; ``data.worlds`` worlds). Shards are independent (each has its
   own seed), written atomically, and computed by ``data.workers`` processes;
   a stopped or killed run resumes by computing the missing shards only.
2. **Distillation** (:func:`distill`). The policy (the previous iteration's, or
   ``start`` for the first) is fitted by cross-entropy to a target that mixes the
   expert's own card (``best_weight``) with a softmax of its card values at
   temperature ``tau`` (deal points); a KL term (``anchor``) to the guiding
   policy's probabilities keeps it near the policy that made the data where
   the expert has nothing to say; the data sets of the ``replay`` iterations
   before are fitted too; the value head is fitted, on the policy's
   features (its error does not reach the shared trunk), to the returns that
   followed in self-play (the undiscounted return PPO's value head learns).
3. **PPO** (:func:`ppo_phase`, when ``ppo.config`` names a training config). The
   distilled policy is trained on by self-play with that config, warm-started
   from its export, as a training run folder ``iter-N/ppo`` (resumable like any
   run); its ``best.zip`` is the iteration's policy.
4. **Export and evaluation.** The fitted (and PPO) policies are exported to ONNX
   (with :func:`training.export.export_policy`'s own verification) and evaluated
   by duplicate deals against each of ``eval.opponents`` (``iter-N/eval.json``).
   The next iteration's data is labelled by the expert running on the
   iteration's policy, and the next distillation starts from it.

The data set on disk (one folder): ``dataset.json`` (format, the settings that
made it, the field descriptions in :data:`FIELDS`) and ``shard-NNNNN.npz``
files, each holding ``positions_per_shard`` labelled positions as NumPy arrays
(:func:`load_dataset` reads them all).

May import numpy and :mod:`aluette_env` at the top; torch and SB3 only inside
the functions that need them (data generation needs neither).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from aluette_env import commands as cli
from aluette_env.game import NUM_CARDS
from aluette_env.observation import OBS_SIZE, OBS_VERSION

from .config import MAX_TORCH_THREADS, RUN_NAME, NetworkSpec, Seed
from .runs import atomic_path, write_json, write_text

FORMAT = "aluette-expert-data"
FORMAT_VERSION = 1
MANIFEST = "dataset.json"
#: The arrays of a shard: name -> (dtype, shape after the position axis, meaning).
FIELDS: dict[str, tuple[str, tuple[int, ...], str]] = {
    "observations": ("int8", (OBS_SIZE,), ("the acting seat's observation (the manifest's "
                     "OBS_VERSION)")),
    "masks": ("int8", (NUM_CARDS,), "its legal cards (1: legal)"),
    "values": ("float32", (NUM_CARDS,), ("the expert's mean deal points for the acting seat's "
               "team if it plays that card (NaN: illegal card)")),
    "stderr": ("float32", (NUM_CARDS,), ("standard error of each card's value minus the value "
               "of the expert's card, paired world by world (NaN: illegal card)")),
    "best": ("int8", (), ("the card of the best mean value, or the policy's card when no "
             "card gains over it by more than one standard error (every play searched)")),
    "move": ("int8", (), ("the expert's move in play: as best, among the plays the guiding "
             "policy finds plausible (min_prob) only")),
    "worlds": ("int16", (), "worlds searched (0: every legal card is worth the same)"),
    "policy": ("float32", (NUM_CARDS,), "the guiding policy's card probabilities"),
    "played": ("int8", (), "the card the self-play policy played there"),
    "returns": ("float32", (), ("the acting seat's team points from this decision to the end "
                "of the match in self-play (the value head's target)")),
}
# No inf or NaN anywhere: every number of the loop is a finite setting.
_STRICT = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)
#: Most shards of one data set (each a file, labelled in minutes).
MAX_SHARDS = 100_000


class DataConfig(BaseModel):
    """How a data set is made (``data`` in the config)."""

    model_config = _STRICT
    shards: int = Field(128, ge=1, le=MAX_SHARDS, description="shards per iteration")
    positions_per_shard: int = Field(128, ge=1, le=100_000,
                                     description="labelled positions per shard")
    games_per_shard: int = Field(8, ge=1, le=4096,
                                 description="self-play matches played at once per shard; the "
                                             "positions are drawn from all their decisions")
    num_deals: int = Field(5, ge=1, le=100, description="deals per self-play match")
    temperature: float = Field(1.0, gt=0, le=100,
                               description="self-play sampling temperature of the policy")
    worlds: int = Field(144, ge=1, le=4096, description="expert worlds per labelled position")
    workers: int = Field(1, ge=1, le=256, description="parallel labelling processes")
    seed: Seed = Field(0, ge=0, description="seed of the data; shard k uses seed * 100003 + k")


class DistillConfig(BaseModel):
    """How the policy is fitted to the data (``distill``)."""

    model_config = _STRICT
    epochs: int = Field(8, ge=1, le=1000)
    batch_size: int = Field(256, ge=1, le=1_000_000)
    learning_rate: float = Field(3e-4, gt=0, le=1)
    best_weight: float = Field(0.8, ge=0, le=1,
                               description="share of the expert's own card in the target")
    tau: float = Field(0.1, gt=0, le=100, description="temperature (deal points) of the softmax of "
                                               "the card values in the target")
    anchor: float = Field(0.5, ge=0, le=100,
                          description="weight of KL(guiding policy || new policy)")
    vf_coef: float = Field(0.5, ge=0, le=100,
                           description="weight of the value head's squared error")
    replay: int = Field(1, ge=0, le=100, description="earlier iterations' data sets fitted too "
                                             "(0: this iteration's only)")
    holdout: float = Field(0.1, ge=0, lt=1, description="share of positions kept out of the "
                                                        "fit to measure it")
    seed: Seed = Field(0, ge=0)


class LoopEvalConfig(BaseModel):
    model_config = _STRICT
    deals: int = Field(2000, ge=1, le=cli.MAX_EVAL_DEALS,
                       description="duplicate deal pairs per opponent")
    seed: Seed = Field(4242, ge=0)
    opponents: list[str] = Field(["ai:version=2"], min_length=1)

    @field_validator("opponents")
    @classmethod
    def _once(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("each opponent once")
        return v


class PPOPhaseConfig(BaseModel):
    """PPO after each distillation: the distilled policy trained on by self-play
    with a training config, whose result is the iteration's policy (the next
    expert's guide and the next distillation's start). Off while ``config`` is
    null."""

    model_config = _STRICT
    config: str | None = Field(None, description="a training config of backend sb3 "
                                                 "(configs/ppo_after_distill.yaml); null: "
                                                 "no PPO phase")
    set: list[str] = Field([], description="overrides of that config (key.path=value); the "
                                           "loop sets output_dir, run_name and "
                                           "network.warm_start itself")
    model: str = Field("best", pattern="^(best|latest)$",
                       description="the run's model that ends the phase: best.zip (the best "
                                   "evaluation against the config's first eval opponent) or "
                                   "latest.zip")


class LoopConfig(BaseModel):
    """A whole expert-iteration run (configs/expert_iteration.yaml)."""

    model_config = _STRICT
    run_name: str = Field("expert-iteration", pattern=RUN_NAME)
    output_dir: str = "checkpoints"
    start: str = Field("ai:version=2", description="the first iteration's policy: a shipped "
                                                    "ai:version=N or an exported .onnx")
    iterations: int = Field(3, ge=1, le=100)
    torch_threads: int = Field(1, ge=1, le=MAX_TORCH_THREADS)
    network: NetworkSpec = NetworkSpec()
    data: DataConfig = DataConfig()
    distill: DistillConfig = DistillConfig()
    ppo: PPOPhaseConfig = PPOPhaseConfig()
    eval: LoopEvalConfig = LoopEvalConfig()


def load_loop_config(path: str | Path, overrides: list[str] | None = None) -> LoopConfig:
    """Read, override (``key.path=value``) and validate the whole config before any
    work, as :func:`training.config.load_config` does a training config: every
    key and bound, the start policy, every evaluation opponent, a writable
    ``output_dir`` and the PPO phase's training config. ConfigError (one line)
    on any problem."""
    from aluette_env.players import PlayerSpecError, load_player

    from .config import ConfigError, _format_error, apply_overrides, check_output_dir, read_yaml
    source = str(path)
    data = read_yaml(Path(path), source)
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{source}: the top level must be a mapping of settings")
    data = apply_overrides(data, overrides or [], source)
    try:
        cfg = LoopConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_error(source, err, LoopConfig)) from None
    try:
        check_policy(cfg.start)
    except ConfigError as err:
        raise ConfigError(f"{source}: 'start': {err}") from None
    for i, spec in enumerate(cfg.eval.opponents):
        try:
            load_player(spec)
        except PlayerSpecError as err:
            raise ConfigError(f"{source}: 'eval.opponents[{i}]': {err}") from None
    check_output_dir(cfg, source)
    if cfg.ppo.config is not None:
        try:
            ppo_config(cfg, Path(cfg.output_dir) / cfg.run_name / "iter-1", "start")
        except ConfigError as err:
            raise ConfigError(f"{source}: ppo: {err}") from None
    return cfg


def ppo_config(cfg: LoopConfig, folder: Path, warm_start: str):
    """The PPO phase's training config for the iteration in ``folder``, warm-started
    from ``warm_start`` (the distilled policy; checked only when it is a file).
    ConfigError (one line) for a config the loop cannot use."""
    from .config import ConfigError, load_config
    source = cfg.ppo.config
    # Validated without the warm start: the distilled policy does not exist yet
    # (so the run is not from scratch, and may meet trained models).
    tcfg = load_config(cfg.ppo.config, [*cfg.ppo.set, f"output_dir={folder}", "run_name=ppo",
                                        "network.warm_start=null",
                                        "selfplay.allow_trained_opponents=true"])
    if tcfg.backend != "sb3":
        raise ConfigError(f"{source}: the PPO phase trains with backend sb3, the config says "
                          f"{tcfg.backend}")
    theirs = tcfg.network
    mine = cfg.network
    if theirs.architecture() != mine:
        raise ConfigError(f"{source}: its network (trunk {theirs.trunk}, pi {theirs.pi}, vf "
                          f"{theirs.vf}, {theirs.activation}) must be the loop's (trunk "
                          f"{mine.trunk}, pi {mine.pi}, vf {mine.vf}, {mine.activation}): the "
                          f"distilled weights start it")
    if Path(warm_start).is_file():
        tcfg = load_config(cfg.ppo.config, [*cfg.ppo.set, f"output_dir={folder}",
                                            "run_name=ppo", f"network.warm_start={warm_start}"])
    return tcfg


def check_policy(spec: str) -> None:
    """A policy the expert can be guided by (ai, ai:version=N, an .onnx file); ValueError
    (a ConfigError) with one line otherwise."""
    from aluette_env.players.search import guiding_policy

    from .config import ConfigError
    if spec == "none":
        raise ConfigError("policy must be ai, ai:version=N or an exported .onnx file "
                          "(the loop distils into it), got 'none'")
    try:
        guiding_policy(spec)
    except ValueError as err:
        raise ConfigError(str(err)) from None


# ----------------------------------------------------------------------------- data


def _settings(cfg: DataConfig, policy: str) -> dict[str, Any]:
    """What makes a data set's shards what they are (a resume must match it)."""
    keep = cfg.model_dump(exclude={"shards", "workers"})
    return {"policy": policy, **keep}


def shard_path(out: Path, k: int) -> Path:
    return Path(out) / f"shard-{k:05d}.npz"


def label_shard(policy: str, cfg: DataConfig, k: int) -> dict[str, np.ndarray]:
    """Shard ``k``: self-play positions of ``policy`` and the expert's labels."""
    from aluette_env.players import load_player
    from aluette_env.players.search import ExpertPlayer

    from .imitation import demonstrations
    seed = cfg.seed * 100003 + k
    player = load_player(policy, seed=seed)
    player.temperature = float(cfg.temperature)  # sampled self-play (ONNX players)
    demos = demonstrations(player, 1, num_games=cfg.games_per_shard, num_deals=cfg.num_deals,
                           seed=seed)
    rng = np.random.default_rng(seed)
    choices = np.flatnonzero(demos.masks.sum(1) > 1)
    pick = np.sort(rng.choice(choices, min(cfg.positions_per_shard, len(choices)),
                              replace=False))
    n = len(pick)
    out = {name: np.zeros((n, *shape), dtype) for name, (dtype, shape, _) in FIELDS.items()}
    out["observations"][:] = demos.observations[pick]
    out["masks"][:] = demos.masks[pick]
    out["played"][:] = demos.actions[pick]
    out["returns"][:] = demos.returns[pick]
    out["values"][:] = np.nan
    out["stderr"][:] = np.nan
    expert = ExpertPlayer(worlds=cfg.worlds, policy=policy, seed=seed)
    out["policy"][:] = expert._probabilities(out["observations"], out["masks"])
    for i in range(n):
        cv = expert.card_values(out["observations"][i], out["masks"][i])
        out["values"][i, cv.cards] = cv.value
        out["stderr"][i, cv.cards] = cv.stderr
        out["best"][i], out["worlds"][i] = cv.best, cv.worlds
        out["move"][i] = expert_move(expert, cv, out["observations"][i], out["masks"][i])
    return out


def expert_move(expert, cv, observation: np.ndarray, mask: np.ndarray) -> int:
    """The expert's move in play, from the card values of the same position (the
    same worlds): its choice among every play (``cv.best``) is its move when that
    play is one it would search (policy probability of its class at least
    ``min_prob``) or the policy's own; otherwise it searches again, as in play."""
    if cv.worlds == 0:
        return int(cv.best)
    # card_values leaves the position's play classes and their policy probabilities.
    if expert._class_prob[expert._card_class[cv.best]] >= expert.min_prob:
        return int(cv.best)
    return int(expert.act_batch(observation[None, :], mask[None, :])[0])


def _write_shard(out: Path, k: int, arrays: dict[str, np.ndarray]) -> None:
    with atomic_path(shard_path(out, k)) as tmp, open(tmp, "wb") as f:
        np.savez(f, **arrays)


def _worker(job: tuple[str, dict, str, int]) -> tuple[int, int, float]:
    policy, cfg_data, out, k = job
    start = time.perf_counter()
    arrays = label_shard(policy, DataConfig(**cfg_data), k)
    _write_shard(Path(out), k, arrays)
    return k, len(arrays["best"]), time.perf_counter() - start


def shard_problem(path: Path) -> str | None:
    """Why the shard file at ``path`` cannot be used (truncated, damaged, other
    arrays), or None: every array is read, so the zip's checksums are checked."""
    try:
        with np.load(path) as z:
            shard = {name: z[name] for name in FIELDS}
    except Exception as err:  # noqa: BLE001 - any damaged file
        return f"unreadable ({type(err).__name__})"
    n = len(shard["best"])
    for name, (dtype, shape, _) in FIELDS.items():
        if shard[name].dtype != np.dtype(dtype) or shard[name].shape != (n, *shape):
            return (f"{name} is {shard[name].dtype} {shard[name].shape}; expected {dtype} "
                    f"[n, *{shape}]")
    return None


def check_data_folder(out: Path) -> None:
    """``out`` can hold a data set: a new or empty folder, or one with its manifest
    (a data set to complete); never a file, nor a folder of other things (a
    training run's). ConfigError naming it otherwise, before anything is written."""
    from .config import ConfigError, folder_problem
    problem = folder_problem(out)
    if problem:
        raise ConfigError(f"--out {str(out)[:200]}: cannot create or write it ({problem})")
    if out.is_dir() and not (out / MANIFEST).exists():
        others = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
        if others:
            raise ConfigError(f"--out {str(out)[:200]}: a folder of other files ("
                              f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''}) "
                              f"and no {MANIFEST}: not an expert data set; give a new or empty "
                              f"folder")


def open_dataset(out: Path, cfg: DataConfig, policy: str, log=print) -> list[int]:
    """Create or check the folder's manifest; returns the shards still to compute:
    the missing ones, and any present but damaged (each said, and labelled again)."""
    from .config import ConfigError
    out = Path(out)
    check_data_folder(out)
    settings = _settings(cfg, policy)
    manifest = out / MANIFEST
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise ConfigError(f"{manifest}: unreadable manifest; remove the folder to start "
                              f"again") from None
        if not isinstance(old, dict) or old.get("format") != FORMAT \
                or old.get("settings") != settings:
            old = old if isinstance(old, dict) else {}
            theirs = old.get("settings") if isinstance(old.get("settings"), dict) else {}
            diff = sorted(key for key in {**settings, **theirs}
                          if theirs.get(key) != settings.get(key))
            raise ConfigError(f"{out}: a data set made with other settings ({', '.join(diff)}"
                              f" differ); use another folder")
    try:
        write_json(manifest, {
            "format": FORMAT, "version": FORMAT_VERSION, "obs_version": OBS_VERSION,
            "obs_size": OBS_SIZE, "settings": settings, "shards": cfg.shards,
            "fields": {name: {"dtype": d, "shape": ["n", *s], "meaning": m}
                       for name, (d, s, m) in FIELDS.items()}})
    except OSError as err:
        raise ConfigError(f"--out {str(out)[:200]}: cannot write {MANIFEST} "
                          f"({err.strerror or err})") from None
    todo = []
    for k in range(cfg.shards):
        path = shard_path(out, k)
        if not path.exists():
            todo.append(k)
            continue
        problem = shard_problem(path)
        if problem:
            log(f"shard {k}: {path} is damaged ({problem}); it is labelled again")
            todo.append(k)
    return todo


def generate(out: str | Path, cfg: DataConfig, policy: str, log=print) -> Path:
    """Make (or complete) the data set in ``out``: every missing shard, by
    ``cfg.workers`` processes. Returns the folder."""
    out = Path(out)
    check_policy(policy)
    todo = open_dataset(out, cfg, policy, log)
    done = cfg.shards - len(todo)
    log(f"expert data {out}: {done} of {cfg.shards} shards present, {len(todo)} to label "
        f"({cfg.positions_per_shard} positions each, expert worlds={cfg.worlds}, policy "
        f"{policy}, {cfg.workers} worker{'s' if cfg.workers > 1 else ''})")
    if not todo:
        return out
    start = time.perf_counter()
    jobs = [(policy, cfg.model_dump(), str(out), k) for k in todo]
    labelled = 0
    if cfg.workers == 1:
        results = map(_worker, jobs)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(cfg.workers)
        results = pool.imap_unordered(_worker, jobs)
    # A plain kill (SIGTERM) ends the workers too: the finally below runs.
    previous = signal.signal(signal.SIGTERM, _exit_on_term) if pool is not None else None
    try:
        for k, n, seconds in results:
            labelled += n
            done += 1
            rate = labelled / (time.perf_counter() - start)
            log(f"shard {k}: {n} positions in {seconds:.0f} s; {done}/{cfg.shards} shards, "
                f"{rate:.2f} positions/s")
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
            signal.signal(signal.SIGTERM, previous)
    return out


def _exit_on_term(signum, frame) -> None:
    raise SystemExit(128 + signum)


@dataclass
class ExpertData:
    """A whole data set in memory: FIELDS name -> array (positions first)."""

    arrays: dict[str, np.ndarray]
    manifest: dict

    def __len__(self) -> int:
        return len(self.arrays["best"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def subset(self, index: np.ndarray) -> ExpertData:
        return ExpertData({k: v[index] for k, v in self.arrays.items()}, self.manifest)


def load_dataset(*folders: str | Path) -> ExpertData:
    """Every shard of one or more data set folders; ValueError naming a bad file."""
    arrays: dict[str, list[np.ndarray]] = {name: [] for name in FIELDS}
    manifest: dict = {}
    for folder in folders:
        folder = Path(folder)
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError):
            raise ValueError(f"{folder}: no readable {MANIFEST}; not an expert data set") from None
        if manifest.get("format") != FORMAT or manifest.get("obs_version") != OBS_VERSION:
            raise ValueError(f"{folder}: format {manifest.get('format')!r} OBS_VERSION "
                             f"{manifest.get('obs_version')!r}; expected {FORMAT!r} "
                             f"{OBS_VERSION}")
        for path in sorted(folder.glob("shard-*.npz")):
            problem = shard_problem(path)
            if problem:
                raise ValueError(f"{path}: {problem} shard")
            with np.load(path) as z:
                for name in FIELDS:
                    arrays[name].append(z[name])
    if not arrays["best"]:
        raise ValueError(f"{', '.join(map(str, folders))}: no shards")
    return ExpertData({k: np.concatenate(v) for k, v in arrays.items()}, manifest)


# ----------------------------------------------------------------------------- distillation


def targets(data: ExpertData, best_weight: float, tau: float) -> np.ndarray:
    """The policy's target [n, 48]: ``best_weight`` on the expert's move plus the rest
    spread as softmax(values / tau) over the legal cards."""
    legal = data["masks"] > 0
    z = np.where(legal, np.nan_to_num(data["values"], nan=0.0) / tau, -np.inf)
    soft = np.exp(z - z.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    hard = np.zeros_like(soft)
    hard[np.arange(len(soft)), data["move"].astype(np.int64)] = 1.0
    return (best_weight * hard + (1 - best_weight) * soft).astype(np.float32)


def distill_losses(policy, data: ExpertData, cfg: DistillConfig):
    """(batch index -> (total, cross-entropy, KL, value loss, expert-card agreement) torch
    tensors) for :func:`distill`."""
    import torch

    from .sb3.policy import ILLEGAL_LOGIT, mask_logits
    target = torch.as_tensor(targets(data, cfg.best_weight, cfg.tau))
    guide = torch.as_tensor(data["policy"])
    obs = torch.as_tensor(data["observations"], dtype=torch.float32)
    masks = torch.as_tensor(data["masks"])
    returns = torch.as_tensor(data["returns"])
    best = torch.as_tensor(data["move"].astype(np.int64))

    def losses(idx):
        features = policy.extract_features(obs[idx], policy.pi_features_extractor)
        latent_pi = policy.mlp_extractor.forward_actor(features)
        # The value head learns on the policy's features without changing them: a
        # fresh value head's large early errors would otherwise pull the shared trunk.
        latent_vf = policy.mlp_extractor.forward_critic(features.detach())
        logits = mask_logits(policy.action_net(latent_pi), masks[idx], fill=ILLEGAL_LOGIT)
        logp = torch.log_softmax(logits, 1)
        legal = masks[idx] > 0
        zero = torch.zeros_like(logp)
        ce = -torch.where(legal, target[idx] * logp, zero).sum(1).mean()
        g = guide[idx]
        kl = torch.where(legal & (g > 0), g * (torch.log(g.clamp_min(1e-12)) - logp),
                         zero).sum(1).mean()
        value = torch.nn.functional.mse_loss(policy.value_net(latent_vf).flatten(),
                                             returns[idx])
        agree = (logits.argmax(1) == best[idx]).float().mean()
        return ce + cfg.anchor * kl + cfg.vf_coef * value, ce, kl, value, agree
    return losses


def distill(policy, data: ExpertData, cfg: DistillConfig, log=print) -> dict:
    """Fit an SB3 actor-critic ``policy`` to the expert data (module docstring);
    returns the held-out losses before and after, and the fit's last epoch."""
    import torch
    rng = np.random.default_rng(cfg.seed)
    order = rng.permutation(len(data))
    n_hold = round(cfg.holdout * len(data))
    hold, fit = order[:n_hold], order[n_hold:]
    losses = distill_losses(policy, data, cfg)
    names = ("loss", "cross_entropy", "kl", "value_loss", "agreement")

    def measure(idx) -> dict:
        if len(idx) == 0:
            return {}
        policy.set_training_mode(False)
        with torch.no_grad():
            return {k: float(v) for k, v in zip(names, losses(torch.as_tensor(idx)))}

    before = measure(hold)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    last: dict = {}
    for epoch in range(cfg.epochs):
        policy.set_training_mode(True)
        totals = np.zeros(len(names))
        rng.shuffle(fit)
        for start in range(0, len(fit), cfg.batch_size):
            idx = torch.as_tensor(fit[start:start + cfg.batch_size])
            out = losses(idx)
            optimizer.zero_grad()
            out[0].backward()
            optimizer.step()
            totals += len(idx) * np.array([float(v.detach()) for v in out])
        last = dict(zip(names, (totals / max(len(fit), 1)).tolist()))
        log(f"distill epoch {epoch + 1}/{cfg.epochs}: cross-entropy {last['cross_entropy']:.4f}"
            f", KL to the guide {last['kl']:.4f}, value loss {last['value_loss']:.3f}, greedy "
            f"card = expert's {last['agreement']:.1%}")
    policy.set_training_mode(False)
    after = measure(hold)
    if before:
        log(f"held out ({len(hold)} positions): loss {before['loss']:.4f} -> {after['loss']:.4f}"
            f", greedy card = expert's {before['agreement']:.1%} -> {after['agreement']:.1%}")
    return {"positions": len(data), "held_out": len(hold), "before": before, "after": after,
            "last_epoch": last}


def new_model(network: NetworkSpec, seed: int = 0):
    """A MaskablePPO model of this architecture (no environment: for fitting and export)."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from .sb3.policy import CardTrunk

    class Spaces(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (OBS_SIZE,), np.float32)
        action_space = gym.spaces.Discrete(NUM_CARDS)

    act = torch.nn.ReLU if network.activation == "relu" else torch.nn.Tanh
    return MaskablePPO("MlpPolicy", DummyVecEnv([Spaces]), seed=seed, device="cpu", verbose=0,
                       n_steps=8, batch_size=8, policy_kwargs={
                           "features_extractor_class": CardTrunk,
                           "features_extractor_kwargs": {"widths": tuple(network.trunk),
                                                         "activation": network.activation},
                           "net_arch": {"pi": list(network.pi), "vf": list(network.vf)},
                           "activation_fn": act})


def onnx_path(spec: str) -> str:
    """The ONNX file of a policy spec (ai, ai:version=N or a path)."""
    from aluette_env.players import load_player
    return str(load_player(spec).path)


# ----------------------------------------------------------------------------- the loop


def run_loop(cfg: LoopConfig, log=print) -> Path:
    """The whole loop; resumable: finished steps of each iteration (data shards,
    the distilled model, its evaluation) are kept and skipped."""
    import torch

    from aluette_env.evaluation import duplicate_eval

    from .export import export_policy
    from .sb3.checkpoints import load_model, save_model
    from .sb3.train import load_onnx_weights
    torch.set_num_threads(cfg.torch_threads)
    run = Path(cfg.output_dir) / cfg.run_name
    run.mkdir(parents=True, exist_ok=True)
    import yaml
    write_text(run / "config.yaml", yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    policy, previous = cfg.start, None
    for it in range(1, cfg.iterations + 1):
        folder = run / f"iter-{it}"
        data_cfg = cfg.data.model_copy(update={"seed": cfg.data.seed + 1000 * it})
        generate(folder / "data", data_cfg, policy, log)
        model_zip, model_onnx = folder / "model.zip", folder / "policy.onnx"
        if not model_zip.exists():
            model = new_model(cfg.network, cfg.distill.seed + it)
            if previous is not None:
                model.policy.load_state_dict(load_model(previous).policy.state_dict())
            else:
                load_onnx_weights(model.policy, onnx_path(policy))
            first = max(1, it - cfg.distill.replay)
            sets = [run / f"iter-{k}" / "data" for k in range(first, it + 1)]
            fit = distill(model.policy, load_dataset(*sets), cfg.distill, log)
            save_model(model, model_zip)
            write_json(folder / "distill.json", fit)
        if not model_onnx.exists():
            # The export carries the folder's config.yaml in the model's metadata.
            write_text(folder / "config.yaml", (run / "config.yaml").read_text())
            export_policy(str(model_zip), model_onnx)
        evaluated = {"distilled": model_onnx}
        if cfg.ppo.config is not None:
            model_zip, model_onnx = ppo_phase(cfg, folder, model_onnx, log)
            evaluated["ppo"] = model_onnx
        result_path = folder / "eval.json"
        if not result_path.exists():
            results: dict[str, dict] = {}
            for stage, path in evaluated.items():
                results[stage] = {}
                for opponent in cfg.eval.opponents:
                    res = duplicate_eval(str(path), opponent, deals=cfg.eval.deals,
                                         seed=cfg.eval.seed)
                    lo, hi = res.points_per_deal_ci95
                    results[stage][opponent] = {
                        "points_per_deal": res.points_per_deal, "ci95": [lo, hi],
                        "deals": cfg.eval.deals, "seed": cfg.eval.seed}
                    log(f"iteration {it} ({stage}): {path} vs {opponent}: "
                        f"{res.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}] points per deal "
                        f"over {cfg.eval.deals} pairs")
            write_json(result_path, {"iteration": it, "policy": str(model_onnx),
                                     "results": results[stage], "stages": results})
        policy, previous = str(model_onnx), model_zip
    log(f"expert iteration finished: {cfg.iterations} iterations in {run}; the last policy is "
        f"{policy}")
    return run


def ppo_phase(cfg: LoopConfig, folder: Path, distilled: Path, log=print) -> tuple[Path, Path]:
    """Train the distilled policy on with PPO (``folder/ppo``, a training run folder:
    resumed where a killed loop left it) and export the phase's model; returns
    (its SB3 zip, ``folder/ppo.onnx``)."""
    from .export import export_policy
    from .sb3.train import train
    run_dir = folder / "ppo"
    out = folder / "ppo.onnx"
    if not out.exists():
        tcfg = ppo_config(cfg, folder, str(distilled))
        resume = run_dir if (run_dir / "config.yaml").exists() else None
        train(tcfg, resume=resume, log=log,
              force_hint=f"the loop resumes {run_dir} only with the config it started")
    model_zip = run_dir / f"{cfg.ppo.model}.zip"
    if not model_zip.exists():  # no evaluation ran, so no best.zip
        model_zip = run_dir / "latest.zip"
    if not out.exists():
        export_policy(str(model_zip), out)
    return model_zip, out


# ----------------------------------------------------------------------------- commands


def _data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG.yaml",
                   help="an expert-iteration config (configs/expert_iteration.yaml); its "
                        "data section says how the data is made")
    p.add_argument("--out", required=True, metavar="DIR", type=_folder_path,
                   help="the data set's folder (required; created, or completed when it holds "
                        "a data set; never a folder of other files)")
    p.add_argument("--policy", metavar="SPEC",
                   help="the policy that plays and guides the expert (default: the config's "
                        "start)")
    p.add_argument("--set", action="append", default=[], metavar="key.path=value",
                   help="override a config value (repeatable), e.g. --set data.workers=2 "
                        "(default: none)")


def _folder_path(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; give the data set's folder")
    return text


def _data_run(args: argparse.Namespace) -> int:
    from .config import ConfigError
    try:
        check_data_folder(Path(args.out))  # before the config's checks load models
        cfg = load_loop_config(args.config, args.set)
        policy = cfg.start if args.policy is None else args.policy
        try:
            check_policy(policy)
        except ConfigError as err:
            raise ConfigError(f"--policy: {err}") from None
        generate(args.out, cfg.data, policy)
    except ConfigError as err:
        raise cli.UsageError(str(err)) from None
    return 0


def _loop_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG.yaml",
                   help="an expert-iteration config (configs/expert_iteration.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="key.path=value",
                   help="override a config value (repeatable), e.g. --set iterations=1 "
                        "(default: none)")


def _loop_run(args: argparse.Namespace) -> int:
    from .config import ConfigError
    from .runs import CheckpointError
    try:
        run_loop(load_loop_config(args.config, args.set))
    except (ConfigError, CheckpointError, ValueError) as err:
        raise cli.UsageError(str(err)) from None
    return 0


#: Entry points ``aluette.commands: expert-data`` and ``expert-iteration``.
DATA_COMMAND = cli.Command("label self-play positions with the expert's card values",
                           _data_arguments, _data_run)
LOOP_COMMAND = cli.Command("expert iteration: label, distil, train on with PPO, evaluate, repeat",
                           _loop_arguments, _loop_run)
