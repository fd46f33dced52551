"""A variant of Aluette as one object: what every consumer asks instead of
knowing flags (OpenSpiel's ``Game`` with its parameters, pgx's env ids).

A :class:`Variant` is a game seen through one observation layout, as
OpenSpiel keeps a game apart from its observer. It owns

- its registered env id (``aluette_v1``, ``aluette_signs_v0``; a changed
  game gets a new id, and an old id keeps its game: PettingZoo's versions),
- its game (:attr:`~Variant.game`: the rules, named by ``game_id``, and their
  parameters, :meth:`~Variant.params`): ``aluette_v0`` and ``aluette_v1`` are
  one game, ``aluette``, seen through two layouts,
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

A variant is named one way: this object, or its env id and parameters
(:meth:`~Variant.spec`, what records, snapshots and configs store, read back
by :func:`variant_from_spec`; OpenSpiel's ``load_game("name(param=value)")``).
The older keywords ``signs=`` / ``catch=`` still work for one release, with a
DeprecationWarning (:func:`variant_of`).

A second variant is a new :class:`Variant` value or subclass: the env, the
batched engine, OpenSpiel, the game for people, records, evaluation and
training take it (``tests/test_a_second_variant.py`` plays two defined in
that file alone); :func:`register_variant` lets a record or a snapshot name it
by its id. Its catch rule is :meth:`~Variant.catchers`: each seat that may
catch a sign, with its chance; the rest of this module follows from it. The
variants shipped are :data:`ALUETTE_V0`, :data:`ALUETTE_V1` and
:data:`ALUETTE_SIGNS_V0`, registered by id in :data:`VARIANTS`
(:func:`load_variant`).

Standard library only.
"""

from __future__ import annotations

import dataclasses
import numbers
import operator
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import NUM_CARDS
from .deal import Match
from .rules import DEFAULT_NUM_DEALS, NUM_TRICKS
from .seats import NUM_SEATS, opponents_of, team_of
from .signs import DEFAULT_CATCH, NO_SIGN, NUM_ACTIONS, SIGN_BASE, check_catch, sees_sign
from .state import write_legal

#: Signs a deal: one per trick and seat, the sign of trick t by seat s at t * 4 + s (S1).
SIGNS_A_DEAL = NUM_TRICKS * NUM_SEATS
#: The most deals a match of a variant has: the observation has room for ten
#: (its ``deal`` and ``deals_left`` fields, :mod:`aluette_env.observation`).
MAX_DEALS = 10
#: The observation layouts of each game (:mod:`aluette_env.observation`): the
#: default game's 1 and 2, the signs variant's 3 (layout 2 and its signs block).
GAME_LAYOUTS = (1, 2)
SIGNS_LAYOUTS = (3,)


def _shown(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:60] + "..."


def _check_name(field: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise ValueError(f"{field} must be a non-empty name, got {_shown(value)}")


def is_numpy_bool(value: object) -> bool:
    """``value`` is a numpy bool scalar (``np.True_``; its type is named ``bool_``,
    or ``bool`` since numpy 2), told apart without importing numpy."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")


def check_flag(name: str, value: object) -> bool:
    """``value`` as a bool when it is one (a numpy bool too); ValueError naming
    ``name`` otherwise (no truthy text: ``'yes'`` is refused)."""
    if isinstance(value, bool) or is_numpy_bool(value):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {_shown(value)}")


def check_whole(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int from ``low`` to ``high`` (a numpy integer too, never a
    bool, a float or text); ValueError naming ``name`` otherwise."""
    number = None
    if not isinstance(value, bool) and not is_numpy_bool(value):
        try:
            number = operator.index(value)
        except TypeError:
            pass
    if number is None or not low <= number <= high:
        raise ValueError(f"{name} must be an int from {low} to {high}, got {_shown(value)}")
    return number


class Game(NamedTuple):
    """A game without its observation layout (OpenSpiel's game, not its
    observer): the rules (``rules``: the variant's class, which states the
    catch rule), their name and their parameters. Two variants that differ
    only in their layout and env id have the same game."""

    game_id: str
    rules: type
    params: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Variant:
    """One game of Aluette, the observation layout it is seen through, and its
    env id; see the module docstring.

    ``signs``: each turn is a sign, then a card (S1-S5), each opponent
    catching a sign with the chance ``catch`` (S4). ``num_deals``: a match's
    deals unless its caller says otherwise (R2: five). ``game_id``: the
    game's name without its layout (default ``aluette``, or ``aluette_signs``
    with signs; a subclass, whose rules are its own, its env id)."""

    env_id: str
    obs_layout: int
    signs: bool = False
    catch: float = DEFAULT_CATCH
    num_deals: int = DEFAULT_NUM_DEALS
    game_id: str = ""

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> Variant:
        """Every field checked where the variant is made, numpy scalars taken as
        Python's: ValueError names the first bad field and its value (the env,
        the batched engine, OpenSpiel and the game for people check it again
        when they are given it). Returns the variant."""
        _check_name("env_id", self.env_id)
        for name, value in (("signs", check_flag("signs", self.signs)),
                            ("obs_layout", check_whole("obs_layout", self.obs_layout, 1, 3)),
                            ("num_deals", check_whole("num_deals", self.num_deals, 1, MAX_DEALS)),
                            ("catch", check_catch(self.catch))):
            object.__setattr__(self, name, value)
        if self.game_id == "":
            object.__setattr__(self, "game_id", self.env_id if type(self) is not Variant
                               else "aluette_signs" if self.signs else "aluette")
        _check_name("game_id", self.game_id)
        layouts = SIGNS_LAYOUTS if self.signs else GAME_LAYOUTS
        if self.obs_layout not in layouts:
            game = "the signs variant" if self.signs else "the default game (signs=False)"
            raise ValueError(f"{self.env_id}: obs_layout {self.obs_layout} is not an "
                             f"observation of {game}; its layouts are "
                             f"{', '.join(map(str, layouts))}")
        if not self.signs and self.catch != DEFAULT_CATCH:
            raise ValueError(f"catch ({self.catch!r}) is the signs variant's parameter: pass "
                             f"signs=True too")
        counts = {self._check_catchers(s) for s in range(NUM_SEATS)}
        if len(counts) > 1:
            raise ValueError(f"{self.env_id}: every signer has as many catchers, got "
                             f"{sorted(counts)}")
        return self

    def _check_catchers(self, signer: int) -> int:
        """How many seats may catch ``signer``'s sign; ValueError unless
        :meth:`catchers` names each an opponent of the signer (once) with a chance
        from 0 to 1, and none without signs."""
        where = f"{self.env_id}: catchers({signer})"
        try:
            catchers = tuple(self.catchers(signer))
            pairs = [(seat, chance) for seat, chance in catchers]
        except (TypeError, ValueError):
            raise ValueError(f"{where} must be (seat, chance) pairs") from None
        if catchers and not self.signs:
            raise ValueError(f"{where}: a variant without signs has no catchers, got "
                             f"{_shown(catchers)}")
        seen = set()
        for seat, chance in pairs:
            if isinstance(seat, bool) or not isinstance(seat, int) \
                    or seat not in opponents_of(signer) or seat in seen:
                raise ValueError(f"{where}: a catcher is an opponent of seat {signer} "
                                 f"({', '.join(map(str, opponents_of(signer)))}), each once; "
                                 f"got {_shown(seat)}")
            seen.add(seat)
            try:
                check_catch(chance)
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
        return len(pairs)

    # -- the game, apart from its layout ----------------------------------------------

    def params(self) -> dict[str, Any]:
        """The game's parameters, as a record or a config stores them beside the
        env id: ``num_deals``, and with signs ``catch``."""
        return {**({"catch": self.catch} if self.signs else {}), "num_deals": self.num_deals}

    @property
    def game(self) -> Game:
        """The game without its layout: ``ALUETTE_V0.game == ALUETTE_V1.game``."""
        return Game(self.game_id, type(self), tuple(sorted(self.params().items())))

    def spec(self) -> dict[str, Any]:
        """The env id and the game's parameters as JSON-ready data, what records,
        snapshots and configs store; :func:`variant_from_spec` reads it back."""
        return {"id": self.env_id, "params": self.params()}

    def with_params(self, **params: Any) -> Variant:
        """This variant with other parameters (:meth:`params`' names), checked."""
        unknown = sorted(set(params) - {"catch", "num_deals"})
        if unknown:
            raise ValueError(f"{self.env_id}: unknown parameter(s) {', '.join(unknown)}; its "
                             f"parameters are {', '.join(self.params())}")
        return dataclasses.replace(self, **params)

    def with_layout(self, obs_layout: int, env_id: str) -> Variant:
        """The same game seen through another observation layout, as ``env_id``."""
        return dataclasses.replace(self, obs_layout=obs_layout, env_id=env_id)

    # -- the rules ------------------------------------------------------------------

    @property
    def num_actions(self) -> int:
        """The action space: the 48 cards, and with signs the ten sign actions (S1)."""
        return NUM_ACTIONS if self.signs else NUM_CARDS

    def with_catch(self, catch: float) -> Variant:
        """This variant with another chance of a catch (S4)."""
        return self.with_params(catch=catch)

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
        """``action`` is an integer action id of this variant, legal or not (a
        Python or numpy integer; never a bool)."""
        return isinstance(action, numbers.Integral) and not isinstance(action, bool) \
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
#: ``aluette_v1``: the same game with the perfect-recall observation.
ALUETTE_V1 = ALUETTE_V0.with_layout(2, "aluette_v1")
#: ``aluette_signs_v0``: the signs variant (S1-S5), the observation of layout 3.
ALUETTE_SIGNS_V0 = Variant("aluette_signs_v0", obs_layout=3, signs=True)
#: The shipped variants by env id (each has its module, ``aluette_env.<env id>``);
#: the newest default game is ``aluette_v1``.
VARIANTS: dict[str, Variant] = {v.env_id: v for v in (ALUETTE_V0, ALUETTE_V1, ALUETTE_SIGNS_V0)}
NEWEST = ALUETTE_V1
#: The variants :func:`register_variant` added, by env id.
_REGISTERED: dict[str, Variant] = {}


def _known() -> dict[str, Variant]:
    return {**VARIANTS, **_REGISTERED}


def register_variant(variant: Variant) -> Variant:
    """Names ``variant`` by its env id, so a record, a snapshot or a config
    that stores the id plays it again (:func:`load_variant`); registering the
    same variant twice is harmless, another one under a taken id an error."""
    if not isinstance(variant, Variant):
        raise ValueError(f"register_variant takes a Variant, got {type(variant).__name__}")
    variant.check()
    known = _known().get(variant.env_id)
    if known is not None and known != variant:
        raise ValueError(f"the env id {variant.env_id} is already {known!r}")
    _REGISTERED[variant.env_id] = variant
    return variant


def load_variant(env_id: str, **params) -> Variant:
    """The variant registered as ``env_id`` with ``params`` (its fields: ``catch``,
    ``num_deals``, ...), checked (:meth:`Variant.check`)."""
    known = _known()
    if not isinstance(env_id, str) or env_id not in known:
        raise ValueError(f"no variant {_shown(env_id)}; variants are {', '.join(known)}")
    fields = {f.name for f in dataclasses.fields(Variant)}
    unknown = sorted(set(params) - fields)
    if unknown:
        raise ValueError(f"load_variant: unknown field(s) {', '.join(unknown)}; a variant's "
                         f"fields are {', '.join(sorted(fields))}")
    return dataclasses.replace(known[env_id], **params) if params else known[env_id]


def variant_from_spec(spec: object, where: str = "variant") -> Variant:
    """The variant a :meth:`Variant.spec` names: ``{"id": env id, "params":
    {...}}`` (an env id alone is the variant's default parameters). ValueError,
    one line naming ``where``, for a bad spec or an id nobody registered."""
    if isinstance(spec, str):
        spec = {"id": spec, "params": {}}
    if not isinstance(spec, Mapping) or set(spec) - {"id", "params"} or "id" not in spec \
            or not isinstance(spec.get("params", {}), Mapping):
        raise ValueError(f"{where}: an env id or {{\"id\": env id, \"params\": {{...}}}}, "
                         f"got {_shown(spec)}")
    env_id, params, known = spec["id"], dict(spec.get("params", {})), _known()
    if not isinstance(env_id, str) or env_id not in known:
        raise ValueError(f"{where}: no variant {_shown(env_id)}; variants are "
                         f"{', '.join(known)} (register_variant names another)")
    try:
        return known[env_id].with_params(**params)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from None


def variant_of(variant: Variant | str | None = None, signs: object = None,
               catch: object = None, base: Variant = NEWEST) -> Variant:
    """The variant a caller means: ``variant`` itself (a :class:`Variant`, checked
    again, or a registered variant's env id), else ``base``. ``signs`` /
    ``catch`` are the older keywords, kept one release with a
    DeprecationWarning (``signs=True`` is :data:`ALUETTE_SIGNS_V0` with
    ``catch``, ``signs=False`` the default game; both default to ``base``'s);
    ``catch`` alone on a ``base`` with signs is that game's parameter, no
    warning (``aluette_signs_v0.env(catch=0.5)``).
    ValueError names a bad value or a mix of the two ways."""
    if signs is not None:
        signs = check_flag("signs", signs)
    if variant is not None:
        if isinstance(variant, str):
            variant = load_variant(variant)
        if not isinstance(variant, Variant):
            raise ValueError(f"variant must be a Variant or a variant's env id "
                             f"({', '.join(_known())}), got {type(variant).__name__}")
        if signs is not None or catch is not None:
            raise ValueError(f"give the variant ({variant.env_id}) or signs/catch, not both")
        return variant.check()
    if signs is None and catch is None:
        return base
    if signs is not None or not base.signs:  # catch= on a signs game is its parameter
        warnings.warn("signs= and catch= are deprecated; name the game with variant= (for "
                      "example variant=ALUETTE_SIGNS_V0.with_catch(0.25), or "
                      "load_variant('aluette_signs_v0', catch=0.25))", DeprecationWarning,
                      stacklevel=3)
    if signs is None:
        signs = base.signs
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


__all__ = ["ALUETTE_SIGNS_V0", "ALUETTE_V0", "ALUETTE_V1", "GAME_LAYOUTS", "Game", "MAX_DEALS",
           "NEWEST", "SIGNS_A_DEAL", "SIGNS_LAYOUTS", "VARIANTS", "Variant", "check_flag",
           "check_whole", "is_numpy_bool", "load_variant", "register_variant",
           "variant_from_spec", "variant_of"]
