"""The rules of Aluette (docs/RULES.md R1-R16) as plain Python functions:
dealing, tricks, the deal's tally and scoring, the match.

No numpy, gymnasium or torch here: the game's step (:mod:`.state`), the
``Deal`` and ``Match`` objects (:mod:`.deal`), the PettingZoo environment,
the batched engine, the players, the search, the games and training all
build on these functions, so there is one statement of each rule
(docs/RULES.md lists where each one lives and who calls it). Seats are ints
0-3 (see :mod:`.seats`); ``NOBODY`` (-1) is "no seat" and "no team".

The tally of a deal in progress is three sequences of four: ``counts``
(tricks won per seat), ``reached`` (trick index of each seat's latest win,
-1 for none: the R14 tie-break) and ``in_run`` (the seat's wins are one run
ending with the last finished trick: it can still make Mordienne, R16).
:func:`record_trick` updates them in place, :func:`first_to_reach` and
:func:`deal_points` read them.

**One statement, many speeds.** Every function here is written over ints and
indexable sequences (lists, tuples, numpy arrays), in the subset of Python
that numba compiles: :mod:`aluette_env._jit` registers these same functions
with numba, and the batched engine's kernels, the solver and the expert call
them from compiled code.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .cards import NUM_CARDS, STRENGTH, check_card, describe
from .seats import NOBODY, NUM_SEATS, next_seat, seat_at, team_of

HAND_SIZE = 9
NUM_TRICKS = 9
PLAYS_PER_DEAL = NUM_SEATS * NUM_TRICKS  # 36: nine tricks of four cards (R9)
NUM_UNUSED = NUM_CARDS - NUM_SEATS * HAND_SIZE  # 12, never seen by anyone (R5)
DEFAULT_NUM_DEALS = 5  # R2
PACKET = 3  # R5: three rounds of packets of three


# --------------------------------------------------------------------------- dealing


def deal_order(dealer: int) -> tuple[int, ...]:
    """R5: which seat receives each of the first 36 cards of the shuffled deck:
    packets of three, clockwise from the dealer's left, three rounds."""
    order = []
    for _round in range(HAND_SIZE // PACKET):
        for k in range(1, NUM_SEATS + 1):
            order.extend([seat_at(dealer, k)] * PACKET)
    return tuple(order)


def deal_cards(deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int]]:
    """Deal a shuffled deck (a permutation of 0-47) as R5: returns the four hands
    (seat order, in the order received) and the twelve unused cards."""
    deck = list(deck)
    if sorted(deck) != _DECK:
        raise ValueError("deck must be a permutation of the 48 card ids 0-47")
    return ([[deck[k] for k in places] for places in _RECEIVED[dealer]],
            deck[NUM_SEATS * HAND_SIZE:])


_DECK = list(range(NUM_CARDS))
#: _RECEIVED[dealer][seat]: the places in the deck of the cards ``seat`` receives (R5).
_RECEIVED = tuple(tuple(tuple(k for k, s in enumerate(deal_order(d)) if s == seat)
                        for seat in range(NUM_SEATS)) for d in range(NUM_SEATS))


def check_hands(hands: Sequence[Sequence[int]]) -> list[list[int]]:
    """Validate four hands of nine distinct card ids; ValueError names the problem."""
    if isinstance(hands, (str, bytes)) or len(hands) != NUM_SEATS:
        raise ValueError(f"a deal is 4 hands (player_0..player_3), got {hands!r}")
    seen: dict[int, int] = {}
    out = []
    for seat, hand in enumerate(hands):
        hand = list(hand)
        if len(hand) != HAND_SIZE:
            raise ValueError(f"player_{seat}'s hand has {len(hand)} cards; a hand is {HAND_SIZE}")
        for i, card in enumerate(hand):
            try:
                card = hand[i] = check_card(card)
            except ValueError as err:
                raise ValueError(f"player_{seat}'s hand: {err}") from None
            if card in seen:
                raise ValueError(f"card {describe(card)} is dealt twice "
                                 f"(player_{seen[card]} and player_{seat})")
            seen[card] = seat
        out.append(hand)
    return out


# --------------------------------------------------------------------------- tricks
# Ints and indexable sequences only (lists, tuples, numpy arrays): numba compiles
# these very functions for the engine, the solver and the expert (see _jit).


def card_beats(n_before: int, best: int, best_pos: int, tied: bool, level: int,
               pos: int) -> tuple[int, int, bool]:
    """R10-R11, one card at a time: the trick's highest strength so far, who
    played it (``pos``: a seat or a position, the caller's choice) and whether it
    is shared, after a card of strength ``level`` joins ``n_before`` cards."""
    if n_before == 0 or level > best:
        return level, pos, False
    if level == best:
        return best, best_pos, True  # R11: a shared highest card spoils the trick
    return best, best_pos, tied


def trick_winner_of_levels(levels, n: int, leader: int) -> int:
    """R10-R11: the seat of the single highest of the ``n`` strength levels
    played from ``leader``, or NOBODY when the highest is shared (spoiled)."""
    best, best_pos, tied = -1, -1, False
    for k in range(n):
        best, best_pos, tied = card_beats(k, best, best_pos, tied, levels[k], k)
    return NOBODY if tied else seat_at(leader, best_pos)


def trick_winner(cards: Sequence[int], leader: int) -> int:
    """R10-R11 for cards: the seat of the single strongest of ``cards`` (in play
    order from ``leader``), or NOBODY when the strongest is shared (spoiled)."""
    return trick_winner_of_levels([STRENGTH[c] for c in cards], len(cards), leader)


def next_leader(leader: int, winner: int) -> int:
    """R10-R11: who leads the next trick: its winner, or the same leader again
    when it was spoiled (``winner`` NOBODY)."""
    return leader if winner < 0 else winner


def record_trick(counts, reached, in_run, winner: int, index: int) -> None:
    """The tally after trick ``index`` (0-8) went to ``winner`` (NOBODY:
    spoiled), in place. R13 one more trick for the winner; R14 it reached that
    count at ``index``; R16 its run is alive if it had won nothing before or its
    run was alive, and every other seat's run ends (a spoiled trick ends every
    run)."""
    if winner < 0:
        for s in range(NUM_SEATS):
            in_run[s] = False
        return
    live = counts[winner] == 0 or in_run[winner] != 0
    for s in range(NUM_SEATS):
        in_run[s] = False
    in_run[winner] = live
    counts[winner] += 1
    reached[winner] = index


def end_trick(counts, reached, in_run, winner: int, leader: int, index: int) -> int:
    """Trick ``index`` led by ``leader`` went to ``winner`` (NOBODY: spoiled):
    the tally is updated in place (:func:`record_trick`) and the seat that
    leads next is returned (:func:`next_leader`)."""
    record_trick(counts, reached, in_run, winner, index)
    return next_leader(leader, winner)


def plays_left(trick_index: int, n_in_trick: int) -> int:
    """Cards still to be played in the deal, from trick ``trick_index`` (0-9)
    with ``n_in_trick`` cards already in it."""
    return PLAYS_PER_DEAL - NUM_SEATS * trick_index - n_in_trick


def tricks_left(trick_index: int) -> int:
    """R9: tricks still to be played in the deal, the one in progress
    (``trick_index``, 0-8) included."""
    return NUM_TRICKS - trick_index


def hand_size(trick_index: int, played_in_trick: bool) -> int:
    """R9: the cards a seat holds during trick ``trick_index`` (each seat plays
    one card a trick): before its play in it, or after (``played_in_trick``)."""
    return HAND_SIZE - trick_index - (1 if played_in_trick else 0)


def cards_in_trick(trick, leader: int) -> int:
    """R9: how many cards the trick in progress holds, ``trick[seat]`` being
    each seat's card (-1: none yet): play goes clockwise from ``leader``."""
    n = 0
    while n < NUM_SEATS and trick[seat_at(leader, n)] >= 0:
        n += 1
    return n


def cards_before(trick, seat: int) -> int:
    """R9: at ``seat``'s turn, how many cards the trick in progress already
    holds (``trick[s]``: each seat's card, -1 none yet): the seats before it,
    counterclockwise, that have played. Its leader is ``seat_at(seat, -n)``."""
    n = 0
    while n < NUM_SEATS - 1 and trick[seat_at(seat, -1 - n)] >= 0:
        n += 1
    return n


def trick_so_far(trick, leader: int, n: int, levels) -> tuple[int, int, bool]:
    """R10-R11 on the first ``n`` cards of the trick led by ``leader``
    (``trick[seat]``: each seat's card; ``levels[card]``: its strength,
    ``cards.STRENGTH``): the highest strength so far, the seat that played it
    and whether it is shared (the trick would be spoiled). Seats may be
    relative to any observer, as long as ``trick`` and ``leader`` agree."""
    best, best_seat, tied = -1, -1, False
    for k in range(n):
        seat = seat_at(leader, k)
        best, best_seat, tied = card_beats(k, best, best_seat, tied, levels[trick[seat]], seat)
    return best, best_seat, tied


# --------------------------------------------------------------------------- scoring

def is_ahead(counts, reached, a: int, b: int) -> bool:
    """R13-R14: seat ``a`` ranks before seat ``b``: more tricks, or as many and
    reached that count first."""
    return counts[a] > counts[b] or (counts[a] == counts[b] and reached[a] < reached[b])


def first_to_reach(counts, reached) -> int:
    """R13-R14: the seat that would win the deal if it ended now (most tricks,
    ties to whoever reached that count first), NOBODY while nobody has a trick."""
    winner = NOBODY
    for s in range(NUM_SEATS):
        if counts[s] > 0 and (winner < 0 or is_ahead(counts, reached, s, winner)):
            winner = s
    return winner


def deal_points(counts, reached, in_run) -> tuple[int, int, bool]:
    """R13-R16 from the tally after the ninth trick: (winner seat or NOBODY,
    0/1/2 points, Mordienne). R15 nobody scores when every trick was spoiled;
    R16 two points for a run of at least two tricks that reaches the end with
    nothing won before it."""
    winner = first_to_reach(counts, reached)
    if winner < 0:
        return NOBODY, 0, False
    mordienne = in_run[winner] != 0 and counts[winner] >= 2
    return winner, 2 if mordienne else 1, mordienne


def team_points(winner: int, points: int) -> tuple[int, int]:
    """R1, R13: the points a deal won by seat ``winner`` (NOBODY: nobody) with
    ``points`` gives team 0 and team 1."""
    if winner < 0:
        return 0, 0
    return (points, 0) if team_of(winner) == 0 else (0, points)


def seat_gain(points0: int, points1: int, seat: int) -> int:
    """R1: team points (team 0's, team 1's) as ``seat`` sees them: its team's
    minus the other team's (the env's reward, the solver's value for seat 0)."""
    own = team_of(seat)
    return (points0 if own == 0 else points1) - (points1 if own == 0 else points0)


def winning_team(points0: int, points1: int) -> int:
    """R2: the team with more match points, NOBODY for a draw."""
    if points0 == points1:
        return NOBODY
    return 0 if points0 > points1 else 1


# --------------------------------------------------------------------------- dealers and leaders


def dealer_of(first_dealer: int, deal_index: int) -> int:
    """R6: the dealer moves one seat clockwise each deal."""
    return seat_at(first_dealer, deal_index)


def first_dealer_of(dealer: int, deal_index: int) -> int:
    """R6 backwards: the first dealer of a match whose deal ``deal_index`` is
    dealt by ``dealer``."""
    return seat_at(dealer, -deal_index)


def first_leader(dealer: int) -> int:
    """R6: the player to the dealer's left leads the first trick."""
    return next_seat(dealer)


# --------------------------------------------------------------------------- for people
# Slower helpers over the tally for the games and the renderer (not compiled).


def reach_order(counts: Sequence[int], reached: Sequence[int]) -> list[int]:
    """Seats with a trick, best first by R13-R14 (most tricks, then first to reach)."""
    ahead = functools.cmp_to_key(
        lambda a, b: -1 if is_ahead(counts, reached, a, b) else
        (1 if is_ahead(counts, reached, b, a) else 0))
    return sorted((s for s in range(NUM_SEATS) if counts[s]), key=ahead)


def mordienne_chance(counts: Sequence[int], reached: Sequence[int], in_run: Sequence[bool],
                     tricks_played: int) -> int:
    """R16 for people: the seat whose run of two or more tricks, nothing won
    before it, would score Mordienne if it took every remaining trick (and so
    won the deal, R13-R14); NOBODY when no run can score. Once the deal is over
    (``tricks_played`` 9) that is the deal winner's Mordienne, if it made one.
    The web game, the terminal and the renderer show the Mordienne line only
    for this seat."""
    remaining = tricks_left(tricks_played)
    for s in range(NUM_SEATS):
        if in_run[s] and counts[s] >= 2:
            if remaining == 0:
                return s if first_to_reach(counts, reached) == s else NOBODY
            c = list(counts)
            r = list(reached)
            c[s] += remaining
            r[s] = NUM_TRICKS - 1
            return s if first_to_reach(c, r) == s else NOBODY
    return NOBODY
