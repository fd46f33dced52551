"""The architecture holds: the game core and the package import no third-party
module, an exported player loads without pettingzoo/numba/torch, the wheel
carries every shipped model and the entry points, and ``make check`` leaves out
the browser, RLlib and cluster tests."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules_after(code: str) -> set[str]:
    """Top-level modules loaded (beyond the standard library) by ``code``, in a fresh
    interpreter."""
    probe = "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules" \
                   " if m.split('.')[0] not in sys.stdlib_module_names})))"
    def run(source: str) -> set[str]:
        out = subprocess.run([sys.executable, "-c", source + probe], capture_output=True,
                             text=True, check=True)
        return set(json.loads(out.stdout.strip().splitlines()[-1]))

    # What the interpreter itself loads at start (site hooks, __main__) does not count.
    return run(code) - run("pass") - {"aluette_env"}


def test_game_core_and_package_import_no_third_party_module():
    loaded = _modules_after("import aluette_env, aluette_env.game\n"
                            "d = aluette_env.game.Deal("
                            "*aluette_env.game.deal_cards(range(48), 0)[:1], 0)\n"
                            "d.play(d.legal_cards()[0])")
    assert loaded == set(), f"third-party modules loaded: {sorted(loaded)}"


def test_onnx_player_loads_without_pettingzoo_numba_or_torch():
    loaded = _modules_after("import numpy as np\nfrom aluette_env.players import load_player\n"
                            "p = load_player('ai')\n"
                            "m = np.zeros((1, 48), np.int8); m[0, 5] = 1\n"
                            "from aluette_env.observation import OBS_SIZE\n"
                            "assert p.act(np.zeros(OBS_SIZE, np.int8), m[0]) == 5")
    assert not loaded & {"pettingzoo", "gymnasium", "numba", "torch", "stable_baselines3"}, loaded
    assert "onnxruntime" in loaded


def test_wheel_carries_every_shipped_model_and_the_entry_points(built_wheel):
    """Each model under aluette_env/models/ (every ``ai:version``) is in the wheel,
    byte for byte, and the wheel ships no other."""
    models = {f"aluette_env/models/{p.name}": p.read_bytes()
              for p in (ROOT / "aluette_env" / "models").glob("*.onnx")}
    assert models
    with zipfile.ZipFile(built_wheel) as z:
        names = set(z.namelist())
        shipped = {n for n in names if n.endswith(".onnx")}
        assert shipped == set(models), ("missing", sorted(set(models) - shipped),
                                        "not in the tree", sorted(shipped - set(models)))
        for name, data in models.items():
            assert z.read(name) == data, f"{name} in the wheel differs from the tree's"
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    for group in ("[aluette.players]", "[aluette.loaders]", "[aluette.commands]"):
        assert group in entry_points
    assert "ai = aluette_env.players.onnx_policy:shipped_player" in entry_points


class _Marks(dict):
    """A test's marker names as a pytest -m expression reads them: a name it does
    not carry is false."""

    def __missing__(self, name: str) -> bool:
        return False


def _selected(expression: str, markers: set[str]) -> bool:
    """Whether pytest's ``-m expression`` (``not``, ``and``, ``or``, brackets and
    marker names: Python's own grammar) selects a test carrying ``markers``."""
    return bool(eval(compile(expression, "-m", "eval"), {"__builtins__": {}},  # noqa: S307
                     _Marks(dict.fromkeys(markers, True))))


@pytest.mark.slow  # collects in another process when run alone
def test_make_check_leaves_out_the_browser_rllib_and_cluster_tests(request):
    """The tests `make check` selects (its -m expression, read from the Makefile)
    include none of a browser or RLlib file, and leave some out. In the whole
    suite the tests are already collected here; run alone (or under `make check`,
    which has left them out), the test collects those files in another process."""
    recipe = (ROOT / "Makefile").read_text().split("\ncheck:", 1)[1].split("\n\n", 1)[0]
    expression = re.search(r'-m "([^"]+)"', recipe)[1]
    assert {"not browser", "not rllib", "not cluster"} <= set(expression.split(" and "))
    left_out = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")
                      if p.name.endswith("_browser.py") or p.name.startswith("test_rllib"))
    here = [item for item in request.session.items
            if item.nodeid.split("::")[0] in {*left_out, "tests/test_cards.py"}]
    if {item.nodeid.split("::")[0] for item in here} == {*left_out, "tests/test_cards.py"}:
        selected = [item.nodeid for item in here
                    if _selected(expression, {m.name for m in item.iter_markers()})]
        assert len(selected) < len(here)
    else:
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-o",
                              "addopts=", "-p", "no:cacheprovider", "-m", expression,
                              "tests/test_cards.py", *left_out],
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
        selected = [line for line in out.stdout.splitlines() if "::" in line]
        counts = re.search(r"(\d+)/(\d+) tests collected \((\d+) deselected\)", out.stdout)
        assert counts and int(counts[3]) > 0 and len(selected) == int(counts[1]), \
            out.stdout[-500:]
    files = {nodeid.split("::")[0] for nodeid in selected}
    assert files == {"tests/test_cards.py"}, files


def test_tests_are_named_for_what_they_protect_not_for_an_issue():
    """A test, its docstring or a comment says what it protects; an issue or a
    work group's number says nothing to the reader who meets it failing."""
    pattern = re.compile(r"\b(issue|group)\s*#?\d+", re.IGNORECASE)
    found = [f"{path.name}:{n}: {line.strip()}"
             for path in sorted((ROOT / "tests").glob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert not found, "\n".join(found)
