"""How a player signs, at a table with signs (docs/RULES.md S1-S5): of its turns,
the share it stays silent, signs truthfully (it holds a card the sign names) or
bluffs (it holds none), by table catch. The player holds every seat; the deals
and catches come from ``--seed``.

    python benchmarks/sign_habits.py --player heuristic [--catch 0,0.25,0.5] [--deals 2000]

Prints a markdown table (one row per catch).
"""

from __future__ import annotations

import argparse

import numpy as np

from aluette_env.game import ALUETTE_SIGNS_V0, NUM_CARDS, PLAYS_PER_DEAL, SIGN_BASE, SIGN_OF_CARD
from aluette_env.players import act_batch, for_signs, load_player
from aluette_env.vector import VectorGame

_SIGN_OF_CARD = np.array(SIGN_OF_CARD)


def habits(spec: str, catch: float, deals: int, seed: int) -> dict[str, float]:
    """Shares of the player's turns: silent, truthful sign, bluff (and turns counted)."""
    player = for_signs(load_player(spec, seed=seed))
    game = VectorGame(deals, num_deals=1, seed=seed, auto_reset=False,
                      variant=ALUETTE_SIGNS_V0.with_catch(catch))
    game.reset()
    silent = truthful = bluff = 0
    for _ in range(2 * PLAYS_PER_DEAL):
        actions = act_batch(player, game.obs, game.mask)
        signing = game.mask[:, SIGN_BASE] == 1
        if signing.any():
            sign = actions[signing] - SIGN_BASE
            hands = game.obs[signing, :NUM_CARDS] == 1  # the signer's hand slice
            held = (hands & (_SIGN_OF_CARD[None, :] == sign[:, None])).any(axis=1)
            silent += int((sign == 0).sum())
            truthful += int(((sign > 0) & held).sum())
            bluff += int(((sign > 0) & ~held).sum())
        game.step(actions, active=~game.state.over.copy())
    turns = silent + truthful + bluff
    return {"turns": turns, "silent": silent / turns, "truthful": truthful / turns,
            "bluff": bluff / turns}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="heuristic")
    parser.add_argument("--catch", default="0,0.25,0.5", help="comma-separated catches")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    catches = [float(c) for c in args.catch.split(",")]
    print(f"Signing habits of `{args.player}` at every seat, {args.deals:,} deals, "
          f"seed {args.seed}:\n")
    print("| catch | turns | silent | truthful sign | bluff |")
    print("|---:|---:|---:|---:|---:|")
    for catch in catches:
        h = habits(args.player, catch, args.deals, args.seed)
        print(f"| {catch:g} | {h['turns']:,} | {h['silent']:.1%} | {h['truthful']:.1%} | "
              f"{h['bluff']:.1%} |")


if __name__ == "__main__":
    main()
