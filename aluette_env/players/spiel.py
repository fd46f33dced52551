"""OpenSpiel's search as an Aluette player, and Aluette's players as OpenSpiel bots.

``ismcts:simulations=N,uct_c=C,evaluator=random|ai,seed=S`` runs OpenSpiel's
Python ``ISMCTSBot`` (Cowling, Powley and Whitehouse's Information Set MCTS)
on the game ``python_aluette`` of :mod:`aluette_env.openspiel`, so it plays in
``aluette eval``, ``aluette ratings`` and the strength table beside the project's own
search. Each decision:

* **Root.** The observation is turned into an OpenSpiel state of a one-deal
  game that the seat cannot tell from the real one: its hand, the dealer and
  every card played this deal in order (the observation's perfect-recall
  history, :func:`state_from_observation`), the other hands drawn at random.
* **Search.** ``simulations`` ISMCTS iterations from that root, each in a world
  drawn by ``resample_from_infostate`` from the bot's seeded random state, with
  UCT (``uct_c``) over information states. ``evaluator=random``: uniform priors
  and one random rollout to the end of the deal (OpenSpiel's
  ``RandomRolloutEvaluator``); ``evaluator=ai``: the shipped policy's
  probabilities as PUCT priors, the same random rollouts as values.
* **Value.** The deal's points for the seat's team (the search ends with the
  deal, as the project's other search players do); the most visited card is
  played.

:func:`player_bot` goes the other way: any player spec (``ai``, ``expert``,
``heuristic``...) as a ``pyspiel.Bot`` for OpenSpiel's tools, reading the
env's observation from the state's ``observation_tensor``.

Needs OpenSpiel (``pip install 'aluette-rl[openspiel]'``); the spec ``ismcts``
says so in one line when it is missing.

May import: numpy, pyspiel and OpenSpiel's Python algorithms,
:mod:`aluette_env.game`, :mod:`aluette_env.observation`,
:mod:`aluette_env.openspiel` and this package.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..game import HAND_SIZE, NUM_CARDS, NUM_SEATS, deal_order
from ..observation import OBS_SIZE, decode_observation
from . import SEED, Option, Player, PlayerSpecError, checked_seed, load_player


def _openspiel():
    """:mod:`aluette_env.openspiel`; its one-line ImportError when OpenSpiel is missing."""
    from .. import openspiel
    return openspiel


def state_from_observation(observation: np.ndarray, rng: np.random.Generator):
    """An OpenSpiel state of ``python_aluette(num_deals=1)`` at the observer's
    decision that the observer (seat 0, the observation's relative seat 0)
    cannot tell from the real deal: its hand, the dealer and every card played
    in order (the observation's ``history``, perfect recall from observation layout 2).
    The other seats' unplayed cards are drawn with ``rng``; the plays are
    replayed through the game, which decides every trick."""
    spiel = _openspiel()
    import pyspiel
    view = decode_observation(observation)
    if view["to_act"] != 0:
        raise ValueError("the observation is not of the seat to act (its to_act field is "
                         f"{view['to_act']}); an ismcts player decides only its own cards")
    dealer = view["dealer"]
    plays = [play for trick in view["history"] for play in trick["plays"]]
    # Each seat's cards as dealt: what it played, and its hand (the observer's) or as
    # many unseen cards as it still holds, drawn at random.
    played = {r: [c for s, c in plays if s == r] for r in range(NUM_SEATS)}
    _check_deal(view["hand"], plays, played, dealer)
    seen = set(view["hand"]) | {c for _, c in plays}
    unseen = [c for c in range(NUM_CARDS) if c not in seen]
    rng.shuffle(unseen)
    dealt = [played[0] + view["hand"]] + \
        [played[r] + [unseen.pop() for _ in range(HAND_SIZE - len(played[r]))]
         for r in range(1, NUM_SEATS)]
    game = pyspiel.load_game(spiel.GAME_NAME, {"num_deals": 1, "first_dealer": dealer})
    state = game.new_initial_state()
    for seat in deal_order(dealer):
        state.apply_action(dealt[seat].pop(0))
    for seat, card in plays:
        if state.current_player() != seat:
            raise ValueError(f"the observation's history has player_{seat} play "
                             f"{card} when player_{state.current_player()} is to act")
        state.apply_action(card)  # a card the rules refuse there: ValueError, naming it
    if state.current_player() != 0:
        raise ValueError(f"the observation's history ends with player_{state.current_player()} "
                         f"to act, not the observer")
    return state


def _check_deal(hand: list[int], plays: list[tuple[int, int]], played: dict[int, list[int]],
                dealer: int) -> None:
    """The hand and plays of a decoded observation are some deal's (each card once,
    the observer holding what it has not played, nobody playing more than a hand),
    else ValueError saying what is not: the dealing below draws on them."""
    cards = list(hand) + [c for _, c in plays]
    if len(set(cards)) != len(cards):
        raise ValueError("the observation is not of a deal: a card is both in the hand and "
                         "played, or played twice")
    if len(hand) != HAND_SIZE - len(played[0]) or not hand:
        raise ValueError(f"the observation is not of a deal: {len(hand)} cards in hand after "
                         f"playing {len(played[0])} (a hand is {HAND_SIZE})")
    if any(s not in played for s, _ in plays) or any(len(p) > HAND_SIZE
                                                     for p in played.values()):
        raise ValueError(f"the observation is not of a deal: a seat plays more than "
                         f"{HAND_SIZE} cards")
    if dealer not in range(NUM_SEATS):
        raise ValueError(f"the observation is not of a deal: dealer {dealer}")


class _PolicyPriorEvaluator:
    """OpenSpiel MCTS evaluator: a policy's probabilities as priors, random
    rollouts as values."""

    def __init__(self, policy: Any, rollout: Any):
        self.policy, self.rollout = policy, rollout

    def evaluate(self, state):
        return self.rollout.evaluate(state)

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        p = state.current_player()
        legal = state.legal_actions()
        mask = np.zeros((1, NUM_CARDS), np.int8)
        mask[0, legal] = 1
        obs = np.asarray(state.observation_tensor(p), np.int8)[None]
        probs = self.policy.probabilities(obs, mask)[0]
        return [(a, float(probs[a])) for a in legal]


class ISMCTSPlayer:
    """OpenSpiel's ISMCTSBot as an Aluette player (spec ``ismcts``); see the module
    docstring."""

    OPTIONS = {
        "simulations": Option(int, 200, "ISMCTS iterations per decision",
                              lambda v: 1 <= v <= 100_000, "an integer from 1 to 100000"),
        "uct_c": Option(float, 2.0, "exploration constant of UCT (PUCT with evaluator=ai)",
                        lambda v: 0 < v <= 100, "a number above 0, at most 100"),
        "evaluator": Option(str, "random", "random: uniform priors, random rollouts; ai: the "
                            "shipped policy's priors (PUCT), random rollouts",
                            lambda v: v in ("random", "ai"), "random or ai"),
        "seed": SEED,
    }

    def __init__(self, simulations: int = 200, uct_c: float = 2.0, evaluator: str = "random",
                 seed: int | None = None):
        for key, value in (("simulations", simulations), ("uct_c", uct_c),
                           ("evaluator", evaluator)):
            option = self.OPTIONS[key]
            try:
                ok = not isinstance(value, bool) and bool(option.check(value))
            except TypeError:
                ok = False
            if not ok:
                raise ValueError(f"option {key!r} got {value!r}; allowed: {option.allowed}")
        try:
            spiel = _openspiel()
        except ImportError as err:  # the registry words it as a bad spec, in one line
            raise ValueError(str(err)) from None
        from open_spiel.python.algorithms import ismcts, mcts
        self._ismcts, self._mcts, self._spiel = ismcts, mcts, spiel
        self.simulations, self.uct_c, self.evaluator = simulations, float(uct_c), evaluator
        self.policy = load_player("ai") if evaluator == "ai" else None
        self.seed = seed
        self.reset(seed)
        parts = [f"simulations={simulations}"] if simulations != 200 else []
        parts += [f"uct_c={uct_c:g}"] if uct_c != 2.0 else []
        parts += ["evaluator=ai"] if evaluator == "ai" else []
        self.name = "ismcts" + (":" + ",".join(parts) if parts else "")

    def reset(self, seed: int | None = None) -> None:
        if checked_seed(seed) is not None or not hasattr(self, "_rs"):
            self._rs = np.random.RandomState(None if seed is None else seed % 2 ** 32)
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation = np.asarray(observation, np.int8)
        mask = np.asarray(action_mask)
        if observation.shape != (OBS_SIZE,) or mask.shape != (NUM_CARDS,):
            raise ValueError(f"observation must be ({OBS_SIZE},) and action_mask "
                             f"({NUM_CARDS},), got {observation.shape} and {mask.shape}")
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("the action mask has no legal card")
        if len(legal) == 1:
            return legal[0]
        root = state_from_observation(observation, self._rng)
        if root.legal_actions() != legal:
            raise ValueError(f"the action mask {legal} is not the observed hand "
                             f"{root.legal_actions()}")
        rollout = self._mcts.RandomRolloutEvaluator(1, self._rs)
        evaluator = rollout if self.policy is None else _PolicyPriorEvaluator(self.policy,
                                                                               rollout)
        policy = self._ismcts.ChildSelectionPolicy.PUCT if self.policy is not None else \
            self._ismcts.ChildSelectionPolicy.UCT
        bot = self._ismcts.ISMCTSBot(root.get_game(), evaluator, self.uct_c, self.simulations,
                                     random_state=self._rs, child_selection_policy=policy)
        bot.set_resampler(self._spiel.seeded_resampler(self._rs))
        return int(bot.step(root))

    def __repr__(self) -> str:
        return f"<ISMCTSPlayer {self.name}>"


def ismcts_player(seed: int | None = None, **options: Any) -> ISMCTSPlayer:
    """The ``ismcts`` spec's factory (entry point ``aluette.players: ismcts``)."""
    return ISMCTSPlayer(seed=seed, **options)


ismcts_player.OPTIONS = ISMCTSPlayer.OPTIONS  # type: ignore[attr-defined]


def player_bot(player: Player | str, seat: int | None = None):
    """An Aluette player (an object or a spec such as ``"ai"``) as a ``pyspiel.Bot``
    for ``python_aluette``: it reads the acting seat's observation from the
    state's ``observation_tensor`` and plays the player's card. ``seat``: the
    only seat it may play for (None: any)."""
    _openspiel()
    import pyspiel

    if isinstance(player, str):
        player = load_player(player)
    if not hasattr(player, "act"):
        raise PlayerSpecError(f"player_bot needs a player with act(observation, mask) or a "
                              f"player spec, got {player!r}")

    class PlayerBot(pyspiel.Bot):
        """``player`` as an OpenSpiel bot."""

        def __init__(self):
            pyspiel.Bot.__init__(self)
            self.player = player

        def step(self, state):
            p = state.current_player()
            if seat is not None and p != seat:
                raise ValueError(f"this bot plays player_{seat}, asked for player_{p}")
            mask = np.zeros(NUM_CARDS, np.int8)
            mask[state.legal_actions()] = 1
            obs = np.asarray(state.observation_tensor(p), np.int8)
            return int(self.player.act(obs, mask))

        def restart_at(self, state):
            if hasattr(self.player, "reset"):
                self.player.reset()

        def inform_action(self, state, player_id, action):
            pass

    return PlayerBot()


__all__ = ["ISMCTSPlayer", "ismcts_player", "player_bot", "state_from_observation"]
