"""The recipes in examples/: each script's --quick run, in its own process, as a
user would start it. A recipe whose library is not installed is skipped, and
says which extra installs it."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import runpy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


ROOT = Path(__file__).resolve().parents[1]

#: script -> (modules it needs, the extra that installs them, the line it must print)
RECIPES = {
    "torchrl_ppo.py": (["torchrl"], "recipes",
                       r"torchrl: 144 env steps collected at \d+ steps/s \(masked actor, "
                       r"illegal cards: 0\); 2 PPO batches, last loss [+-]\d+\.\d+"),
    "tianshou_dqn.py": (["tianshou"], "recipes",
                        r"tianshou: collected 256 env steps at \d+ steps/s \(DQN and random "
                        r"seats\), then trained 100 steps; best test return of player_0: "
                        r"[+-]\d\.\d\d"),
    "rllib_pettingzoo.py": (["ray.rllib"], "distributed",
                            r"rllib: 144(\.0)? env steps in 1 iterations at \d+ steps/s"),
    "openspiel_ismcts.py": (["pyspiel"], "openspiel",
                            r"openspiel: ISMCTS \(20 simulations\) vs ai over 2 deals: "
                            r"[+-]\d\.\d\d points per deal for ISMCTS's team\n"
                            r"openspiel: A2C through rl_environment, 4 episodes, 144 steps"),
}


#: What a recipe's quick run gets in its environment beside this process's: Tianshou
#: compiles its buffers' and returns' numba functions at every start (they are not
#: cached: 8 s of CPU, half its quick run), so they run as plain Python here. The
#: recipe's code and Tianshou's are the same either way.
QUICK_ENV = {"tianshou_dqn.py": {"NUMBA_DISABLE_JIT": "1"}}


def _missing(modules: list[str]) -> str | None:
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except ModuleNotFoundError:
            return name
    return None


@pytest.mark.parametrize("script", sorted(RECIPES))
@pytest.mark.slow
def test_recipe_quick_run(script):
    modules, extra, expected = RECIPES[script]
    missing = _missing(modules)
    if missing:
        pytest.skip(f"{missing} is not installed: pip install 'aluette-rl[{extra}]'")
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--quick"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600,
                         env={**os.environ, **QUICK_ENV.get(script, {})})
    assert run.returncode == 0, run.stderr[-3000:]
    assert re.search(expected, run.stdout), run.stdout[-2000:]


@pytest.mark.parametrize("script", sorted(RECIPES))
def test_recipe_refuses_a_bad_seed_in_one_line(script, monkeypatch, capsys):
    """A seed the libraries cannot take (negative, or past
    32 bits) is refused by the argument's type, in one line, exit 2. The script runs
    as ``__main__`` in this process (its arguments are read before any library is
    imported; its start as a process of its own is the quick run's)."""
    modules, extra, _ = RECIPES[script]
    missing = _missing(modules)
    if missing:
        pytest.skip(f"{missing} is not installed: pip install 'aluette-rl[{extra}]'")
    seed = "-1" if sorted(RECIPES).index(script) % 2 else str(2 ** 64)
    path = str(ROOT / "examples" / script)
    monkeypatch.setattr(sys, "argv", [path, "--quick", "--seed", seed])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(path, run_name="__main__")
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err[-3000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--seed" in lines[0] and "4,294,967,295" in lines[0], err


def versions_said(script: str) -> tuple[dict[str, str], str]:
    """What ``script``'s docstring says it was tested with: {package: version} and
    the extra it says installs them ("Tested with torchrl 0.14.1, torch 2.13.0
    (``pip install 'aluette-rl[recipes]'``)")."""
    head = " ".join(ast.get_docstring(ast.parse(
        (ROOT / "examples" / script).read_text(encoding="utf-8"))).split())
    said = re.search(r"Tested with (.+?) \(``pip install 'aluette-rl\[(\w+)\]'``\)", head)
    assert said, f"examples/{script}: no 'Tested with NAME VERSION, ... (``pip install " \
                 f"'aluette-rl[EXTRA]'``)' in its docstring"
    named = dict(re.fullmatch(r"([\w.\[\]-]+) (\d[\w.]*)", item.strip()).groups()
                 for item in said.group(1).split(","))
    return named, said.group(2)


def requirements() -> dict[str, Requirement]:
    """Every requirement pyproject.toml names (its dependencies and extras), by name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    found += [Requirement(r) for extra in project["optional-dependencies"].values()
              for r in extra]
    return {canonicalize_name(r.name): r for r in found if r.name != "aluette-rl"}


@pytest.mark.parametrize("script", sorted(RECIPES))
def test_recipe_says_which_versions_it_was_tested_with(script):
    """The docstring's "Tested with" names the extra that installs the recipe's
    libraries, and each version it names is the one pyproject.toml pins (``==``)
    or one that its requirement allows: a pin moved without the docstring, or the
    docstring without the pin, fails."""
    _, extra, _ = RECIPES[script]
    named, said_extra = versions_said(script)
    assert said_extra == extra, (script, said_extra, extra)
    pinned = requirements()
    for name, version in named.items():
        wanted = pinned.get(canonicalize_name(Requirement(name).name))
        if wanted is None:
            continue  # a library the others bring (tensordict, with torchrl)
        pins = [s.version for s in wanted.specifier if s.operator == "=="]
        assert (pins == [version]) if pins else wanted.specifier.contains(version), \
            f"examples/{script} says it was tested with {name} {version}; " \
            f"pyproject.toml asks for {wanted}"
