"""Shared helpers for building Aluette deals by hand, the costly things several
files use (built once a session: the wheel, a tiny trained SB3 run, a local Ray
cluster), and the order in which test files are handed to parallel workers.

The order: ``make test`` runs ``pytest -n CORES+1 --dist loadfile
--no-loadscope-reorder``, which hands whole files to the workers in collection
order. The files are sorted by their measured cost in ``tests/durations.json``
(seconds of one core per file), the costliest first, so the workers start on the
long files instead of meeting them last, one worker idle meanwhile; a file not
in it comes after, in its usual order. To measure again after a change that
moves a file's cost, on an otherwise idle machine::

    .venv/bin/python -m pytest -n auto --dist loadfile --record-durations

It writes each file that ran (the setup, call and teardown of its tests, summed)
into ``tests/durations.json`` and keeps the other files' figures; the same flag
with one file re-measures only that one. On a machine busy with other work, wall
time says little: there, measure each file's CPU seconds instead (``cpuacct``
of its ``pytest FILE`` run) and write them in by hand.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

# The suite runs more processes than there are cores (workers, browsers, servers,
# the commands tests start): an OpenMP thread (torch's, numba's, a BLAS's) that
# waits for its sibling must sleep, not spin on the core the sibling needs.
# training/ decides this from the load when it is imported, but torch may load
# first, and the load at a worker's start says nothing of the minutes after it.
# Set before anything loads OpenMP; the processes tests start inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DURATIONS = Path(__file__).with_name("durations.json")

# The web files' shared helpers check as they go: their asserts say what they compared.
pytest.register_assert_rewrite("web_helpers")

from aluette_env.game.cards import COINS, CUPS, NUM_CARDS, STRENGTH, card_id


def hands_for_winners(winners: str | list[int | None]) -> list[list[int]]:
    """Four hands, each in play order (k-th card played in trick k), that make
    the nine tricks go to ``winners`` whatever the leader: a seat 0-3 wins the
    trick, NOBODY or None (or 'X' in a string of digits) spoils it.

    A winning trick gives the winner the strongest card left and the others
    the three weakest; a spoiled trick gives two seats an equal pair from the
    strongest group with two cards left, the other two the weakest cards.
    """
    if isinstance(winners, str):
        winners = [None if ch == "X" else int(ch) for ch in winners]
    assert len(winners) == 9
    deck = sorted(range(48), key=lambda c: (-STRENGTH[c], c))  # strongest first
    hands: list[list[int]] = [[] for _ in range(4)]
    for w in winners:
        if w is None or w < 0:
            level = next(lv for lv in sorted(set(STRENGTH[c] for c in deck), reverse=True)
                         if sum(STRENGTH[c] == lv for c in deck) >= 2)
            pair = [c for c in deck if STRENGTH[c] == level][:2]
            for c in pair:
                deck.remove(c)
            low = [deck.pop(), deck.pop()]
            cards = pair + low  # seats 0, 1 tie on top; 2, 3 play low
            for seat in range(4):
                hands[seat].append(cards[seat])
        else:
            top = deck.pop(0)
            for seat in range(4):
                hands[seat].append(top if seat == w else deck.pop())
    return hands


def lacks(module: str) -> bool:
    """Whether the dotted ``module`` cannot be found, decided without importing it
    or its packages: a file's skip costs nothing in the parallel workers that
    collect the file but never run it (``pytest.importorskip`` imports). It says
    whether the module is there, not whether its own imports would succeed: a
    caller names a dependency of it too where a package ships a module whose
    dependencies come with an extra."""
    from importlib.machinery import PathFinder
    from importlib.util import find_spec
    top, *below = module.split(".")
    spec = find_spec(top)  # a top-level name: nothing is imported
    for part in below:
        if spec is None or spec.submodule_search_locations is None:
            return True
        spec = PathFinder.find_spec(part, spec.submodule_search_locations)
    return spec is None


#: The skip of the RLlib files, decided without importing Ray (tree: RLlib's own
#: dependency, absent where Ray came without its extra).
NEEDS_RLLIB = pytest.mark.skipif(lacks("ray.rllib") or lacks("tree"),
                                 reason="the [distributed] extra is not installed")


def within(call, seconds: float):
    """``call()`` in a thread with a deadline: a hang fails the test instead of
    stalling it; what ``call`` returns or raises is handed back."""
    import threading
    box: dict = {}

    def go():
        try:
            box["value"] = call()
        except BaseException as err:  # noqa: BLE001 - handed back below
            box["error"] = err

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"no answer within {seconds} s (a hang)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def descendants(pid: int) -> list[int]:
    """Child processes of every thread of ``pid`` (Linux /proc)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found += [int(x) for x in f.read().split()]
    return found


def forced_deal(winner_seat):
    """A deal whose outcome no play can change: ``winner_seat`` holds the eight
    named cards and the Coins Ace, the other three aces are unused. It wins all
    nine tricks: Mordienne, 2 points."""
    top = sorted(range(48), key=lambda c: -STRENGTH[c])[:8] + [0]
    aces = [12, 24, 36]
    rest = [c for c in range(48) if c not in top and c not in aces]
    hands, k = [], 0
    for seat in range(4):
        if seat == winner_seat:
            hands.append(top)
        else:
            hands.append(rest[k:k + 9])
            k += 9
    return hands


COINS_4, COINS_5 = card_id(COINS, 3), card_id(COINS, 4)


def observations_at_trick_3(player_1_first: int, player_1_second: int) -> list[np.ndarray]:
    """Every seat's observation as trick 3 starts, after player_0 led Monsieur then
    Madame (winning both) and player_1 played ``player_1_first`` then
    ``player_1_second`` (Coins 4 and Coins 5, in either order); the others played
    their first cards."""
    import aluette_env

    monsieur, madame = card_id(COINS, 2), card_id(CUPS, 2)
    rest = [c for c in range(NUM_CARDS) if c not in (monsieur, madame, COINS_4, COINS_5)]
    hands = [[monsieur, madame] + rest[0:7], [COINS_4, COINS_5] + rest[7:14], rest[14:23],
             rest[23:32]]
    env = aluette_env.raw_env()
    env.reset(options={"first_dealer": "player_3", "deals": [hands]})
    plays = [monsieur, player_1_first, hands[2][0], hands[3][0],
             madame, player_1_second, hands[2][1], hands[3][1]]
    for card in plays:
        env.step(card)
    assert env.agent_selection == "player_0"  # it won both tricks and leads the third
    return [env.observe(a)["observation"] for a in env.possible_agents]


def random_match(seed: int, num_deals: int = 5, first_dealer: int = 1) -> list:
    """A whole match of random legal cards, played on the game core: its deals."""
    import random

    from aluette_env import game
    rng = random.Random(seed)
    return game.play_match(lambda deal, _: rng.choice(deal.legal_cards()), rng,
                           first_dealer, num_deals)


def play_scripted(env, hands_in_order: list[list[int]]):
    """Play one deal of a raw_env whose deal was set to these hands: each seat
    plays its cards in list order. Returns the rewards dict after each step."""
    queues = [list(h) for h in hands_in_order]
    rewards = []
    for _ in range(36):
        card = queues[int(env.agent_selection[-1])].pop(0)
        env.step(card)
        rewards.append(dict(env.rewards))
    return rewards


def real_positions(n_games=64, plays=240, seed=0):
    """(dense obs, index lists, privileged lists, masks, card states, seats) of real
    positions: heuristic and random play mixed, every trick of the deal and later
    deals of the match."""
    from aluette_env.players.heuristic import HeuristicPlayer
    from aluette_env.players.random_player import RandomPlayer
    from aluette_env.vector import VectorGame
    game = VectorGame(n_games, seed=seed, sparse=True)
    game.reset()
    players = [HeuristicPlayer(), RandomPlayer(seed)]
    out = [[] for _ in range(6)]
    for k in range(plays):
        for o, a in zip(out, (game.obs, game.obs_indices, game.hidden_indices, game.mask,
                              game.state.card_state, game.state.to_act)):
            o.append(a.copy())
        game.step(players[k % 2].act_batch(game.obs, game.mask))
    return [np.concatenate(o) for o in out]


def model_with_weight(model: Path, out: Path, value: float,
                      initializer: str = "policy.features_extractor.net.0.weight") -> Path:
    """A copy of the exported ``model`` at ``out`` with one entry of one weight
    set to ``value`` (NaN, an infinity): a model that loads as ONNX but cannot play."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(str(model))
    init = next(i for i in m.graph.initializer if i.name == initializer)
    weights = numpy_helper.to_array(init).copy()
    weights.flat[0] = value
    init.CopyFrom(numpy_helper.from_array(weights, init.name))
    onnx.save(m, str(out))
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# ------------------------------------------------------- built once a session


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder ``name`` that ``build(folder)`` fills, built once for the whole
    session: with pytest-xdist the workers share it (the first to ask builds it
    under a lock, the others wait and reuse it). Tests read it and never change it;
    a test that needs to change it works on a copy."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's folder, above each worker's own
    folder = base / "built-once" / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        done = folder.parent / f"{name}.done"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    """The project's wheel (``pip wheel --no-deps``), built once a session."""
    def build(folder: Path) -> None:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                        "--no-build-isolation", "-q", "-w", str(folder), str(ROOT)],
                       check=True, capture_output=True)
    return next(built_once(tmp_path_factory, "wheel", build).glob("aluette_rl-*.whl"))


#: configs/quick.yaml made small enough to cross every kind of file write within a
#: few seconds: a snapshot every rollout (pool of 2, so old ones get deleted),
#: evaluation and checkpoint every second rollout (4 deals against random and
#: heuristic), checkpoints kept 2 (so old ones get deleted).
QUICK = ROOT / "configs" / "quick.yaml"
TINY = ["num_games=4", "selfplay.opponents={latest: 1}", "ppo.n_steps=16", "ppo.batch_size=256",
        "selfplay.snapshot_interval=256",
        "checkpoint.interval=512", "eval.interval=512", "eval.deals=4", "checkpoint.keep=2",
        "logging.tensorboard=false", "logging.progress_bar=false"]


@pytest.fixture(scope="session")
def sb3_run(tmp_path_factory) -> Path:
    """A finished SB3 run of configs/quick.yaml at TINY sizes, 512 samples: two
    snapshots in its pool, checkpoint_256 and checkpoint_512, latest.zip, one
    evaluation (against random and heuristic) and so best.zip, its curve. Trained
    once a session through the command line's ``main``; a test that resumes or
    damages it works on a copy."""
    def build(folder: Path) -> None:
        from aluette_env.commands import main as cli_main
        argv = ["train", str(QUICK), *[a for o in TINY + [f"output_dir={folder}",
                                                           "total_timesteps=512"]
                                       for a in ("--set", o)]]
        assert cli_main(argv) == 0
    return built_once(tmp_path_factory, "sb3-run", build) / "quick"


@pytest.fixture(scope="session")
def ray_cluster():
    """A local Ray cluster of two nodes (ray.cluster_utils): a head with no CPU for
    actors, where the driver runs, and a worker node of 3 CPUs (``.worker``), so
    every actor of a run goes to the worker. Started once in each xdist worker that
    asks (the cluster's processes are that worker's own); a test joins it with
    ``address=ray_cluster.address`` and leaves it (ray.shutdown) when done."""
    pytest.importorskip("ray.rllib", reason="the [distributed] extra is not installed")
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 0, "include_dashboard": False})
    cluster.worker = cluster.add_node(num_cpus=3)
    try:
        yield cluster
    finally:
        cluster.shutdown()


# ----------------------------------------------------------- the files' order


def pytest_addoption(parser):
    parser.addoption("--record-durations", action="store_true",
                     help="write each file's measured seconds to tests/durations.json "
                          "(the order in which files go to parallel workers)")


#: Each file's seconds in this run (setup, call and teardown of its tests, summed).
_FILE_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    """Counts every test phase (in xdist's controller too: the workers send it theirs)."""
    path = report.nodeid.split("::")[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_sessionfinish(session):
    """With --record-durations, in the controller (or a run without workers): the
    files that ran replace their figures in tests/durations.json."""
    if not session.config.getoption("--record-durations") or \
            os.environ.get("PYTEST_XDIST_WORKER") or not _FILE_SECONDS:
        return
    known = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    known.update({Path(path).name: round(seconds, 1) for path, seconds in _FILE_SECONDS.items()})
    ordered = dict(sorted(known.items(), key=lambda item: (-item[1], item[0])))
    DURATIONS.write_text(json.dumps(ordered, indent=1) + "\n")


def pytest_collection_modifyitems(config, items):
    """The files measured costliest first (tests/durations.json), then the rest in
    their usual order."""
    seconds = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}

    def cost(item) -> float:
        return seconds.get(item.path.name, 0.0)

    items.sort(key=lambda item: -cost(item))  # stable: the usual order within a file
