"""The layers declared in aluette_env/import_layers.py, checked against the tree: every
import of aluette_env and training runs downward (or within a layer), with
``from pkg import X`` read as an import of the submodule X when X is one; each
third-party import is one its part may make; the graph has no cycle, even
within a layer; the package docstring and docs/LAYOUT.md say the same as the
declaration. A new module must be given its part there; an upward import fails
with the importing file, line and both layers. The checker itself is tested on
probe imports placed where they do not belong."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import aluette_env
from aluette_env.import_layers import (
    BEGIN, END, LAYERS, allowed_imports, is_third_party, layer_of, layout_table, tree_modules,
    with_table,
)

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    return sorted(p for d in ("aluette_env", "training") for p in (ROOT / d).rglob("*.py"))


#: Every module of the tree: ``from pkg import X`` imports the module pkg.X if it is one.
MODULES = frozenset(module_name(p) for p in source_files())


def imports_of(path: Path, name: str | None = None,
               modules: frozenset[str] = MODULES) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file, lazy ones included;
    ``name``: the file's module name (default: from its place in the repository).
    ``from pkg import X`` is an import of ``pkg.X`` when that is one of ``modules``,
    and of the module the package's front door loads X from (its lazy ``_LAZY``
    table) for ``from aluette_env import X``; otherwise of ``pkg``."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in modules:
                    out.append((node.lineno, sub))
                elif base == "aluette_env" and a.name in aluette_env._LAZY:
                    out.append((node.lineno, aluette_env._LAZY[a.name]))
                else:
                    out.append((node.lineno, base))
    return out


def violations(files: dict[str, Path], modules: frozenset[str] = MODULES) -> list[str]:
    """Every import of ``files`` (module name -> path) against the declaration: an
    upward import (file, line, both layers) or a third-party package its part does
    not allow. Modules without a layer (the front door) are not checked."""
    bad = []
    for me, path in sorted(files.items()):
        mine = layer_of(me)
        if mine is None:
            continue
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        allowed = allowed_imports(me)
        for line, target in imports_of(path, me, modules):
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                bad.append(f"{where}:{line} ({LAYERS[mine].name}) imports {target} "
                           f"({LAYERS[theirs].name})")
            top = target.partition(".")[0]
            if is_third_party(target) and top not in allowed:
                bad.append(f"{where}:{line} ({me}) imports {top}, which its part does not "
                           f"allow (allowed: {', '.join(sorted(allowed)) or 'none'})")
    return bad


def test_every_module_has_a_layer():
    missing = [m for m in sorted(MODULES) if m != "aluette_env" and layer_of(m) is None]
    assert not missing, f"modules without a part in aluette_env/import_layers.py: {missing}"


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path):
    bad = violations({module_name(path): path})
    assert not bad, "imports against aluette_env/import_layers.py:\n" + "\n".join(bad)


def test_the_declaration_keeps_the_heavy_packages_in_their_layers():
    """What the declaration allows, not only what the tree does: pettingzoo and
    gymnasium in the env (and gymnasium for training's wrappers), torch only in
    training, Starlette and SQLAlchemy only in the web game."""
    where = {name: sorted(m for layer in LAYERS for part in layer.parts if name in part.imports
                          for m in part.modules)
             for name in ("pettingzoo", "gymnasium", "torch", "starlette", "sqlalchemy")}
    assert where == {
        "pettingzoo": ["aluette_env.aec", "aluette_env.aluette_signs_v0",
                       "aluette_env.aluette_v0", "aluette_env.aluette_v1"],
        "gymnasium": ["aluette_env.aec", "aluette_env.aluette_signs_v0",
                      "aluette_env.aluette_v0", "aluette_env.aluette_v1", "training"],
        "torch": ["training"],
        "starlette": ["aluette_env.apps.web"],
        "sqlalchemy": ["aluette_env.apps.web"],
    }


def _probe(tmp_path: Path, module: str, source: str) -> list[str]:
    """The checker's verdict on a file of ``source`` placed as ``module``."""
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    return violations({module: path}, MODULES | {module})


@pytest.mark.parametrize("module, source, reported", [
    # from pkg import X, X a submodule: the package itself has no layer
    ("aluette_env.game.probe", "from aluette_env import players\n", "imports aluette_env.players"),
    ("aluette_env.game.probe", "from .. import players\n", "imports aluette_env.players"),
    ("aluette_env.game.probe", "def f():\n    from aluette_env import vector\n",
     "imports aluette_env.vector"),
    # a name of the lazy front door: the module it loads
    ("aluette_env.game.probe", "from aluette_env import env\n", "imports aluette_env.aluette_v1"),
    ("aluette_env.players.probe", "from ..apps import cli\n", "imports aluette_env.apps.cli"),
    ("aluette_env.players.probe", "import aluette_env.evaluation\n",
     "imports aluette_env.evaluation"),
    # third-party packages outside their parts
    ("aluette_env.game.probe", "import numpy\n", "imports numpy"),
    ("aluette_env.observation", "from pettingzoo import AECEnv\n", "imports pettingzoo"),
    ("aluette_env.vector.probe", "import gymnasium.spaces\n", "imports gymnasium"),
    ("aluette_env.players.probe", "import torch\n", "imports torch"),
    ("aluette_env.apps.session", "from starlette.responses import JSONResponse\n",
     "imports starlette"),
    ("aluette_env.apps.probe", "import sqlalchemy as sa\n", "imports sqlalchemy"),
    ("training.rllib.probe", "from stable_baselines3 import PPO\n", "imports stable_baselines3"),
])
def test_the_checker_reports_a_probe_import(tmp_path, module, source, reported):
    bad = _probe(tmp_path, module, source)
    assert len(bad) == 1 and reported in bad[0], bad


@pytest.mark.parametrize("module, source", [
    ("aluette_env.game.probe", "from . import cards\nimport json\n"),
    ("aluette_env.aec", "from pettingzoo import AECEnv\nfrom .game import AGENTS\n"),
    ("aluette_env.apps.web.probe", "import starlette\nfrom rich import print\n"),  # + apps'
    ("aluette_env.players.probe", "from aluette_env import card_name, vector\n"),
    ("training.sb3.probe", "import torch\nfrom sb3_contrib import MaskablePPO\n"),
])
def test_the_checker_passes_an_allowed_import(tmp_path, module, source):
    assert _probe(tmp_path, module, source) == []


def import_graph(files: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Module -> {imported module of ``files``: line}; ``from m import name`` counts
    as an import of ``m`` unless ``m.name`` is a module itself."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        edges: dict[str, int] = {}
        for line, target in imports_of(path, name, frozenset(files)):
            while target and target not in files:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each
    sorted: every module that lies on an import cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle():
    """No two modules import each other, even lazily inside a function: a cycle
    means one of them is really part of the other, or a third module is missing."""
    graph = import_graph({module_name(p): p for p in source_files()})
    bad = [" -> ".join(f"{m} (line {graph[m][n]})" for m, n in zip(part, part[1:] + part[:1])
                       if n in graph[m]) or ", ".join(part) for part in cycles(graph)]
    assert not bad, "import cycles:\n" + "\n".join(bad)


def test_the_cycle_check_sees_a_cycle(tmp_path):
    """The checker itself: two files importing each other, one lazily, are a cycle."""
    (tmp_path / "a.py").write_text("from . import b\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    from .a import x\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("from .a import y\n", encoding="utf-8")
    graph = import_graph({f"pkg.{n}": tmp_path / f"{n}.py" for n in "abc"})
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


def test_training_uses_the_public_command_api_not_the_apps():
    """training registers its commands through entry points with
    aluette_env.commands (the plugin API); it never reaches into aluette_env.apps."""
    bad = [f"{p.relative_to(ROOT)}:{line} imports {target}"
           for p in source_files() if module_name(p).startswith("training")
           for line, target in imports_of(p)
           if target == "aluette_env.apps" or target.startswith("aluette_env.apps.")]
    assert not bad, "\n".join(bad)


def test_the_package_docstring_lists_the_declared_layers():
    """aluette_env's docstring numbers the layers as LAYERS does, each item naming
    (with :mod:) exactly the modules of that layer's parts."""
    items = re.findall(r"^(\d+)\. (.*?)(?=^\d+\. |^\S|\Z)", aluette_env.__doc__, re.M | re.S)
    assert [int(n) for n, _ in items] == list(range(1, len(LAYERS) + 1))
    for (n, text), layer in zip(items, LAYERS):
        named = re.findall(r":mod:`([\w.]+)`", text)
        declared = [m for part in layer.parts for m in part.modules]
        assert sorted(named) == sorted(declared), f"item {n} ({layer.name})"


def test_layout_md_is_generated_from_the_declaration():
    doc = (ROOT / "docs" / "LAYOUT.md").read_text(encoding="utf-8")
    table = layout_table(*tree_modules(ROOT))
    assert with_table(doc, table) == doc, (
        "docs/LAYOUT.md's table is not the declaration's: "
        "run `python -m aluette_env.import_layers`")


def test_layout_md_names_every_module_and_its_links_resolve():
    doc = (ROOT / "docs" / "LAYOUT.md").read_text(encoding="utf-8")
    table = doc[doc.index(BEGIN):doc.index(END)]
    for m in sorted(MODULES - {"aluette_env"}):
        names = m.split(".")
        shown = {f"`{'/'.join(names[:k])}" for k in range(1, len(names) + 1)}  # a path
        shown |= {f"`{names[k - 1]}{'`' if k == len(names) else '/`'}"  # or in its row
                  for k in range(2, len(names) + 1)}
        assert any(s in table for s in shown), m
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", doc)
    assert links and all(not link.startswith("http") and (ROOT / "docs" / link).exists()
                         for link in links), links


def test_the_layout_table_lists_a_new_module(tmp_path):
    """The generated table follows the tree: a new game module appears in its row."""
    modules, packages = tree_modules(ROOT)
    assert "`tally`" not in layout_table(modules, packages)
    assert "`tally`" in layout_table(modules + ["aluette_env.game.tally"], packages)


