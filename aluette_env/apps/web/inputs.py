"""Reading an HTTP request of the web game: its JSON body, bounded as it
arrives, its fields, each checked with a JSON error naming it, its language
and the seat its token reaches. The routes of every feature share these.

May import: starlette, the game core's constants and the standard library.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.requests import ClientDisconnect, HTTPConnection, Request

from aluette_env.game import ALUETTE_SIGNS_V0, ALUETTE_V1, DEFAULT_CATCH, Variant, check_catch

from .. import i18n
from ..narrator import Narrator
from .errors import ApiError

MAX_BODY = 4096


class ClientGone(Exception):
    """The client closed the connection before its request body arrived."""


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read at most ``MAX_BODY`` bytes deep: a larger
    (or larger announced) body is refused at once, never read to its end."""
    announced = request.headers.get("content-length")
    if announced is not None:
        if not announced.isdigit():
            raise ApiError(400, f"Content-Length must be a number of bytes, got {announced[:40]!r}")
        if int(announced) > MAX_BODY:
            raise ApiError(413, f"request body of {announced[:20]} bytes; the limit is {MAX_BODY}")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise ApiError(413, f"request body over {MAX_BODY} bytes; the limit is {MAX_BODY}")
    except ClientDisconnect:
        raise ClientGone from None
    if not body:
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError, JSONDecodeError, nesting
        reason = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        raise ApiError(400, f"the body is not valid JSON: {reason}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def narrator(request: HTTPConnection) -> Narrator:
    """The words of the request's ``?lang=`` (default English); a 400 for a
    language the server does not have."""
    lang = request.query_params.get("lang", i18n.DEFAULT_LANGUAGE)
    try:
        return Narrator(lang)
    except ValueError as err:
        raise ApiError(400, f"lang: {err}") from None


def client_of(request: HTTPConnection) -> str:
    """The request's client address: the address it connects from, or the one
    a trusted reverse proxy forwards (``aluette serve --proxy``)."""
    return request.client.host if request.client else "?"


async def seat_of(service, request: HTTPConnection, person: bool = False):
    """The :class:`~.service.SeatHandle` the request's token (path ``gid``) reaches
    (:meth:`.service.GameService.reach`)."""
    return await service.reach(request.path_params["gid"], client_of(request), person)


def logged_path(path: str) -> str:
    """A request's path as the server's log shows it: a seat token (it opens
    its seat) cut to its first 4 characters, enough to tell requests apart."""
    return _TOKEN_IN_PATH.sub(lambda m: m.group(1) + m.group(2)[:4] + "\u2026", path[:200])


_TOKEN_IN_PATH = re.compile(r"^(/api/games/)([^/]+)")


def check_keys(data: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ApiError(400, f"unknown field(s) {', '.join(map(repr, unknown))}; "
                            f"allowed: {', '.join(sorted(allowed)) or 'none'}")


def integer(data: dict[str, Any], key: str, low: int, high: int | None, what: str,
             required: bool = True, code: str | None = None) -> int | None:
    """``data[key]`` if it is an integer in ``low..high``, else a 400 naming it
    (with ``code``: that code, and the bounds as its fields)."""
    if key not in data:
        if required:
            raise ApiError(400, f"missing field {key!r} ({what})")
        return None
    value = data[key]
    if (isinstance(value, bool) or not isinstance(value, int) or value < low
            or (high is not None and value > high)):
        bound = f"{low}-{high}" if high is not None else f">= {low}"
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
        raise ApiError(400, f"{key} must be an integer {bound} ({what}), got {shown}", code,
                       {"low": low, "high": high} if code else None)
    return value


def variant_option(data: dict[str, Any]) -> Variant:
    """A new game's variant from its request: ``"signs": true`` (and optionally
    ``"catch"``, the chance from 0 to 1 that an opponent catches a sign) gives
    ``aluette_signs_v0`` at that chance; absent or false, ``aluette_v1``. A 400
    (code ``catch`` for a bad chance) names a bad value."""
    signs = data.get("signs", False)
    if not isinstance(signs, bool):
        raise ApiError(400, f"signs must be true or false, got {str(signs)[:40]!r}")
    if not signs:
        if "catch" in data:
            raise ApiError(400, "catch is the chance of catching a sign: only with "
                                "\"signs\": true")
        return ALUETTE_V1
    try:
        return ALUETTE_SIGNS_V0.with_catch(check_catch(data.get("catch", DEFAULT_CATCH)))
    except ValueError as err:
        raise ApiError(400, f"{err} (the chance that an opponent catches a sign)",
                       "catch") from None
