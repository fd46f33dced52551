"""Shared helpers for building Aluette deals by hand, and the order in which
test files are handed to parallel workers."""

from __future__ import annotations

import numpy as np
import pytest

from aluette_env.game.cards import STRENGTH


def hands_for_winners(winners: str | list[int | None]) -> list[list[int]]:
    """Four hands, each in play order (k-th card played in trick k), that make
    the nine tricks go to ``winners`` whatever the leader: a seat 0-3 wins the
    trick, NOBODY or None (or 'X' in a string of digits) spoils it.

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
        if w is None or w < 0:
            level = next(lv for lv in sorted(set(STRENGTH[c] for c in deck), reverse=True)
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


def within(call, seconds: float):
    """``call()`` in a thread with a deadline: a hang fails the test instead of
    stalling it; what ``call`` returns or raises is handed back."""
    import threading
    box: dict = {}

    def go():
        try:
            box["value"] = call()
        except BaseException as err:  # noqa: BLE001 - handed back below
            box["error"] = err

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"no answer within {seconds} s (a hang)")
    if "error" in box:
        raise box["error"]
    return box["value"]


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


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def pytest_collection_modifyitems(config, items):
    """Files marked ``slow(seconds=N)`` (they train, start Ray or a browser) first,
    the costliest first, the rest in their usual order: with ``-n auto --dist
    loadfile --no-loadscope-reorder`` (the Makefile's ``test``) the workers start
    on the long files instead of meeting them last, one worker idle meanwhile."""
    def cost(item) -> float:
        mark = item.module.__dict__.get("pytestmark") if item.module else None
        marks = mark if isinstance(mark, list) else [mark] if mark else []
        return max((m.kwargs.get("seconds", 0) for m in marks if m.name == "slow"), default=0)

    items.sort(key=lambda item: -cost(item))  # stable: the usual order within a cost
