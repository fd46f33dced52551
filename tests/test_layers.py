"""The package's layer order, read from the import graph: every import of
aluette_env and training runs downward (or within a layer), as the package
docstring of aluette_env documents it. A new module must be given its layer
here; an upward import fails with the importing file, line and both layers.
Within a layer too the graph has no cycle: two modules that import each other
(lazily or not) fail with the cycle's modules and lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Lowest first; a module may import modules of its own layer and of lower ones.
#: (The order is the one in aluette_env/__init__.py's docstring.)
LAYERS = [
    ("game", ["aluette_env.game", "aluette_env.models", "aluette_env._files"]),
    ("records", ["aluette_env.records"]),
    ("observation", ["aluette_env.observation"]),
    ("openspiel", ["aluette_env.openspiel"]),
    ("_jit", ["aluette_env._jit", "aluette_env._workers"]),
    ("render", ["aluette_env.render"]),
    ("aec", ["aluette_env.aec", "aluette_env.aluette_v0", "aluette_env.aluette_v1"]),
    ("vector", ["aluette_env.vector"]),
    ("players", ["aluette_env.players"]),
    ("evaluation", ["aluette_env.evaluation"]),
    ("apps", ["aluette_env.apps", "aluette_env.__main__", "aluette_env.commands"]),
    ("training", ["training"]),
]


def layer_of(module: str) -> int | None:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                best = i
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file, lazy ones included;
    ``name``: the file's module name (default: from its place in the repository)."""
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
            if node.module is None:  # from . import x: x may be a module
                out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, base))
    return out


def source_files() -> list[Path]:
    return sorted(p for d in ("aluette_env", "training") for p in (ROOT / d).rglob("*.py"))


def test_every_module_has_a_layer():
    missing = [module_name(p) for p in source_files()
               if module_name(p) != "aluette_env" and layer_of(module_name(p)) is None]
    assert not missing, f"modules without a layer in tests/test_layers.py: {missing}"


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_downward(path):
    me = module_name(path)
    mine = layer_of(me)
    if mine is None:  # the package's lazy front door (importlib by name)
        return
    bad = []
    for line, target in imports_of(path):
        theirs = layer_of(target)
        if theirs is not None and theirs > mine:
            bad.append(f"{path.relative_to(ROOT)}:{line} ({LAYERS[mine][0]}) imports {target} "
                       f"({LAYERS[theirs][0]})")
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def import_graph(files: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Module -> {imported module of ``files``: line}; ``from m import name`` counts
    as an import of ``m`` unless ``m.name`` is a module itself."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        edges: dict[str, int] = {}
        for line, target in imports_of(path, name):
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


def test_the_layer_test_sees_an_upward_import(tmp_path):
    """The checker itself: a players module importing the apps is caught."""
    fake = tmp_path / "probe.py"
    fake.write_text("from ..apps import cli\nimport aluette_env.evaluation\n", encoding="utf-8")
    layers = [layer_of(t) for _, t in imports_of(fake, "aluette_env.players.probe")]
    assert layers == [layer_of("aluette_env.apps.cli"), layer_of("aluette_env.evaluation")]
    assert all(lv > layer_of("aluette_env.players") for lv in layers)
