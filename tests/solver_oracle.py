"""Plain-Python oracles for the numba solver (aluette_env.players.solver).

``PySolver`` is the readable alpha-beta the numba solver was written from
(tuples, recursion, a dict as transposition table); ``brute_force`` is plain
minimax over every card of a ``Deal`` with no pruning. Both apply the rules
through the game core, so they pin the compiled solver to it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from aluette_env.game import (
    Deal, deal_points, end_trick, seat_at, seat_gain, team_of, team_points,
    trick_winner_of_levels,
)
from aluette_env.players.solver import Position

WIN_SCORE = 100


def final_value(counts, reached, in_run) -> int:
    """R13-R16 at the end of the deal, as team 0's points minus team 1's."""
    winner, points, _ = deal_points(counts, reached, in_run)
    return seat_gain(*team_points(winner, points), 0)


@dataclass
class PySolver:
    """Exact alpha-beta with a transposition table; ``nodes`` counts visited plays."""

    nodes: int = 0
    table: dict = field(default_factory=dict)

    def value(self, pos: Position) -> int:
        return self._search(pos.hands, pos.leader, pos.trick, pos.counts, pos.reached,
                            pos.in_run, pos.trick_index, -WIN_SCORE, WIN_SCORE)

    def move_values(self, pos: Position) -> dict[int, int]:
        """Value for team 0 after each distinct strength the player to act can play."""
        seat = seat_at(pos.leader, len(pos.trick))
        out = {}
        for level in sorted(set(pos.hands[seat]), reverse=True):
            hands = list(pos.hands)
            h = list(hands[seat])
            h.remove(level)
            hands[seat] = tuple(h)
            out[level] = self._play_card(tuple(hands), pos.leader, pos.trick + (level,),
                                         pos.counts, pos.reached, pos.in_run, pos.trick_index,
                                         -WIN_SCORE, WIN_SCORE)
        return out

    def _play_card(self, hands, leader, trick, counts, reached, in_run, t, alpha, beta):
        if len(trick) < 4:
            return self._search(hands, leader, trick, counts, reached, in_run, t, alpha, beta)
        winner = trick_winner_of_levels(trick, 4, leader)
        counts, reached, in_run = list(counts), list(reached), list(in_run)
        leader = end_trick(counts, reached, in_run, winner, leader, t)
        return self._search(hands, leader, (), tuple(counts), tuple(reached), tuple(in_run),
                            t + 1, alpha, beta)

    def _search(self, hands, leader, trick, counts, reached, in_run, t, alpha, beta):
        if t == 9:
            return final_value(counts, reached, in_run)
        key = None
        if not trick:
            key = (hands, leader, counts, reached, in_run, t)
            hit = self.table.get(key)
            if hit is not None:
                lo, hi = hit
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
        a0, b0 = alpha, beta
        seat = seat_at(leader, len(trick))
        maximise = team_of(seat) == 0
        hand = hands[seat]
        best = -WIN_SCORE if maximise else WIN_SCORE
        for m in sorted(set(hand)):
            self.nodes += 1
            h = list(hand)
            h.remove(m)
            new_hands = hands[:seat] + (tuple(h),) + hands[seat + 1:]
            v = self._play_card(new_hands, leader, trick + (m,), counts, reached, in_run, t,
                                alpha, beta)
            if maximise:
                best = max(best, v)
                alpha = max(alpha, best)
            else:
                best = min(best, v)
                beta = min(beta, best)
            if alpha >= beta:
                break
        if key is not None:
            lo, hi = self.table.get(key, (-WIN_SCORE, WIN_SCORE))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.table[key] = (lo, hi)
        return best


def _branch(deal: Deal) -> Deal:
    """A deal in progress that plays on apart from ``deal``: its match's state
    record copied (``GameState.copy``), the rest shared or copied shallow. A
    tenth of what ``copy.deepcopy`` costs, which was most of the brute force's."""
    assert deal.record is None and deal.state is deal.match.state  # the match's latest
    match = copy.copy(deal.match)
    branch = copy.copy(deal)
    match.state = branch.state = deal.state.copy()
    match.deals = [*deal.match.deals[:-1], branch]
    branch.match, branch.tricks = match, list(deal.tricks)
    return branch


def brute_force(deal: Deal) -> int:
    """Plain minimax over every card (no pruning, no table) with the rules engine."""
    if deal.done:
        score = deal.score()
        return seat_gain(*team_points(score.winner, score.points), 0)
    values = []
    for card in deal.legal_cards():
        d = _branch(deal)
        d.play(card)
        values.append(brute_force(d))
    return max(values) if team_of(deal.to_act) == 0 else min(values)
