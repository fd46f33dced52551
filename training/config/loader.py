"""From a config file and its ``--set key.path=value`` overrides to a checked
config: the YAML reader (hardened: a file that is not UTF-8 text, a key given
twice, a document too deep or too large are refused), the overrides, pydantic's
errors turned into one line naming the file, the key path and what is allowed,
and the three entry points, :func:`load_config` (a training run),
:func:`load_loop_config` (expert iteration) and :func:`load_recipe` (a recipe,
each stage's config loaded as its stage will run it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypeVar, get_args

import yaml
from pydantic import BaseModel, ValidationError

from .rules import (
    StagePolicy, check_batches, check_from_scratch, check_output_dir, check_players,
    check_policy, check_start, check_warm_start, stage_policy,
)
from .schemas import ConfigError, LoopConfig, RecipeConfig, StageConfig, TrainConfig

M = TypeVar("M", bound=BaseModel)
#: Largest config file read (a config is a few KB).
MAX_CONFIG_BYTES = 1 << 20


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


#: YAML 1.2's floats, which PyYAML's YAML 1.1 reads as strings where they have
#: no dot (``3e-4``, ``1e6``): a config's numbers are checked strictly, so a
#: learning rate written ``3e-4`` must reach the check as the number it is.
_FLOAT = re.compile(r"""^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+
    |[-+]?[0-9][0-9_]*\.[0-9_]*
    |[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""", re.X)


class _BoundedLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a document nested deeper than MAX_YAML_DEPTH or
    of more than MAX_YAML_VALUES values once its aliases are expanded (PyYAML's
    composer recurses once per level, and an alias bomb expands exponentially);
    its floats are YAML 1.2's (:data:`_FLOAT`)."""

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


_BoundedLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


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


def validate(data: dict[str, Any], source: str) -> TrainConfig:
    """The typed config, with the settings that only fail together checked too."""
    cfg = parse(TrainConfig, data, source)
    check_batches(cfg, source)
    return cfg


def to_yaml(cfg: BaseModel) -> str:
    """A config as the ``config.yaml`` of its run folder (keys in declaration order)."""
    return yaml.safe_dump(cfg.model_dump(), sort_keys=False)


# ----------------------------------------------------------------------------- expert iteration

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



# ----------------------------------------------------------------------------- recipes

#: Stands for the previous stage's policy in a stage's ``set`` while the recipe is
#: checked, before that policy exists (the checks need a policy that loads).
_STAND_IN = "ai"
PREVIOUS = "{previous}"


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
            cfg = stage_config(stage, folder, previous, recipe.seed)
            if made is not None:
                check_start(cfg, made)
        except ConfigError as err:
            raise ConfigError(f"{source}: stage '{stage.name}': {err}") from None
        made = stage_policy(cfg)
    return recipe


def stage_policy_path(folder: Path, stage: StageConfig) -> Path:
    """The stage's exported policy, its commit point."""
    return folder / stage.name / "policy.onnx"


def stage_config(stage: StageConfig, folder: Path, previous: str | None,
                 seed: int | None = None) -> TrainConfig | LoopConfig:
    """The stage's own config (TrainConfig or LoopConfig) in ``folder/<stage>``,
    starting from ``previous``, the previous stage's policy file (None: the first
    stage, from scratch or from its config's own ``network.warm_start``). Checked
    before that file exists too, with a shipped model in its place in ``set``
    values. A train stage after the first starts from ``previous``: its own
    ``network.warm_start`` (in its config or its ``set``), unless ``{previous}``,
    is refused, never replaced. ``seed`` (the recipe's) replaces a train stage's."""
    if previous is None and any(PREVIOUS in s for s in stage.set):
        raise ConfigError(f"{PREVIOUS} in 'set': the first stage has no previous policy")
    ready = previous is not None and Path(previous).is_file()
    sets = [s.replace(PREVIOUS, previous if ready else _STAND_IN) if previous else s
            for s in stage.set]
    where = [f"output_dir={_text(folder)}", f"run_name={_text(stage.name)}"]
    if stage.kind == "train":
        if seed is not None:
            where.append(f"seed={seed}")
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
