"""Shared helpers for building Aluette deals by hand, and how the tests split
over pytest-xdist workers (``make test`` runs ``pytest -n auto --dist loadgroup``)."""

from __future__ import annotations

import numpy as np
import pytest

from aluette_env.game.cards import STRENGTH


def hands_for_winners(winners: str | list[int | None]) -> list[list[int]]:
    """Four hands, each in play order (k-th card played in trick k), that make
    the nine tricks go to ``winners`` whatever the leader: a seat 0-3 wins the
    trick, None (or 'X' in a string of digits) spoils it.

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
        if w is None:
            level = next(lv for lv in sorted({STRENGTH[c] for c in deck}, reverse=True)
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


#: Test files whose tests must all run in one worker, by xdist group: each builds an
#: expensive module fixture (a training run, a Ray cluster, a server and a browser)
#: that every worker would otherwise build again, or holds a resource two workers
#: must not share. A file may say the same with ``pytestmark = pytest.mark.xdist_group(...)``.
WORKER_GROUPS = {
    "test_export.py": "trained_quick_run",
    "test_rllib.py": "ray",
    "test_web_browser.py": "browser",
    "test_layout.py": "wheel_build",
}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks (its own modifyitems)
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = WORKER_GROUPS.get(item.path.name)
        if group and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
