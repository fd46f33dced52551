"""Aluette as an OpenSpiel game: ``python_aluette``, registered with
``pyspiel.register_game`` when this module is imported.

=========================  ===================================================
Load                       ``import aluette_env.openspiel`` then
                           ``pyspiel.load_game("python_aluette")`` or
                           ``pyspiel.load_game("python_aluette(num_deals=1)")``
Parameters                 ``num_deals`` (1 to ``MAX_DEALS``, default 5, R2),
                           ``first_dealer`` (seat 0-3 dealing the first deal,
                           default 0; the dealer then moves clockwise, R6),
                           ``signs`` (the signs variant, S1-S5, default
                           False) and ``catch`` (its chance that an opponent
                           catches a sign, default 0.25)
Type                       sequential, imperfect information, explicit
                           chance, zero-sum (by team), terminal rewards
Players                    4: player ``k`` is the PettingZoo agent ``player_k``;
                           team 0 is players 0 and 2, team 1 players 1 and 3 (R1)
Chance nodes               the dealing (R5), card by card: the k-th outcome of a
                           deal goes to seat ``deal_order(dealer)[k]``; outcomes
                           are the card ids not yet dealt, all equally likely;
                           36 per deal, the twelve left are the unused cards
Actions                    48: the card id to play (R4); legal: every card in
                           the hand (R9), sorted
Returns                    match points by team: own team's points minus the
                           other team's (the PettingZoo env's rewards summed)
``information_state_tensor``  the env's observation of the seat
                           (:func:`aluette_env.observation.encode_observation`,
                           ``OBS_SIZE`` values, named views in the observer's
                           ``dict``); perfect recall since ``OBS_LAYOUT``
                           2 (``PERFECT_RECALL``): it says in which trick
                           each card was played
``observation_tensor``     the same vector
``information_state_string``  perfect recall in every layout: the cards the
                           seat was dealt and every card played, in order,
                           with their names, deal by deal
``observation_string``     the observation in words (card names)
With ``signs``             each turn is a sign action (48 + sign: 48
                           silence, 49-57 the signs) then a card (58
                           actions); after a sign (not silence) a chance
                           node draws who catches it: outcome ``left + 2 *
                           right`` (each opponent's catch, probability
                           ``catch`` each; outcomes of probability 0 are not
                           listed). The tensors are observation layout 3 (the signs
                           the seat saw); the strings name the signs it saw
Resampling                 ``resample_from_infostate(player, sampler)``: a
                           state with the same information state for
                           ``player``, the other hands drawn at random from the
                           cards it has not seen (so OpenSpiel's ISMCTSBot runs);
                           with signs, each opponent's sign it did not catch
                           made silence and every catch it did not see drawn
                           afresh with probability ``catch`` (S4-S5)
Serialisation              OpenSpiel's own: the action history
=========================  ===================================================

At chance nodes (while a deal is being dealt) the tensors hold only the cards
dealt to the seat so far, in the ``hand`` slice. Every rule is the game core's
(:mod:`aluette_env.game`): dealing by :func:`~aluette_env.game.deal_cards`, play
and scoring by ``Deal`` and ``Match``; the actions, the catches' chance nodes,
who knows which sign and the tensors' layout are the game's variant's
(``AluetteGame.variant``, an :class:`aluette_env.game.Variant` built from the
parameters; ``AluetteGame(params, variant=...)`` plays any other, and
:func:`register_variant` registers one under a name of its own).

OpenSpiel is an optional dependency: ``pip install 'aluette-rl[openspiel]'``.

May import: numpy, pyspiel, :mod:`aluette_env.game` and
:mod:`aluette_env.observation`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError:  # one line, not a traceback into a missing wheel
    raise ImportError("aluette_env.openspiel needs OpenSpiel: pip install "
                      "'aluette-rl[openspiel]' (open-spiel==2.0.2)") from None

from .game import (
    AGENTS, DEAL_DONE, DEFAULT_CATCH, HAND_SIZE, MATCH_DONE, NO_SIGN, NUM_CARDS, NUM_SEATS,
    SIGN_BASE, SIGNS, Deal, Variant, card_name, check_catch, check_flag, check_whole, deal_order,
    seat_at, sign_name, team_of, variant_of,
)
from .game import ALUETTE_SIGNS_V0, ALUETTE_V1
from .game import register_variant as _register_in_game
from .observation import MAX_DEALS, OBS_LAYOUT, SLICES, decode_observation, observer

GAME_NAME = "python_aluette"
#: Whether ``information_state_tensor`` is perfect recall: it is the env's
#: observation, perfect recall from observation layout 2 on.
PERFECT_RECALL = OBS_LAYOUT >= 2
DEALT = NUM_SEATS * HAND_SIZE  # chance nodes per deal (R5)
_NEW_DEAL, _DEALT, _PLAYED, _SCORED, _SIGNED = range(5)  # AluetteState.events

_DEFAULTS = {"num_deals": 5, "first_dealer": 0, "signs": False, "catch": DEFAULT_CATCH}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Aluette (le jeu de la vache)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=NUM_SEATS,
    min_num_players=NUM_SEATS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


def _check_params(params: dict[str, Any]) -> tuple[int, int, bool, float]:
    try:
        num_deals = check_whole("num_deals", params["num_deals"], 1, MAX_DEALS)
        first_dealer = check_whole("first_dealer", params["first_dealer"], 0, NUM_SEATS - 1)
        signs = check_flag("signs", params["signs"])
        catch = check_catch(params["catch"])
    except ValueError as err:
        raise ValueError(f"{GAME_NAME}: {err}") from None
    if not signs and catch != DEFAULT_CATCH:
        raise ValueError(f"{GAME_NAME}: catch ({catch!r}) is the signs variant's parameter: "
                         f"set signs=true too")
    return num_deals, first_dealer, signs, catch


class AluetteGame(pyspiel.Game):
    """The game; see the module docstring. ``variant``: the game played, instead
    of the parameters ``signs`` and ``catch``."""

    def __init__(self, params: dict[str, Any] | None = None,
                 variant: Variant | str | None = None,
                 game_type: pyspiel.GameType = _GAME_TYPE):
        if variant is not None:
            try:
                variant = variant_of(variant)
            except ValueError as err:
                raise ValueError(f"{GAME_NAME}: {err}") from None
        if params is not None and not isinstance(params, dict):
            raise ValueError(f"{GAME_NAME}: params must be a dict, got {type(params).__name__}")
        # A variant's own parameters are the game's, unless ``params`` says otherwise.
        own = {} if variant is None else {"num_deals": variant.num_deals, "signs": variant.signs,
                                          "catch": variant.catch}
        values = {**_DEFAULTS, **own, **(params or {})}
        self.num_deals, self.first_dealer, signs, catch = _check_params(values)
        values.update(num_deals=self.num_deals, first_dealer=self.first_dealer, signs=signs,
                      catch=catch)
        if variant is None:  # OpenSpiel's parameters name the shipped games
            variant = ALUETTE_SIGNS_V0.with_catch(catch) if signs else ALUETTE_V1
        elif signs != variant.signs:
            raise ValueError(f"{GAME_NAME}: signs={signs} is not the variant's "
                             f"({variant.env_id}: signs={variant.signs})")
        elif catch != variant.catch:
            variant = variant.with_catch(catch)
        self.variant = variant
        self.signs, self.catch = self.variant.signs, self.variant.catch
        info = pyspiel.GameInfo(
            num_distinct_actions=self.variant.num_actions,
            max_chance_outcomes=NUM_CARDS,
            num_players=NUM_SEATS,
            min_utility=-2.0 * self.num_deals,
            max_utility=2.0 * self.num_deals,
            utility_sum=0.0,
            max_game_length=DEALT * self.num_deals * (2 if self.signs else 1))
        super().__init__(game_type, info, values)

    def new_initial_state(self) -> AluetteState:
        return AluetteState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> AluetteObserver:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return AluetteObserver(perfect_recall, params, self.variant)


class AluetteState(pyspiel.State):
    """A match in progress: the game core's ``Match`` and ``Deal``, and the cards
    dealt so far while a deal is being dealt."""

    def __init__(self, game: AluetteGame):
        super().__init__(game)
        self.variant = game.variant
        self.match = self.variant.new_match(game.first_dealer, game.num_deals)
        self.dealt: list[int] = []  # this deal's chance outcomes so far
        # What happened, in order, for information_state_string: (DEALT, seat, card),
        # (PLAYED, seat, card), (NEW_DEAL, deal index, dealer), (SCORED, points 0, 1),
        # (SIGNED, seat, sign + 16 * the caught bits drawn after it).
        self.events: list[tuple[int, int, int]] = []
        # With signs: the seat whose sign (not silence) waits for its catch draw, -1 none.
        self.catching = -1
        self.deal_steps = 0  # this deal's actions after its dealing: cards, signs, catches
        self._rewards = [0.0] * NUM_SEATS  # of the last action: a deal's points at its end
        self._begin_deal()

    @property
    def deal(self) -> Deal | None:
        """The match's deal in progress (its last once over); None while it is
        being dealt. Read from the match, never kept beside it: OpenSpiel
        copies a state's attributes one by one."""
        return self.match.deal if len(self.dealt) == DEALT else None

    # -- OpenSpiel's State API ---------------------------------------------------

    def current_player(self) -> int:
        if self.match.over:
            return pyspiel.PlayerId.TERMINAL
        if self.deal is None or self.catching >= 0:
            return pyspiel.PlayerId.CHANCE
        return self.deal.to_act

    def _legal_actions(self, player: int) -> list[int]:
        if player == pyspiel.PlayerId.CHANCE:
            if self.match.over:
                return []
            if self.catching >= 0:
                return [a for a, _ in self._catch_outcomes()]
            return self._undealt() if self.deal is None else []
        if self.match.over or self.deal is None or self.catching >= 0 \
                or player != self.deal.to_act:
            return []
        return self._legal_moves()

    def _legal_moves(self) -> list[int]:
        """The seat to act's actions: the ten sign actions in its sign phase (S1,
        S3), else its cards (R9)."""
        return self.variant.legal_actions(self.match.state)

    def _catch_outcomes(self) -> list[tuple[int, float]]:
        """S4: who catches the sign just made (the variant's outcomes: left + 2 *
        right, each opponent with probability ``catch``)."""
        return self.variant.catch_outcomes(self.catching)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance_node():
            raise ValueError("chance_outcomes() called on a node that is not a chance node")
        if self.catching >= 0:
            return self._catch_outcomes()
        left = self._undealt()
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        # Checked before anything changes: a refused action leaves the state as it was.
        if self.match.over:
            raise ValueError(f"the match is over: no action applies, got {action!r}")
        if self.catching >= 0:
            legal = [a for a, _ in self._catch_outcomes()]
        else:
            legal = self._undealt() if self.deal is None else self._legal_moves()
        if action not in legal:
            kind = "chance outcome" if self.deal is None or self.catching >= 0 else \
                f"action for player_{self.deal.to_act}"
            raise ValueError(f"action {str(action)[:40]} is not a legal {kind}; legal: {legal}")
        if self.deal is None:
            self._deal_one(int(action))
            return
        if self.catching >= 0:
            self._caught(int(action))
            return
        if self.deal.signing:
            self._sign(int(action) - SIGN_BASE)
            return
        self._rewards = [0.0] * NUM_SEATS
        seat = self.deal.to_act
        event = self.deal.play(int(action))
        self.deal_steps += 1
        self.events.append((_PLAYED, seat, int(action)))
        if event >= DEAL_DONE:
            self._rewards = _by_seat(self.deal.record.team_points)
            self.events.append((_SCORED, self.match.points[0], self.match.points[1]))
            if event != MATCH_DONE:
                self._begin_deal()

    def _sign(self, sign: int) -> None:
        seat = self.deal.to_act
        self.deal_steps += 1
        self._rewards = [0.0] * NUM_SEATS
        self.deal.sign(sign)
        self.events.append((_SIGNED, seat, sign))
        if sign != NO_SIGN:
            self.catching = seat

    def _caught(self, outcome: int) -> None:
        """S4: the chance node after a sign: who catches it, as the deal's bits."""
        seat = self.catching
        self.deal_steps += 1
        g = self.match.state
        bits = self.variant.caught_of_outcome(seat, outcome)
        g.caught[g.trick_index * NUM_SEATS + seat] = bits
        kind, who, sign = self.events[-1]
        self.events[-1] = (kind, who, sign + 16 * bits)
        self.catching = -1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.catching >= 0:
                signer, sign = self.catching, self.events[-1][2]
                caught = [AGENTS[s] for s in self.variant.caught_by(
                    signer, sign, self.variant.caught_of_outcome(signer, action))]
                return "caught by " + (", ".join(caught) if caught else "nobody")
            return f"deal {card_name(action)}"
        if action >= SIGN_BASE:
            return _sign_text(action - SIGN_BASE)
        return card_name(action)

    def is_terminal(self) -> bool:
        return self.match.over

    def rewards(self) -> list[float]:
        """The points of the deal the last card ended (own team's minus the
        other's, as the PettingZoo env's rewards), else zeros. The dealing of
        the next deal (chance actions) keeps them: OpenSpiel reads rewards at
        decision nodes."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        """Match points so far, own team's minus the other team's (final once terminal)."""
        return _by_seat(self.match.points)

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Callable[[], float]) -> AluetteState:
        """A state ``player_id`` cannot tell from this one: the same public plays
        and its own cards, the other seats' unplayed cards and the unused ones
        drawn at random from the cards it has not seen; with signs, every catch it
        did not see drawn afresh (:meth:`_history_for`). ``probability_sampler``
        (a ``pyspiel.UniformProbabilitySampler`` or any callable returning a float
        in [0, 1)) seeds the draw."""
        if (isinstance(player_id, (bool, np.bool_)) or not isinstance(player_id, (int, np.integer))
                or not 0 <= player_id < NUM_SEATS):
            raise ValueError(f"player_id must be a seat 0-3 (an int), got {str(player_id)[:40]} "
                             f"({type(player_id).__name__})")
        player_id = int(player_id)
        draw = probability_sampler()
        if (isinstance(draw, (bool, np.bool_)) or not isinstance(draw, (float, int, np.number))
                or not 0 <= draw < 1):
            raise ValueError(f"probability_sampler must return a number in [0, 1), got "
                             f"{str(draw)[:40]!r} ({type(draw).__name__})")
        rng = random.Random(int(draw * 2 ** 53))
        seen = self._history_for(player_id, rng)
        # Where this deal's dealing starts in the true history: after it, the deal's
        # cards, its signs and their catch draws.
        start = len(self.history()) - len(self.dealt) - self.deal_steps
        dealt = list(self.dealt)
        order = deal_order(self.match.dealer)
        played_by = [set() for _ in range(NUM_SEATS)]
        for seat, card in self.deal_plays_by_seat():
            played_by[seat].add(card)
        known = {c for k, c in enumerate(dealt) if order[k] == player_id}
        for s in range(NUM_SEATS):
            known |= played_by[s]
        unseen = [c for c in range(NUM_CARDS) if c not in known]
        rng.shuffle(unseen)
        for k, seat in enumerate(order[:len(dealt)]):
            if seat != player_id and dealt[k] not in played_by[seat]:
                dealt[k] = unseen.pop()
        state = self.get_game().new_initial_state()
        before = [a for k, a in seen if k < start]
        after = [a for k, a in seen if k >= start + len(dealt)]
        for a in before + dealt + after:
            state.apply_action(a)
        return state

    def _history_for(self, player: int, rng: random.Random) -> list[tuple[int, int]]:
        """(index, action) of the action history as ``player`` may take it to be,
        given what it saw (S4-S5): every opponent's sign it did not catch made
        silence and its catch draw dropped; every other catch draw drawn afresh
        from ``rng`` (the variant's :meth:`~aluette_env.game.Variant.redraw_outcome`),
        except ``player``'s own catch, which it saw. A history
        ``player`` cannot tell from the true one, and that tells nothing it did
        not see. Only sign actions are 48 or more."""
        actions = [int(a) for a in self.history()]
        signed = iter([e for e in self.events if e[0] == _SIGNED])
        out = []
        drop_draw = False  # the next action is the catch draw of a sign made silence
        draw_of = -1  # else the seat whose sign's catch draw comes next, -1 none
        for k, a in enumerate(actions):
            if drop_draw:
                drop_draw = False
                continue
            if draw_of >= 0:
                out.append((k, self.variant.redraw_outcome(draw_of, a, player, rng.random)))
                draw_of = -1
                continue
            if a >= SIGN_BASE:
                _, seat, code = next(signed)
                sign, bits = code % 16, code // 16
                if sign != NO_SIGN and not self.variant.knows_sign(player, seat, sign, bits):
                    out.append((k, SIGN_BASE + NO_SIGN))
                    drop_draw = True
                    continue
                if sign != NO_SIGN:
                    draw_of = seat
            out.append((k, a))
        return out

    def __str__(self) -> str:
        m = self.match
        lines = [f"deal {m.deal_index + 1 if not m.over else m.deal_index} of {m.num_deals}, "
                 f"dealer {AGENTS[m.dealer if not m.over else self.deal.dealer]}, "
                 f"points {m.points}"]
        if self.deal is None:
            lines.append(f"dealing: {len(self.dealt)} of {DEALT} cards dealt")
        else:
            for s in range(NUM_SEATS):
                lines.append(f"{AGENTS[s]}: " + ", ".join(card_name(c) for c in
                                                         self.deal.hand(s)))
            lines.append("trick: " + ", ".join(card_name(c) for c in self.deal.trick_cards))
            lines.append(f"tricks: {len(self.deal.tricks)}, winners "
                         f"{[AGENTS[w] if w >= 0 else None for w in self.deal.trick_winners]}")
        return "\n".join(lines)

    # -- the deal ---------------------------------------------------------------

    @property
    def deal_plays(self) -> list[int]:
        """The cards played so far in the deal in progress, in order."""
        if self.deal is None:
            return []
        return [c for t in self.deal.tricks for c in t.cards] + list(self.deal.trick_cards)

    def deal_plays_by_seat(self) -> list[tuple[int, int]]:
        """(seat, card) of every card played so far in the deal in progress."""
        if self.deal is None:
            return []
        out = []
        for t in self.deal.tricks:
            out += [(seat_at(t.leader, k), c) for k, c in enumerate(t.cards)]
        out += [(seat_at(self.deal.leader, k), c)
                for k, c in enumerate(self.deal.trick_cards)]
        return out

    def _begin_deal(self) -> None:
        self.dealt = []
        self.deal_steps = 0
        self._order = deal_order(self.match.dealer)
        self.events.append((_NEW_DEAL, self.match.deal_index, self.match.dealer))

    def _undealt(self) -> list[int]:
        taken = set(self.dealt)
        return [c for c in range(NUM_CARDS) if c not in taken]

    def _deal_one(self, card: int) -> None:
        if card in self.dealt or not 0 <= card < NUM_CARDS:
            raise ValueError(f"chance outcome {card} is not an undealt card id; "
                             f"undealt: {self._undealt()}")
        seat = self._order[len(self.dealt)]
        self.events.append((_DEALT, seat, card))
        self.dealt.append(card)
        if len(self.dealt) == DEALT:
            self.match.deal_deck(self.dealt + self._undealt())

    def hand_so_far(self, seat: int) -> list[int]:
        """The cards dealt to ``seat`` so far in the deal being dealt."""
        return [c for k, c in enumerate(self.dealt) if self._order[k] == seat]


def _by_seat(team_points) -> list[float]:
    """Each seat's own team's points minus the other team's (R1)."""
    return [float(team_points[team_of(s)] - team_points[1 - team_of(s)])
            for s in range(NUM_SEATS)]


class AluetteObserver:
    """OpenSpiel's observer (PyObserver protocol) over the env's observation:
    one flat ``tensor`` of the variant's observation (``OBS_SIZE`` values,
    ``SIGNS_OBS_SIZE`` with signs) and its named views in ``dict`` (the slices of
    :func:`aluette_env.observation.observer`)."""

    def __init__(self, perfect_recall: bool, params: dict | None, variant: Variant):
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        self.perfect_recall = perfect_recall
        view = observer(variant)
        self.tensor = np.zeros(view.size, np.float32)
        self.dict = {name: self.tensor[s].reshape(view.shapes[name])
                     for name, s in view.slices.items()}

    def set_from(self, state: AluetteState, player: int) -> None:
        self.tensor[:] = observation_of(state, player)

    def string_from(self, state: AluetteState, player: int) -> str:
        if self.perfect_recall:
            return information_state_text(state, player)
        return observation_text(observation_of(state, player))


def observation_of(state: AluetteState, player: int) -> np.ndarray:
    """The env's observation vector of ``player`` (int8, the variant's: ``OBS_SIZE``;
    with signs ``SIGNS_OBS_SIZE``, the signs it saw); while a deal is being dealt,
    the cards dealt to it so far in the ``hand`` slice."""
    view = observer(state.variant)
    if state.deal is None:
        vec = np.zeros(view.size, np.int8)
        vec[SLICES["hand"]][state.hand_so_far(player)] = 1
        return vec
    return view.encode(state.deal.state, player)


def information_state_text(state: AluetteState, player: int) -> str:
    """Everything ``player`` has seen, in order: each deal's dealer, the cards
    dealt to it, every card played and the points after each deal."""
    lines = [AGENTS[player]]
    for kind, a, b in state.events:
        if kind == _NEW_DEAL:
            lines.append(f"deal {a + 1}, dealer {AGENTS[b]}:")
        elif kind == _DEALT:
            if a == player:
                lines.append(f"dealt {card_name(b)}")
        elif kind == _PLAYED:
            lines.append(f"{AGENTS[a]} {card_name(b)}")
        elif kind == _SIGNED:
            sign, bits = b % 16, b // 16
            if state.variant.knows_sign(player, a, sign, bits):
                lines.append(f"{AGENTS[a]} {_sign_text(sign)}")
        else:
            lines.append(f"deal over: points {[a, b]}")
    return "\n".join(lines)


def _sign_text(sign: int) -> str:
    if sign == NO_SIGN:
        return "makes no sign"
    return f"signs {sign_name(sign)} ({SIGNS[sign - 1][1]})"


_CARD_FIELDS = ("hand", "trick", "played")


def observation_text(vec: np.ndarray) -> str:
    """An observation in words: every field of :func:`decode_observation`, cards by name."""
    def names(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: names(v) for k, v in x.items()}
        if isinstance(x, list):
            return [names(v) for v in x]
        return card_name(x) if isinstance(x, int) else x

    fields = decode_observation(vec)
    return "\n".join(f"{k}: {names(v) if k in _CARD_FIELDS else v}" for k, v in fields.items())


def seeded_resampler(rng: np.random.RandomState) -> Callable[[Any, int], AluetteState]:
    """A resampler for ``ISMCTSBot.set_resampler`` that draws from ``rng``, so
    a seeded bot searches the same worlds in every run."""
    def resample(state: AluetteState, player: int) -> AluetteState:
        return state.resample_from_infostate(player, rng.uniform)
    return resample


def register_variant(variant: Variant, short_name: str) -> None:
    """Register ``variant`` in OpenSpiel as the game ``short_name`` (its
    parameters: ``num_deals``, ``first_dealer`` and, with signs, ``catch``), so
    ``pyspiel.load_game(short_name)`` and OpenSpiel's serialisation play it;
    it is registered by its env id too
    (:func:`aluette_env.game.register_variant`)."""
    _register_in_game(variant)
    defaults = {"num_deals": variant.num_deals, "first_dealer": 0, "signs": variant.signs,
                "catch": variant.catch}
    game_type = pyspiel.GameType(
        short_name=short_name, long_name=f"Aluette ({variant.env_id})",
        dynamics=_GAME_TYPE.dynamics, chance_mode=_GAME_TYPE.chance_mode,
        information=_GAME_TYPE.information, utility=_GAME_TYPE.utility,
        reward_model=_GAME_TYPE.reward_model, max_num_players=NUM_SEATS,
        min_num_players=NUM_SEATS, provides_information_state_string=True,
        provides_information_state_tensor=True, provides_observation_string=True,
        provides_observation_tensor=True, parameter_specification=defaults)

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        AluetteGame.__init__(self, params, variant, game_type)
    # A class, as OpenSpiel's own registrations: its registry lets its creators go
    # after Python has finalised, and a class (unlike a function) is not freed then.
    game_class = type(f"AluetteGame[{variant.env_id}]", (AluetteGame,), {"__init__": __init__})
    pyspiel.register_game(game_type, game_class)


pyspiel.register_game(_GAME_TYPE, AluetteGame)

__all__ = ["GAME_NAME", "PERFECT_RECALL", "AluetteGame", "AluetteObserver", "AluetteState",
           "observation_of", "observation_text", "register_variant", "seeded_resampler"]
