"""Aluette as a PettingZoo AEC environment (PettingZoo and Gymnasium only; the
rules come from :mod:`aluette_env.game`, the vectors from
:mod:`aluette_env.observation`).

=======================  =====================================================
Import                   ``from aluette_env import aluette_v1;
                         env = aluette_v1.env()`` (or, once this module is
                         loaded, ``pettingzoo.make("aec", "aluette_v1")``);
                         ``aluette_env.env()`` is the newest version
Agents                   ``player_0`` .. ``player_3``, clockwise; team 0 is
                         player_0 + player_2, team 1 player_1 + player_3 (R1)
Actions                  ``Discrete(48)``: the id of the card to play (R4)
Observations             ``Dict(observation=Box(0, 1, (n,), int8),
                         action_mask=Box(0, 1, (48,), int8))``; the vector is
                         relative to the observing seat, laid out in
                         :mod:`aluette_env.observation`: ``n`` is
                         ``obs_size(raw_env.obs_layout)``, 1,070 in v1
Action mask              the hand of the agent to act (every card in hand is
                         legal, R9); all zeros for the other agents
State                    ``state()``: all hands, the unused cards and the
                         public view (``state_size(raw_env.obs_layout)``
                         int8), for central critics
Rewards                  only at the step that ends a deal: +points to each
                         member of the scoring team, -points to the other team
                         (points 0, 1 or 2; zero-sum by team)
Episode                  one match of ``num_deals`` deals (R2, default 5);
                         every agent terminates after the last deal
=======================  =====================================================

``reset(seed, options)`` seeds ``np_random``; ``options`` may fix the first
dealer (``{"first_dealer": "player_2"}``) and the hands of successive deals
(``{"deals": [[hand0, hand1, hand2, hand3], ...]}``, nine card ids a hand,
seat order), for duplicate evaluation, tests and puzzles. Other option keys
are ignored with a warning through Gymnasium's logger (as Gymnasium envs
treat options they do not know); a malformed value of a known key raises
ValueError.

At the step that ends a deal every agent's ``infos`` holds ``deal_result``
(and ``match_result`` after the last deal) until the next step. They name
agents and teams (``"player_2"``, None for a spoiled trick or no winner);
``env(numeric_infos=True)`` numbers them instead (seats 0-3, teams 0-1, -1 for
none), for libraries whose replay buffers take numbers only (Tianshou; see
:func:`aluette_env.game.deal_result`).

**The variant** an env plays is one object, ``env.variant`` (an
:class:`aluette_env.game.Variant`: its env id, actions, legal actions, chance
draws, who knows which sign and its observation); ``raw_env(variant=...)``
plays any, and each version module fixes its own in a plain subclass
(``variant = ...``; its ``metadata["name"]`` is the variant's env id). An env
of another shipped variant is of that version's class; a variant no module
ships carries its name in its env's own ``metadata``.

**The signs variant** (``aluette_signs_v0.env(catch=0.25)``, the variant
:data:`~aluette_env.game.ALUETTE_SIGNS_V0`; ``env(signs=True, catch=0.25)``,
deprecated, still builds it; docs/RULES.md S1-S5): each turn is two steps. The seat to
act first makes a sign or none (a sign action, ``48 + sign``: 48 silence,
49-57 the nine signs of ``aluette_env.game.SIGNS``), then plays its card;
``Discrete(58)`` actions, a 58-entry mask (the ten sign actions in the sign
phase, the hand in the card phase). The partner always sees a sign; each
opponent catches it with probability ``catch``, drawn from ``np_random`` when a
deal is dealt; ``reset(options={"catches": [...]})`` fixes them (per deal, 9
tricks x 4 signers x 4 observers of 0/1; only the signer's opponents' entries
count), so duplicate evaluation replays the same catches. The observation is
observation layout 3 (1,395 entries): layout 2's, then the signs the seat saw
(``observation.write_signs``); ``state()`` adds every sign made.

Version history (PettingZoo's: a new suffix whenever the observations or the
dynamics change; every version stays loadable, so old experiments repeat):
    v1 (:mod:`aluette_env.aluette_v1`): the perfect-recall observation,
    observation layout 2 (1,070 entries: ``history`` adds the trick of every card
    played this deal); the state grows to match.
    v0 (:mod:`aluette_env.aluette_v0`): initial release, observation layout 1 (638
    entries). It gives exactly v1's first ``obs_size(1)`` entries (and the state's
    first ``state_size(1)``): the same spaces and values as before v1.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .game import (
    AGENTS, CARD_PLAYED, DEAL_DONE, MATCH_DONE, NUM_CARDS, NUM_SEATS, NUM_SIGN_ACTIONS, NUM_TRICKS,
    SEAT, SIGN_BASE, VARIANTS, Deal, Match, Variant, check_card, check_hands, deal_result, describe,
    match_result, seat_gain, seat_of, variant_of, write_legal,
)
from .game.variant import NEWEST, SIGNS_A_DEAL
from .observation import MAX_DEALS, OBS_SIZE, IncrementalObservations, observer
from .render import render_table

_EMPTY_MASK = np.zeros(NUM_CARDS, np.int8)


def env(**kwargs: Any) -> AECEnv:
    """The newest version inside PettingZoo's standard classic wrappers."""
    return wrap(raw_env(**kwargs))


def wrap(e: AECEnv) -> AECEnv:
    """A raw env of any version inside PettingZoo's standard classic wrappers."""
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = _OrderEnforcingWrapper(e)
    return e


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper that also refuses an action that is not a
    card id before the inner wrappers see it: they would index the action mask with
    it (``True`` selects the whole mask and fails with numpy's "truth value ...
    ambiguous") or assert without a message. A subclass, not one more layer: every
    wrapper layer costs each step its attribute delegation."""

    def step(self, action: Any) -> None:
        if self._has_reset:
            if not self.unwrapped.agents:
                raise ValueError(f"step({action!r}): the match is over and every agent is "
                                 f"done; call reset() to play another"[:300])
            agent = self.agent_selection
            if action is not None or not (self.terminations[agent] or self.truncations[agent]):
                try:
                    check_card(action)
                except ValueError as err:
                    variant = self.unwrapped.variant
                    if variant.num_actions == NUM_CARDS:
                        raise ValueError(f"{agent}'s action: {err}") from None
                    if not variant.is_action(action):  # the variant's actions, not the deck's
                        shown = action if isinstance(action, (int, np.integer)) else repr(action)
                        raise ValueError(f"{agent}'s action: {str(shown)[:40]} is not an action "
                                         f"of {variant.env_id}; its actions are "
                                         f"{variant.describe_actions()}") from None
        super().step(action)


class raw_env(AECEnv):
    """Aluette, four players in two fixed partnerships; see the module docstring.
    It plays the variant ``variant`` (by default the class's: the newest
    default game here, :data:`~aluette_env.game.ALUETTE_V1`); each version
    module (:mod:`aluette_env.aluette_v1`, ...) is a subclass that fixes its
    own, so a later version never changes an earlier one. ``metadata["name"]``
    is the variant's env id."""

    metadata = {
        "name": NEWEST.env_id,
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    #: The variant this class plays unless told another.
    variant: Variant = NEWEST
    #: The observation layout it gives, whether it has signs (S1-S5) and their
    #: chance of a catch (S4): its variant's (on an env, the variant it plays).
    obs_layout: int = NEWEST.obs_layout
    signs: bool = NEWEST.signs
    catch: float = NEWEST.catch

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A version's class (``class raw_env(aec.raw_env): variant = ...``) gets
        its variant's env id as ``metadata["name"]`` and its fields above."""
        super().__init_subclass__(**kwargs)
        cls.metadata = {**cls.metadata, "name": cls.variant.env_id}
        cls.obs_layout, cls.signs, cls.catch = (cls.variant.obs_layout, cls.variant.signs,
                                                cls.variant.catch)

    def __new__(cls, *args: Any, variant: Variant | None = None, signs: bool | None = None,
                catch: float | None = None, **kwargs: Any) -> raw_env:
        """An env of another shipped variant than the class's is of that version's
        class (:mod:`aluette_env.aluette_signs_v0`, ...), so ``metadata`` is a
        class attribute naming its game."""
        chosen = variant_of(variant, signs, catch, base=cls.variant)
        if chosen.env_id != cls.variant.env_id and chosen.env_id in VARIANTS:
            version = importlib.import_module(f"aluette_env.{chosen.env_id}").raw_env
            if not issubclass(version, cls):
                raise ValueError(f"{cls.variant.env_id}'s env plays {cls.variant.env_id}; "
                                 f"{chosen.env_id} is aluette_env.{chosen.env_id}'s")
            cls = version
        return super().__new__(cls)

    def __init__(self, num_deals: int | None = None, render_mode: str | None = None,
                 render_hands: str | list[str] | tuple[str, ...] = (),
                 numeric_infos: bool = False, *, variant: Variant | None = None,
                 signs: bool | None = None, catch: float | None = None):
        """
        Args:
            num_deals: deals in a match (R2 says five: the variant's
                ``num_deals``); 1 to ``MAX_DEALS``.
            render_mode: ``"ansi"`` (``render()`` returns the table as a
                string), ``"human"`` (prints it) or None.
            render_hands: agents whose hands ``render()`` shows (a list, one
                agent name, or ``"all"``);
                none by default, as a player sees the table.
            numeric_infos: the deal and match results in ``infos`` with seats
                and teams as numbers (-1: none) instead of names.
            variant: the game played (:class:`aluette_env.game.Variant`).
            signs, catch: the older way to ask for the signs variant,
                deprecated (a DeprecationWarning; never beside ``variant``):
                ``signs=True`` is ``ALUETTE_SIGNS_V0`` with ``catch``, the
                chance that each opponent catches a sign (S4), 0 to 1. On an
                env whose game has signs (``aluette_signs_v0``) ``catch`` is
                that game's parameter, no warning.
        """
        super().__init__()
        variant = variant_of(variant, signs, catch, base=type(self).variant)
        if num_deals is None:
            num_deals = variant.num_deals
        if isinstance(num_deals, bool) or not isinstance(num_deals, (int, np.integer)) \
                or not 1 <= num_deals <= MAX_DEALS:
            raise ValueError(f"num_deals must be an int from 1 to {MAX_DEALS}, got {num_deals!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, got {render_mode!r}")
        hands = _render_hands(render_hands)
        if not isinstance(numeric_infos, bool):
            raise ValueError(f"numeric_infos must be True or False, got {numeric_infos!r}")
        self.variant = variant
        self.obs_layout, self.signs, self.catch = variant.obs_layout, variant.signs, variant.catch
        if variant.env_id != self.metadata["name"]:
            # A variant no version module ships (one a user or a test defines)
            # carries its name on its env.
            self.metadata = {**self.metadata, "name": variant.env_id}
        self._observer = observer(variant)
        self.numeric_infos = numeric_infos
        self.num_deals = int(num_deals)
        self.render_mode = render_mode
        self.render_hands = hands
        self.possible_agents = list(AGENTS)
        self.agents = []
        self._obs_width = self._observer.size
        self._num_actions = variant.num_actions
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0, 1, (self._obs_width,), np.int8),
            "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
        })
        self._act_space = spaces.Discrete(self._num_actions)
        self.observation_spaces = {a: self._obs_space for a in AGENTS}
        self.action_spaces = {a: self._act_space for a in AGENTS}
        self._state_width = self._observer.state_size
        self.state_space = spaces.Box(0, 1, (self._state_width,), np.int8)
        self.np_random, self.np_random_seed = None, None
        # The default game's observations are kept up to date play by play; a
        # layout the incremental writer does not know is written at each observe.
        self._enc = IncrementalObservations(self._obs_width) \
            if not self._observer.signs and self._obs_width <= OBS_SIZE else None
        self.match: Match | None = None
        self.deal: Deal | None = None
        self.last_trick = None

    # -- spaces ---------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    # -- reset ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):
            raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}"[:200])
        seed = None if seed is None else int(seed)  # gymnasium's seeding takes Python ints
        first_dealer, deals, catches = self._parse_options(options)
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        if first_dealer is None:
            first_dealer = int(self.np_random.integers(NUM_SEATS))
        self._fixed_deals = deals
        self._fixed_catches = catches
        self.match = self.variant.new_match(first_dealer, self.num_deals)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self._dirty = False  # rewards/infos of the previous step need clearing
        self.last_trick = None
        self._start_deal()

    def _parse_options(self, options: dict | None
                       ) -> tuple[int | None, list | None, list | None]:
        if options is None:
            return None, None, None
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        known = {"first_dealer", "deals", "catches"} if self.signs else {"first_dealer", "deals"}
        unknown = set(options) - known
        if unknown:
            logger.warn(f"reset() ignores unknown option(s) {sorted(map(str, unknown))}; "
                        f"known: {', '.join(repr(k) for k in sorted(known))}")
        first_dealer = options.get("first_dealer")
        if first_dealer is not None:
            try:
                first_dealer = seat_of(first_dealer)
            except ValueError as err:
                raise ValueError(f"options['first_dealer']: {err}") from None
        deals = options.get("deals")
        if deals is not None:
            if not _is_sequence(deals):
                raise ValueError(f"options['deals'] must be a list of deals, each 4 hands of "
                                 f"9 card ids; got {type(deals).__name__}")
            if not 1 <= len(deals) <= self.num_deals:
                raise ValueError(f"options['deals'] holds {len(deals)} deals; "
                                 f"give 1 to {self.num_deals} (num_deals)")
            checked = []
            for i, d in enumerate(deals):
                if not _is_sequence(d) or not all(_is_sequence(h) for h in d):
                    raise ValueError(f"options['deals'][{i}] must be 4 hands (lists of 9 card "
                                     f"ids), got {d!r}")
                try:
                    checked.append(check_hands(d))
                except ValueError as err:
                    raise ValueError(f"options['deals'][{i}]: {err}") from None
            deals = checked
        catches = options.get("catches") if self.signs else None
        if catches is not None:
            catches = self._check_catches(catches)
        return first_dealer, deals, catches

    def _check_catches(self, catches: Any) -> list[list[int]]:
        """``options["catches"]`` (per deal, [9, 4, 4] 0/1: trick, signer, observer)
        as each deal's ``caught`` bits (S4)."""
        try:
            arr = np.asarray(catches)
        except ValueError:
            arr = None
        shape = (NUM_TRICKS, NUM_SEATS, NUM_SEATS)
        if arr is None or arr.ndim != 4 or arr.shape[1:] != shape \
                or not 1 <= arr.shape[0] <= self.num_deals \
                or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_) \
                or not np.isin(arr, (0, 1)).all():
            got = getattr(arr, "shape", None)
            raise ValueError(f"options['catches'] must be 1 to {self.num_deals} deals of "
                             f"9 x 4 x 4 0/1 (trick, signer, observer), got "
                             f"{'shape ' + str(got) if got is not None else 'ragged lists'}")
        return [[int(self.variant.caught_bits(s, d[t, s]))
                 for t in range(NUM_TRICKS) for s in range(NUM_SEATS)] for d in arr]

    def _draw_catches(self) -> list[int] | None:
        """S4: the deal's catches, fixed by ``options["catches"]`` or drawn from
        ``np_random`` (the variant's draws, one per catcher of each of the 36 signs)."""
        if not self.signs:
            return None
        k = self.match.deal_index
        if self._fixed_catches is not None and k < len(self._fixed_catches):
            return self._fixed_catches[k]
        draws = self.np_random.random(SIGNS_A_DEAL * len(self.variant.catchers(0))).tolist()
        return self.variant.draw_catches(iter(draws).__next__)

    def _start_deal(self) -> None:
        match = self.match
        k = match.deal_index
        if self._fixed_deals is not None and k < len(self._fixed_deals):
            hands, deck = [list(h) for h in self._fixed_deals[k]], None
        else:
            hands, deck = None, self.np_random.permutation(NUM_CARDS).tolist()
        caught = self._draw_catches()
        self.deal = match.start_deal(hands, caught=caught) if deck is None else \
            match.deal_deck(deck, caught=caught)
        if self._enc is not None:
            self._enc.start_deal(self.deal.state)
        self.agent_selection = AGENTS[self.deal.to_act]

    # -- observe / state --------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = SEAT.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"observe({agent!r}): agent must be one of "
                             f"{', '.join(AGENTS)}"[:300])
        match = self.match
        if match is None:
            raise RuntimeError(f"observe({agent!r}) before reset(): call reset() first")
        g = match.state
        return self._observation(g, seat)

    def _observation(self, g, seat: int) -> dict[str, np.ndarray]:
        enc = self._enc
        if enc is None:  # written from the state (the signs variant's, S5)
            mask = np.zeros(self._num_actions, np.int8)
            write_legal(g, seat, mask)
            return {"observation": self._observer.encode(g, seat), "action_mask": mask}
        mask = (enc.hands[seat] if seat == g.to_act and not g.over else _EMPTY_MASK).copy()
        return {"observation": enc.seats[seat].copy(), "action_mask": mask}

    def state(self) -> np.ndarray:
        return self._observer.encode_state(self.deal)

    # -- step -------------------------------------------------------------------

    def step(self, action: Any) -> None:
        if self.match is None:
            raise RuntimeError(f"step({action!r}) before reset(): call reset() first")
        if not self.agents:
            raise ValueError(f"step({action!r}): the match is over and every agent is done; "
                             f"call reset() to play another"[:300])
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        deal = self.deal
        g = deal.state
        seat = g.to_act
        # The common case, an int card id in the hand to act (and no sign to
        # make), in one test; anything else is checked and refused, naming the
        # reason, by _check_action, or is a sign (S1, _sign).
        if type(action) is not int or not 0 <= action < NUM_CARDS or g.card_state[action] != seat \
                or g.phase:
            if g.phase:
                self._sign(agent, seat, action)
                return
            action = self._check_action(action, seat)
        if self._dirty:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.infos = {a: {} for a in self.agents}
            self._dirty = False
        self._cumulative_rewards[agent] = 0.0

        event = deal.play(action)
        if self._enc is not None:
            self._enc.play(g, seat, action, event)
        if event != CARD_PLAYED:
            self.last_trick = deal.tricks[-1]
            if event >= DEAL_DONE:
                self._end_deal(event == MATCH_DONE)
                # Rewards come only at the end of a deal: only then is there
                # anything to accumulate (every other step's rewards are zero).
                self._accumulate_rewards()
                if self.render_mode == "human":
                    self.render()
                return
        self.agent_selection = AGENTS[g.to_act]
        if self.render_mode == "human":
            self.render()

    def _sign(self, agent: str, seat: int, action: Any) -> None:
        """S1: the seat to act makes its sign (or none); it plays its card next."""
        if not self.variant.is_action(action) or action < SIGN_BASE:
            raise ValueError(f"player_{seat} makes a sign first: an action {SIGN_BASE} (no "
                             f"sign) to {SIGN_BASE + NUM_SIGN_ACTIONS - 1}, got {action!r}"[:300])
        if self._dirty:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.infos = {a: {} for a in self.agents}
            self._dirty = False
        self._cumulative_rewards[agent] = 0.0
        self.deal.sign(int(action) - SIGN_BASE)
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action: Any, seat: int) -> int:
        try:
            card = check_card(action)
        except ValueError as err:
            raise ValueError(f"player_{seat} must play a card id 0-47: {err}; "
                             f"legal: {self.deal.legal_cards()}") from None
        if not self.deal.holds(seat, card):
            raise ValueError(f"card {describe(card)} is not in player_{seat}'s hand; "
                             f"legal: {self.deal.legal_cards()}")
        return card

    def _end_deal(self, match_over: bool) -> None:
        deal, match = self.deal, self.match
        record = deal.record
        self._dirty = True
        rewards = self.rewards
        for a in AGENTS:
            rewards[a] = float(seat_gain(*record.team_points, SEAT[a]))
        for a in AGENTS:
            info = {"deal_result": deal_result(record, self.numeric_infos)}
            if match_over:
                info["match_result"] = match_result(match.points, self.numeric_infos)
            self.infos[a] = info
        if match_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[deal.to_act]
        else:
            self._start_deal()

    # -- render -----------------------------------------------------------------

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; "
                                  "pass render_mode='ansi' or 'human' to aluette_env.env()")
            return None
        text = render_table(self.deal, self.match, self.last_trick, self.render_hands,
                            variant=self.variant)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple, np.ndarray))


def _render_hands(render_hands: Any) -> list[str]:
    """``"all"``, one agent name, or a list/tuple of agent names -> agent names."""
    if isinstance(render_hands, str):
        render_hands = list(AGENTS) if render_hands == "all" else [render_hands]
    if not isinstance(render_hands, (list, tuple)):
        raise ValueError(f"render_hands must be 'all', an agent name or a list of agent "
                         f"names, got {render_hands!r}")
    for a in render_hands:
        if not isinstance(a, str) or a not in SEAT:
            raise ValueError(f"render_hands names {a!r}; agents are {list(AGENTS)} or 'all'")
    return list(render_hands)


def _register() -> None:
    """``pettingzoo.make("aec", "aluette_v1")`` (every shipped variant's env id,
    each its version module's env; plain ``"aluette"`` is the newest) once this
    module is loaded."""
    try:
        from pettingzoo.env_registry import register
        from pettingzoo.env_registry.registration import aec_registry
    except ImportError:  # PettingZoo without a registry (< 1.26): env() still works
        return
    for env_id in VARIANTS:
        name, _, version = env_id.rpartition("_")
        if f"{name}-{version}" not in aec_registry:  # ids as the registry spells them
            register("aec", env_id, entry_point=f"aluette_env.{env_id}:env")


_register()
