"""A game for people kept outside the process (the web server's database): its
snapshot, JSON-ready data, is the match record of its finished deals
(:mod:`aluette_env.records`), the deal in progress as it was dealt and played
so far, who sits where, and the game's counters. :func:`snapshot_of` writes
one; :func:`read_snapshot` reads one back, every field checked, and its
finished deals the match that :func:`~aluette_env.records.load_match` replays
from its record, for :meth:`GameSession.restore <.session.GameSession.restore>`
to play the deal in progress on through the rules
(:func:`check_in_progress`). Every snapshot stored before still loads: an
older one names its game by its ``catch`` (:func:`snapshot_variant`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aluette_env.game import (
    ALUETTE_SIGNS_V0, ALUETTE_V1, NUM_ACTIONS, NUM_CARDS, NUM_SEATS, NUM_TRICKS, SIGN_BASE,
    Match, Variant, check_catch, seat_at, variant_from_spec,
)

#: In a game's latest moves (``recent``), in a card's place: a person's next deal,
#: and new match.
NEXT_DEAL, NEW_MATCH = -1, -2


def snapshot_of(game: Any) -> dict[str, Any]:
    """The snapshot of ``game`` (a :class:`~.session.GameSession`, which imports
    this module): the match record of its finished deals, the deal in progress
    (its hands as dealt and the plays so far, :func:`as_dealt`), who sits
    where, and the counters."""
    seats = game.seating
    current = None if game.deal.done else as_dealt(game.deal)
    return {"record": game.record(), "current": current, "variant": game.variant.spec(),
            "match_number": game.match_number, "version": game.version,
            "seed": game.seed, "specs": {str(s): spec for s, spec in seats.specs.items()},
            "people": {str(s): name for s, name in seats.people.items()},
            "away": sorted(seats.away), "standin": seats.standin_spec,
            "recent": game.recent}


@dataclass(frozen=True)
class Saved:
    """A snapshot read back (:func:`read_snapshot`): its game, the match of its
    finished deals, the deal in progress (None: the last deal is over), and
    the rest of its fields with seats as numbers."""
    variant: Variant
    match: Match
    current: dict[str, Any] | None
    match_number: int
    version: int
    seed: int | None
    specs: dict[int, str]
    people: dict[int, str]
    away: set[int]
    standin: str | None
    recent: list[list]


def read_snapshot(snapshot: Any, variant: Variant | None = None) -> Saved:
    """``snapshot`` read back, its every field checked (:func:`check_snapshot`)
    and its record replayed (:func:`~aluette_env.records.load_match`): a
    tampered snapshot raises ValueError (a :class:`~aluette_env.records.RecordError`
    for the record). The game is the one the snapshot names
    (:func:`snapshot_variant`); ``variant``, if given, must be it. The deal in
    progress is checked by the rules when it is played on
    (:func:`check_in_progress`)."""
    from aluette_env.records import load_match
    variant = snapshot_variant(snapshot, variant)
    check_snapshot(snapshot, variant)
    signs = variant.signs
    record, match = load_match(snapshot["record"], variant)
    if record["deals"] and bool(record.get("signs")) != signs:
        raise ValueError(f"snapshot: its record is a match {'without' if signs else 'with'} "
                         f"signs, the game one {'with' if signs else 'without'}")
    current = snapshot["current"]
    if current is None and not match.deals:
        raise ValueError("snapshot: current is null (no deal in progress) and its record "
                         "has no finished deal: there is no deal to show")
    people = {int(s): name for s, name in snapshot["people"].items()}
    return Saved(variant=variant, match=match, current=current,
                 match_number=snapshot["match_number"], version=int(snapshot["version"]),
                 seed=snapshot["seed"],
                 specs={int(s): spec for s, spec in snapshot["specs"].items()},
                 people=people, away={int(s) for s in snapshot["away"]} & set(people),
                 standin=snapshot["standin"], recent=[list(r) for r in snapshot["recent"]])


def check_in_progress(current: dict[str, Any], deal: Any) -> None:
    """The deal in progress of a snapshot (``current``) against ``deal``, the
    deal its hands and moves made through the rules: ValueError where its
    plays or signs are not in the rules' turns."""
    again = as_dealt(deal)
    if [[s, c] for s, c in current["plays"]] != again["plays"]:
        raise ValueError("the deal in progress: its plays do not follow the rules' "
                         "turn order")
    if current.get("signs", []) != again.get("signs", []):
        raise ValueError("the deal in progress: its signs do not follow the rules' turns")


def as_dealt(deal) -> dict[str, Any]:
    """A deal (in progress or finished) as :func:`snapshot_of` keeps the
    one in progress: its hands as dealt, its plays so far ([seat, card]) and,
    with signs, the signs made so far in order (one more than the plays while
    the seat to act has made its sign and not yet its card) and its catches."""
    played = [(t.leader, t.cards) for t in deal.tricks] + [(deal.leader, deal.trick_cards)]
    plays = [[seat_at(leader, k), card] for leader, cards in played for k, card in enumerate(cards)]
    hands = [list(h) for h in deal.hands]
    for seat, card in plays:
        hands[seat].append(card)
    dealt: dict[str, Any] = {"hands": [sorted(h) for h in hands], "plays": plays}
    if deal.state.signs_on:  # the signs made so far, in order, and the deal's catches (S4)
        dealt["signs"] = [deal.sign_of(k // NUM_SEATS, seat) for k, (seat, _) in enumerate(plays)]
        if not deal.done and not deal.signing:  # the seat to act made its sign, not its card
            dealt["signs"].append(deal.sign_of(deal.trick_index, deal.to_act))
        dealt["caught"] = [int(c) for c in deal.state.caught]
    return dealt


def moves_of(dealt: dict[str, Any]) -> list[tuple[str, int]]:
    """The moves of a deal as :func:`as_dealt` gives it, in the order they were
    made: ("sign", sign) before each card with signs, ("play", card). (Of a
    snapshot's deal with fewer signs than cards, the cards left come last, for
    the rules to refuse.)"""
    cards = [("play", card) for _, card in dealt["plays"]]
    made = [("sign", sign) for sign in dealt.get("signs", [])]
    return [m for k, sign in enumerate(made) for m in (sign, *cards[k:k + 1])] + cards[len(made):]


def dealt_after(dealt: dict[str, Any], moves: int) -> dict[str, Any]:
    """``dealt`` (:func:`as_dealt`) as it stood after its first ``moves`` moves."""
    if "signs" not in dealt:
        return {**dealt, "plays": dealt["plays"][:moves]}
    return {**dealt, "plays": dealt["plays"][:moves // 2],
            "signs": dealt["signs"][:(moves + 1) // 2]}


#: A snapshot's fields (:func:`snapshot_of`).
SNAPSHOT_FIELDS = frozenset({"record", "current", "match_number", "version", "seed", "specs",
                             "people", "away", "standin", "recent"})
#: A snapshot's field of a match with signs: the chance of a catch (S4).
#: An older snapshot's chance of a catch, there exactly when it had signs
#: (a snapshot now names its game: ``variant``).
SIGNS_FIELDS = frozenset({"catch"})
VARIANT_FIELDS = frozenset({"variant"})


def snapshot_variant(snapshot: object, variant: Variant | None = None) -> Variant:
    """The game a snapshot is of: the one it names (``variant``: an env id and
    its parameters, :meth:`~aluette_env.game.Variant.spec`; the id a shipped
    or registered variant's, or ``variant``'s), or in an older snapshot the
    shipped one, with signs at its ``catch`` if it has one. ``variant``, if
    given, must be that game (ValueError, one line)."""
    if not isinstance(snapshot, dict):
        return variant if variant is not None else ALUETTE_V1
    if "variant" in snapshot:
        if "catch" in snapshot:
            raise ValueError("snapshot: catch is a parameter of its variant; a snapshot that "
                             "names its variant has no catch of its own")
        spec = snapshot["variant"]
        if variant is not None and isinstance(spec, dict) and spec.get("id") == variant.env_id:
            try:
                return variant.with_params(**dict(spec.get("params", {})))
            except (TypeError, ValueError) as err:
                raise ValueError(f"snapshot: variant: {err}") from None
        stored = variant_from_spec(spec, "snapshot: variant")
    elif "catch" in snapshot:
        try:
            stored = ALUETTE_SIGNS_V0.with_catch(check_catch(snapshot["catch"]))
        except ValueError:
            shown = repr(snapshot["catch"])[:40]
            raise ValueError(f"snapshot: catch must be a chance from 0 to 1, got {shown}") \
                from None
    else:
        stored = ALUETTE_V1
    if variant is None:
        return stored
    if "variant" in snapshot:
        raise ValueError(f"snapshot: a game of {stored.env_id} {stored.params()}, not of "
                         f"{variant.env_id}")
    if variant.signs != stored.signs:
        signs = stored.signs
        raise ValueError(f"snapshot: a game {'with' if signs else 'without'} signs, the "
                         f"variant {variant.env_id} one {'without' if signs else 'with'}")
    return variant.with_catch(stored.catch) if stored.signs else variant


def check_snapshot(snapshot: object, variant: Variant | None = None) -> None:
    """The shape of a :func:`snapshot_of` of ``variant`` (by default
    the game it names, :func:`snapshot_variant`): every field there, of its
    type and within its bounds, or ValueError naming the first that is not.
    The record and the plays are then checked by the rules
    (:func:`read_snapshot`, :func:`check_in_progress`)."""
    def whole(value: object, low: int, high: int | None = None) -> bool:
        return type(value) is int and value >= low and (high is None or value <= high)

    def bad(field: str, value: object, expected: str) -> ValueError:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
        return ValueError(f"snapshot: {field} must be {expected}, got {shown}")

    if not isinstance(snapshot, dict):
        raise bad("the snapshot", type(snapshot).__name__, "an object")
    missing = SNAPSHOT_FIELDS - set(snapshot)
    unknown = set(snapshot) - SNAPSHOT_FIELDS - SIGNS_FIELDS - VARIANT_FIELDS
    if missing or unknown:
        raise ValueError(f"snapshot: missing field(s) {sorted(missing)}, unknown field(s) "
                         f"{sorted(map(str, unknown))[:5]}")
    if not isinstance(snapshot["record"], dict):
        raise bad("record", snapshot["record"], "an object (a match record)")
    signs = (variant if variant is not None else snapshot_variant(snapshot)).signs
    current = snapshot["current"]
    if current is not None:
        keys = {"hands", "plays"} | ({"signs", "caught"} if signs else set())
        if not isinstance(current, dict) or set(current) != keys:
            raise bad("current", current, "null or an object of " + ", ".join(sorted(keys)))
        if signs and (not isinstance(current["signs"], list)
                      or not all(whole(k, 0, NUM_ACTIONS - SIGN_BASE - 1)
                                 for k in current["signs"])):
            raise bad("current.signs", current["signs"], "a list of signs 0-9")
        if signs and (not isinstance(current["caught"], list)
                      or len(current["caught"]) != NUM_TRICKS * NUM_SEATS
                      or not all(whole(c, 0, 15) for c in current["caught"])):
            raise bad("current.caught", current["caught"],
                      f"{NUM_TRICKS * NUM_SEATS} catches 0-15")
        hands, plays = current["hands"], current["plays"]
        if (not isinstance(hands, list) or len(hands) != NUM_SEATS
                or not all(isinstance(h, list) and len(h) == NUM_TRICKS
                           and all(whole(c, 0, NUM_CARDS - 1) for c in h) for h in hands)):
            raise bad("current.hands", hands, f"{NUM_SEATS} lists of {NUM_TRICKS} card ids")
        if (not isinstance(plays, list) or len(plays) >= NUM_SEATS * NUM_TRICKS
                or not all(isinstance(p, list) and len(p) == 2 and whole(p[0], 0, NUM_SEATS - 1)
                           and whole(p[1], 0, NUM_CARDS - 1) for p in plays)):
            raise bad("current.plays", plays, "a list of [seat, card] of the deal so far")
    if not whole(snapshot["match_number"], 1):
        raise bad("match_number", snapshot["match_number"], "a whole number >= 1")
    if not whole(snapshot["version"], 0):
        raise bad("version", snapshot["version"], "a whole number >= 0")
    if snapshot["seed"] is not None and type(snapshot["seed"]) is not int:
        raise bad("seed", snapshot["seed"], "a whole number or null")
    seat_keys = {str(s) for s in range(NUM_SEATS)}
    for field in ("specs", "people"):
        value = snapshot[field]
        if (not isinstance(value, dict) or not set(value) <= seat_keys
                or not all(isinstance(v, str) for v in value.values())):
            raise bad(field, value, 'an object of seats "0"-"3" to text')
    if not snapshot["people"]:
        raise bad("people", snapshot["people"], "at least one person's seat")
    away = snapshot["away"]
    if not isinstance(away, list) or not all(whole(s, 0, NUM_SEATS - 1) for s in away):
        raise bad("away", away, "a list of seats 0-3")
    if snapshot["standin"] is not None and not isinstance(snapshot["standin"], str):
        raise bad("standin", snapshot["standin"], "an AI spec or null")
    recent = snapshot["recent"]
    if (not isinstance(recent, list) or len(recent) > NUM_SEATS * NUM_TRICKS
            or not all(isinstance(r, list) and len(r) == 3
                       and (r[0] is None or whole(r[0], 0)) and whole(r[1], 0, NUM_SEATS - 1)
                       and whole(r[2], NEW_MATCH, NUM_ACTIONS - 1) for r in recent)):
        raise bad("recent", recent, "a list of [version, seat, card or move] of the latest "
                                    "moves")
