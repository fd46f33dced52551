"""The package's import layers (which module may import which; not a network's
layers), declared once: which module sits in which layer, lowest first, and
which third-party packages each part may import. A module imports only
modules of its own layer and of the layers before it in :data:`LAYERS`, and
only the third-party packages its part names (with those of any part that
contains it: ``aluette_env.apps.web`` may import what ``aluette_env.apps`` may).

Three readers follow this table: ``tests/test_import_layers.py`` checks the
import graph against it (``from pkg import X`` counts as an import of the
submodule X when X is one), the package docstring's numbered list is tested against it,
and the table of ``docs/LAYOUT.md`` is generated from it
(``python -m aluette_env.import_layers`` rewrites it in a checkout; the test
fails when it is stale, and when a module of the tree has no part here).

May import: the standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple


class Part(NamedTuple):
    """Modules or packages (a package: its submodules too) of one layer, with the
    third-party packages they may import (top-level import names)."""

    modules: tuple[str, ...]
    imports: tuple[str, ...]
    what: str  # its row in docs/LAYOUT.md (markdown)


class Layer(NamedTuple):
    name: str
    parts: tuple[Part, ...]


#: Lowest first.
LAYERS: tuple[Layer, ...] = (
    Layer("game", (
        Part(("aluette_env.game",), (),
             "**the pure game core**: cards (R3–R4, R7–R8), seats and teams (R1, `seats`: the "
             "seat arithmetic and `NOBODY`), the rules as small functions (`rules`: dealing, "
             "tricks, the tally and its scoring, team points), the game's one step over a flat "
             "state record (`state`: `STATE_FIELDS`, `start_deal`, `step`), `Deal` and `Match` "
             "for Python callers and the result dicts (`deal`), the signs variant (`signs`: "
             "S1–S5, its phase part of the one step), a variant as one object (`variant`: its "
             "env id, actions, chance draws, who knows which sign) — every rule stated once "
             "([where](RULES.md#where-each-rule-lives-in-the-code))"),
        Part(("aluette_env.models",), (), "the shipped ONNX policies (package data)"),
        Part(("aluette_env._files",), (),
             "reading a small file a person named: a regular file only (never a pipe or a "
             "device), at most a limit"),
        Part(("aluette_env.import_layers",), (), "this table: the import layers, declared once"),
    )),
    Layer("records", (
        Part(("aluette_env.records",), (),
             "match records: a match as a versioned JSON document, checked by replaying it "
             "through the rules ([RECORDS.md](RECORDS.md))"),
    )),
    Layer("observation", (
        Part(("aluette_env.observation",), ("numpy",),
             "the one writer from a state record (`write_view`: the reference encoder and the "
             "engine's kernel), `decode_observation` (with the rebuilt order of play) and the "
             "readers (`read_view`, `read_state`, `read_match`); the layout declared once "
             "(`layout`: named slices, older layouts as prefixes), the incremental writer of the "
             "env (`incremental`), the learner's index lists (`sparse`: `write_active`, "
             "`write_hidden`); every public name importable from the package"),
    )),
    Layer("openspiel", (
        Part(("aluette_env.openspiel",), ("numpy", "pyspiel"),
             "the game registered in OpenSpiel (`python_aluette`): chance nodes that deal, the "
             "env's observation as tensors, `resample_from_infostate`; optional (`[openspiel]`)"),
    )),
    Layer("_jit", (
        Part(("aluette_env._jit",), ("numba",),
             "numba's decorator, and the game's step, the core's rules and the observation's "
             "writer and readers registered with numba, so compiled code calls them by name"),
        Part(("aluette_env._workers",), (),
             "process pools whose workers end with their parent (the web server's, "
             "`duplicate_eval(jobs=N)`'s)"),
    )),
    Layer("render", (
        Part(("aluette_env.render",), (), "the table as text for `render()`"),
    )),
    Layer("aec", (
        Part(("aluette_env.aec", "aluette_env.aluette_v0", "aluette_env.aluette_v1",
              "aluette_env.aluette_signs_v0"),
             ("numpy", "gymnasium", "pettingzoo"),
             "the PettingZoo AEC environment (`raw_env`, `env`, registered as `aluette_v0`, "
             "`aluette_v1` and `aluette_signs_v0`); one module per version, PettingZoo's way: "
             "`aluette_v1` (perfect recall, the one to use), `aluette_v0` (the layout-1 "
             "observation, kept so old experiments repeat), `aluette_signs_v0` (the signs "
             "variant)"),
    )),
    Layer("vector", (
        Part(("aluette_env.vector",), ("numpy",),
             "the batched engine `VectorGame`; `kernels` holds the numba kernels over one "
             "`GAME_STATE` record array (the numpy form of `game.state.STATE_FIELDS`), which "
             "call the game's step and the observation's writer"),
    )),
    Layer("players", (
        Part(("aluette_env.players",), ("numpy", "onnxruntime", "pyspiel", "open_spiel"),
             "the player protocol, spec syntax and options, registry (entry points); "
             "`random_player`, `heuristic`, `onnx_policy` (onnxruntime only), `solver` (the "
             "exact solver), `search/` (the policy-guided search `expert` and its `pimc` "
             "preset: `worlds`, `belief`, `rollouts`, `choice`, `versions`, `player`; "
             "`expert` re-exports it), `spiel` "
             "(OpenSpiel's ISMCTS as the `ismcts` player, players as OpenSpiel bots)"),
    )),
    Layer("evaluation", (
        Part(("aluette_env.evaluation",), ("numpy", "rich", "tqdm", "openskill"),
             "duplicate evaluation (`duplicate`), openskill ratings of a round robin "
             "(`ratings`), strength against a fixed panel of players (`panel`: `PANEL`, "
             "`panel_eval`), strength beside a panel of partners (`partners`: `PARTNERS`, "
             "`partner_eval`, how a team's tricks split)"),
    )),
    Layer("apps", (
        Part(("aluette_env.commands", "aluette_env.__main__"), (),
             "the `aluette` command: the plugin API (`Command`, `UsageError`, argument types, "
             "output checks), the parser built from the entry points and the one-line-error "
             "runner (`main`, `run_command`); `python -m aluette_env`"),
        Part(("aluette_env.apps",), ("numpy", "rich", "babel"),
             "the `eval` and `ratings` subcommands (`cli`), the review (`review`), the coach "
             "(`coach`), the one game flow for people (`session`: `GameSession`, its moves "
             "and events), who plays each seat (`seating`: `Seating`, the people, the AIs, "
             "who is away), a game kept outside the process (`snapshots`: its snapshot "
             "written and read back), what a seat may know (`views`: a seat's view, the "
             "events it is told of, and views and events with seats counted from the "
             "reader), the words of its events and "
             "views (`narrator`: `Narrator`), the terminal game (`terminal`), the apps' "
             "message catalog (`i18n`, `locales/`)"),
        Part(("aluette_env.apps.web",),
             ("starlette", "uvicorn", "h11", "sqlalchemy", "alembic", "psycopg",
              "cryptography"),
             "the web game ([WEB.md](WEB.md)): the service, free of Starlette, that owns "
             "seats, moves, the AI taking over, the games in memory and their locks "
             "(`service`, its refusals in `errors`); the routes, one module per feature: the "
             "page and its files (`page`), a seat's game (`game_api`), tables of people "
             "(`tables`), the coach (`coach_api`); the app assembled (`server`); request "
             "reading (`inputs`) and limits (`limits`, their timeouts' settings in "
             "`timeouts`); the database, rows only (`store`, "
             "`migrations`); pushes between processes (`changes`); worker processes and "
             "player pools (`workers`)"),
    )),
    Layer("training", (
        Part(("training",),
             ("numpy", "torch", "numba", "gymnasium", "pydantic", "yaml", "matplotlib", "tqdm",
              "onnx"),
             "`config` (every typed config, for training runs, expert iteration and recipes: "
             "the models, `schemas`; which settings work together, `compatibility`; the "
             "checks beyond the keys, `rules`; the YAML reader and entry points, `loader`; "
             "docs/CONFIG.md generated from the models, `reference`), "
             "`runs` (run folders: state, resume, SIGKILL safety), `atomic` (atomic "
             "writes), `evaluate` (a run's evaluations), `curve` (the learning curve), "
             "`stopping` (a trainer's stop on a signal), "
             "`league` (the opponent and partner pools, backend-free), `rollouts` (the "
             "learner's games on the batched engine, backend-free; `selfplay`: their old "
             "name), "
             "`imitation` (a rule-based player's demonstrations for `pretrain`, backend-free), "
             "`players` (torch policies as players), `export` (ONNX), `exploit` (a learned "
             "best response), `recipe` (the stages as one command), `cli`"),
        Part(("training.sb3", "training.expert_iteration"), ("stable_baselines3", "sb3_contrib"),
             "the MaskablePPO backend (`sb3`); expert iteration, which distils the search "
             "into its policy (`expert_iteration`: its data, the distillation, the loop; "
             "[EXPERT_ITERATION.md](EXPERT_ITERATION.md))"),
        Part(("training.rllib",), ("ray",),
             "the Ray RLlib backend ([RLLIB.md](RLLIB.md)); `checkpoints` reads a run's "
             "checkpoints without Ray"),
    )),
)


def _contains(package: str, module: str) -> bool:
    return module == package or module.startswith(package + ".")


def part_of(module: str) -> tuple[int, Part] | None:
    """(layer index, part) of ``module``: the most specific part containing it;
    None for a module no part names (the package's front door, ``aluette_env``)."""
    best, depth = None, -1
    for i, layer in enumerate(LAYERS):
        for part in layer.parts:
            for m in part.modules:
                if _contains(m, module) and m.count(".") > depth:
                    best, depth = (i, part), m.count(".")
    return best


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of ``module``'s layer (None: no layer)."""
    found = part_of(module)
    return None if found is None else found[0]


def allowed_imports(module: str) -> frozenset[str]:
    """The third-party packages ``module`` may import: those of every part that
    contains it."""
    return frozenset(name for layer in LAYERS for part in layer.parts
                     if any(_contains(m, module) for m in part.modules)
                     for name in part.imports)


def is_third_party(name: str) -> bool:
    """An absolute import's top-level name that is neither the standard library nor
    this project's."""
    top = name.partition(".")[0]
    return top not in sys.stdlib_module_names and top not in ("aluette_env", "training",
                                                              "__future__")


# ----------------------------------------------------------------------- docs/LAYOUT.md

BEGIN = ("<!-- the layers: generated from aluette_env/import_layers.py by "
         "`python -m aluette_env.import_layers` -->")
END = "<!-- end of the layers -->"


def _path(module: str, packages: set[str]) -> str:
    path = module.replace(".", "/")
    return f"`{path}/`" if module in packages else f"`{path}.py`"


def layout_table(modules: Iterable[str], packages: Iterable[str]) -> str:
    """docs/LAYOUT.md's table: one row per part, its modules of ``modules`` (the
    tree's module names; ``packages``: those that are packages) named in it."""
    modules, packages = sorted(modules), set(packages)
    rows = ["| layer | path | what | third-party imports |", "|---|---|---|---|"]
    for i, layer in enumerate(LAYERS, 1):
        for part in layer.parts:
            paths = ", ".join(_path(m, packages) for m in part.modules)
            # a module directly inside a part's package by name, a folder of them as `name/`
            inside = sorted({m.split(".")[len(p.split("."))]
                             + ("" if m.count(".") == p.count(".") + 1 else "/")
                             for p in part.modules for m in modules
                             if m.startswith(p + ".") and part_of(m)[1] is part})
            listed = f" — modules: {', '.join(f'`{m}`' for m in inside)}" if inside else ""
            imports = ", ".join(part.imports) or "none (standard library only)"
            rows.append(f"| {i}. {layer.name} | {paths} | {part.what}{listed} | {imports} |")
    return "\n".join(rows)


def tree_modules(root: Path) -> tuple[list[str], list[str]]:
    """(modules, packages) of ``aluette_env`` and ``training`` under ``root``."""
    modules, packages = [], []
    for top in ("aluette_env", "training"):
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
                packages.append(".".join(parts))
            modules.append(".".join(parts))
    return modules, packages


def with_table(text: str, table: str) -> str:
    """``text`` (docs/LAYOUT.md) with the table between its markers replaced."""
    head, begin, rest = text.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"docs/LAYOUT.md lacks the markers {BEGIN!r} and {END!r}")
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    doc = root / "docs" / "LAYOUT.md"
    if not doc.is_file() or not (root / "training").is_dir():
        sys.exit(f"{root} is not a checkout of the project: no docs/LAYOUT.md or training/")
    text = doc.read_text(encoding="utf-8")
    doc.write_text(with_table(text, layout_table(*tree_modules(root))), encoding="utf-8")
    print(f"wrote {doc}")


if __name__ == "__main__":
    main()
