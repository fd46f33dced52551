"""Every training configuration: typed, documented where declared, validated.

Three kinds of config file (``configs/*.yaml``), each read by its loader with
optional ``--set key.path=value`` overrides: a training run (:class:`TrainConfig`,
:func:`load_config`), an expert-iteration run (:class:`LoopConfig`,
:func:`load_loop_config`; its sections share the training config's network
model, evaluation types and seeds) and a recipe of stages (:class:`RecipeConfig`,
:func:`load_recipe`, which loads each stage's config). Unknown keys, wrong types
and values out of range are refused with :class:`ConfigError`, one line naming
the file, the key path and what is allowed. :func:`load_config` checks
everything a run needs before it starts: a file that is not UTF-8 text, an empty
file or one that sets nothing, a key given twice, settings that only fail
together (a minibatch larger than a rollout), every budget against its upper
bound, every player spec the config names (loaded once), the warm-start model
and a writable ``output_dir``.

One job a module:

- :mod:`.schemas`: the pydantic models, each field's type, bounds and description;
- :mod:`.compatibility`: which backend, features and variant work together;
- :mod:`.rules`: the checks beyond the keys (rollout sizes, players, warm start,
  output folder, a recipe's stage after stage);
- :mod:`.loader`: the hardened YAML reader, ``--set`` and the three entry points;
- :mod:`.reference`: docs/CONFIG.md, generated from the models.

Every name is importable from ``training.config``.
"""

from aluette_env.commands import MAX_EVAL_DEALS, MAX_SEED

from .compatibility import check_compatible
from .loader import (
    MAX_CONFIG_BYTES, MAX_YAML_DEPTH, MAX_YAML_VALUES, PREVIOUS, apply_overrides, is_recipe,
    load_config, load_loop_config, load_recipe, parse, ppo_config, read_yaml, stage_config,
    stage_policy_path, to_yaml, validate,
)
from .rules import (
    RULE_BASED_OPPONENTS, StagePolicy, check_batches, check_from_scratch, check_output_dir,
    check_players, check_policy, check_start, check_warm_start, folder_problem, learner_seats,
    partner_games, player_specs, selfplay_games, stage_policy,
)
from .schemas import (
    MAX_ROLLOUT, MAX_SHARDS, MAX_TIMESTEPS, MAX_TORCH_THREADS, RUN_NAME, CheckpointConfig,
    ConfigError, DataConfig, DistillConfig, EnvConfig, EvalConfig, EvalDeals, EvalOpponents,
    LoggingConfig, LoopConfig, LoopEvalConfig, NetworkConfig, NetworkSpec, PartnersConfig,
    PFSPConfig, PPOConfig, PPOPhaseConfig, PretrainConfig, RecipeConfig, RLlibConfig, Seed,
    SelfPlayConfig, StageConfig, TrainConfig,
)

__all__ = [
    "MAX_CONFIG_BYTES", "MAX_EVAL_DEALS", "MAX_ROLLOUT", "MAX_SEED", "MAX_SHARDS",
    "MAX_TIMESTEPS", "MAX_TORCH_THREADS", "MAX_YAML_DEPTH", "MAX_YAML_VALUES", "PREVIOUS",
    "RULE_BASED_OPPONENTS", "RUN_NAME", "CheckpointConfig", "ConfigError", "DataConfig",
    "DistillConfig", "EnvConfig", "EvalConfig", "EvalDeals", "EvalOpponents", "LoggingConfig",
    "LoopConfig", "LoopEvalConfig", "NetworkConfig", "NetworkSpec", "PFSPConfig", "PPOConfig",
    "PPOPhaseConfig", "PartnersConfig", "PretrainConfig", "RLlibConfig", "RecipeConfig", "Seed",
    "SelfPlayConfig", "StageConfig", "StagePolicy", "TrainConfig", "apply_overrides",
    "check_batches", "check_compatible", "check_from_scratch", "check_output_dir",
    "check_players", "check_policy", "check_start", "check_warm_start", "folder_problem",
    "is_recipe", "learner_seats", "load_config", "load_loop_config", "load_recipe", "parse",
    "partner_games", "player_specs", "ppo_config", "read_yaml", "selfplay_games",
    "stage_config", "stage_policy", "stage_policy_path", "to_yaml", "validate",
]
