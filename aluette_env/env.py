"""Aluette as a PettingZoo AEC environment.

=======================  =====================================================
Import                   ``import aluette_env; env = aluette_env.env()``
                         (or ``pettingzoo.make("aec", "aluette_v0")``)
Agents                   ``player_0`` .. ``player_3``, clockwise; team 0 is
                         player_0 + player_2, team 1 player_1 + player_3 (R1)
Actions                  ``Discrete(48)``: the id of the card to play (R4)
Observations             ``Dict(observation=Box(0, 1, (OBS_SIZE,), int8),
                         action_mask=Box(0, 1, (48,), int8))``; the vector is
                         relative to the observing seat, laid out in
                         :mod:`aluette_env.observation`
Action mask              the hand of the agent to act (every card in hand is
                         legal, R9); all zeros for the other agents
State                    ``state()``: all hands, the unused cards and the
                         public view (``STATE_SIZE`` int8), for central critics
Rewards                  only at the step that ends a deal: +points to each
                         member of the scoring team, -points to the other team
                         (points 0, 1 or 2; zero-sum by team)
Episode                  one match of ``num_deals`` deals (R2, default 5);
                         every agent terminates after the last deal
=======================  =====================================================

``reset(seed, options)`` seeds ``np_random``; ``options`` may fix the first
dealer (``{"first_dealer": "player_2"}``) and the hands of successive deals
(``{"deals": [[hand0, hand1, hand2, hand3], ...]}``, nine card ids a hand,
seat order), for duplicate evaluation, tests and puzzles.

At the step that ends a deal every agent's ``infos`` holds ``deal_result``
(and ``match_result`` after the last deal) until the next step.

Version history:
    v0: initial release (OBS_VERSION 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import observation as obs_mod
from .cards import NUM_CARDS, STRENGTH, card_name, check_card, describe
from .observation import MAX_DEALS, MAX_POINTS, OBS_SIZE, OFFSET, STATE_SIZE
from .rules import (
    NUM_SEATS, NUM_TRICKS, Deal, DealRecord, Match, check_hands, deal_cards, team_of,
)

AGENTS = tuple(f"player_{i}" for i in range(NUM_SEATS))
SEAT = {a: i for i, a in enumerate(AGENTS)}
TEAMS = ("team_0", "team_1")

# Flat offsets in the (4, OBS_SIZE) buffer, indexed [seat][observer]: where
# the fields of "seat" sit in "observer"'s vector (relative seat order).
_REL = [[(s - o) % NUM_SEATS for o in range(NUM_SEATS)] for s in range(NUM_SEATS)]


def _per_seat(field: str, stride: int = 1) -> list[list[int]]:
    return [[o * OBS_SIZE + OFFSET[field] + _REL[s][o] * stride for o in range(NUM_SEATS)]
            for s in range(NUM_SEATS)]


_TRICK = _per_seat("trick", NUM_CARDS)
_PLAYED = _per_seat("played", NUM_CARDS)
_COUNTS = _per_seat("trick_counts", NUM_TRICKS)
_REACHED = _per_seat("reached", NUM_TRICKS)
_WON = _per_seat("won_a_trick")
_IN_RUN = _per_seat("in_run")
_LEADER = _per_seat("leader")
_TO_ACT = _per_seat("to_act")
_DEALER = _per_seat("dealer")
_WINNERS = _per_seat("trick_winners")  # + trick_index * 5 (relative seat column)
_SPOILED = [o * OBS_SIZE + OFFSET["trick_winners"] + NUM_SEATS for o in range(NUM_SEATS)]
_TRICK_INDEX = [o * OBS_SIZE + OFFSET["trick_index"] for o in range(NUM_SEATS)]
_HAND = [o * OBS_SIZE + OFFSET["hand"] for o in range(NUM_SEATS)]
_BASE = [o * OBS_SIZE for o in range(NUM_SEATS)]
_EMPTY_MASK = np.zeros(NUM_CARDS, np.int8)


def env(**kwargs: Any) -> AECEnv:
    """The environment inside PettingZoo's standard classic wrappers."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """Aluette, four players in two fixed partnerships; see the module docstring."""

    metadata = {
        "name": "aluette_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, num_deals: int = 5, render_mode: str | None = None,
                 render_hands: str | list[str] | tuple[str, ...] = ()):
        """
        Args:
            num_deals: deals in a match (R2 says five); 1 to ``MAX_DEALS``.
            render_mode: ``"ansi"`` (``render()`` returns the table as a
                string), ``"human"`` (prints it) or None.
            render_hands: agents whose hands ``render()`` shows, or ``"all"``;
                none by default, as a player sees the table.
        """
        super().__init__()
        if not isinstance(num_deals, int) or not 1 <= num_deals <= MAX_DEALS:
            raise ValueError(f"num_deals must be an int from 1 to {MAX_DEALS}, got {num_deals!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, got {render_mode!r}")
        hands = list(AGENTS) if render_hands == "all" else list(render_hands)
        for a in hands:
            if a not in SEAT:
                raise ValueError(f"render_hands names {a!r}; agents are {list(AGENTS)} or 'all'")
        self.num_deals = num_deals
        self.render_mode = render_mode
        self.render_hands = hands
        self.possible_agents = list(AGENTS)
        self.agents = []
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0, 1, (OBS_SIZE,), np.int8),
            "action_mask": spaces.Box(0, 1, (NUM_CARDS,), np.int8),
        })
        self._act_space = spaces.Discrete(NUM_CARDS)
        self.observation_spaces = {a: self._obs_space for a in AGENTS}
        self.action_spaces = {a: self._act_space for a in AGENTS}
        self.state_space = spaces.Box(0, 1, (STATE_SIZE,), np.int8)
        self.np_random, self.np_random_seed = None, None
        self._buf = bytearray(NUM_SEATS * OBS_SIZE)
        self._obs = np.frombuffer(self._buf, np.int8).reshape(NUM_SEATS, OBS_SIZE)
        self.match: Match | None = None
        self.deal: Deal | None = None
        self.last_trick = None

    # -- spaces ---------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    # -- pickling: the numpy view must point into the restored bytearray ------

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_obs"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._obs = np.frombuffer(self._buf, np.int8).reshape(NUM_SEATS, OBS_SIZE)

    # -- reset ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        first_dealer, deals = self._parse_options(options)
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        if first_dealer is None:
            first_dealer = int(self.np_random.integers(NUM_SEATS))
        self._fixed_deals = deals
        self.match = Match(first_dealer=first_dealer, num_deals=self.num_deals)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self._dirty = False  # rewards/infos of the previous step need clearing
        self.last_trick = None
        self._start_deal()

    def _parse_options(self, options: dict | None) -> tuple[int | None, list | None]:
        if options is None:
            return None, None
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        unknown = set(options) - {"first_dealer", "deals"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; "
                             f"allowed: 'first_dealer', 'deals'")
        first_dealer = options.get("first_dealer")
        if first_dealer is not None:
            first_dealer = seat_of(first_dealer)
        deals = options.get("deals")
        if deals is not None:
            if isinstance(deals, (str, bytes)) or not hasattr(deals, "__len__"):
                raise ValueError("options['deals'] must be a list of deals, each 4 hands of 9 card ids")
            if not 1 <= len(deals) <= self.num_deals:
                raise ValueError(f"options['deals'] holds {len(deals)} deals; "
                                 f"give 1 to {self.num_deals} (num_deals)")
            checked = []
            for i, d in enumerate(deals):
                try:
                    checked.append(check_hands(d))
                except ValueError as err:
                    raise ValueError(f"options['deals'][{i}]: {err}") from None
            deals = checked
        return first_dealer, deals

    def _start_deal(self) -> None:
        match = self.match
        k = match.deal_index
        if self._fixed_deals is not None and k < len(self._fixed_deals):
            hands = [list(h) for h in self._fixed_deals[k]]
            self.deal = Deal(hands, match.dealer)
        else:
            hands, unused = deal_cards(self.np_random.permutation(NUM_CARDS).tolist(), match.dealer)
            self.deal = Deal(hands, match.dealer, unused)
        self._write_deal_start()
        self.agent_selection = AGENTS[self.deal.to_act]

    def _write_deal_start(self) -> None:
        """Observation buffers at the start of a deal: nothing played yet."""
        buf, deal, match = self._buf, self.deal, self.match
        self._obs[:] = 0
        leader, dealer = deal.leader, deal.dealer
        k = match.deal_index
        for o in range(NUM_SEATS):
            base = _BASE[o]
            for card in deal.hands[o]:
                buf[base + card] = 1
            buf[_LEADER[leader][o]] = 1
            buf[_TO_ACT[leader][o]] = 1
            buf[_DEALER[dealer][o]] = 1
            buf[_TRICK_INDEX[o]] = 1
            buf[base + OFFSET["deal"] + min(k, MAX_DEALS - 1)] = 1
            buf[base + OFFSET["deals_left"] + min(match.num_deals - k, MAX_DEALS) - 1] = 1
            own, opp = match.points[o & 1], match.points[1 - (o & 1)]
            start = base + OFFSET["points_own"]
            buf[start:start + min(own, MAX_POINTS)] = b"\x01" * min(own, MAX_POINTS)
            start = base + OFFSET["points_opp"]
            buf[start:start + min(opp, MAX_POINTS)] = b"\x01" * min(opp, MAX_POINTS)

    # -- observe / state --------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = SEAT[agent]
        vec = self._obs[seat].copy()
        if seat == self.deal.to_act and not self.match.over:
            mask = vec[:NUM_CARDS].copy()
        else:
            mask = _EMPTY_MASK.copy()
        return {"observation": vec, "action_mask": mask}

    def state(self) -> np.ndarray:
        return obs_mod.encode_state(self.deal, self.match)

    # -- step -------------------------------------------------------------------

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        deal = self.deal
        seat = deal.to_act
        card = self._check_action(action, seat)
        if self._dirty:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.infos = {a: {} for a in self.agents}
            self._dirty = False
        self._cumulative_rewards[agent] = 0.0

        trick = deal.play(card)
        buf = self._buf
        buf[_HAND[seat] + card] = 0
        pos = _TRICK[seat]
        buf[pos[0] + card] = buf[pos[1] + card] = buf[pos[2] + card] = buf[pos[3] + card] = 1
        if trick is not None:
            self.last_trick = trick
            self._write_trick_end(trick)
        nxt = deal.to_act
        old, new = _TO_ACT[seat], _TO_ACT[nxt]
        for o in range(NUM_SEATS):
            buf[old[o]] = 0
            buf[new[o]] = 1
        if trick is not None and deal.done:
            self._end_deal()
        else:
            self.agent_selection = AGENTS[nxt]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action: Any, seat: int) -> int:
        try:
            card = check_card(action)
        except ValueError as err:
            raise ValueError(f"player_{seat} must play a card id 0-47: {err}; "
                             f"legal: {self.deal.legal_cards()}") from None
        if self.deal.holder[card] != seat:
            raise ValueError(f"card {describe(card)} is not in player_{seat}'s hand; "
                             f"legal: {self.deal.legal_cards()}")
        return card

    def _write_trick_end(self, trick) -> None:
        buf, deal = self._buf, self.deal
        leader, i, w = trick.leader, trick.index, trick.winner
        seat = leader
        for card in trick.cards:
            t, p = _TRICK[seat], _PLAYED[seat]
            for o in range(NUM_SEATS):
                buf[t[o] + card] = 0
                buf[p[o] + card] = 1
            seat = (seat + 1) & 3
        in_run = deal.in_run
        if w is None:
            for o in range(NUM_SEATS):
                buf[_SPOILED[o] + 5 * i] = 1
        else:
            n = deal.counts[w]
            for o in range(NUM_SEATS):
                buf[_WINNERS[w][o] + 5 * i] = 1
                buf[_COUNTS[w][o] + n - 1] = 1
                buf[_REACHED[w][o] + i] = 1
                buf[_WON[w][o]] = 1
            if n > 1:
                prev = _REACHED[w]
                for o in range(NUM_SEATS):
                    buf[prev[o] + self._prev_reach(w, i)] = 0
            if w != leader:
                old, new = _LEADER[leader], _LEADER[w]
                for o in range(NUM_SEATS):
                    buf[old[o]] = 0
                    buf[new[o]] = 1
        for s in range(NUM_SEATS):
            v = in_run[s]
            r = _IN_RUN[s]
            buf[r[0]] = buf[r[1]] = buf[r[2]] = buf[r[3]] = v
        for o in range(NUM_SEATS):
            buf[_TRICK_INDEX[o] + i] = 0
            if i + 1 < NUM_TRICKS:
                buf[_TRICK_INDEX[o] + i + 1] = 1
        if i + 1 == NUM_TRICKS:  # no trick in progress any more
            for o in range(NUM_SEATS):
                buf[_LEADER[deal.leader][o]] = 0

    def _prev_reach(self, seat: int, now: int) -> int:
        """Trick index of ``seat``'s previous win before trick ``now``."""
        winners = self.deal.trick_winners
        for j in range(now - 1, -1, -1):
            if winners[j] == seat:
                return j
        raise AssertionError("a seat with two wins has an earlier win")

    def _end_deal(self) -> None:
        deal, match = self.deal, self.match
        record = match.record(deal)
        self._dirty = True
        rewards = self.rewards
        for a in AGENTS:
            rewards[a] = float(record.team_points[SEAT[a] & 1] - record.team_points[1 - (SEAT[a] & 1)])
        result = deal_result(record)
        match_result = None
        if match.over:
            w = match.winner()
            match_result = {"points": {"team_0": match.points[0], "team_1": match.points[1]},
                            "winner": None if w is None else TEAMS[w]}
        for a in AGENTS:
            info = {"deal_result": _copy_result(result)}
            if match_result is not None:
                info["match_result"] = {"points": dict(match_result["points"]),
                                        "winner": match_result["winner"]}
            self.infos[a] = info
        if match.over:
            # Trick/deal-in-progress fields go quiet; the final score shows.
            for o in range(NUM_SEATS):
                buf, base = self._buf, _BASE[o]
                for field in ("to_act", "leader", "trick_index", "deal", "deals_left"):
                    start = base + OFFSET[field]
                    n = obs_mod.SLICES[field].stop - obs_mod.SLICES[field].start
                    buf[start:start + n] = bytes(n)
                self._write_points(o)
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[deal.to_act]
        else:
            self._start_deal()

    def _write_points(self, o: int) -> None:
        buf, base, pts = self._buf, _BASE[o], self.match.points
        for field, value in (("points_own", pts[o & 1]), ("points_opp", pts[1 - (o & 1)])):
            start = base + OFFSET[field]
            n = min(value, MAX_POINTS)
            buf[start:start + MAX_POINTS] = b"\x01" * n + bytes(MAX_POINTS - n)

    # -- render -----------------------------------------------------------------

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; "
                                  "pass render_mode='ansi' or 'human' to aluette_env.env()")
            return None
        text = render_table(self, self.render_hands)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------- helpers


def seat_of(player: Any) -> int:
    """``"player_2"`` (or the int 2) -> seat 2; ValueError otherwise."""
    if isinstance(player, str) and player in SEAT:
        return SEAT[player]
    if isinstance(player, (int, np.integer)) and not isinstance(player, bool) and 0 <= player < 4:
        return int(player)
    raise ValueError(f"unknown player {player!r}; players are {list(AGENTS)}")


def deal_result(record: DealRecord) -> dict[str, Any]:
    """The ``infos[a]["deal_result"]`` dict of a finished deal."""
    score = record.score
    return {
        "deal": record.deal,
        "dealer": AGENTS[record.dealer],
        "trick_winners": [None if w is None else AGENTS[w] for w in record.trick_winners],
        "trick_counts": {AGENTS[s]: record.trick_counts[s] for s in range(NUM_SEATS)},
        "winner": None if score.winner is None else AGENTS[score.winner],
        "mordienne": score.mordienne,
        "points": {"team_0": record.team_points[0], "team_1": record.team_points[1]},
    }


def _copy_result(result: dict) -> dict:
    out = dict(result)
    out["trick_winners"] = list(result["trick_winners"])
    out["trick_counts"] = dict(result["trick_counts"])
    out["points"] = dict(result["points"])
    return out


def render_table(e: raw_env, show_hands: list[str] = (), lang: str = "en") -> str:
    """The table as a player sees it: match score, dealer, trick counts and who
    reached them first, the trick in progress, and the hands asked for."""
    match, deal = e.match, e.deal
    if match is None:
        return "(no match: call reset())"
    lines = []
    deal_no = min(match.deal_index + 1, match.num_deals) if not match.over else match.num_deals
    status = "match over" if match.over else f"trick {deal.trick_index + 1}/9"
    lines.append(f"Aluette · deal {deal_no}/{match.num_deals} · dealer {AGENTS[deal.dealer]} · {status}")
    lines.append(f"Match points: team_0 (player_0+player_2) {match.points[0]} — "
                 f"team_1 (player_1+player_3) {match.points[1]}")
    counts = []
    order = sorted((s for s in range(NUM_SEATS) if deal.counts[s]),
                   key=lambda s: (-deal.counts[s], deal.reached[s]))
    for s in range(NUM_SEATS):
        mark = " (leads the deal)" if order and s == order[0] else ""
        mark += " *Mordienne run*" if deal.in_run[s] and deal.counts[s] >= 2 else ""
        counts.append(f"  {AGENTS[s]}: {deal.counts[s]} trick(s){mark}")
    lines.append("Tricks won (ties go to whoever reached the number first):")
    lines.extend(counts)
    tw = "".join("X" if w is None else str(w) for w in deal.trick_winners)
    lines.append(f"Trick winners so far: {tw or '-'}   (digit = player, X = spoiled)")
    if e.last_trick is not None and e.last_trick.index == deal.trick_index - 1:
        t = e.last_trick
        who = "spoiled" if t.winner is None else f"won by {AGENTS[t.winner]}"
        played = ", ".join(f"{AGENTS[(t.leader + k) % 4]} {card_name(c, lang)}"
                           for k, c in enumerate(t.cards))
        lines.append(f"Last trick: {played} — {who}")
    if not deal.done:
        lines.append(f"Trick {deal.trick_index + 1}, led by {AGENTS[deal.leader]}:")
        if not deal.trick_cards:
            lines.append("  (no card yet)")
        for k, c in enumerate(deal.trick_cards):
            lines.append(f"  {AGENTS[(deal.leader + k) % 4]}: {card_name(c, lang)}")
        lines.append(f"To play: {AGENTS[deal.to_act]}")
    for a in show_hands:
        hand = sorted(deal.hands[SEAT[a]], key=lambda c: (-STRENGTH[c], c))
        lines.append(f"{a}'s hand: " + ", ".join(f"[{c}] {card_name(c, lang)}" for c in hand))
    return "\n".join(lines)
