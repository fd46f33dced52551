"""Match records: a finished match (or its finished deals) as a versioned JSON
document that people can keep, replay and review, and that training can learn
from. The format is documented in ``docs/RECORDS.md``.

A record holds the first dealer, each seat's player (a player spec, or
``"human"``), every deal's four hands and its plays in order, and the results
as the game core reports them (:func:`~aluette_env.game.deal_result`,
:func:`~aluette_env.game.match_result`). :func:`load_record` checks every
field and then replays the whole match through the game core (:class:`Deal`,
:class:`Match`): a card played twice, a play out of turn or results that do
not match the plays are refused with one line that names the field. No rule
is restated here; the replay is the rules' own, and who may catch a sign the
variant's (:class:`~aluette_env.game.Variant`). A record names its game: one of
a game other than the shipped default (``aluette_v1``) or signs game
(``aluette_signs_v0`` at its chance of a catch) stores the variant's env id and
parameters (version 4, :meth:`~aluette_env.game.Variant.spec`) and is replayed
as that game; an older record is one of those two.

Standard library and the game core only.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Mapping, Sequence

from ._files import read_regular
from .game import (
    AGENTS, ALUETTE_SIGNS_V0, ALUETTE_V1, CARD_PLAYED, DEFAULT_NUM_DEALS, HAND_SIZE, NUM_CARDS,
    NUM_SEATS, NUM_SIGNS, NUM_TRICKS, SEAT, Deal, Match, Variant, check_card, deal_result,
    describe, match_result, seat_at, team_of, variant_from_spec,
)

FORMAT = "aluette-match"
#: The newest version: 4 for a match of a game that names its variant
#: (``variant``), 3 for a match with signs (``signs``), 2 with display names, 1
#: otherwise, so that older readers read what they can.
VERSION = 4
READS = (1, 2, 3, 4)
MAX_NAME = 40
HUMAN = "human"
#: Largest record file read (a five-deal match is about 10 KB).
MAX_BYTES = 1 << 20
MAX_DEALS = 100
PLAYS_PER_DEAL = NUM_SEATS * NUM_TRICKS
_TOP_KEYS = {"format", "version", "num_deals", "first_dealer", "players", "deals", "result"}
_DEAL_KEYS = {"hands", "plays", "result"}


class RecordError(ValueError):
    """A record that cannot be loaded: the message names the field and why."""


def _sign_entry(deal: Deal, trick: int, seat: int, variant: Variant) -> list[Any]:
    """A play's sign as a record keeps it: [sign 0-9, [opponents who caught it]]."""
    sign = deal.sign_of(trick, seat)
    caught = int(deal.state.caught[trick * NUM_SEATS + seat])
    return [sign, [AGENTS[o] for o in variant.caught_by(seat, sign, caught)]]


def _implied(signs: bool) -> Variant:
    """The game a record that does not name its variant is of (versions 1-3)."""
    return ALUETTE_SIGNS_V0 if signs else ALUETTE_V1


def _same_game(a: Variant, b: Variant) -> bool:
    """``a`` and ``b`` are one game, whatever their layouts and match lengths (a
    record keeps its own ``num_deals``)."""
    return a.with_params(num_deals=1).game == b.with_params(num_deals=1).game


def _named(variant: Variant) -> bool:
    """A record of ``variant`` names it (version 4): its game is not the one
    its signs imply."""
    return not _same_game(variant, _implied(variant.signs))


def _variant(record: Mapping[str, Any], variant: Variant | None) -> Variant:
    """The variant a record is replayed with: the one it names (version 4), or
    the shipped one its signs imply; ``variant``, if given, must be that game
    (its layout may differ: a record has none)."""
    signs = record.get("signs", False) is True
    if "variant" in record:
        try:
            recorded = variant_from_spec(record["variant"])
        except ValueError as err:
            raise RecordError(str(err)[:300]) from None
        if recorded.signs != signs:
            raise RecordError(f"signs: the record is a match {'with' if signs else 'without'} "
                              f"signs, its variant {recorded.env_id} one "
                              f"{'without' if signs else 'with'}")
    else:
        recorded = _implied(signs)
    if variant is None:
        return recorded
    if variant.signs != signs:
        raise RecordError(f"signs: the record is a match {'with' if signs else 'without'} "
                          f"signs, the variant {variant.env_id} one "
                          f"{'without' if signs else 'with'}")
    if "variant" in record and not _same_game(variant, recorded):
        raise RecordError(f"variant: the record is a match of {recorded.env_id} "
                          f"{recorded.params()}, not of {variant.env_id} {variant.params()}")
    return variant


@dataclass(frozen=True)
class Position:
    """One decision of a replayed match: ``deal`` and ``match`` as they stood
    before ``card`` was played by ``seat`` (the core's objects, live: read them
    before iterating on); ``deal_index`` and ``play_index`` (0-35) locate it."""

    deal_index: int
    play_index: int
    seat: int
    card: int
    deal: Deal
    match: Match


# ----------------------------------------------------------------- making records


def record_of(deals: Sequence[Deal], first_dealer: int, players: Sequence[str],
              num_deals: int = DEFAULT_NUM_DEALS,
              names: Mapping[int, str] | None = None,
              variant: Variant | None = None) -> dict[str, Any]:
    """The record of a match's finished deals (``deals``: the core's finished
    :class:`Deal` objects of one match, in order: ``Match.deals``,
    :func:`~aluette_env.game.play_match`), its first dealer, each seat's player
    (a spec or ``"human"``) and its length; ``names``: the display names of the
    people's seats (a version 2 record; version 1 without). Unfinished deals
    are left out. The results are the deals' own (``Deal.record``, the match
    points after the last one). ``variant``: the game played (by default the
    shipped one, with signs if the deals have them), whose catchers it names
    and, when it is not the shipped game its signs imply, whose env id and
    parameters it stores (version 4)."""
    out = []
    points = [0, 0]
    signs = bool(deals) and bool(deals[0].state.signs_on)
    if variant is None or variant.signs != signs:  # no finished deal: no signs recorded
        variant = _variant({"signs": signs}, None)
    for deal in deals[:num_deals]:
        if deal.record is None:
            break
        hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        plays, made = [], []
        for trick in deal.tricks:
            for k, card in enumerate(trick.cards):
                seat = seat_at(trick.leader, k)
                hands[seat].append(card)
                plays.append([AGENTS[seat], card])
                made.append(_sign_entry(deal, trick.index, seat, variant))
        out.append({"hands": [sorted(h) for h in hands], "plays": plays,
                    **({"signs": made} if signs else {}),
                    "result": deal_result(deal.record)})
        points = deal.state.points
    named = {"names": {AGENTS[s]: names[s] for s in sorted(names)}} if names else {}
    spec = {"variant": variant.spec()} if _named(variant) else {}
    version = 4 if spec else 3 if signs else 2 if named else 1
    return {
        "format": FORMAT, "version": version, "num_deals": num_deals,
        **spec,
        **({"signs": True} if signs else {}),
        "first_dealer": AGENTS[first_dealer],
        "players": {AGENTS[s]: str(players[s]) for s in range(NUM_SEATS)},
        **named,
        "deals": out,
        "result": match_result(points),
    }


def save_record(record: dict[str, Any], folder: str | os.PathLike, name: str) -> Path:
    """Write ``record`` (checked first) as ``folder/name.json`` atomically (a
    killed process leaves no half-written record); returns the path."""
    load_record(record)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".record-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# ----------------------------------------------------------------- loading records


def read_record(path: str | os.PathLike) -> dict[str, Any]:
    """Load and check the record file at ``path``; RecordError names the problem.
    Only a regular file is read (a named pipe, a device or a folder is refused
    before anything is read), and at most ``MAX_BYTES`` + 1 bytes of it."""
    path = Path(path)
    try:
        data = read_regular(path, MAX_BYTES)
    except OSError as err:
        raise RecordError(f"{_shown_path(path)}: {err.strerror or err}") from None
    try:
        return load_record(data)
    except RecordError as err:
        raise RecordError(f"{_shown_path(path)}: {err}") from None


def _shown_path(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 200 else text[:200] + "..."


def load_record(data: str | bytes | dict[str, Any],
                variant: Variant | None = None) -> dict[str, Any]:
    """The record in ``data`` (JSON text, its UTF-8 bytes, or the parsed object),
    every field checked and the match replayed through the game core (and
    ``variant``'s catch rule: by default the shipped variant's); RecordError
    with one line naming the field otherwise. Returns the parsed record. One
    strict reader for every path (files, uploads, objects): UTF-8 without a
    byte order mark, no key twice in an object, no NaN or Infinity,
    integers where integers are meant (never a bool or a float), and text
    without lone surrogates."""
    return load_match(data, variant)[0]


def load_match(data: str | bytes | dict[str, Any],
               variant: Variant | None = None) -> tuple[dict[str, Any], Match]:
    """:func:`load_record`'s record and the match its replay leaves: the core's
    :class:`Match` with the record's finished deals played, which a game goes
    on from (:meth:`~aluette_env.apps.session.GameSession.restore`)."""
    if isinstance(data, (bytes, bytearray)):
        if len(data) > MAX_BYTES:
            raise RecordError(f"the record is {len(data)} bytes; at most {MAX_BYTES}")
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as err:
            raise RecordError(f"not valid JSON: not UTF-8 text (byte {err.start}); a record "
                              f"is UTF-8 JSON") from None
    if isinstance(data, str):
        if len(data) > MAX_BYTES:
            raise RecordError(f"the record is {len(data)} characters; at most {MAX_BYTES} bytes")
        if data.startswith("\ufeff"):
            raise RecordError("the record starts with a byte order mark (U+FEFF); a record is "
                              "UTF-8 JSON without one")
        try:
            data = json.loads(data, object_pairs_hook=_object, parse_constant=_constant)
        except RecordError:
            raise
        except (ValueError, RecursionError) as err:  # bad JSON, nesting
            reason = "nested too deeply" if isinstance(err, RecursionError) else err
            raise RecordError(f"not valid JSON: {reason}") from None
    rec = data
    if not isinstance(rec, dict):
        raise RecordError(f"a record is a JSON object, got {type(rec).__name__}")
    if rec.get("format") != FORMAT or not isinstance(rec.get("format"), str):
        raise RecordError(f"format: expected {FORMAT!r}, got {rec.get('format')!r}"[:300])
    if not _is_int(rec.get("version")) or rec.get("version") not in READS:
        raise RecordError(f"version: this program reads versions "
                          f"{', '.join(map(str, READS))} (an integer), "
                          f"got {rec.get('version')!r}"[:300])
    if rec["version"] == 3 and "signs" not in rec:
        raise RecordError("signs: missing (version 3 is a match with signs)")
    signs = rec.get("signs", False) if rec["version"] >= 3 else False
    if signs is not True and signs is not False:
        raise RecordError(f"signs: true (a match with signs) or false, got {signs!r}"[:300])
    if rec["version"] == 4 and "variant" not in rec:
        raise RecordError("variant: missing (version 4 names its game: {\"id\": env id, "
                          "\"params\": {...}})")
    optional = ({"names"} if rec["version"] >= 2 else set()) \
        | ({"signs"} if rec["version"] >= 3 else set()) \
        | ({"variant"} if rec["version"] >= 4 else set())
    _keys(rec, _TOP_KEYS | (optional & set(rec)), "")
    num_deals = rec["num_deals"]
    if not _is_int(num_deals) or not 1 <= num_deals <= MAX_DEALS:
        raise RecordError(f"num_deals: an integer from 1 to {MAX_DEALS}, got {num_deals!r}")
    first = _agent(rec["first_dealer"], "first_dealer")
    players = rec["players"]
    if not isinstance(players, dict) or set(players) != set(AGENTS):
        raise RecordError(f"players: an object with exactly the keys {', '.join(AGENTS)}, "
                          f"got {players!r}"[:300])
    for agent in AGENTS:
        spec = players[agent]
        if not isinstance(spec, str) or not spec.strip() or len(spec) > 200:
            raise RecordError(f"players.{agent}: a player spec or 'human', got {spec!r}"[:300])
        if _has_surrogate(spec):
            raise RecordError(f"players.{agent}: not valid Unicode text (a lone surrogate), "
                              f"got {spec!r}"[:300])
    names = rec.get("names", {})  # from version 2, with people's seats; version 1: none
    if rec["version"] == 2 and "names" not in rec:
        raise RecordError("names: missing")
    if not isinstance(names, dict) or (not names and "names" in rec):
        raise RecordError("names: an object of the people's seats to their display names")
    for agent, name in names.items():
        if agent not in AGENTS or players[agent] != HUMAN:
            raise RecordError(f"names.{agent}: names are for the seats of people "
                              f"(players 'human')"[:300])
        if (not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME
                or not name.isprintable() or name != name.strip()):
            raise RecordError(f"names.{agent}: a display name of 1 to {MAX_NAME} printable "
                              f"characters, got {name!r}"[:300])
    deals = rec["deals"]
    if not isinstance(deals, list) or len(deals) > num_deals:
        raise RecordError(f"deals: a list of at most num_deals ({num_deals}) deals, "
                          f"got {_kind(deals)}")
    variant = _variant(rec, variant)
    match = variant.new_match(first, num_deals)
    for i, d in enumerate(deals):
        where = f"deals[{i}]"
        if not isinstance(d, dict):
            raise RecordError(f"{where}: a deal is an object, got {_kind(d)}")
        _keys(d, _DEAL_KEYS | ({"signs"} if signs else set()), where + ".")
        hands = _hands(d["hands"], where)
        plays = d["plays"]
        if not isinstance(plays, list) or len(plays) != PLAYS_PER_DEAL:
            raise RecordError(f"{where}.plays: a list of the deal's {PLAYS_PER_DEAL} plays, "
                              f"got {_kind(plays)}")
        made = _signs(d["signs"], plays, where, variant) if signs else None
        deal = match.start_deal(hands)
        played: dict[int, int] = {}
        for k, play in enumerate(plays):
            at = f"{where}.plays[{k}]"
            if not isinstance(play, list) or len(play) != 2:
                raise RecordError(f"{at}: a play is [player, card], got {play!r}"[:300])
            seat = _agent(play[0], at + "[0]")
            card = _card(play[1], at + "[1]")
            if card in played:
                raise RecordError(f"{at}: {describe(card)} was already played "
                                  f"at plays[{played[card]}]")
            if seat != deal.to_act:
                raise RecordError(f"{at}: {AGENTS[seat]} plays out of turn; "
                                  f"{AGENTS[deal.to_act]} is to play")
            if not deal.holds(seat, card):
                raise RecordError(f"{at}: {describe(card)} is not in {AGENTS[seat]}'s hand")
            if made is not None:
                _make_sign(deal, seat, made[k], variant)
            deal.play(card)
            played[card] = k
        _same(d["result"], deal_result(deal.record), where + ".result")
    _same(rec["result"], match_result(match.points), "result")
    return rec, match


def _signs(signs: object, plays: list, where: str,
           variant: Variant) -> list[tuple[int, list[int]]]:
    """A deal's ``signs`` (one per play: [sign 0-9, [opponents who caught it]]),
    checked against ``variant``'s catchers; the catchers as seats."""
    if not isinstance(signs, list) or len(signs) != PLAYS_PER_DEAL:
        raise RecordError(f"{where}.signs: a list of the deal's {PLAYS_PER_DEAL} signs, one "
                          f"per play, got {_kind(signs)}")
    out = []
    for k, entry in enumerate(signs):
        at = f"{where}.signs[{k}]"
        if not isinstance(entry, list) or len(entry) != 2 or not _is_int(entry[0]) \
                or not 0 <= entry[0] <= NUM_SIGNS or not isinstance(entry[1], list):
            raise RecordError(f"{at}: a sign is [0-{NUM_SIGNS} (0: none), [players who caught "
                              f"it]], got {entry!r}"[:300])
        seat = SEAT.get(plays[k][0]) if isinstance(plays[k], list) and plays[k] \
            and isinstance(plays[k][0], str) else None
        if entry[0] == 0 and entry[1]:
            raise RecordError(f"{at}[1]: no sign (0) is made, so nobody catches one; got "
                              f"{entry[1]!r}"[:300])
        caught = []
        for j, agent in enumerate(entry[1]):
            who = _agent(agent, f"{at}[1][{j}]")
            if seat is not None and team_of(who) == team_of(seat):
                raise RecordError(f"{at}[1][{j}]: {agent} is {AGENTS[seat]}'s own team: only "
                                  f"opponents catch a sign (the partner always sees it)")
            if seat is not None and not variant.may_catch(seat, who):
                raise RecordError(f"{at}[1][{j}]: {agent} does not catch {AGENTS[seat]}'s "
                                  f"signs in {variant.env_id}")
            if who in caught:
                raise RecordError(f"{at}[1][{j}]: {agent} is named twice")
            caught.append(who)
        out.append((entry[0], caught))
    return out


def _make_sign(deal: Deal, seat: int, made: tuple[int, list[int]], variant: Variant) -> None:
    """Replay a recorded sign: its catches into the deal's record, then the sign."""
    sign, caught = made
    g = deal.state
    g.caught[g.trick_index * NUM_SEATS + seat] = variant.caught_bits(
        seat, [o in caught for o in range(NUM_SEATS)])
    deal.sign(sign)


def positions(record: dict[str, Any], variant: Variant | None = None) -> Iterator[Position]:
    """Every decision of a loaded record, in order, with the core's deal and
    match as they stood before it (one replay, no copies: the objects move on)."""
    first = SEAT[record["first_dealer"]]
    variant = _variant(record, variant)
    match = variant.new_match(first, record["num_deals"])
    for i, d in enumerate(record["deals"]):
        deal = match.start_deal(d["hands"])
        made = _signs(d["signs"], d["plays"], "", variant) if variant.signs else None
        for k, (agent, card) in enumerate(d["plays"]):
            if made is not None:
                _make_sign(deal, SEAT[agent], made[k], variant)
            yield Position(i, k, SEAT[agent], card, deal, match)
            deal.play(card)


def tricks(record: dict[str, Any], variant: Variant | None = None
           ) -> list[list[dict[str, Any]]]:
    """Each deal's tricks as the core plays them: ``{"index", "leader",
    "plays": [[player, card], ...], "winner": player or None}`` (R10-R11); in a
    match with signs also ``"signs": [[player, sign, [who caught it]], ...]``,
    each play's sign (0: none) in the same order."""
    return replay(record, with_steps=False, variant=variant)[0]


def replay_steps(record: dict[str, Any], variant: Variant | None = None
                 ) -> list[list[dict[str, Any]]]:
    """Each deal as a replay shows it after each of its plays: ``steps[d][k]``
    (``k`` plays made, 0 to 36) is ``{"hands": each player's cards still held,
    in the order dealt; "trick": [[player, card], ...] on the table; "opened":
    the last play led a trick; "done": that trick is complete; "winner": who
    took it (None: spoiled, or not complete)}``. A complete trick stays on the
    table until the next card (R9-R11, as the core plays them)."""
    return replay(record, variant=variant)[1]


def replay(record: dict[str, Any], with_steps: bool = True, variant: Variant | None = None
           ) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """(:func:`tricks`, :func:`replay_steps`) of ``record`` from one replay of
    its plays through the core; without ``with_steps``, the second is empty."""
    all_tricks: list[list[dict[str, Any]]] = []
    all_steps: list[list[dict[str, Any]]] = []
    variant = _variant(record, variant)
    signs = variant.signs
    match = variant.new_match(SEAT[record["first_dealer"]], record["num_deals"])
    for d in record["deals"]:
        dealt = [list(h) for h in d["hands"]]
        deal = match.start_deal(dealt)
        made = _signs(d["signs"], d["plays"], "", variant) if signs else None
        steps = [_step(dealt, deal, [], False, None, False)] if with_steps else []
        for k, (agent, card) in enumerate(d["plays"]):
            if made is not None:
                _make_sign(deal, SEAT[agent], made[k], variant)
            event = deal.play(card)
            if not with_steps:
                continue
            if event == CARD_PLAYED:  # the trick in progress
                leader, cards, winner, done = deal.leader, deal.trick_cards, None, False
            else:  # the trick just completed
                trick = deal.tricks[-1]
                leader, cards, winner, done = trick.leader, trick.cards, trick.winner, True
            on_table = [[AGENTS[seat_at(leader, k)], c] for k, c in enumerate(cards)]
            steps.append(_step(dealt, deal, on_table, len(cards) == 1, winner, done))
            if made is not None:  # the signs made in the trick on the table
                first = k + 1 - len(cards)
                steps[-1]["signs"] = [[d["plays"][j][0], made[j][0],
                                       [AGENTS[o] for o in made[j][1]]]
                                      for j in range(first, k + 1)]
        if with_steps:
            all_steps.append(steps)
        all_tricks.append([{"index": t.index, "leader": AGENTS[t.leader],
                            "plays": [[AGENTS[seat_at(t.leader, k)], c]
                                      for k, c in enumerate(t.cards)],
                            "winner": None if t.winner < 0 else AGENTS[t.winner],
                            **({"signs": [[AGENTS[seat_at(t.leader, k)],
                                           *_sign_entry(deal, t.index, seat_at(t.leader, k),
                                                        variant)]
                                          for k in range(len(t.cards))]} if signs else {})}
                           for t in deal.tricks])
    return all_tricks, all_steps


def _step(dealt: list[list[int]], deal: Deal, trick: list, opened: bool, winner: int | None,
          done: bool) -> dict[str, Any]:
    return {"hands": [[c for c in hand if deal.holds(seat, c)] for seat, hand in enumerate(dealt)],
            "trick": trick, "opened": opened, "done": done,
            "winner": None if winner is None or winner < 0 else AGENTS[winner]}


def human_seats(record: dict[str, Any]) -> list[int]:
    """The seats a person played."""
    return [SEAT[a] for a in AGENTS if record["players"][a] == HUMAN]


# ----------------------------------------------------------------- checks


def _keys(obj: dict, allowed: set[str], prefix: str) -> None:
    missing = sorted(allowed - set(obj))
    if missing:
        raise RecordError(f"{prefix}{missing[0]}: missing")
    extra = sorted(set(obj) - allowed)
    if extra:
        raise RecordError(f"{prefix}{_name(extra[0])}: unknown field; "
                          f"allowed: {', '.join(sorted(allowed))}"[:300])


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (``json`` keeps the last one)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RecordError(f"{_name(key)}: given twice in one object"[:300])
        out[key] = value
    return out


def _name(key: object) -> str:
    """A key of the record as a message shows it: as written when it is a plain
    name, else quoted with its escapes (a control character, a lone surrogate)."""
    return key if isinstance(key, str) and key.isidentifier() and key.isascii() else repr(key)


def _constant(name: str) -> None:
    raise RecordError(f"not valid JSON: {name} is not a JSON number")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _agent(v: object, where: str) -> int:
    if not isinstance(v, str) or v not in SEAT:
        raise RecordError(f"{where}: one of {', '.join(AGENTS)}, got {v!r}"[:300])
    return SEAT[v]


def _card(v: object, where: str) -> int:
    if not _is_int(v):
        raise RecordError(f"{where}: a card id 0-{NUM_CARDS - 1}, got {v!r}"[:300])
    try:
        return check_card(v)
    except ValueError:
        raise RecordError(f"{where}: a card id 0-{NUM_CARDS - 1}, got {v!r}") from None


def _hands(hands: object, where: str) -> list[list[int]]:
    if not isinstance(hands, list) or len(hands) != NUM_SEATS:
        raise RecordError(f"{where}.hands: four hands (player_0..player_3), got {_kind(hands)}")
    seen: dict[int, int] = {}
    for s, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) != HAND_SIZE:
            raise RecordError(f"{where}.hands[{s}]: {HAND_SIZE} card ids, got {_kind(hand)}")
        for j, c in enumerate(hand):
            card = _card(c, f"{where}.hands[{s}][{j}]")
            if card in seen:
                raise RecordError(f"{where}.hands[{s}][{j}]: {describe(card)} is dealt twice "
                                  f"(also in hands[{seen[card]}])")
            seen[card] = s
    return [list(h) for h in hands]


def _same(got: object, want: object, where: str) -> None:
    """``got`` must be the result the replay gives; name the first field that differs."""
    if got == want and _types_match(got, want):
        return
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                raise RecordError(f"{where}.{_name(key)}: "
                                  f"{'missing' if key not in got else 'unknown field'}")
            _same(got[key], want[key], f"{where}.{key}")
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for k, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{k}]")
    raise RecordError(f"{where}: {got!r} does not match the plays, which give {want!r}"[:400])


def _types_match(got: object, want: object) -> bool:
    """Strict equality: True == 1 == 1.0 in Python, but not in a record."""
    if type(got) is not type(want):
        return False
    if isinstance(want, dict):
        return all(_types_match(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return all(_types_match(g, w) for g, w in zip(got, want))
    return True


def _kind(v: object) -> str:
    if isinstance(v, list):
        return f"a list of {len(v)}"
    return repr(v)[:80] if not isinstance(v, dict) else "an object"
