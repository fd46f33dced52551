"""A deal the page shows as it opens, kept nowhere until its first move: its
*draft*.

Opening the site deals a hand to play (``POST /api/drafts``), but no game is
stored until the person makes a move in it (or asks for a new match): a visit
that never plays leaves nothing in the database. The deal travels with the
page instead, sealed: the draft is the game's snapshot (every hand, the
catches of the signs, the AI's moves before the person's) encrypted and
authenticated with a key of the server's (:meth:`.store.Games.key`, the same
in every worker process), so that its holder can neither read the hidden
cards in it nor change it. The first move sends it back (``POST /api/games``
``{"draft": ...}``): the server opens it, replays it through the rules
(:meth:`GameSession.restore <aluette_env.apps.session.GameSession.restore>`)
and keeps it.

A draft keeps one game only: the game's id and its seat token are drawn from
the draft (:func:`ids`), so sending it twice (a request sent again) finds the
game it made, and a played deal cannot be dealt again to a page that has seen
its cards. A draft is good for :data:`DRAFT_HOURS` hours, less than any kept
game is kept (:mod:`.upkeep`), so it cannot outlive the game it made either.

The seal: a random nonce; the snapshot padded with spaces to a multiple of
:data:`PAD` bytes (its length tells nothing of the hands); XOR-ed with the
keystream HMAC-SHA256(encryption key, nonce || counter) (a PRF in counter
mode); then HMAC-SHA256 (another key) over the version, nonce, time and
ciphertext (encrypt, then MAC). Both keys are derived from the server's key.

May import: the standard library only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

#: Hours a draft can be kept from (less than :data:`.upkeep.KEEP_UNPLAYED_HOURS`
#: and any other keeping time: a draft never outlives the game it kept).
DRAFT_HOURS = 12
#: The plaintext is padded to a multiple of this many bytes.
PAD = 1024
#: The name of the server's key that seals drafts (:meth:`.store.Games.key`).
KEY_NAME = "drafts"
_FORMAT = b"\x01"
_NONCE = 16
_TIME = 8
_TAG = 32
#: The longest draft read (a larger one is refused before any work): a snapshot of
#: up to 2 KiB (a deal's is about 700 bytes), within a request's 4 KiB.
MAX_CHARS = 3000


class DraftError(ValueError):
    """A draft that cannot be kept: not one of this server's, changed, or too
    old. The message says which."""


def _derived(key: bytes, purpose: bytes) -> bytes:
    return hmac.digest(key, b"aluette draft " + purpose, hashlib.sha256)


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    enc = _derived(key, b"encryption")
    blocks = (hmac.digest(enc, nonce + i.to_bytes(8, "big"), hashlib.sha256)
              for i in range(-(-length // 32)))
    return b"".join(blocks)[:length]


def _xor(data: bytes, stream: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def _tag(key: bytes, signed: bytes) -> bytes:
    return hmac.digest(_derived(key, b"authentication"), signed, hashlib.sha256)


def seal(key: bytes, snapshot: str, now: float) -> str:
    """The draft of the game whose snapshot (JSON text) is ``snapshot``, made at ``now``."""
    plain = snapshot.encode()
    plain += b" " * (-len(plain) % PAD)
    nonce = secrets.token_bytes(_NONCE)
    signed = _FORMAT + nonce + int(now).to_bytes(_TIME, "big") + _xor(
        plain, _keystream(key, nonce, len(plain)))
    return base64.urlsafe_b64encode(signed + _tag(key, signed)).decode().rstrip("=")


def open_draft(key: bytes, draft: object, now: float) -> tuple[bytes, str]:
    """The nonce and snapshot (JSON text) of ``draft``; :class:`DraftError` if
    it is not one this server sealed with ``key`` or if it is too old."""
    if not isinstance(draft, str) or not 0 < len(draft) <= MAX_CHARS:
        raise DraftError(f"a draft is a text of at most {MAX_CHARS} characters")
    try:
        blob = base64.urlsafe_b64decode(draft + "=" * (-len(draft) % 4))
    except (binascii.Error, ValueError):
        raise DraftError("a draft is the text this server sent, unchanged") from None
    signed, tag = blob[:-_TAG], blob[-_TAG:]
    head = 1 + _NONCE + _TIME
    if len(signed) <= head or not hmac.compare_digest(tag, _tag(key, signed)):
        raise DraftError("this draft was not made by this server, or was changed")
    if signed[:1] != _FORMAT:
        raise DraftError("this draft is of a format this server does not read")
    nonce, made = signed[1:1 + _NONCE], int.from_bytes(signed[1 + _NONCE:head], "big")
    if not made - 60 <= now <= made + DRAFT_HOURS * 3600:
        raise DraftError(f"this deal was dealt more than {DRAFT_HOURS} hours ago")
    cipher = signed[head:]
    try:
        return nonce, _xor(cipher, _keystream(key, nonce, len(cipher))).decode().rstrip(" ")
    except UnicodeDecodeError:
        raise DraftError("this draft is damaged") from None


def ids(key: bytes, nonce: bytes) -> tuple[str, str]:
    """The id and the seat token of the game a draft keeps (drawn from its nonce
    with the server's key: nobody else can tell them)."""
    def drawn(what: bytes) -> str:
        digest = hmac.digest(_derived(key, b"ids"), what + nonce, hashlib.sha256)
        return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")
    return drawn(b"game"), drawn(b"seat")


__all__ = ["DRAFT_HOURS", "DraftError", "KEY_NAME", "ids", "open_draft", "seal"]
