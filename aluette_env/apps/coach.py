"""The coach at the table: the expert search player's view of a person's play.

* **Hint** (:meth:`Coach.hint`): on a seat's turn, the expert's estimate for
  every card in its hand: the mean points of the deal for the seat's team if it
  plays that card, the same relative to the expert's preferred card, and the
  uncertainty of that difference (a paired standard error over the sampled
  worlds). It is computed from the seat's observation alone, exactly as an AI
  player's move (:meth:`~aluette_env.players.search.ExpertPlayer.card_values`),
  so it never uses a card the seat cannot see.
* **Review** (:meth:`Coach.review_deal`): each decision of the chosen seats in
  a finished deal of a match record (:mod:`aluette_env.records`), with the
  expert's preferred card and the estimated cost of the card played (the
  preferred card's value minus the played card's). A play is a *mistake* only
  when its cost exceeds the estimate's uncertainty. :func:`match_summary`
  gives each seat's mean cost per decision. The preferred card is the one
  with the best estimate (the expert with ``confidence=0``), so a cost is never
  negative; as the best of noisy estimates, it is slightly optimistic, so even
  perfect play shows a small mean cost: compare seats reviewed with the same
  effort.
* **Background reviews** (:class:`ReviewQueue`): reviews computed in one worker
  thread while the person plays, so the game never waits for them.

The effort is set by the number of sampled worlds: ``hint_worlds`` (default
96: a hint searches every card, so it costs more than one of the expert's
moves) and ``review_worlds`` (default 48). Two expert objects, each behind a
lock, so a hint never waits behind a review's search.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from concurrent.futures import Future
from typing import Any
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from aluette_env.game import NUM_CARDS, Deal
from aluette_env.observation import encode_observation
from aluette_env.records import positions

HINT_WORLDS = 96
REVIEW_WORLDS = 48
MAX_WORLDS = 4096


def _check_worlds(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WORLDS:
        raise ValueError(f"{name} must be an integer from 1 to {MAX_WORLDS}, got {value!r}")
    return value


class Coach:
    """Hints and reviews by the expert (``policy``: its guiding policy spec; None: the
    expert's own)."""

    def __init__(self, hint_worlds: int = HINT_WORLDS, review_worlds: int = REVIEW_WORLDS,
                 seed: int = 0, policy: str | None = None):
        from aluette_env.players.search import ExpertPlayer
        self.hint_worlds = _check_worlds("hint_worlds", hint_worlds)
        self.review_worlds = _check_worlds("review_worlds", review_worlds)
        # confidence=0: the preferred card is the best estimate, so no other card
        # shows as a gain over it (a move of the expert keeps its policy's card
        # unless another is clearly better).
        self._hinter = ExpertPlayer(worlds=hint_worlds, seed=seed, policy=policy,
                                    confidence=0.0)
        self._reviewer = ExpertPlayer(worlds=review_worlds, seed=seed, policy=policy,
                                      confidence=0.0)
        self._hint_lock = threading.Lock()
        self._review_lock = threading.Lock()

    # ------------------------------------------------------------------ hints

    def hint_for(self, observation: np.ndarray, action_mask: np.ndarray) -> dict[str, Any]:
        """The hint of one decision, from the deciding seat's observation."""
        with self._hint_lock:
            values = self._hinter.card_values(observation, action_mask)
        return _estimates(values)

    def hint(self, deal: Deal, seat: int) -> dict[str, Any]:
        """The hint for ``seat``, which must be the seat to act in ``deal``:
        ``{"cards": [{"card", "value", "delta", "stderr", "best"}], "best",
        "worlds"}``, cards best first (``delta``: value minus the best card's)."""
        if deal.done or deal.to_act != seat:
            raise ValueError(f"no hint for player_{seat}: it is not that seat's turn")
        obs, mask = observe(deal, seat)
        return self.hint_for(obs, mask)

    # ----------------------------------------------------------------- reviews

    def review_deal(self, record: dict[str, Any], deal_index: int,
                    seats: Iterable[int]) -> dict[str, Any]:
        """The review of deal ``deal_index`` of a loaded record, for the decisions
        of ``seats``: ``{"deal", "plays": [...]}``, one entry per play of the deal
        (every seat's card, in order), with ``review`` set for the chosen seats."""
        if not 0 <= deal_index < len(record["deals"]):
            raise ValueError(f"deal {deal_index} is not in the record; it holds deals "
                             f"0-{len(record['deals']) - 1}")
        seats = set(seats)
        plays = []
        for pos in positions(record):
            if pos.deal_index < deal_index:
                continue
            if pos.deal_index > deal_index:
                break
            entry: dict[str, Any] = {"seat": pos.seat, "card": pos.card,
                                     "trick": pos.play_index // 4, "review": None}
            if pos.seat in seats:
                obs, mask = observe(pos.deal, pos.seat)
                with self._review_lock:
                    values = self._reviewer.card_values(obs, mask)
                entry["review"] = judge(_estimates(values), pos.card)
            plays.append(entry)
        return {"deal": deal_index, "plays": plays}


def observe(deal: Deal, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s observation and legal-card mask (what its AI would be given)."""
    obs = encode_observation(deal, seat)
    mask = np.zeros(NUM_CARDS, np.int8)
    mask[deal.hand(seat)] = 1
    return obs, mask


def _estimates(values) -> dict[str, Any]:
    best = int(values.best)
    k_best = int(np.flatnonzero(values.cards == best)[0])
    top = float(values.value[k_best])
    cards = [{"card": int(c), "value": round(float(v), 4), "delta": round(float(v) - top, 4),
              "stderr": round(float(e), 4), "best": int(c) == best}
             for c, v, e in zip(values.cards, values.value, values.stderr, strict=True)]
    cards.sort(key=lambda e: (not e["best"], -e["value"], e["card"]))
    return {"cards": cards, "best": best, "worlds": int(values.worlds)}


def judge(estimates: dict[str, Any], card: int) -> dict[str, Any]:
    """A played ``card`` against the estimates of its decision: the expert's
    card, the cost of ``card`` in points and whether it is a mistake (a cost
    larger than the estimate's uncertainty)."""
    entry = next(e for e in estimates["cards"] if e["card"] == card)
    cost = -entry["delta"] + 0.0  # no -0.0
    return {"best": estimates["best"], "cost": round(cost, 4), "stderr": entry["stderr"],
            "mistake": cost > entry["stderr"] and cost > 0, "estimates": estimates["cards"]}


def match_summary(reviews: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each reviewed seat's decisions, mistakes and mean cost per decision over
    ``reviews`` (deal reviews of one match): ``{"seats": {seat: {...}}}``."""
    out: dict[int, dict[str, Any]] = {}
    for review in reviews:
        for play in review["plays"]:
            r = play["review"]
            if r is None:
                continue
            s = out.setdefault(play["seat"], {"decisions": 0, "mistakes": 0, "total_cost": 0.0})
            s["decisions"] += 1
            s["mistakes"] += int(r["mistake"])
            s["total_cost"] += r["cost"]
    for s in out.values():
        s["mean_cost"] = round(s["total_cost"] / s["decisions"], 4)
        s["total_cost"] = round(s["total_cost"], 4)
    return {"seats": {str(k): v for k, v in sorted(out.items())}}


class _Job:
    """One queued review: its future, its arguments and its class."""

    __slots__ = ("future", "args", "background", "tries")

    def __init__(self, args: tuple, background: bool, tries: int = 0):
        self.future: Future = Future()
        self.args = args
        self.background = background
        self.tries = tries


class ReviewQueue:
    """Deal reviews computed one at a time in a background thread, keyed by
    (match key, deal index); :meth:`get` never waits. ``review`` computes one:
    a :class:`Coach`'s :meth:`~Coach.review_deal`, or any function of the same
    arguments (the web server's sends the work to a worker process).

    Two classes of jobs: the deals of games being played (the default) come
    first; ``background`` jobs (the deals of uploaded records) run only when no
    other job waits. Each class keeps at most its own number of jobs (``max_kept``,
    ``max_background``), forgetting its oldest: an upload never evicts a live
    game's review. A review that failed (its worker process died twice) is
    queued again when it is next asked for, up to ``MAX_TRIES`` tries."""

    MAX_TRIES = 3

    def __init__(self, review: Callable[[dict, int, tuple], dict[str, Any]],
                 max_kept: int = 2000, max_background: int | None = None):
        self.review = review
        self.max_kept = max_kept
        self.max_background = max_kept if max_background is None else max_background
        self._jobs: dict[tuple[str, int], _Job] = {}  # oldest first
        self._heap: list[tuple[int, int, _Job]] = []
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, key: str, record: dict[str, Any], deal_index: int,
               seats: Iterable[int], background: bool = False) -> None:
        """Queue the review of a finished deal (once per key and deal)."""
        seats = tuple(seats)
        with self._lock:
            if self._closed or (key, deal_index) in self._jobs:
                return
            cap = self.max_background if background else self.max_kept
            same = [k for k, j in self._jobs.items() if j.background == background]
            while same and len(same) >= cap:  # forget the oldest of its class
                self._jobs.pop(same.pop(0)).future.cancel()
            job = _Job((record, deal_index, seats), background)
            self._jobs[(key, deal_index)] = job
            self._push(job)

    def _push(self, job: _Job) -> None:
        """(Under the lock.) Queue ``job``; start the thread on first use."""
        heapq.heappush(self._heap, (int(job.background), next(self._order), job))
        self._wake.notify()
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="review", daemon=True)
            self._thread.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._heap and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                _, _, job = heapq.heappop(self._heap)
            if not job.future.set_running_or_notify_cancel():
                continue  # forgotten while it waited
            try:
                result = self.review(*job.args)
            except BaseException as err:  # noqa: BLE001 - kept in the future
                job.future.set_exception(err)
            else:
                job.future.set_result(result)

    def get(self, key: str, deal_index: int) -> dict[str, Any] | None:
        """The review if it is done, else None (queued, running, failed and queued
        again, or never asked)."""
        with self._lock:
            job = self._jobs.get((key, deal_index))
            if job is None or not job.future.done() or job.future.cancelled():
                return None
            if job.future.exception() is not None:
                if job.tries + 1 < self.MAX_TRIES and not self._closed:
                    again = _Job(job.args, job.background, job.tries + 1)
                    self._jobs[(key, deal_index)] = again
                    self._push(again)
                return None
        return job.future.result()

    def known(self, key: str, deal_index: int) -> bool:
        with self._lock:
            return (key, deal_index) in self._jobs

    def wait(self, key: str, deal_index: int, timeout: float | None = None) -> dict[str, Any]:
        """The review, waiting for it (tests, the terminal at the end of a match)."""
        with self._lock:
            job = self._jobs[(key, deal_index)]
        return job.future.result(timeout)

    def forget(self, key: str) -> None:
        with self._lock:
            for k in [k for k in self._jobs if k[0] == key]:
                self._jobs.pop(k).future.cancel()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for job in self._jobs.values():
                job.future.cancel()
            self._wake.notify_all()
