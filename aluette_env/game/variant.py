"""A variant of Aluette as one object: what every consumer asks instead of
knowing flags (OpenSpiel's ``Game`` with its parameters, pgx's env ids).

A :class:`Variant` owns

- its registered env id (``aluette_v1``, ``aluette_signs_v0``; a changed
  game gets a new id, and an old id keeps its game: PettingZoo's versions),
- the observation it gives (``obs_layout``; the layer above writes it:
  :func:`aluette_env.observation.observer`),
- its actions (:attr:`~Variant.num_actions`) and, through the game's one
  step, its phases and legal actions (:meth:`~Variant.legal_actions`,
  :func:`~.state.write_legal`),
- its chance: the deal is a shuffled deck dealt by R5
  (:meth:`~.deal.Match.deal_deck`); with signs, the catches (S4) drawn when a
  deal is dealt (:meth:`~Variant.draw_catches`) or, in OpenSpiel, after each
  sign (:meth:`~Variant.catch_outcomes`), and their inverse, who caught a sign
  (:meth:`~Variant.caught_by`),
- who knows which sign, silence included (:meth:`~Variant.knows_sign`).

A second variant is a new :class:`Variant` value or subclass: the env, the
batched engine, OpenSpiel, the game for people, records, evaluation and
training take it (``tests/test_a_second_variant.py`` plays one defined in
that file alone). Its catch rule is :meth:`~Variant.catchers`: each seat
that may catch a sign, with its chance; the rest of this module follows
from it. The variants shipped are :data:`ALUETTE_V0`, :data:`ALUETTE_V1` and
:data:`ALUETTE_SIGNS_V0`, registered by id in :data:`VARIANTS`
(:func:`load_variant`).

Standard library only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .cards import NUM_CARDS
from .deal import Match
from .rules import DEFAULT_NUM_DEALS, NUM_TRICKS
from .seats import NUM_SEATS, opponents_of, team_of
from .signs import DEFAULT_CATCH, NO_SIGN, NUM_ACTIONS, SIGN_BASE, check_catch, sees_sign
from .state import write_legal

#: Signs a deal: one per trick and seat, the sign of trick t by seat s at t * 4 + s (S1).
SIGNS_A_DEAL = NUM_TRICKS * NUM_SEATS


@dataclass(frozen=True)
class Variant:
    """One game of Aluette and its env id; see the module docstring.

    ``signs``: each turn is a sign, then a card (S1-S5), each opponent
    catching a sign with the chance ``catch`` (S4). ``num_deals``: a match's
    deals unless its caller says otherwise (R2: five)."""

    env_id: str
    obs_layout: int
    signs: bool = False
    catch: float = DEFAULT_CATCH
    num_deals: int = DEFAULT_NUM_DEALS

    def __post_init__(self) -> None:
        object.__setattr__(self, "catch", check_catch(self.catch))
        if not self.signs and self.catch != DEFAULT_CATCH:
            raise ValueError(f"catch ({self.catch!r}) is the signs variant's parameter: pass "
                             f"signs=True too")
        catchers = {len(self.catchers(s)) for s in range(NUM_SEATS)}
        if len(catchers) > 1:
            raise ValueError(f"{self.env_id}: every signer has as many catchers, got "
                             f"{sorted(catchers)}")

    # -- the game -------------------------------------------------------------------

    @property
    def num_actions(self) -> int:
        """The action space: the 48 cards, and with signs the ten sign actions (S1)."""
        return NUM_ACTIONS if self.signs else NUM_CARDS

    def with_catch(self, catch: float) -> Variant:
        """This variant with another chance of a catch (S4)."""
        return dataclasses.replace(self, catch=catch)

    def new_match(self, first_dealer: int = 0, num_deals: int | None = None) -> Match:
        """A match of this variant, before its first deal."""
        return Match(first_dealer=first_dealer,
                     num_deals=self.num_deals if num_deals is None else num_deals,
                     signs=self.signs)

    def legal_actions(self, g) -> list[int]:
        """The actions of the seat to act in the state ``g``, sorted: its sign
        actions in its sign phase (S1, S3), else the cards in its hand (R9)."""
        mask = [0] * self.num_actions
        write_legal(g, g.to_act, mask)
        return [a for a in range(self.num_actions) if mask[a]]

    def is_action(self, action: object) -> bool:
        """``action`` is an int action id of this variant (legal or not)."""
        return isinstance(action, int) and not isinstance(action, bool) \
            and 0 <= action < self.num_actions

    def describe_actions(self) -> str:
        """The action ids in words, for an error message."""
        if not self.signs:
            return f"the card ids 0-{NUM_CARDS - 1}"
        return (f"0-{NUM_ACTIONS - 1}: the cards 0-{NUM_CARDS - 1}, {SIGN_BASE} no sign, "
                f"{SIGN_BASE + 1}-{NUM_ACTIONS - 1} the signs")

    # -- chance: the catches (S4) ---------------------------------------------------

    def catchers(self, signer: int) -> tuple[tuple[int, float], ...]:
        """S4: the seats that may catch ``signer``'s sign, each with its chance,
        in the order their draws are made: the opponent on the signer's left
        (next to play), then the one on its right. None without signs. The
        one statement of the catch rule: every other method here follows."""
        if not self.signs:
            return ()
        return tuple((seat, self.catch) for seat in opponents_of(signer))

    def caught_from_draws(self, signer: int, draws: Sequence):
        """The caught bits (bit o: seat o caught it) of a sign of ``signer``
        from one uniform draw in [0, 1) per catcher (``draws[j]`` for
        ``catchers(signer)[j]``): caught when the draw is below its chance.
        Elementwise on numpy arrays of draws too (the batched engine)."""
        bits = 0
        for j, (seat, chance) in enumerate(self.catchers(signer)):
            bits = bits | ((draws[j] < chance) << seat)
        return bits

    def draw_catches(self, random: Callable[[], float]) -> list[int]:
        """S4: a deal's catches, drawn when it is dealt: the caught bits of each
        of its 36 signs (trick t, seat s at t * 4 + s), from ``random()`` (a
        uniform draw in [0, 1)), one draw per catcher in :meth:`catchers`' order,
        sign after sign."""
        return [self.caught_from_draws(k % NUM_SEATS,
                                       [random() for _ in self.catchers(k % NUM_SEATS)])
                for k in range(SIGNS_A_DEAL)]

    def caught_bits(self, signer: int, caught: Sequence) -> int:
        """The caught bits of a sign of ``signer`` from ``caught[o]`` (truthy: seat o
        caught it; a row of four 0/1, or of numpy arrays of them): only its
        catchers count (the partner always sees a sign, the signer made it)."""
        bits = 0
        for seat, _ in self.catchers(signer):
            bits = bits | ((caught[seat] != 0) << seat)
        return bits

    def caught_by(self, signer: int, sign: int, caught: int) -> list[int]:
        """The inverse: the seats that caught the sign ``signer`` made (``sign``;
        none for silence: there is nothing to catch) from its caught bits."""
        if sign == NO_SIGN:
            return []
        return [seat for seat, _ in self.catchers(signer) if (caught >> seat) & 1]

    def may_catch(self, signer: int, seat: int) -> bool:
        """``seat`` is one of the seats that may catch ``signer``'s sign."""
        return any(seat == s for s, _ in self.catchers(signer))

    def catch_outcomes(self, signer: int) -> list[tuple[int, float]]:
        """S4 as one chance node after a sign (OpenSpiel): outcome ``sum of 2 ** j``
        over the catchers ``j`` (:meth:`catchers`' order) that catch it, with its
        probability; outcomes of probability 0 left out."""
        catchers = self.catchers(signer)
        out = []
        for outcome in range(1 << len(catchers)):
            prob = 1.0
            for j, (_, chance) in enumerate(catchers):
                prob *= chance if (outcome >> j) & 1 else 1 - chance
            if prob > 0:
                out.append((outcome, prob))
        return out

    def caught_of_outcome(self, signer: int, outcome: int) -> int:
        """The caught bits of a :meth:`catch_outcomes` outcome."""
        bits = 0
        for j, (seat, _) in enumerate(self.catchers(signer)):
            if (outcome >> j) & 1:
                bits |= 1 << seat
        return bits

    def redraw_outcome(self, signer: int, outcome: int, keep: int,
                       random: Callable[[], float]) -> int:
        """A catch outcome as seat ``keep`` may take it to be: its own catch as
        ``outcome`` has it (it saw it), every other catcher's drawn afresh from
        ``random()`` with its chance, in :meth:`catchers`' order."""
        new = 0
        for j, (seat, chance) in enumerate(self.catchers(signer)):
            if seat == keep:
                new |= outcome & (1 << j)
            elif random() < chance:
                new |= 1 << j
        return new

    # -- who knows what (S5) ----------------------------------------------------------

    def knows_sign(self, observer: int, signer: int, sign: int, caught: int) -> bool:
        """S4-S5: whether ``observer`` knows what ``signer`` did, ``sign`` (0:
        silence) with its caught bits: a sign is seen by its signer, the partner
        and the opponents who caught it; silence has nothing to catch, so only
        the signer's team knows of it."""
        if sign == NO_SIGN:
            return team_of(observer) == team_of(signer)
        return sees_sign(observer, signer, caught)


#: ``aluette_v0``: the default game with the layout-1 observation (kept so old
#: experiments repeat).
ALUETTE_V0 = Variant("aluette_v0", obs_layout=1)
#: ``aluette_v1``: the default game with the perfect-recall observation.
ALUETTE_V1 = Variant("aluette_v1", obs_layout=2)
#: ``aluette_signs_v0``: the signs variant (S1-S5), the observation of layout 3.
ALUETTE_SIGNS_V0 = Variant("aluette_signs_v0", obs_layout=3, signs=True)
#: The shipped variants by env id; the newest default game is ``aluette_v1``.
VARIANTS: dict[str, Variant] = {v.env_id: v for v in (ALUETTE_V0, ALUETTE_V1, ALUETTE_SIGNS_V0)}
NEWEST = ALUETTE_V1


def load_variant(env_id: str, **params) -> Variant:
    """The shipped variant ``env_id`` with ``params`` (``catch``, ``num_deals``)."""
    if env_id not in VARIANTS:
        raise ValueError(f"no variant {env_id!r}; variants are {', '.join(VARIANTS)}")
    return dataclasses.replace(VARIANTS[env_id], **params) if params else VARIANTS[env_id]


def variant_of(variant: Variant | None = None, signs: object = None,
               catch: object = None, base: Variant = NEWEST) -> Variant:
    """The variant a caller means: ``variant`` itself, or the older keywords
    ``signs`` / ``catch`` (kept working: ``signs=True`` is
    :data:`ALUETTE_SIGNS_V0` with ``catch``, ``signs=False`` the default game;
    both default to ``base``'s). ValueError names a bad value or a mix of the
    two ways."""
    if variant is not None:
        if not isinstance(variant, Variant):
            raise ValueError(f"variant must be a Variant (aluette_env.game.VARIANTS), got "
                             f"{type(variant).__name__}")
        if signs is not None and bool(signs) != variant.signs or catch is not None:
            raise ValueError(f"give the variant ({variant.env_id}) or signs/catch, not both")
        return variant
    if signs is None:
        signs = base.signs
    elif not isinstance(signs, bool) and type(signs).__name__ != "bool_":
        raise ValueError(f"signs must be True or False, got {signs!r}")
    if not signs:
        if catch is not None:
            check_catch(catch)
            if catch != DEFAULT_CATCH:
                raise ValueError(f"catch ({catch!r}) is the signs variant's parameter: pass "
                                 f"signs=True too")
        return base
    if base.signs:
        return base if catch is None else base.with_catch(catch)
    if base.obs_layout != ALUETTE_SIGNS_V0.obs_layout - 1:
        raise ValueError("the signs variant extends the layout-2 observation")
    return ALUETTE_SIGNS_V0 if catch is None else ALUETTE_SIGNS_V0.with_catch(catch)


__all__ = ["ALUETTE_SIGNS_V0", "ALUETTE_V0", "ALUETTE_V1", "NEWEST", "SIGNS_A_DEAL", "VARIANTS",
           "Variant", "load_variant", "variant_of"]
