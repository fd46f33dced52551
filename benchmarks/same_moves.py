"""Do today's players make the same moves? A digest of every move of each
shipped player over the same deals, to compare two versions of the package.

Each player plays all four seats of ``--deals`` one-deal matches on the batched
engine (hands and first dealers from ``--seed``), batched over the deals; the
digest is the SHA-256 of the cards played, in order. ``expert`` and ``pimc``
are searched on a sample of positions taken from the ``ai`` games
(``--expert-positions``).
The env path is checked too: the AEC env and the engine give the same
observation at every decision (``tests/test_vector.py`` compares them bit for
bit), so the same observation gives the same move.

    python benchmarks/same_moves.py [--deals 2000] [--out digests.json]
    python benchmarks/same_moves.py --compare digests.json   # exit 1 on a difference
    python benchmarks/same_moves.py --signs [--players SPEC ...] ...

``--signs`` plays the signs variant (docs/RULES.md S1-S5): each player at a table
with signs (``for_signs``: itself if it plays signs, else silent), a sign and a
card each turn. ``--players`` digests these specs instead of the shipped players
(a model's path, say, to compare it with a checkout that does not ship it).
To compare with another checkout, run this script with that checkout first on
``PYTHONPATH`` and ``--out``, then with this one and ``--compare`` (``--renamed
expert=expert:version=5`` where a player's spec changed between them).

Used to show that a change of the observation layout (``OBS_LAYOUT``) or of
the engine changes no move of a shipped player.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np

from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1, PLAYS_PER_DEAL
from aluette_env.players import for_signs, load_player
from aluette_env.vector import VectorGame

PLAYERS = ("random:seed=7", "heuristic", "heuristic:version=1", "ai:version=1",
           "ai:version=2", "ai:version=3", "ai:version=4", "ai:version=5",
           "ai:version=6", "ai:version=7")


def play_all_seats(spec: str, deals: int, seed: int, keep: list | None = None,
                   signs: bool = False) -> str:
    """Digest of every move of ``spec`` at all four seats over ``deals`` deals
    (of the signs variant if ``signs``: a sign and a card each turn); ``keep``
    collects (observation, mask) rows for a later sample."""
    player = for_signs(load_player(spec)) if signs else load_player(spec)
    game = VectorGame(num_games=deals, num_deals=1, seed=seed, auto_reset=False,
                      variant=ALUETTE_SIGNS_V0 if signs else ALUETTE_V1)
    game.reset()
    digest = hashlib.sha256()
    for _ in range(PLAYS_PER_DEAL * (2 if signs else 1)):
        actions = np.asarray(player.act_batch(game.obs, game.mask), np.int64)
        digest.update(actions.astype(np.int8).tobytes())
        if keep is not None:
            keep.append((game.obs.copy(), game.mask.copy()))
        game.step(actions)
    return digest.hexdigest()


#: Search players checked on sampled positions: the expert's versions 5 (policy
#: rollouts to the end, worlds weighed by the deal's plays; ``expert`` before version
#: 6 shipped) and 6 (the same guided by ai v6 over fewer worlds), and plain PIMC
#: (heuristic rollouts, exact endgames).
SEARCHERS = ("expert:version=5", "expert", "pimc")


def search_digest(spec: str, rows: list, positions: int, seed: int, signs: bool = False) -> str:
    """Digest of ``spec``'s moves on ``positions`` positions sampled from ``rows``."""
    rng = np.random.default_rng(seed)
    obs = np.concatenate([o for o, _ in rows])
    masks = np.concatenate([m for _, m in rows])
    pick = rng.choice(len(obs), positions, replace=False)
    player = for_signs(load_player(spec)) if signs else load_player(spec)
    moves = np.asarray(player.act_batch(obs[pick], masks[pick]), np.int64)
    return hashlib.sha256(moves.astype(np.int8).tobytes()).hexdigest()


def digests(deals: int, seed: int, positions: int, signs: bool = False,
            players: tuple[str, ...] = PLAYERS) -> dict[str, str]:
    out = {}
    rows: list = []
    for spec in players:
        out[spec] = play_all_seats(spec, deals, seed, rows if spec == "ai:version=4" else None,
                                   signs)
        print(f"{spec:24s} {out[spec]}", flush=True)
    for spec in SEARCHERS if positions and rows else ():
        out[spec] = search_digest(spec, rows, positions, seed, signs)
        print(f"{spec:24s} {out[spec]}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--expert-positions", type=int, default=200)
    ap.add_argument("--signs", action="store_true", help="play the signs variant")
    ap.add_argument("--players", nargs="+", metavar="SPEC",
                    help="these player specs instead of the shipped players")
    ap.add_argument("--out", help="write the digests to this JSON file")
    ap.add_argument("--compare", help="compare with digests written by --out; exit 1 on a "
                    "difference")
    ap.add_argument("--renamed", action="append", default=[], metavar="OLD=NEW",
                    help="with --compare: the player the other checkout's digests call OLD "
                    "is NEW here (e.g. expert=expert:version=5 once a newer expert ships); "
                    "repeatable")
    args = ap.parse_args()
    bad = [r for r in args.renamed if "=" not in r.strip("=")]
    if bad:
        ap.error(f"--renamed {bad[0]!r}: expected OLD=NEW, e.g. expert=expert:version=5")
    renamed = dict(r.split("=", 1) for r in args.renamed)
    setting = {"deals": args.deals, "seed": args.seed, "expert_positions": args.expert_positions,
               "signs": args.signs}
    before = None
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            before = json.load(f)
        other = {k: before.get(k, False) for k in setting}
        if other != setting:
            sys.exit(f"--compare {args.compare}: digests of {other}, not of this run's {setting}")
    found = digests(args.deals, args.seed, args.expert_positions, args.signs,
                    tuple(args.players or PLAYERS))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({**setting, "digests": found}, f, indent=1)
    if before is not None:
        before = before["digests"]
        differ = [k for k in before if before[k] != found.get(renamed.get(k, k))]
        print("same moves for every player" if not differ else f"moves differ: {differ}")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
