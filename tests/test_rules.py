"""Rule tests named after RULES.md ids, on the pure rules module, with
hand-built deals and exact outcomes; hypothesis for invariants."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aluette_env.game.cards import card_id
from aluette_env.game import (
    CARD_PLAYED, DEAL_DONE, MATCH_DONE, NOBODY, PLAYS_PER_DEAL, STRENGTH, TRICK_DONE, Deal, Match,
    cards_in_trick, check_hands, deal_cards, deal_order, deal_points, dealer_of, end_trick,
    first_dealer_of, first_to_reach, hand_size, next_leader, partner_of, plays_left, reach_order,
    record_trick, relative_seat, score_deal, seat_at, seat_gain, team_of, team_points,
    trick_so_far, trick_winner, tricks_left, winning_team,
)
from conftest import hands_for_winners

# RULES.md worked examples use S, W, N, E going clockwise: seats 0, 1, 2, 3.
SEATS = {"S": 0, "W": 1, "N": 2, "E": 3, "X": NOBODY}
WORKED_EXAMPLES = [
    ("SENWSEXNW", "S", 1),
    ("SENWENWNW", "N", 1),
    ("XSENXWSSS", "S", 1),
    ("EXWEWNNNX", "N", 1),
    ("XXXXXXXSS", "S", 2),
    ("SXENXSWWW", "W", 2),
    ("SSSSSSSSS", "S", 2),
    ("NXXXXXXXX", "N", 1),
    ("XXXXXXXXX", None, 0),
]


def seq(text):
    return [SEATS[ch] for ch in text]


def play_deal(hands, dealer=3, match=None):
    """Play the hands (each in play order) through the core's Deal: a deal on
    its own by ``dealer``, or the next deal of ``match``; returns the deal and
    the event of its last play."""
    deal = Deal([list(h) for h in hands], dealer) if match is None else \
        match.start_deal([list(h) for h in hands])
    queues = [list(h) for h in hands]
    while not deal.done:
        event = deal.play(queues[deal.to_act].pop(0))
    return deal, event


def test_r1_teams_are_opposite_seats():
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_r2_match_is_five_deals_points_kept_and_draw_on_equal_totals():
    match = Match(first_dealer=0)
    assert match.num_deals == 5
    outcomes = ["SSSSSSSSS", "WXXXXXXXX", "XXXXXXXXX", "NXXXXXXXX", "XXXXXXXEE"]
    for k, text in enumerate(outcomes):
        assert not match.over and match.deal_index == k
        _, event = play_deal(hands_for_winners(seq(text)), match=match)
        assert event == (MATCH_DONE if k == 4 else DEAL_DONE)
    assert match.over and match.deal_index == 5
    assert [r.team_points for r in match.history] == [(2, 0), (0, 1), (0, 0), (1, 0), (0, 2)]
    # team 0: S Mordienne 2 + N 1 = 3; team 1: W 1 + E Mordienne 2 = 3 -> draw.
    assert match.points == [3, 3]
    assert match.winner() == NOBODY
    with pytest.raises(ValueError, match="match is over"):
        match.start_deal(hands_for_winners(seq("SSSSSSSSS")))
    fresh = Match(first_dealer=0)  # restarting clears the scores
    assert fresh.points == [0, 0] and fresh.history == []


def test_r2_match_winner_has_more_points():
    match = Match(first_dealer=1, num_deals=1)
    play_deal(hands_for_winners(seq("WWWWWWWWX")), match=match)
    assert match.points == [0, 1] and match.winner() == 1


def test_r5_deal_packets_of_three_clockwise_from_dealers_left():
    order = deal_order(dealer=2)
    assert order[:12] == (3, 3, 3, 0, 0, 0, 1, 1, 1, 2, 2, 2)
    assert order == order[:12] * 3
    deck = list(range(48))
    hands, unused = deal_cards(deck, dealer=2)
    assert hands[3] == [0, 1, 2, 12, 13, 14, 24, 25, 26]
    assert hands[2] == [9, 10, 11, 21, 22, 23, 33, 34, 35]
    assert unused == list(range(36, 48))
    assert sorted(sum(hands, []) + unused) == deck


def test_r5_bad_deals_are_rejected_with_the_problem_named():
    with pytest.raises(ValueError, match="permutation"):
        deal_cards([0] * 48, 0)
    good = hands_for_winners(seq("XXXXXXXXX"))
    with pytest.raises(ValueError, match="dealt twice"):
        check_hands([good[0], good[0], good[2], good[3]])
    with pytest.raises(ValueError, match="9"):
        check_hands([good[0][:8], good[1], good[2], good[3]])
    with pytest.raises(ValueError, match="ids are 0-47"):
        check_hands([good[0][:8] + [48], good[1], good[2], good[3]])


def test_r5_unused_cards_are_the_twelve_not_dealt():
    hands = hands_for_winners(seq("SSSSSSSSS"))
    deal = Deal(hands, dealer=0)
    assert len(deal.unused) == 12
    assert set(deal.unused).isdisjoint(c for h in hands for c in h)


def test_r6_left_of_dealer_leads_and_dealer_rotates_clockwise():
    for dealer in range(4):
        assert Deal(hands_for_winners(seq("XXXXXXXXX")), dealer).to_act == (dealer + 1) % 4
    match = Match(first_dealer=3)
    dealers = []
    for _ in range(5):
        dealers.append(match.dealer)
        play_deal(hands_for_winners(seq("XXXXXXXXX")), match=match)
    assert dealers == [3, 0, 1, 2, 3]


def test_r9_any_card_in_hand_is_legal():
    deal = Deal(hands_for_winners(seq("SSSSSSSSS")), dealer=3)
    assert deal.legal_cards() == sorted(deal.hands[0])
    with pytest.raises(ValueError, match="not in player_0's hand; legal"):
        deal.play(deal.hands[1][0])
    deal.play(max(deal.hands[0]))  # any card, no suit to follow


def test_r10_single_highest_card_wins_and_leads_next():
    monsieur, ace, four = card_id(0, 2), card_id(3, 0), card_id(1, 3)
    assert trick_winner([four, monsieur, ace, card_id(2, 3)], leader=1) == 2
    deal = play_deal_partial([[four], [monsieur], [ace], [card_id(2, 3)]])
    assert deal.tricks[0].winner == 1 and deal.to_act == 1


def play_deal_partial(first_trick):
    hands = hands_for_winners(seq("XXXXXXXXX"))
    used = {c for t in first_trick for c in t}
    for seat in range(4):  # swap the scripted cards into trick 1
        rest = [c for c in hands[seat] if c not in used]
        hands[seat] = first_trick[seat] + rest
    pool = [c for c in range(48) if c not in {c for h in hands for c in h}]
    for seat in range(4):  # refill any card removed by the swap
        while len(hands[seat]) > 9:
            hands[seat].pop()
        while len(hands[seat]) < 9:
            hands[seat].append(pool.pop())
    deal = Deal(hands, dealer=3)  # seat 0 leads
    for seat in range(4):
        deal.play(first_trick[seat][0])
    return deal


def test_r11_spoiled_trick_previous_leader_leads_again():
    ace_c, ace_s = card_id(0, 0), card_id(3, 0)
    assert trick_winner([ace_c, card_id(1, 3), ace_s, card_id(2, 3)], leader=0) == NOBODY
    # A tie below the highest card does not spoil.
    assert trick_winner([ace_c, ace_s, card_id(0, 2), card_id(2, 3)], leader=0) == 2
    deal = play_deal_partial([[ace_c], [card_id(1, 3)], [ace_s], [card_id(2, 3)]])
    assert deal.tricks[0].winner == NOBODY
    assert deal.to_act == 0 and deal.leader == 0 and deal.counts == (0, 0, 0, 0)


def test_r12_a_deal_is_nine_tricks():
    deal, _ = play_deal(hands_for_winners(seq("SENWSEXNW")))
    assert deal.done and len(deal.tricks) == 9
    with pytest.raises(ValueError, match="over"):
        deal.play(0)
    with pytest.raises(ValueError, match="not over"):
        Deal(hands_for_winners(seq("SENWSEXNW")), 0).score()


def test_r13_individual_with_most_tricks_wins_partners_do_not_add():
    # N and S together have 4 but W alone has 3 > 2: W wins for team 1.
    assert score_deal(seq("WSWNWSNXX")) == (1, 1, False)
    assert score_deal(seq("WSWNWSNXX")).winner == 1


@pytest.mark.parametrize("text,winner,points", WORKED_EXAMPLES)
def test_r13_to_r16_worked_examples(text, winner, points):
    score = score_deal(seq(text))
    assert score.winner == (SEATS[winner] if winner else NOBODY)
    assert score.points == points
    assert score.mordienne == (points == 2)
    # The same result from real cards played through a Deal.
    deal, _ = play_deal(hands_for_winners(seq(text)))
    assert deal.trick_winners == seq(text)
    assert deal.score() == score


def test_r14_first_to_reach_breaks_ties():
    assert score_deal(seq("SENWSEXNW")).winner == 0  # all have 2, S reached 2 first
    assert score_deal(seq("ESNWESXNW")).winner == 3  # now E reaches 2 first
    assert score_deal(seq("SENWENWNW")).winner == 2


def test_r15_all_spoiled_scores_nothing():
    assert score_deal([NOBODY] * 9) == (NOBODY, 0, False)


def test_r16_mordienne_made_and_broken():
    assert score_deal(seq("XXXXXXXSS")) == (0, 2, True)  # made: last two, nothing before
    assert score_deal(seq("XXXXXXXXS")) == (0, 1, False)  # a run of one is not enough
    assert score_deal(seq("SXXXXXXSS")) == (0, 1, False)  # broken: an earlier win
    assert score_deal(seq("XXXXXXSSX")) == (0, 1, False)  # broken: last trick spoiled
    assert score_deal(seq("XXXXXSXSS")) == (0, 1, False)  # broken: spoiled inside the run
    assert score_deal(seq("NNNXXXXSS")) == (2, 1, False)  # run by a non-winner counts for nothing
    assert score_deal(seq("EEEEEEEEE")) == (3, 2, True)  # a run of all nine


def test_r16_in_run_tracks_live_mordienne_candidates():
    deal = Deal(hands_for_winners(seq("SXWWNNNNN")), 3)
    queues = [list(h) for h in hands_for_winners(seq("SXWWNNNNN"))]
    seen = []
    while not deal.done:
        t = deal.play(queues[deal.to_act].pop(0))
        if t:
            seen.append(list(deal.in_run))
    assert seen[0] == [True, False, False, False]
    assert seen[1] == [False] * 4  # spoiled
    assert seen[3] == [False, True, False, False]
    assert seen[8] == [False, False, True, False]
    assert deal.score() == (2, 2, True)


winner_seqs = st.lists(st.integers(NOBODY, 3), min_size=9, max_size=9)


@given(winner_seqs)
def test_scoring_properties(winners):
    score = score_deal(winners)
    counts = [winners.count(s) for s in range(4)]
    if all(w == NOBODY for w in winners):
        assert score == (NOBODY, 0, False)
        return
    assert counts[score.winner] == max(counts)
    assert score.points == (2 if score.mordienne else 1)
    if score.mordienne:
        first = winners.index(score.winner)
        assert 9 - first >= 2 and all(w == score.winner for w in winners[first:])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_random_deals_play_every_dealt_card_once(seed, dealer):
    rnd = random.Random(seed)
    deck = list(range(48))
    rnd.shuffle(deck)
    hands, unused = deal_cards(deck, dealer)
    dealt = sorted(c for h in hands for c in h)
    deal = Deal(hands, dealer, unused)
    played = []
    while not deal.done:
        card = rnd.choice(deal.legal_cards())
        played.append(card)
        deal.play(card)
    assert sorted(played) == dealt
    assert sum(deal.counts) + deal.trick_winners.count(NOBODY) == 9
    for trick in deal.tricks:
        assert trick.winner == trick_winner(trick.cards, trick.leader)
    assert deal.score() == score_deal(deal.trick_winners)


def test_r13_r14_leading_seat_most_tricks_then_first_to_reach():
    assert first_to_reach((0, 0, 0, 0), (-1, -1, -1, -1)) == NOBODY
    assert first_to_reach((1, 2, 0, 0), (0, 3, -1, -1)) == 1  # R13 most tricks
    assert first_to_reach((2, 2, 0, 0), (5, 3, -1, -1)) == 1  # R14 seat 1 reached 2 first
    assert reach_order((2, 2, 1, 0), (5, 3, 0, -1)) == [1, 0, 2]


def test_r16_record_trick_keeps_only_the_winners_unbroken_run():
    counts, reached, in_run = [0] * 4, [-1] * 4, [False] * 4
    record_trick(counts, reached, in_run, 2, 0)
    assert (counts, reached, in_run) == ([0, 0, 1, 0], [-1, -1, 0, -1], [False, False, True, False])
    record_trick(counts, reached, in_run, NOBODY, 1)  # R11/R16: a spoiled trick ends every run
    assert in_run == [False, False, False, False]
    record_trick(counts, reached, in_run, 2, 2)  # seat 2 won before: its new run is dead
    assert in_run == [False, False, False, False] and counts[2] == 2
    record_trick(counts, reached, in_run, 3, 3)  # seat 3's first win starts a live run
    assert in_run == [False, False, False, True]
    assert deal_points((0, 0, 0, 2), (-1, -1, -1, 8), (False, False, False, True)) == (3, 2, True)


def test_r10_r11_next_leader_is_the_winner_or_the_same_leader_after_a_spoiled_trick():
    assert next_leader(3, 1) == 1  # R10
    assert next_leader(3, NOBODY) == 3  # R11
    counts, reached, in_run = [0] * 4, [-1] * 4, [False] * 4
    assert end_trick(counts, reached, in_run, 2, 0, 0) == 2 and counts == [0, 0, 1, 0]
    assert end_trick(counts, reached, in_run, NOBODY, 2, 1) == 2 and counts == [0, 0, 1, 0]


def test_r9_play_goes_clockwise_from_the_leader_nine_tricks_of_four():
    assert [seat_at(2, k) for k in range(4)] == [2, 3, 0, 1]
    assert [relative_seat(s, 1) for s in range(4)] == [3, 0, 1, 2]
    assert [partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert PLAYS_PER_DEAL == 36 and plays_left(0, 0) == 36 and plays_left(8, 3) == 1
    assert plays_left(9, 0) == 0


def test_r1_r13_team_points_and_each_seats_view_of_them():
    assert team_points(2, 2) == (2, 0) and team_points(3, 1) == (0, 1)
    assert team_points(NOBODY, 0) == (0, 0)
    assert [seat_gain(0, 1, s) for s in range(4)] == [-1, 1, -1, 1]


def test_r2_winning_team_and_r6_first_dealer_of():
    assert winning_team(3, 3) == NOBODY and winning_team(4, 2) == 0 and winning_team(1, 2) == 1
    for first in range(4):
        for k in range(10):
            assert first_dealer_of(dealer_of(first, k), k) == first


def test_r2_a_match_is_one_state_record_and_its_deals_views_of_it():
    match = Match(first_dealer=2, num_deals=2)
    first, event = play_deal(hands_for_winners(seq("SSSSSSSSS")), match=match)
    assert event == DEAL_DONE and not match.over and match.deal_index == 1
    assert first.record.team_points == (2, 0) and match.points == [2, 0]
    assert first.state is match.state  # the deal in progress is the match's record
    second = match.start_deal(hands_for_winners(seq("XXXXXXXXX")))
    with pytest.raises(ValueError, match="not over"):
        match.start_deal(hands_for_winners(seq("XXXXXXXXX")))
    assert second.state is match.state and first.state is not match.state
    assert (first.dealer, second.dealer) == (2, 3)  # R6; the finished deal keeps its own
    assert first.trick_winners == [0] * 9 and second.trick_winners == []
    events = [second.play(second.hands[second.to_act][0]) for _ in range(4)]
    assert events == [CARD_PLAYED] * 3 + [TRICK_DONE]
    assert match.deals == [first, second] and match.history == [first.record]


def test_r9_tricks_left_and_hand_sizes_follow_one_card_a_trick():
    assert [tricks_left(t) for t in (0, 4, 8)] == [9, 5, 1]
    deal = Deal(hands_for_winners(seq("SENWSEXNW")), 3)
    while not deal.done:
        played = {seat_at(deal.leader, k) for k in range(len(deal.trick_cards))}
        for s in range(4):
            assert len(deal.hands[s]) == hand_size(deal.trick_index, s in played)
        deal.play(deal.legal_cards()[0])


@pytest.mark.parametrize("observer", range(4))
def test_r10_r11_the_trick_so_far_from_each_seats_card(observer):
    """trick_so_far folds the trick in progress from its leader (R10: the
    highest card so far; R11: shared, the trick is spoiled so far), in any
    observer's relative seats."""
    monsieur, four, batons4 = card_id(0, 2), card_id(1, 3), card_id(2, 3)
    ace_cups, ace_swords = card_id(1, 0), card_id(3, 0)

    def trick_of(cards, leader):  # each seat's card, relative to the observer
        trick = [-1] * 4
        for k, c in enumerate(cards):
            trick[relative_seat(seat_at(leader, k), observer)] = c
        return trick, relative_seat(leader, observer)

    trick, lead = trick_of([four, monsieur, batons4], 1)
    assert cards_in_trick(trick, lead) == 3
    assert trick_so_far(trick, lead, 3, STRENGTH) == (STRENGTH[monsieur],
                                                       relative_seat(2, observer), False)
    assert trick_so_far(trick, lead, 1, STRENGTH)[:2] == (STRENGTH[four], lead)
    trick, lead = trick_of([ace_cups, four, ace_swords], 3)
    best, _, tied = trick_so_far(trick, lead, cards_in_trick(trick, lead), STRENGTH)
    assert (best, tied) == (STRENGTH[ace_cups], True)  # R11: two Aces, spoiled so far
    assert cards_in_trick([-1] * 4, lead) == 0
