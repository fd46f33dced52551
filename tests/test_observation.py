"""The observation (layout 2) is perfect recall: every history of a deal
gives each seat its own vector, the whole order of play is rebuilt from it,
version 1 is a prefix of it, and every writer and reader agrees with the one
layout (the writer for the reference and the kernel, the readers from a
vector and from the engine's state)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aluette_env
from aluette_env.game import NUM_CARDS, Deal, Match, deal_cards, relative_seat, seat_at
from aluette_env.observation import (
    OBS_SIZE, OBS_LAYOUT, SIGNS_OBS_LAYOUT, SLICES, LAYOUT_ENDS_BEFORE, decode_observation,
    encode_observation, layout_of, obs_size, read_state, read_view,
)
from aluette_env.vector import VectorGame
from conftest import COINS_4, COINS_5, observations_at_trick_3


def test_the_order_of_player_1s_two_cards_is_seen_by_every_seat():
    """Monsieur then Madame led by player_0; player_1 plays Coins 4 then Coins 5,
    or Coins 5 then Coins 4. Version 1 could not tell these apart; version 2 does."""
    a = observations_at_trick_3(COINS_4, COINS_5)
    b = observations_at_trick_3(COINS_5, COINS_4)
    v1 = obs_size(1)
    for seat in range(4):
        assert np.array_equal(a[seat][:v1], b[seat][:v1])  # the set of cards played: the same
        assert not np.array_equal(a[seat], b[seat])
    left = relative_seat(1, 0)
    first = decode_observation(a[0])["history"]
    assert [(p["trick"], p["leader"], p["winner"]) for p in first] == [(0, 0, 0), (1, 0, 0)]
    assert first[0]["plays"][1] == (left, COINS_4) and first[1]["plays"][1] == (left, COINS_5)
    assert decode_observation(b[2])["history"][0]["plays"][1] == (relative_seat(1, 2), COINS_5)


def _random_histories(seed: int, n: int):
    """n random plays of one deal (the same hands), each with every seat's
    vector after every play, and the history so far in absolute seats."""
    rnd = random.Random(seed)
    deck = list(range(NUM_CARDS))
    rnd.shuffle(deck)
    dealer = rnd.randrange(4)
    hands, unused = deal_cards(deck, dealer)
    for _ in range(n):
        deal, match = Deal([list(h) for h in hands], dealer, unused), Match(dealer, 1)
        history: list[tuple[int, int]] = []
        while not deal.done:
            seat = deal.to_act
            card = rnd.choice(deal.legal_cards())
            deal.play(card)
            history.append((seat, card))
            vectors = [encode_observation(deal, o) for o in range(4)]
            yield tuple(history), vectors, deal


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_two_histories_of_a_deal_never_give_a_seat_the_same_vector(seed):
    seen: list[dict[bytes, tuple]] = [{} for _ in range(4)]
    for history, vectors, _ in _random_histories(seed, 12):
        for o in range(4):
            key = vectors[o].tobytes()
            assert seen[o].setdefault(key, history) == history


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_exact_history_is_rebuilt_from_every_vector(seed):
    for history, vectors, deal in _random_histories(seed, 2):
        for o in range(4):
            rebuilt = [(seat_at(o, r), card)  # relative seats back to absolute ones
                       for trick in decode_observation(vectors[o])["history"]
                       for r, card in trick["plays"]]
            assert rebuilt == list(history)
            tricks = decode_observation(vectors[o])["history"]
            assert [t["leader"] for t in tricks[:len(deal.tricks)]] == \
                [relative_seat(t.leader, o) for t in deal.tricks]


def test_layout_1_is_a_prefix_and_layouts_are_named():
    assert OBS_LAYOUT == 2 and sorted(LAYOUT_ENDS_BEFORE) == [1, 2]
    assert obs_size(2) == OBS_SIZE
    assert obs_size(1) == SLICES["history"].start == 638
    fields_v1 = [name for name, s in SLICES.items() if s.stop <= obs_size(1)]
    assert fields_v1[0] == "hand" and fields_v1[-1] == "points_opp"
    # Layout 3 is the signs variant's: layout 2's vector, then the signs block.
    assert obs_size(3) == OBS_SIZE + 1 + 9 * 4 * 9
    try:
        obs_size(4)
    except ValueError as err:
        assert "layouts are [1, 2, 3]" in str(err)
    else:
        raise AssertionError("obs_size(4) did not raise")


def _reader_arrays():
    return (np.zeros(48, np.int64), np.zeros(4, np.int64), np.zeros(9, np.int64),
            np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.bool_),
            np.zeros(48, np.int64))


def test_the_state_reader_says_what_the_vector_reader_says():
    """read_state (engine state -> a seat's view) equals read_view of that seat's
    vector, for every seat of random positions of the batched engine."""
    game = VectorGame(64, num_deals=2, seed=11)
    game.reset()
    rng = np.random.default_rng(11)
    for step in range(150):
        for i in range(0, 64, 7):
            g = game.state[i]
            for seat in range(4):
                row = np.zeros(OBS_SIZE, np.int8)
                aluette_env.observation.write_view(g, seat, row)
                a, b = _reader_arrays(), _reader_arrays()
                got = read_state(g, seat, *a)
                want = read_view(row, *b)
                if g.trick_index < 9:
                    assert got == want
                for x, y in zip(a, b):
                    assert x.tolist() == y.tolist(), (step, i, seat)
        actions = (rng.random(game.mask.shape) * game.mask).argmax(1)
        game.step(actions)


def test_the_index_lists_and_the_incremental_writer_have_modules_of_their_own():
    """The package holds the writers and readers; the layout, the learner's index
    lists and the env's incremental writer are modules of their own, and every
    public name stays importable from ``aluette_env.observation``."""
    import importlib

    import aluette_env.observation as observation
    homes = {"layout": ("OBS_SIZE", "SLICES", "obs_size", "state_size", "SIGNS_OBS_SIZE"),
             "sparse": ("write_active", "write_hidden", "dense", "MAX_ACTIVE", "ACTIVE_PAD",
                        "HIDDEN_SIZE", "MAX_HIDDEN", "HIDDEN_PAD"),
             "incremental": ("IncrementalObservations",)}
    for module, names in homes.items():
        home = importlib.import_module(f"aluette_env.observation.{module}")
        for name in names:
            assert getattr(observation, name) is getattr(home, name), (module, name)
            assert getattr(getattr(home, name), "__module__", home.__name__) == home.__name__
    assert all(hasattr(observation, name) for name in observation.__all__)


def test_an_observation_s_layout_is_read_from_the_declaration():
    """Each layout declares its own width, so a batch (or one vector) names the
    layout it was written in; what no layout declares is one ValueError."""
    for layout in (*LAYOUT_ENDS_BEFORE, SIGNS_OBS_LAYOUT):
        assert layout_of(np.zeros((3, obs_size(layout)), np.int8)) == layout
        assert layout_of(np.zeros(obs_size(layout), np.int8)) == layout
    with pytest.raises(ValueError, match=f"an observation of {OBS_SIZE + 1} entries is of no "
                                         f"layout; layouts have .*{OBS_SIZE} \\(layout 2\\)"):
        layout_of(np.zeros((1, OBS_SIZE + 1)))
