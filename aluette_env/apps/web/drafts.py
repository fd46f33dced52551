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

The seal is the ``cryptography`` package's AES-256-GCM (authenticated
encryption): the snapshot, padded with spaces to a multiple of :data:`PAD`
bytes, is encrypted under a random
12-byte nonce, with the format byte and the time it was made as associated
data (read in the clear, but changed, they break the tag like any other
byte); the draft is the format, the time, the nonce and the ciphertext with
its tag, in URL-safe base64. The AES key and the key that draws the ids are
derived from the server's key with HKDF-SHA256, one for each purpose. (Not
Fernet: its version byte is not ours, and it refuses an expired token as it
does a changed one.) Its length tells nothing of the hidden cards: the
snapshot's own length does (card 7 is one digit, card 17 two, and so are the
catches), so the multiple of :data:`PAD` is chosen as if every one-digit
number had two (:func:`_padded`), and only what the page sees sets it.

May import: the standard library and cryptography.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

#: Hours a draft can be kept from (less than :data:`.upkeep.KEEP_UNPLAYED_HOURS`
#: and any other keeping time: a draft never outlives the game it kept).
DRAFT_HOURS = 12
#: The plaintext is padded to a multiple of this many bytes.
PAD = 1024
#: The name of the server's key that seals drafts (:meth:`.store.Games.key`).
KEY_NAME = "drafts"
_FORMAT = b"\x02"
_TIME = 8
_AD = len(_FORMAT) + _TIME  # the associated data: format and time
_NONCE = 12
_TAG = 16
#: Seconds a draft's time may be ahead of this process's clock (another worker's).
_SKEW = 60
#: The longest draft read (a larger one is refused before any work): a snapshot of
#: up to 2 KiB as :func:`_padded` counts it (a deal's is about 700 bytes), within a
#: request's 4 KiB.
MAX_CHARS = 3000


class DraftError(ValueError):
    """A draft that cannot be kept: not one of this server's (or changed), of
    another format, or too old. The message says which."""


def _derived(key: bytes, purpose: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=b"aluette draft " + purpose).derive(key)


#: A number of one digit in the snapshot's text.
_ONE_DIGIT = re.compile(rb"(?<![0-9])[0-9](?![0-9])")


def _padded(plain: bytes) -> bytes:
    """``plain`` padded with spaces to a multiple of :data:`PAD` bytes, the
    multiple of its length with every one-digit number counted as two: the
    hidden numbers (card ids 0-47, the catches' bits, signs) then weigh the
    same whatever they are, so the padded length depends on the rest only."""
    longest = len(plain) + len(_ONE_DIGIT.findall(plain))
    return plain + b" " * (longest + -longest % PAD - len(plain))


def seal(key: bytes, snapshot: str, now: float) -> str:
    """The draft of the game whose snapshot (JSON text) is ``snapshot``, made at ``now``."""
    plain = _padded(snapshot.encode())
    head = _FORMAT + int(now).to_bytes(_TIME, "big")
    nonce = secrets.token_bytes(_NONCE)
    sealed = AESGCM(_derived(key, b"encryption")).encrypt(nonce, plain, head)
    return base64.urlsafe_b64encode(head + nonce + sealed).decode().rstrip("=")


def open_draft(key: bytes, draft: object, now: float) -> tuple[bytes, str]:
    """The nonce and snapshot (JSON text) of ``draft``; :class:`DraftError` if
    it is not one this server sealed with ``key`` or if it is too old."""
    if not isinstance(draft, str) or not 0 < len(draft) <= MAX_CHARS:
        raise DraftError(f"a draft is a text of at most {MAX_CHARS} characters")
    try:
        blob = base64.urlsafe_b64decode(draft + "=" * (-len(draft) % 4))
    except (binascii.Error, ValueError):
        raise DraftError("a draft is the text this server sent, unchanged") from None
    if blob[:1] != _FORMAT:
        raise DraftError("this draft is of a format this server does not read")
    if len(blob) < _AD + _NONCE + _TAG:
        raise DraftError("a draft is the text this server sent, unchanged")
    head, nonce, sealed = blob[:_AD], blob[_AD:_AD + _NONCE], blob[_AD + _NONCE:]
    try:
        plain = AESGCM(_derived(key, b"encryption")).decrypt(nonce, sealed, head)
    except InvalidTag:
        raise DraftError("this draft was not made by this server, or was changed") from None
    made = int.from_bytes(head[len(_FORMAT):], "big")
    if not made - _SKEW <= now <= made + DRAFT_HOURS * 3600:
        raise DraftError(f"this deal was dealt more than {DRAFT_HOURS} hours ago")
    return nonce, plain.decode().rstrip(" ")


def ids(key: bytes, nonce: bytes) -> tuple[str, str]:
    """The id and the seat token of the game a draft keeps (drawn from its nonce
    with the server's key: nobody else can tell them)."""
    drawer = _derived(key, b"ids")

    def drawn(what: bytes) -> str:
        digest = hmac.digest(drawer, what + nonce, hashlib.sha256)
        return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")
    return drawn(b"game"), drawn(b"seat")


__all__ = ["DRAFT_HOURS", "DraftError", "KEY_NAME", "ids", "open_draft", "seal"]
