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

Used to show that a change of the observation layout (``OBS_LAYOUT``) or of
the engine changes no move of a shipped player.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np

from aluette_env.game import PLAYS_PER_DEAL
from aluette_env.players import load_player
from aluette_env.vector import VectorGame

PLAYERS = ("random:seed=7", "heuristic", "heuristic:version=1", "ai:version=1",
           "ai:version=2", "ai:version=3", "ai:version=4", "ai:version=5",
           "ai:version=6")


def play_all_seats(spec: str, deals: int, seed: int, keep: list | None = None) -> str:
    """Digest of every move of ``spec`` at all four seats over ``deals`` deals;
    ``keep`` collects (observation, mask) rows for a later sample."""
    player = load_player(spec)
    game = VectorGame(num_games=deals, num_deals=1, seed=seed, auto_reset=False)
    game.reset()
    digest = hashlib.sha256()
    for _ in range(PLAYS_PER_DEAL):
        actions = np.asarray(player.act_batch(game.obs, game.mask), np.int64)
        digest.update(actions.astype(np.int8).tobytes())
        if keep is not None:
            keep.append((game.obs.copy(), game.mask.copy()))
        game.step(actions)
    return digest.hexdigest()


#: Search players checked on sampled positions: the expert (policy rollouts, world
#: weighting by the trick's plays) and plain PIMC (heuristic rollouts, exact endgames).
SEARCHERS = ("expert", "pimc")


def search_digest(spec: str, rows: list, positions: int, seed: int) -> str:
    """Digest of ``spec``'s moves on ``positions`` positions sampled from ``rows``."""
    rng = np.random.default_rng(seed)
    obs = np.concatenate([o for o, _ in rows])
    masks = np.concatenate([m for _, m in rows])
    pick = rng.choice(len(obs), positions, replace=False)
    moves = np.asarray(load_player(spec).act_batch(obs[pick], masks[pick]), np.int64)
    return hashlib.sha256(moves.astype(np.int8).tobytes()).hexdigest()


def digests(deals: int, seed: int, positions: int) -> dict[str, str]:
    out = {}
    rows: list = []
    for spec in PLAYERS:
        out[spec] = play_all_seats(spec, deals, seed, rows if spec == "ai:version=4" else None)
        print(f"{spec:24s} {out[spec]}", flush=True)
    for spec in SEARCHERS if positions else ():
        out[spec] = search_digest(spec, rows, positions, seed)
        print(f"{spec:24s} {out[spec]}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--expert-positions", type=int, default=200)
    ap.add_argument("--out", help="write the digests to this JSON file")
    ap.add_argument("--compare", help="compare with digests written by --out; exit 1 on a "
                    "difference")
    args = ap.parse_args()
    found = digests(args.deals, args.seed, args.expert_positions)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"deals": args.deals, "seed": args.seed,
                       "expert_positions": args.expert_positions, "digests": found}, f, indent=1)
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            before = json.load(f)["digests"]
        differ = [k for k in before if before[k] != found.get(k)]
        print("same moves for every player" if not differ else f"moves differ: {differ}")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
