"""Every training configuration: typed, documented where declared, validated.

Three kinds of config file (``configs/*.yaml``), each read by its loader here
with optional ``--set key.path=value`` overrides: a training run
(:class:`TrainConfig`, :func:`load_config`), an expert-iteration run
(:class:`LoopConfig`, :func:`load_loop_config`; its sections share the training
config's network model, evaluation types and seeds) and a recipe of stages
(:class:`RecipeConfig`, :func:`load_recipe`, which loads each stage's config). Unknown keys, wrong types and values out
of range are refused with :class:`ConfigError`, one line naming the file, the
key path and what is allowed. :func:`load_config` checks everything a run
needs before it starts: a file that is not UTF-8 text, an empty file or one
that sets nothing, a key given twice, settings that only fail together (a
minibatch larger than a rollout), every budget against its upper bound, every
player spec the config names (loaded once), the warm-start model and a
writable ``output_dir``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, TypeVar, get_args

import yaml
from pydantic import (
    AfterValidator,
    BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator,
)

from aluette_env.commands import MAX_EVAL_DEALS, MAX_SEED

_STRICT = ConfigDict(extra="forbid", validate_assignment=True)
#: The expert-iteration loop's sections: no inf or NaN anywhere, every number of
#: the loop is a finite setting.
_FINITE = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)
M = TypeVar("M", bound=BaseModel)

#: Most learner samples one run may train on (and the largest interval): ten
#: billion, about a thousand times the default run; days of a large cluster.
MAX_TIMESTEPS = 10_000_000_000
#: Most samples of one SB3 rollout (ppo.n_steps x learner seats): the rollout
#: buffer holds each observation as float32, about 2.6 KB, so 4 M take ~10 GB.
MAX_ROLLOUT = 4_000_000


def _check_seed(v: int) -> int:
    if v > MAX_SEED:
        raise ValueError(f"an integer from 0 to {MAX_SEED}")
    return v


#: A seed of the config (see MAX_SEED).
Seed = Annotated[int, AfterValidator(_check_seed)]
#: A run's name, one folder under output_dir (never ``..``, never a path):
#: the pattern of every config that names a run (training, expert iteration).
RUN_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
#: Largest config file read (a config is a few KB).
MAX_CONFIG_BYTES = 1 << 20
#: Most torch threads one process may use.
MAX_TORCH_THREADS = 64


class ConfigError(ValueError):
    """A config that cannot be used; the message is one line."""


class EnvConfig(BaseModel):
    model_config = _STRICT
    num_deals: int = Field(5, ge=1, le=10, description="deals per match (R2: five)")
    signs: bool = Field(False, description="the signs variant (docs/RULES.md S1-S5, "
                        "docs/SIGNS.md): each turn a sign action, then a card; the learner "
                        "reads OBS_VERSION 3 and chooses among 58 actions (SB3 backend, "
                        "selfplay.all_seats, a dense first layer and the seat's own critic)")
    catch: float = Field(0.25, ge=0, le=1, description="with signs: the chance that each "
                         "opponent catches a sign (S4)")

    @property
    def variant(self):
        """The game these settings name (an :class:`aluette_env.game.Variant`)."""
        from aluette_env.game import variant_of
        return variant_of(signs=self.signs, catch=self.catch if self.signs else None)


class PPOConfig(BaseModel):
    """MaskablePPO hyperparameters (sb3-contrib); each passed as is."""

    model_config = _STRICT
    learning_rate: float = Field(3e-4, gt=0, le=1)
    learning_rate_end: float | None = Field(
        None, gt=0, le=1, description="if set, the learning rate falls linearly from "
        "learning_rate at the start to this at total_timesteps (null: constant)")
    n_steps: int = Field(32, ge=1, le=MAX_ROLLOUT,
                         description="learner decisions per game per rollout")
    batch_size: int = Field(4096, ge=2, le=MAX_ROLLOUT,
                            description="minibatch size of the PPO update")
    n_epochs: int = Field(3, ge=1, le=100)
    gamma: float = Field(1.0, gt=0, le=1, description="1.0: deal points count fully")
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0, le=1)
    ent_coef: float = Field(0.01, ge=0, le=1)
    vf_coef: float = Field(0.5, ge=0, le=10)
    max_grad_norm: float = Field(0.5, gt=0)
    normalize_advantage: bool = True
    target_kl: float | None = Field(None, gt=0)


class NetworkSpec(BaseModel):
    """The policy's architecture, the one typed model of it: a training run's
    ``network`` (:class:`NetworkConfig`) and an expert-iteration run's."""

    model_config = _STRICT
    trunk: list[int] = Field(default_factory=lambda: [256],
                             description="MLP shared by policy and value (features extractor)")
    pi: list[int] = Field(default_factory=lambda: [128], description="policy head widths")
    vf: list[int] = Field(default_factory=lambda: [128], description="value head widths")
    activation: Literal["relu", "tanh"] = "relu"

    @field_validator("trunk", "pi", "vf")
    @classmethod
    def _widths(cls, v: list[int]) -> list[int]:
        if not v or any(w < 1 or w > 4096 for w in v):
            raise ValueError("a list of 1 or more layer widths, each 1-4096")
        return v

    def architecture(self) -> NetworkSpec:
        """The architecture alone (a :class:`NetworkConfig` without its warm start)."""
        return NetworkSpec(trunk=list(self.trunk), pi=list(self.pi), vf=list(self.vf),
                           activation=self.activation)

    def described(self) -> str:
        """The architecture in a few words, for messages."""
        return f"trunk {self.trunk}, pi {self.pi}, vf {self.vf}, {self.activation}"


class NetworkConfig(NetworkSpec):
    warm_start: str | None = Field(
        None, description="an exported .onnx policy of this architecture whose weights start "
                          "the policy (trunk and policy head; the value head starts fresh); "
                          "with env.signs a model of the default game starts the signs policy "
                          "(its sign inputs and sign actions at zero weight)")
    sparse: bool = Field(
        True, description="the trunk's first layer reads the engine's lists of the entries "
                          "set to 1 and sums their weights (the same function and weights as "
                          "the dense layer, computed on the ones); the rollout buffer keeps "
                          "the lists (SB3 backend; RLlib's module reads the dense vector)")
    critic: Literal["seat", "privileged"] = Field(
        "seat", description="what the value head reads: 'seat' the seat's observation, as the "
                            "policy; 'privileged' also the other three hands and the unused "
                            "cards (a critic that sees every hand; the policy still reads only "
                            "its seat). 'privileged' needs sparse")
    belief: float = Field(
        0.0, ge=0, le=100,
        description="weight of an auxiliary loss (SB3 backend, critic privileged): a linear "
                    "head on the policy's trunk predicts who holds each card its seat cannot "
                    "see, from the privileged planes; players and exports never run it. "
                    "0: no belief head")
    precision: Literal["float32", "bfloat16", "auto"] = Field(
        "float32", description="the learner's products (SB3 backend): 'bfloat16' computes the "
                               "network's matrix products in bfloat16 under torch.autocast "
                               "(weights, optimizer and losses stay float32; the sparse first "
                               "layer still gathers, on every CPU); 'auto' does so where the "
                               "CPU multiplies bfloat16 natively (AMX or AVX512-BF16) and is "
                               "float32 elsewhere, decided from the CPU's flags, never by "
                               "timing at start (a timed choice between ways that round "
                               "differently would make a seed's run depend on the machine's "
                               "load; docs/experiments/auto-not-timed.md). Players and "
                               "exports are float32")


class PretrainConfig(BaseModel):
    """A behaviour-cloning start ("kickstarting") before self-play: the policy learns
    a rule-based player's cards, and its value head the returns that followed, on
    matches that player plays at all four seats (``training.imitation``). Its time
    counts in the run's wall time. Only rule-based players: cloning a trained
    model would carry that model's training into the run."""

    model_config = _STRICT
    player: str = Field("heuristic", description="the rule-based player imitated: heuristic, "
                                                 "heuristic:version=1")
    samples: int = Field(2_000_000, ge=1, le=50_000_000,
                         description="decisions recorded (rounded up to whole matches)")
    epochs: int = Field(2, ge=1, le=100, description="passes over the demonstrations")
    batch_size: int = Field(4096, ge=2, description="minibatch size")
    learning_rate: float = Field(1e-3, gt=0, le=1, description="Adam step size")
    records: str | None = Field(None, description="a folder of match records "
                                "(docs/RECORDS.md) whose decisions are learned too: people's "
                                "games as a data set; unset: none")
    record_seats: str = Field("human", description="the records' seats learned from: human "
                              "(the seats a person played) or all")

    @field_validator("record_seats")
    @classmethod
    def _record_seats(cls, v: str) -> str:
        from .imitation import RECORD_SEATS
        if v not in RECORD_SEATS:
            raise ValueError(f"one of {', '.join(RECORD_SEATS)}")
        return v

    @field_validator("player")
    @classmethod
    def _rule_based(cls, v: str) -> str:
        from .imitation import RULE_BASED
        if v.partition(":")[0] not in RULE_BASED:
            raise ValueError(f"a rule-based player ({', '.join(RULE_BASED)}, with options); "
                             f"a trained model would carry its training into the run")
        return v


#: Fixed players a run from scratch may meet: rule-based, with any options.
RULE_BASED_OPPONENTS = ("heuristic", "random")


class PFSPConfig(BaseModel):
    """Prioritised fictitious self-play (``selfplay.pfsp``): each league opponent's
    weight in ``opponents`` is multiplied by ``q ** exponent``, ``q`` how often it
    still wins a deal against the learner (a moving table of its last ``window``
    deals), and by ``boost`` while the learner does not beat it by ``margin``
    (the forgetting check). The self-play share does not change
    (training.selfplay.OpponentPool)."""

    model_config = _STRICT
    exponent: float = Field(2.0, ge=0, le=10, description="how sharply the opponents that "
                            "still win are preferred (0: the weights as configured)")
    window: int = Field(4000, ge=1, le=10_000_000, description="deals the win-rate table "
                        "remembers per opponent (older ones fade out)")
    margin: float = Field(0.05, ge=0, le=1, description="the forgetting check: an opponent the "
                          "learner does not beat by this share of the deals (won minus lost) "
                          "gets `boost` times more games")
    boost: float = Field(2.0, ge=1, le=100, description="the forgetting check's factor")


class PartnersConfig(BaseModel):
    """Partner games (``selfplay.partners``): the learner's one seat beside a
    partner drawn per match from a population, against the current policy;
    only the learner's seat trains (training.selfplay.TableGames)."""

    model_config = _STRICT
    games: float = Field(0.25, gt=0, lt=1,
                         description="share of num_games that are partner games")
    weights: dict[str, float] = Field(
        default_factory=lambda: {"snapshots": 0.3, "heuristic": 0.3,
                                 "heuristic:version=1": 0.15, "latest:temperature=2": 0.15,
                                 "random": 0.1},
        description="weights per partner, drawn per game at each match start: 'snapshots' "
                    "(uniform over the past snapshots), 'latest:temperature=T' (the current "
                    "policy sampling at temperature T: a careless partner) or any player spec")

    @field_validator("weights")
    @classmethod
    def _weights(cls, v: dict[str, float]) -> dict[str, float]:
        from .selfplay import careless_temperature
        if not v or any(not math.isfinite(w) or w < 0 for w in v.values()) \
                or sum(v.values()) <= 0:
            raise ValueError("a mapping of partner -> finite weight >= 0 with a positive total")
        if "latest" in v:
            raise ValueError("'latest' is the learner itself (self-play games); a careless "
                             "partner is 'latest:temperature=T'")
        for entry in v:
            careless_temperature(entry)
        return v


class SelfPlayConfig(BaseModel):
    """Who sits at the other three seats of the learner's games."""

    model_config = _STRICT
    pool_size: int = Field(10, ge=1, le=1000, description="past snapshots kept as opponents")
    snapshot_interval: int = Field(500_000, ge=1, le=MAX_TIMESTEPS,
                                   description="learner samples between snapshots")
    opponents: dict[str, float] = Field(
        default_factory=lambda: {"latest": 0.3, "snapshots": 0.5, "heuristic": 0.2},
        description="weights per opposing team, drawn per game at each match start: "
                    "'latest' (the current policy), 'snapshots' (uniform over the pool) "
                    "or any player spec (heuristic, random, a model path)")
    partner: str = Field("latest", description="the learner's partner: 'latest' or a player spec")
    pfsp: PFSPConfig | None = Field(
        None, description="prioritised fictitious self-play over the league's opponents "
                          "(needs all_seats); unset: the weights of 'opponents' as they are")
    allow_trained_opponents: bool = Field(
        False, description="let a run from scratch meet trained models as fixed players (a "
                           "best response, aluette exploit, does); otherwise only rule-based "
                           "players, its snapshots and itself")
    all_seats: bool = Field(
        False, description="every seat the current policy plays yields samples: the 'latest' "
                           "share of the games is self-play (4 learner seats), the rest are "
                           "league games (the learner team against a draw from the other "
                           "entries); needs partner 'latest'")
    partners: PartnersConfig | None = Field(
        None, description="partner games: a share of the games where the learner's one seat "
                          "sits beside a partner drawn from a population (needs all_seats); "
                          "null: none")

    @field_validator("opponents")
    @classmethod
    def _weights(cls, v: dict[str, float]) -> dict[str, float]:
        if not v or any(not math.isfinite(w) or w < 0 for w in v.values()) \
                or sum(v.values()) <= 0:
            raise ValueError("a mapping of opponent -> finite weight >= 0 with a positive total")
        return v


def _each_once(v: list[str]) -> list[str]:
    if len(set(v)) != len(v):
        raise ValueError("each opponent once")
    return v


#: The players an evaluation meets, each once: ``eval.opponents`` of a training
#: run (:class:`EvalConfig`) and of an expert-iteration run (:class:`LoopEvalConfig`).
EvalOpponents = Annotated[list[str], AfterValidator(_each_once)]
#: Duplicate deal pairs per opponent: ``eval.deals`` of either.
EvalDeals = Annotated[int, Field(ge=1, le=MAX_EVAL_DEALS,
                                 description="duplicate deal pairs per opponent")]


class EvalConfig(BaseModel):
    model_config = _STRICT
    interval: int = Field(1_000_000, ge=1, le=MAX_TIMESTEPS,
                          description="learner samples between evaluations")
    deals: EvalDeals = 2000
    opponents: EvalOpponents = Field(default_factory=lambda: ["heuristic", "random"])
    seed: Seed = Field(12345, ge=0,
                       description="seed of the evaluation deals (fixed across the run)")
    panel: list[str] | None = Field(
        None, description="members of the panel (aluette_env.evaluation.PANEL) to evaluate "
                          "against too, reported with their minimum and mean; null: no panel")
    panel_deals: int | None = Field(None, ge=1, le=MAX_EVAL_DEALS,
                                    description="deal pairs per panel member; null: deals")
    # Every new key defaults to null: a run saved before it resumes with no config change.
    panel_deals_for: dict[str, int] | None = Field(
        None, description="at most this many pairs against a panel member (a search player "
                          "is slow), e.g. {'pimc:worlds=64': 200}; null: panel_deals for each")
    partners: list[str] | None = Field(
        None, description="a partner panel: the policy beside each of these players "
                          "(aluette_env.evaluation.PARTNERS is the default panel) against "
                          "partners_opponent, with each partner's lift over "
                          "partners_reference; null: no partner panel")
    partners_opponent: str = Field("ai", description="team B of the partner panel (two "
                                                     "copies of this player)")
    partners_reference: str = Field("itself", description="the partner panel's reference: "
                                    "'itself' (each partner beside a copy of itself) or a "
                                    "player spec")
    partners_deals: int | None = Field(None, ge=1, le=MAX_EVAL_DEALS,
                                       description="deal pairs per partner; null: deals")

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("a list of one or more player specs (the first one picks best.zip)")
        return v

    @field_validator("partners")
    @classmethod
    def _partners(cls, v: list[str] | None) -> list[str] | None:
        from aluette_env.evaluation.partners import plan_partners
        if v is not None:
            plan_partners(v)
        return v

    @field_validator("panel")
    @classmethod
    def _panel(cls, v: list[str] | None) -> list[str] | None:
        from aluette_env.evaluation.panel import plan_panel
        if v is not None:
            plan_panel(v)
        return v

    @field_validator("panel_deals_for")
    @classmethod
    def _panel_deals_for(cls, v: dict[str, int] | None, info: Any) -> dict[str, int] | None:
        from aluette_env.evaluation.panel import plan_panel
        if v:  # against the panel when it is valid (info: pydantic's ValidationInfo)
            plan_panel(info.data.get("panel"), deals_for=v)
        return v


class CheckpointConfig(BaseModel):
    model_config = _STRICT
    interval: int = Field(1_000_000, ge=1, le=MAX_TIMESTEPS,
                          description="learner samples between checkpoints")
    keep: int = Field(3, ge=1, le=1000,
                      description="numbered checkpoints kept besides latest and best")


class LoggingConfig(BaseModel):
    model_config = _STRICT
    tensorboard: bool = True
    progress_bar: bool = True
    curve: bool = Field(True, description="rewrite learning_curve.png at each evaluation")


class RLlibConfig(BaseModel):
    """The RLlib backend (``backend: rllib``): where it runs and how it scales.
    PPO hyperparameters come from ``ppo`` (n_steps is SB3's only)."""

    model_config = _STRICT
    address: str | None = Field(None, min_length=1,
                                description="Ray cluster to join ('auto', 'host:6379'); unset: "
                                            "RAY_ADDRESS if set, else an embedded local Ray")
    num_cpus: int = Field(2, ge=1, le=1024, description="CPUs of the embedded local Ray")
    num_env_runners: int = Field(0, ge=0, le=10_000,
                                 description="sampling processes; 0: sample in the driver")
    num_envs_per_env_runner: int = Field(1, ge=1, le=1024,
                                         description="envs per env runner, stepped together")
    num_learners: int = Field(0, ge=0, le=1024,
                              description="learner processes; 0: learn in the driver")
    env: Literal["batched"] = Field(
        "batched", description="'batched': each env runner plays num_games whole matches of "
                               "the batched engine at a time (training/rllib/runner.py)")
    train_batch_size: int = Field(16384, ge=64,
                                  description="learner samples per iteration, rounded up to "
                                              "whole matches of num_games per env runner")
    sample_timeout_s: float = Field(900.0, gt=0, le=86_400,
                                    description="seconds an iteration waits for the env "
                                                "runners' matches; after that the iteration "
                                                "is sampled again (a loaded machine or a slow "
                                                "node takes longer than RLlib's default 60 s)")
    max_empty_iterations: int = Field(3, ge=1, le=1000,
                                      description="iterations in a row without samples before "
                                                  "the run stops with an error")


class TrainConfig(BaseModel):
    model_config = _STRICT
    backend: Literal["sb3", "rllib"] = Field(
        "sb3", description="'sb3': MaskablePPO in one process; 'rllib': Ray RLlib PPO, "
                           "one machine or a cluster")
    run_name: str = Field("aluette-ppo", pattern=RUN_NAME)
    seed: Seed = Field(0, ge=0)
    total_timesteps: int = Field(10_000_000, ge=1, le=MAX_TIMESTEPS,
                                 description="learner samples to train on")
    num_games: int = Field(1024, ge=1, le=100_000,
                           description="parallel games (SB3: n_envs; RLlib: lockstep matches "
                                       "per env)")
    torch_threads: int = Field(2, ge=1, le=MAX_TORCH_THREADS,
                               description="one process; 2 measured fastest here")
    output_dir: str = Field("checkpoints", description="runs go to OUTPUT_DIR/RUN_NAME")
    env: EnvConfig = Field(default_factory=EnvConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    pretrain: PretrainConfig | None = Field(
        None, description="a behaviour-cloning start from a rule-based player (SB3 backend); "
                          "unset: the policy starts from random weights")
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    rllib: RLlibConfig = Field(default_factory=RLlibConfig)

    @model_validator(mode="after")
    def _backend_settings(self) -> TrainConfig:
        if self.backend == "rllib" and self.pretrain is not None:
            raise ValueError("'pretrain': not supported by backend rllib; remove it")
        if self.backend == "rllib" and not (self.selfplay.all_seats
                                            and self.selfplay.partner == "latest"):
            raise ValueError("backend rllib trains every seat the policy plays: set "
                             "'selfplay.all_seats' to true and 'selfplay.partner' to 'latest' "
                             f"(got {self.selfplay.all_seats!r} and {self.selfplay.partner!r})")
        sp = self.selfplay
        if sp.pfsp is not None and (self.backend != "sb3" or not sp.all_seats):
            raise ValueError("'selfplay.pfsp' needs backend sb3 and 'selfplay.all_seats' true "
                             "(its table counts the league games' deals); remove it or set them")
        if sp.partners is not None and (self.backend != "sb3" or not sp.all_seats
                                        or self.env.signs):
            raise ValueError("'selfplay.partners' needs backend sb3, 'selfplay.all_seats' true "
                             "and the default game (env.signs false); remove it or set them")
        net = self.network
        if net.critic == "privileged" and not net.sparse:
            raise ValueError("'network.critic' privileged reads the engine's index lists: set "
                             "'network.sparse' to true")
        if net.belief > 0 and net.critic != "privileged":
            raise ValueError(f"'network.belief' ({net.belief}) learns from the privileged "
                             f"planes: set 'network.critic' to privileged, or belief to 0")
        if self.backend == "rllib" and (net.critic != "seat"):
            raise ValueError("'network.critic' privileged: not supported by backend rllib; "
                             "set it to seat")
        if self.backend == "rllib" and net.precision == "bfloat16":
            raise ValueError("'network.precision' bfloat16: not supported by backend rllib; "
                             "set it to float32 or auto (float32 there)")
        if self.backend == "rllib" and self.ppo.target_kl is not None:
            raise ValueError(f"'ppo.target_kl': not supported by backend rllib; set it to null "
                             f"(got {self.ppo.target_kl!r})")
        if self.env.signs:
            self._signs_settings()
        elif self.env.catch != 0.25:
            raise ValueError(f"'env.catch' ({self.env.catch}) is the signs variant's: set "
                             f"'env.signs' to true too")
        return self

    def _signs_settings(self) -> None:
        """What the signs variant's learner supports (one line per refusal)."""
        net, sp = self.network, self.selfplay
        wanted = [("backend", self.backend, "sb3"), ("selfplay.all_seats", sp.all_seats, True),
                  ("network.sparse", net.sparse, False), ("network.critic", net.critic, "seat"),
                  ("network.belief", net.belief, 0.0)]
        for key, got, need in wanted:
            if got != need:
                raise ValueError(f"'env.signs' trains on the signs variant's dense observation "
                                 f"with the seat's own critic, on every seat: set '{key}' to "
                                 f"{need!r} (got {got!r})")
        if self.ppo.n_steps % 2:
            raise ValueError(f"'env.signs': each seat makes two decisions a trick (a sign, a "
                             f"card): 'ppo.n_steps' must be even (got {self.ppo.n_steps})")
        if self.pretrain is not None:
            raise ValueError("'env.signs': 'pretrain' imitates a player of the default "
                             "game's actions; remove it (a 'network.warm_start' model of the "
                             "default game starts the signs policy: it reads no sign yet and "
                             "makes each sign, or none, with the same chance)")
        if self.eval.panel is not None:
            raise ValueError("'env.signs': the panel plays the default game; remove "
                             "'eval.panel' (eval.opponents play at the table with signs)")
        if self.eval.partners is not None:
            raise ValueError("'env.signs': the partner panel plays the default game; remove "
                             "'eval.partners'")


def _format_error(source: str, err: ValidationError,
                  root: type[BaseModel] | None = None) -> str:
    """One line for every problem ``err`` found; ``root``: the model validated
    (default :class:`TrainConfig`), whose sections list the keys allowed."""
    parts = []
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "(top level)"
        if e["type"] == "extra_forbidden":
            parent = _model_at(root or TrainConfig, e["loc"][:-1])
            allowed = ", ".join(parent.model_fields) if parent else "?"
            parts.append(f"unknown key '{path}' (allowed here: {allowed})")
        elif not e["loc"] and e["type"] == "value_error":  # a rule across sections
            parts.append(e["msg"].removeprefix("Value error, "))
        else:
            msg = e["msg"].removeprefix("Value error, ")
            shown = repr(e.get("input"))
            shown = shown if len(shown) <= 200 else shown[:200] + "..."
            parts.append(f"'{path}': {msg} (got {shown})")
    return f"{source}: " + "; ".join(parts)


def parse(model: type[M], data: Any, source: str) -> M:
    """``data`` as the config ``model`` (a section checked on its own keys);
    ConfigError with one line for every problem (:func:`_format_error`)."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_error(source, err, model)) from None


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    for key in loc:
        field = model.model_fields.get(str(key))
        if field is None:
            return None
        # An optional section (``PretrainConfig | None``) is its model.
        kinds = [t for t in get_args(field.annotation) if t is not type(None)] \
            or [field.annotation]
        if not (isinstance(kinds[0], type) and issubclass(kinds[0], BaseModel)):
            return None
        model = kinds[0]
    return model


def apply_overrides(data: dict[str, Any], overrides: list[str], source: str) -> dict[str, Any]:
    """``key.path=value`` (value parsed as YAML) into a nested dict."""
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: expected key.path=value")
        try:
            value = yaml.load(raw, Loader=_BoundedLoader) if raw else ""  # a SafeLoader
        except _TooLarge as err:
            raise ConfigError(f"{source}: --set {key[:100]}: {err}") from None
        except yaml.YAMLError:
            value = raw
        node = data
        parts = key.split(".")
        for p in parts[:-1]:
            nxt = node.setdefault(p, {})
            if not isinstance(nxt, dict):
                raise ConfigError(f"{source}: --set {key}: '{p}' is not a section")
            node = nxt
        node[parts[-1]] = value
    return data


#: The deepest nesting and the most values a config's YAML may hold, a value
#: counted each time an alias repeats it: a config is a few levels and a few
#: hundred values, and a document past these (50,000 brackets deep, or an
#: alias bomb of a billion values in a few lines) is refused before it is built.
MAX_YAML_DEPTH, MAX_YAML_VALUES = 50, 100_000


class _TooLarge(yaml.YAMLError):
    pass


class _BoundedLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a document nested deeper than MAX_YAML_DEPTH or
    of more than MAX_YAML_VALUES values once its aliases are expanded (PyYAML's
    composer recurses once per level, and an alias bomb expands exponentially)."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise _TooLarge(f"nested more than {MAX_YAML_DEPTH} levels deep (line "
                                f"{mark.line + 1}); a config is a few levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            _measure(node, 1, {}, set())
        return node


def _measure(node: yaml.Node, depth: int, sizes: dict[int, tuple[int, int]],
             open_: set[int]) -> tuple[int, int]:
    """(values, levels) of ``node`` with its aliases expanded, each shared node
    measured once; _TooLarge past the bounds, or for an alias inside itself."""
    key = id(node)
    if key not in sizes:
        if key in open_:
            raise _TooLarge(f"an alias holds itself (line {node.start_mark.line + 1})")
        if depth > MAX_YAML_DEPTH:
            raise _TooLarge(f"nested more than {MAX_YAML_DEPTH} levels deep once its aliases "
                            f"are expanded; a config is a few levels")
        open_.add(key)
        children = ([part for pair in node.value for part in pair]
                    if isinstance(node, yaml.MappingNode) else
                    node.value if isinstance(node, yaml.SequenceNode) else [])
        values, levels = 1, 1
        for child in children:
            count, height = _measure(child, depth + 1, sizes, open_)
            values, levels = values + count, max(levels, height + 1)
            if values > MAX_YAML_VALUES:
                raise _TooLarge(f"more than {MAX_YAML_VALUES:,} values once its aliases are "
                                f"expanded (line {node.start_mark.line + 1}); a config holds "
                                f"a few hundred")
        open_.discard(key)
        sizes[key] = (values, levels)
    values, levels = sizes[key]
    if depth + levels - 1 > MAX_YAML_DEPTH:
        raise _TooLarge(f"nested more than {MAX_YAML_DEPTH} levels deep once its aliases are "
                        f"expanded; a config is a few levels")
    return values, levels


class _UniqueKeyLoader(_BoundedLoader):
    """YAML's safe loader, bounded (:class:`_BoundedLoader`), refusing a key given
    twice in one mapping (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise _DuplicateKey(f"key {key!r} is given twice (lines {seen[key]} and {line})")
            if isinstance(key, (str, int, float, bool)):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


class _DuplicateKey(yaml.YAMLError):
    pass


def read_yaml(path: Path, source: str) -> Any:
    """The YAML document of a config file (a key given twice refused, and a document
    too deep or too large, :class:`_BoundedLoader`); ConfigError naming the file
    when it cannot be read, is not UTF-8 text or not valid YAML."""
    from aluette_env._files import read_regular
    source = source if len(source) <= 200 else source[:200] + "..."
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{source}: is a folder, not a config file") from None
    except OSError as err:
        raise ConfigError(f"{source}: cannot read: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise ConfigError(f"{source}: not UTF-8 text (byte 0x{raw[err.start]:02x} at line "
                          f"{line}); save it as UTF-8") from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader subclass
    except (_DuplicateKey, _TooLarge) as err:
        raise ConfigError(f"{source}: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{source}: not valid YAML{where}") from None


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read, override and validate a config file; ConfigError on any problem."""
    path = Path(path)
    source = str(path)
    data = read_yaml(path, source)
    if data is None or data == {}:
        # An empty file (or ``{}``) would silently start a full default run.
        raise ConfigError(f"{source}: the config file is empty (it sets nothing); start from "
                          f"configs/default.yaml or configs/quick.yaml")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of settings")
    data = apply_overrides(data, overrides or [], source)
    cfg = validate(data, source)
    check_output_dir(cfg, source)
    check_players(cfg, source)
    check_from_scratch(cfg, source)
    check_warm_start(cfg, source)
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
    checks ``aluette eval`` makes: its observation version and sizes), of a variant
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
                          f"variant (OBS_VERSION {player.obs_version}, {player.num_actions} "
                          f"actions); this run trains the default game (env.signs false): set "
                          f"env.signs to true, or start from a policy of the default game")


def partner_games(cfg: TrainConfig) -> int:
    """How many games are partner games (``selfplay.partners.games`` of num_games)."""
    partners = cfg.selfplay.partners
    return 0 if partners is None else round(cfg.num_games * partners.games)


def selfplay_games(cfg: TrainConfig) -> int:
    """With ``selfplay.all_seats``: how many games are self-play (the ``latest``
    share of the games that are not partner games)."""
    share = cfg.selfplay.opponents.get("latest", 0.0) / sum(cfg.selfplay.opponents.values())
    return round((cfg.num_games - partner_games(cfg)) * share)


def learner_seats(cfg: TrainConfig) -> int:
    """Learner samples per game step of a rollout: one per game, or with
    ``selfplay.all_seats`` four per self-play game, two per league game and one
    per partner game."""
    if not cfg.selfplay.all_seats:
        return cfg.num_games
    n, m = selfplay_games(cfg), partner_games(cfg)
    return 4 * n + 2 * (cfg.num_games - n - m) + m


def validate(data: dict[str, Any], source: str) -> TrainConfig:
    """The typed config, with the settings that only fail together checked too."""
    cfg = parse(TrainConfig, data, source)
    if cfg.backend == "rllib":
        per_learner = cfg.rllib.train_batch_size // max(1, cfg.rllib.num_learners)
        if cfg.ppo.batch_size > per_learner:
            raise ConfigError(f"{source}: 'ppo.batch_size': at most the batch of one learner, "
                              f"rllib.train_batch_size / num_learners = {per_learner} agent "
                              f"steps (got {cfg.ppo.batch_size})")
        return cfg  # the rollout below is SB3's (n_steps x n_envs)
    rollout = cfg.ppo.n_steps * learner_seats(cfg)
    if rollout > MAX_ROLLOUT:
        raise ConfigError(f"{source}: 'ppo.n_steps': one rollout, ppo.n_steps x learner seats = "
                          f"{rollout:,} samples, may hold at most {MAX_ROLLOUT:,} (its buffer "
                          f"lives in memory); lower ppo.n_steps or num_games")
    if cfg.ppo.batch_size > rollout:
        seats = "learner seats" if cfg.selfplay.all_seats else "num_games"
        raise ConfigError(f"{source}: 'ppo.batch_size': at most one rollout, ppo.n_steps x "
                          f"{seats} = {rollout} samples (got {cfg.ppo.batch_size})")
    if cfg.ppo.normalize_advantage and rollout % cfg.ppo.batch_size == 1:
        # The last minibatch would hold one sample: its advantage std is NaN.
        raise ConfigError(f"{source}: 'ppo.batch_size': the rollout ({rollout} samples) would end "
                          f"in a minibatch of one sample, whose normalized advantage is NaN; "
                          f"choose a batch_size that divides {rollout} (got {cfg.ppo.batch_size})")
    return cfg


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
        from .selfplay import POLICY_ENTRIES
        specs = {f"selfplay.opponents.{k}": k for k in cfg.selfplay.opponents
                 if k not in POLICY_ENTRIES}
        if cfg.selfplay.partner != "latest":
            specs["selfplay.partner"] = cfg.selfplay.partner
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


def to_yaml(cfg: BaseModel) -> str:
    """A config as the ``config.yaml`` of its run folder (keys in declaration order)."""
    return yaml.safe_dump(cfg.model_dump(), sort_keys=False)


# ----------------------------------------------------------------------------- expert iteration

#: Most shards of one data set (each a file, labelled in minutes).
MAX_SHARDS = 100_000


class DataConfig(BaseModel):
    """How a data set is made (``data`` in the config)."""

    model_config = _FINITE
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

    model_config = _FINITE
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
    """The loop's evaluation of each iteration's policies: :class:`EvalConfig`'s
    ``deals``, ``seed`` and ``opponents`` (the same types), without the interval
    and the panel of a training run."""

    model_config = _FINITE
    deals: EvalDeals = 2000
    seed: Seed = Field(4242, ge=0)
    opponents: EvalOpponents = Field(["ai:version=2"], min_length=1)


class PPOPhaseConfig(BaseModel):
    """PPO after each distillation: the distilled policy trained on by self-play
    with a training config, whose result is the iteration's policy (the next
    expert's guide and the next distillation's start). Off while ``config`` is
    null."""

    model_config = _FINITE
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

    model_config = _FINITE
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
    work, as :func:`load_config` does a training config: every key and bound, the
    start policy, every evaluation opponent, a writable ``output_dir`` and the PPO
    phase's training config. ConfigError (one line) on any problem."""
    source = str(path)
    data = read_yaml(Path(path), source)
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{source}: the top level must be a mapping of settings")
    cfg = parse(LoopConfig, apply_overrides(data, overrides or [], source), source)
    try:
        check_policy(cfg.start)
    except ConfigError as err:
        raise ConfigError(f"{source}: 'start': {err}") from None
    check_players(cfg, source)
    check_output_dir(cfg, source)
    if cfg.ppo.config is not None:
        try:
            ppo_config(cfg, Path(cfg.output_dir) / cfg.run_name / "iter-1", "start")
        except ConfigError as err:
            raise ConfigError(f"{source}: ppo: {err}") from None
    return cfg


def ppo_config(cfg: LoopConfig, folder: Path, warm_start: str) -> TrainConfig:
    """The PPO phase's training config for the iteration in ``folder``, warm-started
    from ``warm_start`` (the distilled policy; checked only when it is a file).
    ConfigError (one line) for a config the loop cannot use."""
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
        raise ConfigError(f"{source}: its network ({theirs.described()}) must be the loop's "
                          f"({mine.described()}): the distilled weights start it")
    if Path(warm_start).is_file():
        tcfg = load_config(cfg.ppo.config, [*cfg.ppo.set, f"output_dir={folder}",
                                            "run_name=ppo", f"network.warm_start={warm_start}"])
    return tcfg


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


# ----------------------------------------------------------------------------- recipes

#: Stands for the previous stage's policy in a stage's ``set`` while the recipe is
#: checked, before that policy exists (the checks need a policy that loads).
_STAND_IN = "ai"
PREVIOUS = "{previous}"


class StageConfig(BaseModel):
    """One stage of a recipe."""

    model_config = _STRICT
    name: str = Field(pattern=RUN_NAME, description="the stage's folder in the recipe's")
    kind: Literal["train", "expert-iteration"] = Field(
        description="'train': a training config; 'expert-iteration': an expert-iteration config")
    config: str = Field(min_length=1, description="the stage's config file")
    set: list[str] = Field(default_factory=list, description="overrides of the stage's config "
                           "(key.path=value); {previous} is the previous stage's policy")
    model: Literal["best", "latest"] = Field(
        "best", description="kind train: the checkpoint that is the stage's policy")


class RecipeConfig(BaseModel):
    """A recipe (configs/recipe.yaml): a run name and its stages, in order."""

    model_config = _STRICT
    run_name: str = Field("aluette-recipe", pattern=RUN_NAME)
    output_dir: str = Field("checkpoints", min_length=1)
    stages: list[StageConfig] = Field(min_length=1, max_length=20)

    @field_validator("stages")
    @classmethod
    def _unique(cls, v: list[StageConfig]) -> list[StageConfig]:
        names = [s.name for s in v]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"each stage needs its own name; {', '.join(twice)} is used twice")
        return v


class StagePolicy(NamedTuple):
    """What a stage's policy will be, known from its config before it runs: the
    variant it plays and its network (what the next stage's start needs)."""

    signs: bool
    network: NetworkSpec


def is_recipe(data: Any) -> bool:
    """A config file's content is a recipe (it lists ``stages``)."""
    return isinstance(data, dict) and "stages" in data


def load_recipe(path: str | Path, overrides: list[str] | None = None) -> RecipeConfig:
    """Read, override and check the recipe and every stage's config before any
    work, each stage with the policy the stage before it will make (its variant
    and network, :func:`check_start`); ConfigError with one line naming the file
    and the stage."""
    source = str(path)
    data = read_yaml(Path(path), source)
    if not is_recipe(data):
        raise ConfigError(f"{source}: a recipe lists its 'stages'")
    recipe = parse(RecipeConfig, apply_overrides(data, overrides or [], source), source)
    folder = Path(recipe.output_dir) / recipe.run_name
    made: StagePolicy | None = None
    for k, stage in enumerate(recipe.stages):
        # Where run_recipe will find the previous stage's policy.
        previous = None if k == 0 else str(stage_policy_path(folder, recipe.stages[k - 1]))
        try:
            cfg = stage_config(stage, folder, previous)
            if made is not None:
                check_start(cfg, made)
        except ConfigError as err:
            raise ConfigError(f"{source}: stage '{stage.name}': {err}") from None
        made = stage_policy(cfg)
    return recipe


def stage_policy_path(folder: Path, stage: StageConfig) -> Path:
    """The stage's exported policy, its commit point."""
    return folder / stage.name / "policy.onnx"


def stage_policy(cfg: TrainConfig | LoopConfig) -> StagePolicy:
    """The policy a stage of this config makes."""
    if isinstance(cfg, TrainConfig):
        return StagePolicy(cfg.env.signs, cfg.network.architecture())
    return StagePolicy(False, cfg.network)  # expert iteration plays the default game


def check_start(cfg: TrainConfig | LoopConfig, previous: StagePolicy) -> None:
    """A stage of config ``cfg`` can start from ``previous``, the policy the stage
    before it makes: a training run of the same network, of the signs variant
    only from a policy of either variant and of the default game only from one
    of the default game (OBS_VERSION 3's inputs and sign actions have no place in
    it); expert iteration from a default-game policy of its network (its first
    distillation starts from those weights). ConfigError (one line) otherwise."""
    train = isinstance(cfg, TrainConfig)
    if previous.signs and not (train and cfg.env.signs):
        needs = ("this stage trains the default game (env.signs false): set env.signs to true "
                 "here, or to false in the previous stage" if train else
                 "expert iteration plays the default game: put it after stages of the default "
                 "game")
        raise ConfigError(f"the previous stage's policy plays the signs variant (env.signs "
                          f"true, 58 actions); {needs}")
    network = cfg.network.architecture() if train else cfg.network
    if network != previous.network:
        raise ConfigError(f"the previous stage's policy ({previous.network.described()}) starts "
                          f"this stage, whose network is {network.described()}: set this "
                          f"stage's network to the previous one's")


def stage_config(stage: StageConfig, folder: Path,
                 previous: str | None) -> TrainConfig | LoopConfig:
    """The stage's own config (TrainConfig or LoopConfig) in ``folder/<stage>``,
    starting from ``previous``, the previous stage's policy file (None: the first
    stage, from scratch or from its config's own ``network.warm_start``). Checked
    before that file exists too, with a shipped model in its place in ``set``
    values. A train stage after the first starts from ``previous``: its own
    ``network.warm_start`` (in its config or its ``set``), unless ``{previous}``,
    is refused, never replaced."""
    if previous is None and any(PREVIOUS in s for s in stage.set):
        raise ConfigError(f"{PREVIOUS} in 'set': the first stage has no previous policy")
    ready = previous is not None and Path(previous).is_file()
    sets = [s.replace(PREVIOUS, previous if ready else _STAND_IN) if previous else s
            for s in stage.set]
    where = [f"output_dir={_text(folder)}", f"run_name={_text(stage.name)}"]
    if stage.kind == "train":
        start = [] if previous is None else (
            [f"network.warm_start={_text(previous)}"] if ready
            # Checked before the previous stage has run: warm-started all the same.
            else ["network.warm_start=null", "selfplay.allow_trained_opponents=true"])
        cfg = load_config(stage.config, [*sets, *where, *start])
        if cfg.backend != "sb3":
            raise ConfigError(f"a recipe trains its stages with backend sb3 (training/recipe.py); "
                              f"{stage.config} has backend {cfg.backend}: train it with "
                              f"'aluette train' on its own")
        if previous is not None:
            own = _own_warm_start(stage, [s.replace(PREVIOUS, previous) for s in stage.set])
            if own is not None and not (isinstance(own, str) and Path(own) == Path(previous)):
                shown = repr(own) if len(repr(own)) <= 200 else repr(own)[:200] + "..."
                raise ConfigError(f"'network.warm_start' ({shown}): a stage after the first "
                                  f"starts from the previous stage's policy; remove it (set "
                                  f"network.warm_start=null), or set it to {PREVIOUS}")
        return cfg
    if previous is None:
        raise ConfigError("an expert-iteration stage starts from a policy: put a train stage "
                          "before it")
    return load_loop_config(stage.config, [*sets, *where,
                                           f"start={_text(previous if ready else _STAND_IN)}"])


def _own_warm_start(stage: StageConfig, sets: list[str]) -> Any:
    """The ``network.warm_start`` the stage's config and ``set`` give (read after
    :func:`load_config` has accepted them; None when neither does)."""
    data = read_yaml(Path(stage.config), stage.config)
    network = apply_overrides(data, sets, stage.config).get("network")
    return network.get("warm_start") if isinstance(network, dict) else None


def _text(value) -> str:
    """A string as an override's value reads it back (a stage named ``on`` or
    ``1e3`` stays a name: the values are YAML)."""
    return json.dumps(str(value))
