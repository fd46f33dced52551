"""What the hidden cards are worth: a team that sees every hand against
``expert``, over duplicate deal pairs. An analysis tool, never a player: the
team that sees is the expert's search run on the one true world (the hands as
they really lie) instead of sampled ones, every play searched and the best
mean taken. The gap it opens over ``expert`` bounds what better inference
about the hidden hands could still win by fair play.

    python benchmarks/hidden_cards.py [--deals 200] [--seed 0] [--opponent expert]

Each deal is played twice with the same hands and dealer, the seeing team at
player_0/player_2 then at player_1/player_3 (as ``aluette eval``); prints the
seeing team's points per deal with a 95 % confidence interval over the pairs.
"""

from __future__ import annotations

import argparse

import numpy as np

from aluette_env.evaluation.duplicate import evaluation_deals, mean_ci95
from aluette_env.game import (
    DEFAULT_NUM_DEALS, NUM_SEATS, PLAYS_PER_DEAL, dealer_of, relative_seat, team_of,
)
from aluette_env.observation import UNSEEN
from aluette_env.players import load_player
from aluette_env.players.search import ExpertPlayer
from aluette_env.players.search.worlds import I_UNSEEN
from aluette_env.vector import VectorGame


class SeesEveryHand(ExpertPlayer):
    """The expert searching only the true world (set ``truth`` before each move:
    the engine's card codes of the game and the seat to move)."""

    def __init__(self, seed: int = 0):
        super().__init__(worlds=1, solve_worlds=1, min_prob=0.0, confidence=0.0, belief=0.0,
                         seed=seed)
        self.truth: tuple[np.ndarray, int] | None = None

    def _worlds(self, rng, n_worlds, info, context, row=None):
        card_state, seat = self.truth
        unseen = self._view.unseen[:int(info[I_UNSEEN])]
        # deal_world gives the lowest-ranked unseen cards to relative seat 1, then
        # 2, then 3, the rest to nobody: rank each card by where it really lies.
        where = np.array([relative_seat(int(card_state[c]), seat) if card_state[c] < NUM_SEATS
                          else UNSEEN for c in unseen], np.float64)
        keys = np.zeros((1, 48))
        keys[0, :len(unseen)] = where + np.arange(len(unseen)) * 1e-6
        return keys, np.ones(1)


def play(seeing: SeesEveryHand, other, hands: np.ndarray, dealers: np.ndarray,
         seeing_team: int) -> np.ndarray:
    """Points per deal (seeing team minus the other) with ``seeing`` at the
    seats of ``seeing_team``: every deal a one-deal match."""
    game = VectorGame(len(hands), num_deals=1, auto_reset=False)
    game.reset(options={"deals": hands[:, None], "first_dealer": dealers})
    out = np.zeros(len(hands))
    actions = np.zeros(len(hands), np.int64)
    for _ in range(PLAYS_PER_DEAL):
        sees = team_of(game.to_act) == seeing_team
        for i in np.flatnonzero(sees):
            seeing.truth = (game.state.card_state[i], int(game.to_act[i]))
            actions[i] = seeing.act_batch(game.obs[i:i + 1], game.mask[i:i + 1])[0]
        rest = np.flatnonzero(~sees)
        if len(rest):
            actions[rest] = other.act_batch(game.obs[rest], game.mask[rest])
        rewards, done, _ = game.step(actions)
        seat = 0 if seeing_team == 0 else 1
        out[done] = rewards[done, seat]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="deal pairs")
    ap.add_argument("--seed", type=int, default=0, help="the deals (as aluette eval --seed)")
    ap.add_argument("--opponent", default="expert", help="player spec of the other team")
    args = ap.parse_args()
    hands, match_dealers = evaluation_deals(args.deals, args.seed)
    k = np.arange(args.deals)  # deal k is deal k % 5 of match k // 5, as aluette eval plays it
    dealers = dealer_of(match_dealers[k // DEFAULT_NUM_DEALS], k % DEFAULT_NUM_DEALS)
    seeing, other = SeesEveryHand(seed=args.seed), load_player(args.opponent)
    pair = (play(seeing, other, hands, dealers, 0) + play(seeing, other, hands, dealers, 1)) / 2
    mean, ci = mean_ci95(pair)
    print(f"| team that sees every hand against `{args.opponent}` | deal pairs | points per "
          f"deal (95 % CI) |\n|---|---:|---:|\n| seed {args.seed} | {args.deals:,} | "
          f"{mean:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}] |")


if __name__ == "__main__":
    main()
