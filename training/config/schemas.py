"""The typed models of every config file, each field documented where it is
declared (docs/CONFIG.md is generated from them: ``python -m
training.config.reference``): a training run (:class:`TrainConfig` and its
sections), an expert-iteration run (:class:`LoopConfig`, whose sections share
the training config's network model, evaluation types and seeds) and a recipe
of stages (:class:`RecipeConfig`). A model checks its own keys, types and
bounds; the rules across sections are :mod:`.compatibility`'s, the checks that
need the file system or the players :mod:`.rules`'s.
"""

from __future__ import annotations

import math
import warnings
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from aluette_env.commands import MAX_EVAL_DEALS, MAX_SEED

from .compatibility import check_compatible

#: Every section: no unknown key, and no value of another type taken as this one's
#: (strict): YAML's ``yes`` is no count and ``1`` no flag; an integer is still a
#: float's value, and a section is still given as a mapping.
_STRICT = ConfigDict(extra="forbid", validate_assignment=True, strict=True)
#: The expert-iteration loop's sections: no inf or NaN anywhere, every number of
#: the loop is a finite setting.
_FINITE = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False, strict=True)

#: Most learner samples one run may train on (and the largest interval): ten
#: billion, about a thousand times the default run; days of a large cluster.
MAX_TIMESTEPS = 10_000_000_000
#: Most samples of one SB3 rollout (ppo.n_steps x learner seats): the rollout
#: buffer holds each observation as float32, about 2.6 KB, so 4 M take ~10 GB.
MAX_ROLLOUT = 4_000_000


def _check_seed(v: int) -> int:
    """At most MAX_SEED."""
    if v > MAX_SEED:
        raise ValueError(f"an integer from 0 to {MAX_SEED}")
    return v


#: A seed of the config (see MAX_SEED).
Seed = Annotated[int, AfterValidator(_check_seed)]
#: A run's name, one folder under output_dir (never ``..``, never a path):
#: the pattern of every config that names a run (training, expert iteration).
RUN_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
#: Most torch threads one process may use.
MAX_TORCH_THREADS = 64


class ConfigError(ValueError):
    """A config that cannot be used; the message is one line."""


class EnvConfig(BaseModel):
    model_config = _STRICT
    id: str = Field("aluette_v1", description="the game, by its env id: aluette_v1 (the "
                    "default game), aluette_signs_v0 (the signs variant, docs/RULES.md S1-S5, "
                    "docs/SIGNS.md: each turn a sign action, then a card; the learner reads "
                    "observation layout 3 and chooses among 58 actions: SB3 backend, a dense "
                    "first layer and the seat's own critic), or a variant that "
                    "aluette_env.game.register_variant names; its parameters are num_deals and, "
                    "with signs, catch")
    num_deals: int = Field(5, ge=1, le=10, description="deals per match (R2: five)")
    signs: bool = Field(False, description="whether the game has signs, as env.id says; "
                        "deprecated as a setting (true: env.id aluette_signs_v0)")
    catch: float = Field(0.25, ge=0, le=1, description="with signs: the chance that each "
                         "opponent catches a sign (S4)")

    @model_validator(mode="after")
    def _one_name(self) -> EnvConfig:
        """The game named once: ``env.id``; ``env.signs``, the older way, warns
        and must not name another game than ``env.id``."""
        from aluette_env.game import ALUETTE_SIGNS_V0, load_variant
        try:
            variant = load_variant(self.id)
        except ValueError as err:
            raise ValueError(f"'env.id': {err}") from None
        if "signs" in self.model_fields_set and self.signs != variant.signs:
            if "id" in self.model_fields_set:
                raise ValueError(f"'env.signs' ({str(self.signs).lower()}) and 'env.id' "
                                 f"({self.id}) name two games: keep 'env.id'")
            warnings.warn("'env.signs' is deprecated; name the game with 'env.id: "
                          "aluette_signs_v0'", DeprecationWarning, stacklevel=2)
            variant = ALUETTE_SIGNS_V0 if self.signs else load_variant("aluette_v1")
            self.__dict__["id"] = variant.env_id  # no assignment: it would validate again
        self.__dict__["signs"] = variant.signs
        return self

    @property
    def variant(self):
        """The game these settings name (an :class:`aluette_env.game.Variant`)."""
        from aluette_env.game import load_variant
        variant = load_variant(self.id)
        return variant.with_params(num_deals=self.num_deals,
                                   **({"catch": self.catch} if variant.signs else {}))


class PPOConfig(BaseModel):
    """MaskablePPO hyperparameters (sb3-contrib); each passed as is."""

    model_config = _STRICT
    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam step size")
    learning_rate_end: float | None = Field(
        None, gt=0, le=1, description="if set, the learning rate falls linearly from "
        "learning_rate at the start to this at total_timesteps (null: constant)")
    n_steps: int = Field(32, ge=1, le=MAX_ROLLOUT,
                         description="learner decisions per game per rollout")
    batch_size: int = Field(4096, ge=2, le=MAX_ROLLOUT,
                            description="minibatch size of the PPO update")
    n_epochs: int = Field(3, ge=1, le=100, description="passes over each rollout")
    gamma: float = Field(1.0, gt=0, le=1, description="1.0: deal points count fully")
    gae_lambda: float = Field(0.95, ge=0, le=1, description="GAE's lambda: 1 the whole "
                              "returns, 0 one-step estimates from the value head")
    credit: Literal["match", "deal"] = Field(
        "match", description="where a decision's advantage stops: at the match's end, or "
        "at its deal's end (deals do not change each other: R2's points add up)")
    clip_range: float = Field(0.2, gt=0, le=1, description="how far one update may move the "
                              "ratio of new to old action probabilities")
    ent_coef: float = Field(0.01, ge=0, le=1, description="weight of the entropy bonus "
                            "(keeps the policy exploring)")
    vf_coef: float = Field(0.5, ge=0, le=10, description="weight of the value loss")
    max_grad_norm: float = Field(0.5, gt=0, description="gradients are clipped to this norm")
    normalize_advantage: bool = Field(True, description="advantages scaled to mean 0 and "
                                      "standard deviation 1 in each minibatch")
    target_kl: float | None = Field(None, gt=0, description="an update's epochs stop early "
                                    "once the policy moved this far (approximate KL); null: "
                                    "never (SB3 backend)")


class NetworkSpec(BaseModel):
    """The policy's architecture, the one typed model of it: a training run's
    ``network`` (:class:`NetworkConfig`) and an expert-iteration run's."""

    model_config = _STRICT
    trunk: list[int] = Field(default_factory=lambda: [256],
                             description="MLP shared by policy and value (features extractor)")
    pi: list[int] = Field(default_factory=lambda: [128], description="policy head widths")
    vf: list[int] = Field(default_factory=lambda: [128], description="value head widths")
    activation: Literal["relu", "tanh"] = Field("relu", description="the hidden layers' "
                                                "activation")

    @field_validator("trunk", "pi", "vf")
    @classmethod
    def _widths(cls, v: list[int]) -> list[int]:
        """1 or more layer widths, each 1 to 4096."""
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
                               "layer is a product of 0/1 planes with AMX tiles, a gather "
                               "elsewhere); 'auto' does so where the "
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
        """One of the record seats (human, all)."""
        from ..imitation import RECORD_SEATS
        if v not in RECORD_SEATS:
            raise ValueError(f"one of {', '.join(RECORD_SEATS)}")
        return v

    @field_validator("player")
    @classmethod
    def _rule_based(cls, v: str) -> str:
        """A rule-based player, with options."""
        from ..imitation import RULE_BASED
        if v.partition(":")[0] not in RULE_BASED:
            raise ValueError(f"a rule-based player ({', '.join(RULE_BASED)}, with options); "
                             f"a trained model would carry its training into the run")
        return v


class PFSPConfig(BaseModel):
    """Prioritised fictitious self-play (``selfplay.pfsp``): each league opponent's
    weight in ``opponents`` is multiplied by ``q ** exponent``, ``q`` how often it
    still wins a deal against the learner (a moving table of its last ``window``
    deals), and by ``boost`` while the learner does not beat it by ``margin``
    (the forgetting check). The self-play share does not change
    (training.league.OpponentPool)."""

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
    only the learner's seat trains (training.rollouts.AllSeatGames)."""

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
        """Finite weights ≥ 0 with a positive total; not latest (latest:temperature=T is)."""
        from ..league import careless_temperature
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
    partner: Literal["latest"] = Field(
        "latest", description="the learner's partner: the policy itself ('latest', the only "
                              "value; partner games beside other players: 'partners')")
    pfsp: PFSPConfig | None = Field(
        None, description="prioritised fictitious self-play over the league's opponents "
                          "(SB3 backend); unset: the weights of 'opponents' as they are")
    allow_trained_opponents: bool = Field(
        False, description="let a run from scratch meet trained models as fixed players (a "
                           "best response, aluette exploit, does); otherwise only rule-based "
                           "players, its snapshots and itself")
    all_seats: bool = Field(
        True, description="every seat the current policy plays yields samples: the 'latest' "
                          "share of the games is self-play (4 learner seats), the rest are "
                          "league games (the learner team against a draw from the other "
                          "entries); true is the only value (one learner seat a game is gone)")
    partners: PartnersConfig | None = Field(
        None, description="partner games: a share of the games where the learner's one seat "
                          "sits beside a partner drawn from a population (SB3 backend); "
                          "null: none")

    @field_validator("all_seats")
    @classmethod
    def _all_seats(cls, v: bool) -> bool:
        """True only: the games with one learner seat each are gone (the same league
        as all seats, fewer samples a forward pass)."""
        if not v:
            raise ValueError("false (one learner seat a game) is no longer trained: every "
                             "seat the policy plays is a learner seat; remove the key")
        return v

    @field_validator("opponents")
    @classmethod
    def _weights(cls, v: dict[str, float]) -> dict[str, float]:
        """Finite weights ≥ 0 with a positive total."""
        if not v or any(not math.isfinite(w) or w < 0 for w in v.values()) \
                or sum(v.values()) <= 0:
            raise ValueError("a mapping of opponent -> finite weight >= 0 with a positive total")
        return v


def _each_once(v: list[str]) -> list[str]:
    """Each player once."""
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
    opponents: EvalOpponents = Field(default_factory=lambda: ["heuristic", "random"],
                                     description="players evaluated against, each once; the "
                                                 "first one picks best.zip")
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
        """One or more player specs."""
        if not v:
            raise ValueError("a list of one or more player specs (the first one picks best.zip)")
        return v

    @field_validator("partners")
    @classmethod
    def _partners(cls, v: list[str] | None) -> list[str] | None:
        """One or more player specs, each once."""
        from aluette_env.evaluation.partners import plan_partners
        if v is not None:
            plan_partners(v)
        return v

    @field_validator("panel")
    @classmethod
    def _panel(cls, v: list[str] | None) -> list[str] | None:
        """Members of the panel (aluette_env.evaluation.PANEL)."""
        from aluette_env.evaluation.panel import plan_panel
        if v is not None:
            plan_panel(v)
        return v

    @field_validator("panel_deals_for")
    @classmethod
    def _panel_deals_for(cls, v: dict[str, int] | None, info: Any) -> dict[str, int] | None:
        """Each key a member of 'panel'."""
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
    tensorboard: bool = Field(True, description="write TensorBoard logs in the run folder")
    progress_bar: bool = Field(True, description="show a progress bar while training")
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
    run_name: str = Field("aluette-ppo", pattern=RUN_NAME,
                          description="the run's folder under output_dir")
    seed: Seed = Field(0, ge=0, description="seed of the network's weights, the games and "
                                           "the opponents' draws")
    total_timesteps: int = Field(10_000_000, ge=1, le=MAX_TIMESTEPS,
                                 description="learner samples to train on")
    num_games: int = Field(1024, ge=1, le=100_000,
                           description="parallel games (SB3: n_envs; RLlib: lockstep matches "
                                       "per env)")
    torch_threads: int = Field(2, ge=1, le=MAX_TORCH_THREADS,
                               description="torch threads of the learner's process")
    torch_compile: Literal[False, True, "auto"] = Field(
        False, description="the update's network passes (forward and backward) compiled by "
                           "torch.compile (SB3 backend; true needs a C++ compiler): the same "
                           "numbers to float rounding, in less time an update; the first "
                           "update of a process waits for the compile (about 30 s, a few "
                           "seconds from torch's cache). 'auto': where it was measured "
                           "faster, a CPU with AMX tiles (bfloat16 products, the first layer "
                           "as 0/1 planes) that has a C++ compiler; elsewhere not. A resume "
                           "may change it")

    @field_validator("torch_compile", mode="before")
    @classmethod
    def _compile_setting(cls, v):
        """true, false or auto only (a 1 is no flag)."""
        if type(v) is not bool and v != "auto":
            raise ValueError("true, false or auto")
        return v

    output_dir: str = Field("checkpoints", description="runs go to OUTPUT_DIR/RUN_NAME")
    env: EnvConfig = Field(default_factory=EnvConfig, description="the game played")
    ppo: PPOConfig = Field(default_factory=PPOConfig, description="PPO's hyperparameters")
    network: NetworkConfig = Field(default_factory=NetworkConfig,
                                   description="the policy's network and how it starts")
    pretrain: PretrainConfig | None = Field(
        None, description="a behaviour-cloning start from a rule-based player (SB3 backend); "
                          "unset: the policy starts from random weights")
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig,
                                     description="who sits at the learner's table")
    eval: EvalConfig = Field(default_factory=EvalConfig, description="the duplicate "
                             "evaluations during the run")
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig,
                                         description="when checkpoints are saved")
    logging: LoggingConfig = Field(default_factory=LoggingConfig,
                                   description="what the run reports")
    rllib: RLlibConfig = Field(default_factory=RLlibConfig,
                               description="the RLlib backend's settings (backend rllib)")

    @model_validator(mode="after")
    def _backend_settings(self) -> TrainConfig:
        check_compatible(self)
        return self


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
    epochs: int = Field(8, ge=1, le=1000, description="passes over the data")
    batch_size: int = Field(256, ge=1, le=1_000_000, description="minibatch size")
    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam step size")
    best_weight: float = Field(0.8, ge=0, le=1,
                               description="share of the expert's own card in the target")
    tau: float = Field(0.1, gt=0, le=100, description="temperature (deal points) of the softmax of "
                                               "the card values in the target")
    anchor: float = Field(0.5, ge=0, le=100,
                          description="weight of KL(guiding policy || new policy)")
    significance: float = Field(2.0, ge=0, le=10, description=(
        "standard errors by which the expert's card must gain over the guiding policy's "
        "greedy card for a position's target to be the expert's; elsewhere the target is "
        "the fitted policy's own probabilities at the start (0: every position's is the "
        "expert's)"))
    logit_anchor: float = Field(1.0, ge=0, le=100, description=(
        "weight of the squared change of the legal cards' logits from the start's (less "
        "their mean): a trust region that, unlike the KL, costs as much in a near tie "
        "(0: none)"))
    vf_coef: float = Field(0.5, ge=0, le=100,
                           description="weight of the value head's squared error")
    replay: int = Field(1, ge=0, le=100, description="earlier iterations' data sets fitted too "
                                             "(0: this iteration's only)")
    holdout: float = Field(0.1, ge=0, lt=1, description="share of positions kept out of the "
                                                        "fit to measure it")
    validation: float = Field(0.1, ge=0, lt=1, description="share of the other positions kept "
                              "out of the fit to choose its epoch: the weights of the epoch, the "
                              "start included, of the lowest loss there (0: the last epoch's)")
    seed: Seed = Field(0, ge=0, description="seed of the minibatches' order (plus the "
                                           "iteration's number: of the new network)")


class LoopEvalConfig(BaseModel):
    """The loop's evaluation of each iteration's policies: :class:`EvalConfig`'s
    ``deals``, ``seed`` and ``opponents`` (the same types), without the interval
    and the panel of a training run."""

    model_config = _FINITE
    deals: EvalDeals = 2000
    seed: Seed = Field(4242, ge=0, description="seed of the evaluation deals (the same each "
                                              "iteration)")
    opponents: EvalOpponents = Field(["ai:version=2"], min_length=1,
                                     description="players evaluated against, each once")


class PPOPhaseConfig(BaseModel):
    """PPO after each distillation: the distilled policy trained on by self-play
    with a training config, whose result is the iteration's policy (the next
    expert's guide and the next distillation's start) where it beats the
    distilled policy head to head (``keep``). Off while ``config`` is null."""

    model_config = _FINITE
    config: str | None = Field(None, description="a training config of backend sb3 "
                                                 "(configs/history/ppo_after_distill.yaml); null: "
                                                 "no PPO phase")
    set: list[str] = Field([], description="overrides of that config (key.path=value); the "
                                           "loop sets output_dir, run_name and "
                                           "network.warm_start itself")
    model: str = Field("best", pattern="^(best|latest)$",
                       description="the run's model that ends the phase: best.zip (the best "
                                   "evaluation against the config's first eval opponent) or "
                                   "latest.zip")
    keep: Literal["better", "ppo"] = Field(
        "better", description="which policy ends the iteration: better, the phase's model "
                              "only where it beats the distilled policy head to head over "
                              "keep_deals pairs (its mean above 0), else the distilled "
                              "policy; ppo, the phase's model always")
    keep_deals: EvalDeals = Field(20000, description="duplicate deal pairs of that head-to-head "
                                                     "match")
    keep_seed: Seed = Field(9090, description="seed of that match's deals")


class LoopConfig(BaseModel):
    """A whole expert-iteration run (configs/history/expert_iteration.yaml)."""

    model_config = _FINITE
    run_name: str = Field("expert-iteration", pattern=RUN_NAME,
                          description="the run's folder under output_dir")
    output_dir: str = Field("checkpoints", description="runs go to OUTPUT_DIR/RUN_NAME")
    start: str = Field("ai:version=2", description="the first iteration's policy: a shipped "
                                                    "ai:version=N or an exported .onnx")
    iterations: int = Field(3, ge=1, le=100, description="rounds of data, distillation, PPO "
                                                         "phase and evaluation")
    torch_threads: int = Field(1, ge=1, le=MAX_TORCH_THREADS,
                               description="torch threads of the loop's process")
    network: NetworkSpec = Field(NetworkSpec(), description="the distilled policy's "
                                 "network (the start policy's architecture)")
    data: DataConfig = Field(DataConfig(), description="how each iteration's data set of "
                             "the expert's labels is made")
    distill: DistillConfig = Field(DistillConfig(), description="how the policy is fitted "
                                   "to the data")
    ppo: PPOPhaseConfig = Field(PPOPhaseConfig(), description="PPO after each "
                                "distillation (optional)")
    eval: LoopEvalConfig = Field(LoopEvalConfig(), description="the evaluation of each "
                                 "iteration's policies")


# ----------------------------------------------------------------------------- recipes

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
    run_name: str = Field("aluette-recipe", pattern=RUN_NAME,
                          description="the recipe's folder under output_dir; each stage "
                                      "runs in a folder of its name inside")
    output_dir: str = Field("checkpoints", min_length=1,
                            description="recipes go to OUTPUT_DIR/RUN_NAME")
    stages: list[StageConfig] = Field(min_length=1, max_length=20, description="the stages, "
                                      "run in order, each from the policy of the one before")
    seed: Seed | None = Field(None, ge=0, description="the seed of every train stage (null: "
                              "each stage's config's own); `--set seed=1` trains the recipe "
                              "on a second seed")

    @field_validator("stages")
    @classmethod
    def _unique(cls, v: list[StageConfig]) -> list[StageConfig]:
        """Each stage with its own name."""
        names = [s.name for s in v]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"each stage needs its own name; {', '.join(twice)} is used twice")
        return v

