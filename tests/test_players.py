"""Players: the protocol, determinism, the heuristic's documented choices,
and the spec registry."""

import re

import numpy as np
import pytest

import aluette_env
from aluette_env.game.cards import card_id
from aluette_env.players import Player, PlayerSpecError, load_player, register_player
from aluette_env.evaluation import duplicate_eval
from aluette_env.game import STRENGTH
from aluette_env.players.heuristic import WORK_SIZE, HeuristicPlayer, decide_v2
from aluette_env.players.random_player import RandomPlayer
from conftest import COINS_4, COINS_5, hands_for_winners, observations_at_trick_3


def table_after(plays, hands, first_dealer="player_3"):
    """A raw_env after the given cards were played (seat 0 leads: dealer 3)."""
    e = aluette_env.raw_env(num_deals=1)
    e.reset(seed=0, options={"deals": [hands], "first_dealer": first_dealer})
    for c in plays:
        e.step(c)
    return e


def decide(player, e):
    o = e.observe(e.agent_selection)
    return player.act(o["observation"], o["action_mask"])


def play_checked_match(player, seed=1):
    """One match of the wrapped env with ``player`` in every seat, checking every
    step while it plays: no agent is truncated and the step's rewards are a deal's
    (the same for partners, opposite for opponents, 0 to 2 points, R15). An illegal
    card ends the match in PettingZoo's TerminateIllegalWrapper: every agent
    truncated, -1 to the offender alone, which is no deal's reward."""
    e = aluette_env.env()
    e.reset(seed=seed)
    plays = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert not trunc, f"{agent} truncated: an illegal move ended the match"
        if term:
            e.step(None)
            continue
        e.step(player.act(obs["observation"], obs["action_mask"]))
        plays += 1
        r0, r1, r2, r3 = (e.rewards[a] for a in e.possible_agents)
        assert r0 == r2 == -r1 == -r3 and r0 in (-2, -1, 0, 1, 2), \
            f"{agent}'s card: rewards {e.rewards} are no deal's"
    assert e.agents == [] and plays == 5 * 36


def test_players_follow_the_protocol_and_play_whole_matches():
    for p in (RandomPlayer(0), HeuristicPlayer(), load_player("random:seed=2")):
        assert isinstance(p, Player)
        play_checked_match(p)


def test_the_match_check_sees_an_illegal_card():
    """The check above can fail: a player that plays a card it does not hold."""
    class Cheat:
        def act(self, obs, mask):
            return int(np.flatnonzero(mask == 0)[0])

    with pytest.raises(AssertionError, match="no deal's|truncated"):
        play_checked_match(Cheat())


def test_random_player_is_seeded_and_uniform_over_legal_cards():
    mask = np.zeros((2000, 48), np.int8)
    mask[:, [3, 17, 40]] = 1
    obs = np.zeros((2000, aluette_env.OBS_SIZE), np.int8)
    a = RandomPlayer(7).act_batch(obs, mask)
    assert set(a.tolist()) == {3, 17, 40}
    assert np.array_equal(a, RandomPlayer(7).act_batch(obs, mask))
    assert not np.array_equal(a, RandomPlayer(8).act_batch(obs, mask))
    counts = np.bincount(a, minlength=48)[[3, 17, 40]]
    assert counts.min() > 550


def test_heuristic_is_deterministic_and_batch_equals_single():
    g = aluette_env.vector.VectorGame(64, seed=3)
    g.reset()
    h = HeuristicPlayer(seed=1)
    batch = h.act_batch(g.obs, g.mask)
    singles = [h.act(g.obs[i], g.mask[i]) for i in range(64)]
    assert batch.tolist() == singles
    assert np.array_equal(batch, HeuristicPlayer(seed=2).act_batch(g.obs, g.mask))
    assert all(g.mask[i, batch[i]] for i in range(64))


# Hands for hand-built positions: seat k's first cards are chosen per test.
MONSIEUR, MADAME, ACE_C, ACE_S, ROI_C = (card_id(0, 2), card_id(1, 2), card_id(0, 0),
                                        card_id(3, 0), card_id(0, 11))
FOUR_C, FOUR_U, FIVE_C, SIX_C, SEVEN_B = (card_id(0, 3), card_id(1, 3), card_id(0, 4),
                                          card_id(0, 5), card_id(2, 6))


def build(first_cards):
    """Four hands whose listed cards come first, filled up from a spoiled-only deal."""
    base = hands_for_winners("XXXXXXXXX")
    used = {c for cards in first_cards for c in cards}
    pool = [c for c in range(48) if c not in used and c not in {c for h in base for c in h}]
    hands = []
    for seat in range(4):
        rest = [c for c in base[seat] if c not in used]
        h = list(first_cards[seat]) + rest
        while len(h) > 9:
            pool.append(h.pop())
        hands.append(h)
    for h in hands:
        while len(h) < 9:
            h.append(pool.pop())
    assert len({c for h in hands for c in h}) == 36
    return hands


def test_heuristic_wins_a_trick_as_cheaply_as_possible():
    hands = build([[SIX_C], [FOUR_C], [FIVE_C], [ACE_C, ROI_C, MONSIEUR]])
    e = table_after([SIX_C, FOUR_C, FIVE_C], hands)  # player_3 last; opponent player_0 winning
    strength = aluette_env.STRENGTH
    beaters = [c for c in e.deal.hands[3] if strength[c] > strength[SIX_C]]
    cheapest = min(strength[c] for c in beaters)
    choice = decide(HeuristicPlayer(), e)
    assert strength[choice] == cheapest and choice != MONSIEUR


def test_heuristic_does_not_overtake_a_winning_partner():
    hands = build([[FOUR_C], [ACE_C], [FIVE_C], [MONSIEUR, SEVEN_B]])
    e = table_after([FOUR_C, ACE_C, FIVE_C], hands)  # player_3's partner player_1 wins with an ace
    choice = decide(HeuristicPlayer(), e)
    assert choice != MONSIEUR
    weakest = min(e.deal.hands[3], key=lambda c: aluette_env.STRENGTH[c])
    assert aluette_env.STRENGTH[choice] == aluette_env.STRENGTH[weakest]


def test_heuristic_spoils_an_unbeatable_opponent_trick_with_an_equal_card():
    # player_0 leads an ace; player_1 holds only weaker cards and another ace.
    hands = build([[ACE_C], [ACE_S, FOUR_U], [FIVE_C], [SIX_C]])
    e = table_after([ACE_C], hands)
    strength = aluette_env.STRENGTH
    assert not any(strength[c] > strength[ACE_C] for c in e.deal.hands[1])
    # R11: an equal card (any ace) spoils the trick
    assert strength[decide(HeuristicPlayer(), e)] == strength[ACE_C]


def test_heuristic_makes_mordienne_with_a_late_run_of_sure_winners():
    # player_0 holds the eight named cards and an ace: it leads the ace first
    # (won or spoiled, nothing else can beat it), then runs the named cards.
    named = [card_id(0, 2), card_id(1, 2), card_id(0, 1), card_id(1, 1), card_id(1, 8),
             card_id(0, 8), card_id(2, 1), card_id(3, 1), ACE_C]
    e = table_after([], build([named, [], [], []]))
    h = HeuristicPlayer()
    assert decide(h, e) == ACE_C
    while not e.match.over:
        e.step(decide(h, e))
    res = e.infos["player_0"]["deal_result"]
    assert res["winner"] == "player_0" and res["mordienne"] and res["points"]["team_0"] == 2


# ---------------------------------------------------------------- heuristic version 2
# Hand-built views of one seat (relative seats: 0 me, 1 left, 2 partner, 3 right).

VALET_C, CAV_C, EIGHT_C, EIGHT_U = card_id(0, 9), card_id(0, 10), card_id(0, 7), card_id(1, 7)


def v2_choice(hand, trick=None, gone=(), counts=(0, 0, 0, 0), in_run=(False,) * 4, t=0):
    """decide_v2's card for a seat holding ``hand``; ``trick`` maps relative seat -> card."""
    trick = trick or {}
    h = np.zeros(48, np.int8)
    h[list(hand)] = 1
    g = np.zeros(48, np.int8)
    g[list(gone) + list(trick.values())] = 1
    tr = np.array([trick.get(r, -1) for r in range(4)], np.int64)
    return decide_v2(h, g, tr, np.array(counts, np.int64), np.array(in_run, np.bool_), t,
                     np.array(STRENGTH, np.int8), np.zeros(WORK_SIZE, np.int64))


def test_v2_leads_the_middle_card_before_cashing_sure_winners():
    # rule 3: no sure winner -> the median level (an 8 of FOUR_C, EIGHT_C, ROI_C)
    assert v2_choice([FOUR_C, EIGHT_C, ROI_C]) == EIGHT_C
    # rule 3 again: Monsieur is a sure winner, kept early in the deal
    assert v2_choice([FOUR_C, EIGHT_C, ROI_C, MONSIEUR], counts=(1, 0, 0, 0)) == EIGHT_C
    # rule 2: from the seventh trick, cash it
    assert v2_choice([FOUR_C, EIGHT_C, MONSIEUR], counts=(1, 0, 0, 0), t=6) == MONSIEUR
    # ... but not with nothing won and two sure winners (saved for a Mordienne run, R16)
    assert v2_choice([FOUR_C, MADAME, MONSIEUR], t=6) == FOUR_C
    # rule 1: sure winners for every remaining trick: run them, strongest first
    assert v2_choice([MADAME, MONSIEUR], t=7) == MONSIEUR


def test_v2_takes_over_from_a_partner_about_to_be_beaten():
    # rule 4: the partner (seat 2) led a 4, the right opponent threw a Batons 3; the
    # left opponent still plays and most unseen cards beat a 4: take the trick cheaply.
    batons_3 = card_id(2, 2)
    assert v2_choice([FIVE_C, ROI_C], trick={2: FOUR_C, 3: batons_3}) == FIVE_C
    # rule 4: the partner's Monsieur cannot be beaten: throw the weakest
    assert v2_choice([FIVE_C, ROI_C], trick={2: MONSIEUR, 3: batons_3}) == FIVE_C
    assert v2_choice([SIX_C, ROI_C], trick={2: MONSIEUR, 3: batons_3}) == SIX_C
    assert v2_choice([ROI_C, ACE_C], trick={2: MONSIEUR, 3: batons_3}) == ROI_C


def test_v2_second_hand_plays_low_early_and_takes_cheap_tricks():
    # rule 5: the right opponent led an 8; beating it costs a Roi: throw the 4
    assert v2_choice([FOUR_U, ROI_C], trick={3: EIGHT_C}) == FOUR_U
    # ... a 5 beats a led 4: take it
    assert v2_choice([FIVE_C, ROI_C], trick={3: FOUR_U}) == FIVE_C
    # rule 6: late in the deal, second hand takes the trick with its cheapest winner
    assert v2_choice([FOUR_U, CAV_C, ROI_C], trick={3: EIGHT_C}, t=7) == CAV_C


def test_v2_spoils_only_threatening_tricks():
    # rule 7: the right opponent led an ace that can't be beaten; an equal ace spoils it (R11)
    # when that trick would bring it level with our best count ...
    assert v2_choice([FOUR_U, ACE_S], trick={3: ACE_C}, counts=(1, 0, 0, 0)) == ACE_S
    # ... and not when the team is two tricks ahead
    assert v2_choice([FOUR_U, ACE_S], trick={3: ACE_C}, counts=(2, 0, 0, 0)) == FOUR_U
    # ... unless it would extend the opponent's Mordienne run (R16)
    assert v2_choice([FOUR_U, ACE_S], trick={3: ACE_C}, counts=(2, 0, 0, 0),
                     in_run=(False, False, False, True)) == ACE_S


def test_v2_beats_version_1_and_both_versions_load_by_spec():
    v1 = load_player("heuristic:version=1")
    assert v1.version == 1 and v1.name == "heuristic:version=1"
    assert load_player("heuristic").version == 2
    res = duplicate_eval("heuristic", "heuristic:version=1", deals=1000, seed=3)
    assert res.points_per_deal_ci95[0] > 0.2


def test_player_specs():
    assert isinstance(load_player("random"), RandomPlayer)
    assert load_player("random:seed=5").seed == 5
    assert isinstance(load_player("heuristic"), HeuristicPlayer)
    with pytest.raises(PlayerSpecError, match="unknown player 'nobody'; known: ai, expert, "
                       "heuristic, ismcts, pimc, random"):
        load_player("nobody")
    with pytest.raises(PlayerSpecError, match="models/missing.onnx: no such model file"):
        load_player("models/missing.onnx")
    with pytest.raises(PlayerSpecError, match="no such file or directory"):
        load_player("models/missing.pt")
    with pytest.raises(PlayerSpecError, match="key=value"):
        load_player("random:7")
    with pytest.raises(PlayerSpecError, match="unknown option 'temperature'; options: seed"):
        load_player("random:temperature=2")


@pytest.mark.parametrize("spec,message", [
    ("random:seed=-1", "option 'seed' got '-1'; allowed: an integer from 0"),
    ("random:seed=abc", "option 'seed' got 'abc'"),
    ("random:seed=1,seed=2", "option 'seed' is given twice"),
    ("heuristic:seed=abc", "option 'seed' got 'abc'"),
    ("heuristic:version=3", "option 'version' got '3'; allowed: 1 or 2"),
    ("heuristic:version=two", "option 'version' got 'two'; allowed: 1 or 2"),
    ("pimc:worlds=0", "option 'worlds' got '0'; allowed: an integer from 1 to 4096"),
    ("ai::temperature=1", "one ':' separates the player from its options"),
    ("pimc:worlds=1.5", "option 'worlds' got '1.5'"),
    ("pimc:depth_tricks=-1", "option 'depth_tricks'"),
    ("pimc:max_seconds=abc", "option 'max_seconds' got 'abc'"),
    ("pimc:max_seconds=nan", "option 'max_seconds' got 'nan'"),
    ("pimc:solve_tricks=9",
     "option 'solve_tricks' got '9'; allowed: an integer from 0 (never) to 7"),
    ("ai:temperature=0", "option 'temperature' got '0'; allowed: a number from 0.001"),
    ("ai:temperature=inf", "option 'temperature' got 'inf'"),
    ("ai:temp=1", "unknown option 'temp'; options: seed, temperature, version"),
    ("ai:version=8", "option 'version' got '8'; allowed: 1 or 2 or 3 or 4 or 5 or 6 or 7"),
    ("ai:version=one", "option 'version' got 'one'; allowed: 1 or 2 or 3 or 4 or 5 or 6 or 7"),
])
def test_every_spec_option_is_checked_at_load(spec, message):
    with pytest.raises(PlayerSpecError, match=re.escape(message)) as err:
        load_player(spec)
    assert spec in str(err.value) and "\n" not in str(err.value)


def test_every_bool_option_takes_exactly_the_words_its_message_allows():
    """``heuristic:signs=1`` was taken although the message
    allows only true or false; the words taken are the words named, for every
    bool option of every player."""
    from aluette_env.players import player_names, player_options
    bools = [(name, key) for name in player_names()
             for key, option in player_options(name).items() if option.kind is bool]
    assert ("heuristic", "signs") in bools and ("expert", "signs") in bools
    for name, key in bools:
        load_player(f"{name}:{key}=false")
        load_player(f"{name}:{key}=true")
        for word in ("1", "0", "yes", "no", "True", "FALSE", "on", ""):
            with pytest.raises(PlayerSpecError, match=re.escape(
                    f"option {key!r} got {word!r}; allowed: true or false")):
                load_player(f"{name}:{key}={word}")


def test_spec_seed_argument_is_checked():
    with pytest.raises(PlayerSpecError, match="seed must be an integer"):
        load_player("random", seed=-5)
    assert load_player("random:seed=3", seed=9).seed == 3  # the spec's own seed wins
    register_player("always_first", lambda seed=None: RandomPlayer(0))  # a one-line addition
    assert isinstance(load_player("always_first"), RandomPlayer)


def test_ai_version_option_names_the_shipped_models():
    from aluette_env.players.onnx_policy import SHIPPED_MODELS
    v1 = load_player("ai:version=1")
    assert v1.path == SHIPPED_MODELS[1] and v1.name == "ai:version=1"
    latest = load_player("ai")
    assert latest.path == SHIPPED_MODELS[max(SHIPPED_MODELS)] and latest.name == "ai"
    assert load_player(f"ai:version={max(SHIPPED_MODELS)}").path == latest.path
    assert load_player("ai:version=2").path == SHIPPED_MODELS[2]  # v2 stays loadable
    # checkpoints/ keeps v1 for comparisons, byte for byte the shipped one
    root = SHIPPED_MODELS[1].parents[2]
    assert (root / "checkpoints" / "aluette-ppo-v1.onnx").read_bytes() == \
        SHIPPED_MODELS[1].read_bytes()


def test_ai_v5_reads_the_order_of_play_and_earlier_versions_do_not():
    """Player_1 played Coins 4 then Coins 5, or the other way round: the same
    cards, so the same layout-1 prefix. v4 reads only that prefix and cannot
    tell them apart; v5 (observation layout 2) reads the history and does."""
    from aluette_env.observation import OBS_LAYOUT, SLICES
    a = observations_at_trick_3(COINS_4, COINS_5)[0][None, :]
    b = observations_at_trick_3(COINS_5, COINS_4)[0][None, :]
    mask = a[:, SLICES["hand"]]  # player_0 holds the lead: every card of its hand
    v4, v5 = load_player("ai:version=4"), load_player("ai:version=5")
    assert v5.obs_layout == OBS_LAYOUT == 2 and v4.obs_layout == 1
    assert np.array_equal(v4.probabilities(a, mask), v4.probabilities(b, mask))
    assert np.abs(v5.probabilities(a, mask) - v5.probabilities(b, mask)).max() > 1e-4


#: Digests of every move of each player at all four seats of 100 one-deal matches
#: (VectorGame seed 3), taken with observation layout 1 before the history was added:
#: a model of an earlier version reads its own prefix, so no move may change
#: (benchmarks/same_moves.py compares 2,000 deals and the search players).
MOVES_BEFORE_OBS_LAYOUT_2 = {
    "random:seed=7": "2f0084ac61239d7494430cb69685ceabe3f356daa03c52af0b9e29e77b7a2685",
    "heuristic": "a616f28381ba45617868ee8afe8133fa3c98238c8a980cf61abc7b691a352719",
    "heuristic:version=1": "76134600cd868151f4ccf6f668c2b6f914457fb85cc335767503e8ca5bab6ef0",
    "ai:version=1": "e469ef62c7fdcc746fb6092c105eb7bf6179d9f3967459084a80aefcb5b37ae2",
    "ai:version=4": "cf6956137e1417c8e0e46761ecdb976a7be3cfe08fee00b59055c82938abbe76",
}


@pytest.mark.parametrize("spec", sorted(MOVES_BEFORE_OBS_LAYOUT_2))
def test_shipped_players_make_the_moves_they_made_with_obs_layout_1(spec):
    import hashlib

    from aluette_env.vector import VectorGame
    player = load_player(spec)
    game = VectorGame(num_games=100, num_deals=1, seed=3, auto_reset=False)
    game.reset()
    digest = hashlib.sha256()
    for _ in range(36):
        actions = np.asarray(player.act_batch(game.obs, game.mask), np.int64)
        digest.update(actions.astype(np.int8).tobytes())
        game.step(actions)
    assert digest.hexdigest() == MOVES_BEFORE_OBS_LAYOUT_2[spec]


@pytest.mark.parametrize("text,specs", [
    ("heuristic,ai:version=5,temperature=2,random",
     ["heuristic", "ai:version=5,temperature=2", "random"]),
    ("model.onnx:temperature=2,seed=3, heuristic", ["model.onnx:temperature=2,seed=3", "heuristic"]),
    ("random,seed=3", ["random", "seed=3"]),  # no ':' before: a (bad) spec of its own
    ("heuristic", ["heuristic"]),
])
def test_a_list_of_specs_keeps_each_specs_own_options(text, specs):
    from aluette_env.players import split_specs
    assert split_specs(text) == specs
