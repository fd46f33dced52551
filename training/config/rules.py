"""What a config needs beyond its own keys, checked before a run starts: the
rollout sizes that only fail together, the players it names (each loaded once),
a run from scratch meeting only rule-based players, the warm-start model and
the guiding policy, a writable ``output_dir``, and whether a recipe's stage can
start from the policy the stage before it makes. Each check raises
:class:`ConfigError` with one line naming the file and the key.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

from .schemas import MAX_ROLLOUT, ConfigError, LoopConfig, NetworkSpec, TrainConfig

#: Fixed players a run from scratch may meet: rule-based, with any options.
RULE_BASED_OPPONENTS = ("heuristic", "random")


def partner_games(cfg: TrainConfig) -> int:
    """How many games are partner games (``selfplay.partners.games`` of num_games)."""
    partners = cfg.selfplay.partners
    return 0 if partners is None else round(cfg.num_games * partners.games)


def selfplay_games(cfg: TrainConfig) -> int:
    """How many games are self-play (the ``latest`` share of the games that are
    not partner games)."""
    share = cfg.selfplay.opponents.get("latest", 0.0) / sum(cfg.selfplay.opponents.values())
    return round((cfg.num_games - partner_games(cfg)) * share)


def learner_seats(cfg: TrainConfig) -> int:
    """Learner samples per game step of a rollout: four per self-play game, two
    per league game and one per partner game."""
    n, m = selfplay_games(cfg), partner_games(cfg)
    return 4 * n + 2 * (cfg.num_games - n - m) + m


def check_batches(cfg: TrainConfig, source: str) -> None:
    """The batch sizes against the rollout (SB3) or a learner's batch (RLlib): the
    settings that only fail together."""
    if cfg.backend == "rllib":
        per_learner = cfg.rllib.train_batch_size // max(1, cfg.rllib.num_learners)
        if cfg.ppo.batch_size > per_learner:
            raise ConfigError(f"{source}: 'ppo.batch_size': at most the batch of one learner, "
                              f"rllib.train_batch_size / num_learners = {per_learner} agent "
                              f"steps (got {cfg.ppo.batch_size})")
        return  # the rollout below is SB3's (n_steps x n_envs)
    rollout = cfg.ppo.n_steps * learner_seats(cfg)
    if rollout > MAX_ROLLOUT:
        raise ConfigError(f"{source}: 'ppo.n_steps': one rollout, ppo.n_steps x learner seats = "
                          f"{rollout:,} samples, may hold at most {MAX_ROLLOUT:,} (its buffer "
                          f"lives in memory); lower ppo.n_steps or num_games")
    if cfg.ppo.batch_size > rollout:
        raise ConfigError(f"{source}: 'ppo.batch_size': at most one rollout, ppo.n_steps x "
                          f"learner seats = {rollout} samples (got {cfg.ppo.batch_size})")
    if cfg.ppo.normalize_advantage and rollout % cfg.ppo.batch_size == 1:
        # The last minibatch would hold one sample: its advantage std is NaN.
        raise ConfigError(f"{source}: 'ppo.batch_size': the rollout ({rollout} samples) would end "
                          f"in a minibatch of one sample, whose normalized advantage is NaN; "
                          f"choose a batch_size that divides {rollout} (got {cfg.ppo.batch_size})")
    return cfg


def check_from_scratch(cfg: TrainConfig, source: str) -> None:
    """A run from scratch (no ``network.warm_start``) meets only rule-based fixed
    players, its own snapshots and itself (checked after the players load, so a
    misspelt player is named as such first)."""
    sp = cfg.selfplay
    if cfg.network.warm_start is not None or sp.allow_trained_opponents:
        return
    partners = list(sp.partners.weights) if sp.partners else []
    trained = [k for k in [*sp.opponents, sp.partner, *partners]
               if k not in ("latest", "snapshots") and not k.startswith("latest:")
               and k.partition(":")[0] not in RULE_BASED_OPPONENTS]
    if trained:
        raise ConfigError(
            f"{source}: a run from scratch ('network.warm_start' unset) meets only rule-based "
            f"fixed players ({', '.join(RULE_BASED_OPPONENTS)}), its own snapshots and "
            f"itself; 'selfplay' names {', '.join(map(repr, trained))}: a trained model would "
            f"carry its training into the run (warm-start from it, or set "
            f"'selfplay.allow_trained_opponents' for a best response)")


def check_warm_start(cfg: TrainConfig, source: str) -> None:
    """``network.warm_start`` is an exported policy this environment can play (the
    checks ``aluette eval`` makes: its observation layout and sizes), of a variant
    the run's policy can start from (a signs policy never starts a default-game one)."""
    path = cfg.network.warm_start
    if path is None:
        return
    from aluette_env.players import PlayerSpecError
    from aluette_env.players.onnx_policy import OnnxPlayer
    if os.path.isdir(path):
        raise ConfigError(f"{source}: 'network.warm_start': {path} is a folder; give an exported "
                          f".onnx model (aluette export RUN --out MODEL.onnx)")
    try:
        player = OnnxPlayer(path)
    except PlayerSpecError as err:
        raise ConfigError(f"{source}: 'network.warm_start': {err}") from None
    if player.signs_only and not cfg.env.signs:
        raise ConfigError(f"{source}: 'network.warm_start': {path} is a policy of the signs "
                          f"variant (observation layout {player.obs_layout}, {player.num_actions} "
                          f"actions); this run trains the default game (env.id {cfg.env.id}): set "
                          f"env.id to aluette_signs_v0, or start from a policy of the default "
                          f"game")


def folder_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be used as an output folder (created if missing, files
    written in it), or None. A real write is tried: permission bits do not tell
    (root, read-only mounts, /proc)."""
    path = Path(path)
    try:
        os.fsencode(str(path))  # a name no file system can hold (pathlib says "missing")
        if path.exists() and not path.is_dir():
            return f"{path} is a file, not a folder"
        existing = path.absolute()
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            return f"{existing} is a file"
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".write-test-"):
            pass
    except OSError as err:
        return f"{str(path)[:200]}: {err.strerror or err}"
    except UnicodeError:
        return f"{ascii(str(path)[:200])}: not a valid file name (a lone surrogate)"
    return None


def check_output_dir(cfg: Any, source: str) -> None:
    """``output_dir`` (of a training or expert-iteration config) is a folder this
    process can create files in (or create)."""
    problem = folder_problem(cfg.output_dir)
    if problem:
        raise ConfigError(f"{source}: 'output_dir': cannot create or write "
                          f"{str(cfg.output_dir)[:200]} ({problem})")


def player_specs(cfg: TrainConfig | LoopConfig) -> dict[str, str]:
    """Key path -> player spec, for every player the config names (of an
    expert-iteration config, its evaluation opponents; its start policy is
    :func:`check_policy`'s)."""
    specs: dict[str, str] = {}
    if isinstance(cfg, TrainConfig):
        from ..league import POLICY_ENTRIES
        specs = {f"selfplay.opponents.{k}": k for k in cfg.selfplay.opponents
                 if k not in POLICY_ENTRIES}
        if cfg.selfplay.partners is not None:
            specs.update({f"selfplay.partners.weights.{k}": k
                          for k in cfg.selfplay.partners.weights
                          if k != "snapshots" and not k.startswith("latest:")})
        if cfg.pretrain is not None:
            specs["pretrain.player"] = cfg.pretrain.player
    specs.update({f"eval.opponents[{i}]": spec for i, spec in enumerate(cfg.eval.opponents)})
    if isinstance(cfg, TrainConfig) and cfg.eval.partners is not None:
        specs.update({f"eval.partners[{i}]": spec for i, spec in enumerate(cfg.eval.partners)})
        specs["eval.partners_opponent"] = cfg.eval.partners_opponent
        if cfg.eval.partners_reference != "itself":
            specs["eval.partners_reference"] = cfg.eval.partners_reference
    return specs


def check_players(cfg: TrainConfig | LoopConfig, source: str) -> None:
    """Load every player the config names, so a misspelt one fails now, not at the
    first evaluation hours later."""
    from aluette_env.players import PlayerSpecError, load_player
    for key, spec in player_specs(cfg).items():
        try:
            load_player(spec)
        except PlayerSpecError as err:
            raise ConfigError(f"{source}: '{key}': {err}") from None


def check_policy(spec: str) -> None:
    """A policy the expert can be guided by (ai, ai:version=N, an .onnx file); ValueError
    (a ConfigError) with one line otherwise."""
    from aluette_env.players.search import guiding_policy
    if spec == "none":
        raise ConfigError("policy must be ai, ai:version=N or an exported .onnx file "
                          "(the loop distils into it), got 'none'")
    try:
        guiding_policy(spec)
    except ValueError as err:
        raise ConfigError(str(err)) from None


class StagePolicy(NamedTuple):
    """What a stage's policy will be, known from its config before it runs: the
    variant it plays and its network (what the next stage's start needs)."""

    signs: bool
    network: NetworkSpec


def stage_policy(cfg: TrainConfig | LoopConfig) -> StagePolicy:
    """The policy a stage of this config makes."""
    if isinstance(cfg, TrainConfig):
        return StagePolicy(cfg.env.signs, cfg.network.architecture())
    return StagePolicy(False, cfg.network)  # expert iteration plays the default game


def check_start(cfg: TrainConfig | LoopConfig, previous: StagePolicy) -> None:
    """A stage of config ``cfg`` can start from ``previous``, the policy the stage
    before it makes: a training run of the same network, of the signs variant
    only from a policy of either variant and of the default game only from one
    of the default game (observation layout 3's inputs and sign actions have no place in
    it); expert iteration from a default-game policy of its network (its first
    distillation starts from those weights). ConfigError (one line) otherwise."""
    train = isinstance(cfg, TrainConfig)
    if previous.signs and not (train and cfg.env.signs):
        needs = ("this stage trains the default game (env.id aluette_v1): set env.id to "
                 "aluette_signs_v0 here, or to aluette_v1 in the previous stage" if train else
                 "expert iteration plays the default game: put it after stages of the default "
                 "game")
        raise ConfigError(f"the previous stage's policy plays the signs variant (env.id "
                          f"aluette_signs_v0, 58 actions); {needs}")
    network = cfg.network.architecture() if train else cfg.network
    if network != previous.network:
        raise ConfigError(f"the previous stage's policy ({previous.network.described()}) starts "
                          f"this stage, whose network is {network.described()}: set this "
                          f"stage's network to the previous one's")
