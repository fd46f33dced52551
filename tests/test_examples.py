"""The recipes in examples/: each script's --quick run, in its own process, as a
user would start it. A recipe whose library is not installed is skipped, and
says which extra installs it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest


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


def _missing(modules: list[str]) -> str | None:
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except ModuleNotFoundError:
            return name
    return None


@pytest.mark.parametrize("script", sorted(RECIPES))
def test_recipe_quick_run(script):
    modules, extra, expected = RECIPES[script]
    missing = _missing(modules)
    if missing:
        pytest.skip(f"{missing} is not installed: pip install 'aluette-rl[{extra}]'")
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--quick"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert re.search(expected, run.stdout), run.stdout[-2000:]


@pytest.mark.parametrize("script", sorted(RECIPES))
def test_recipe_refuses_a_bad_seed_in_one_line(script):
    """Issue 40, group 14: a seed the libraries cannot take (negative, or past
    32 bits) is refused by the argument's type, in one line, exit 2."""
    modules, extra, _ = RECIPES[script]
    missing = _missing(modules)
    if missing:
        pytest.skip(f"{missing} is not installed: pip install 'aluette-rl[{extra}]'")
    seed = "-1" if sorted(RECIPES).index(script) % 2 else str(2 ** 64)
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--quick",
                          "--seed", seed], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2, run.stderr[-3000:]
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "--seed" in lines[0] and "4,294,967,295" in lines[0], run.stderr


@pytest.mark.parametrize("script", sorted(RECIPES))
def test_recipe_says_which_versions_it_was_tested_with(script):
    head = (ROOT / "examples" / script).read_text(encoding="utf-8")[:1500]
    assert re.search(r"Tested with [a-z\[\]-]+ \d+\.\d+", head), head
