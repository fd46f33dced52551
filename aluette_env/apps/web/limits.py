"""Request limits of the web server, on every route: a body bound, and
timeouts for a request's headers and body.

* :class:`RequestLimits` (ASGI middleware) reads each request's body before
  the route sees it: a ``Content-Length`` over the route's bound is refused at
  once (413), a body that grows past it as it arrives too, a body that has not
  all arrived within its timeout (``aluette serve --body-timeout``, 20 s by
  default) gets 408, and a malformed length 400;
  every refusal is the API's JSON ``{"error": ...}`` and closes the connection.
* :class:`LimitedH11Protocol` (uvicorn's HTTP/1.1 protocol) closes a
  connection whose request headers have not all arrived within its timeout
  (``--header-timeout``, 10 s by default) of its start (a slow or stalled client holds nothing
  for long), and answers a request it cannot parse (a bad ``Content-Length``)
  with a JSON 400 instead of uvicorn's plain text. :func:`uvicorn_options`
  gives it to ``uvicorn.Config``, with ``X-Forwarded-For`` trusted only from
  the proxy ``aluette serve --proxy`` names.
* :class:`LimitedWebSocketProtocol` (uvicorn's WebSocket protocol) closes a
  socket whose text is not UTF-8 with one log line, not a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Mapping

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .inputs import logged_path
from .timeouts import BODY_TIMEOUT_S, HEADER_TIMEOUT_S

log = logging.getLogger("aluette.web")

#: Seconds an idle kept-alive connection stays open.
KEEP_ALIVE_S = 5


def _error_body(status: int, message: str) -> bytes:
    return json.dumps({"error": message}).encode()


async def _refuse(send, status: int, message: str) -> None:
    body = _error_body(status, message)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class RequestLimits:
    """Pure ASGI middleware: every request's body read up to its route's bound
    (``limit``, or ``larger[path]``) within ``timeout`` seconds, then handed to
    the app whole; see the module docstring."""

    def __init__(self, app, limit: int, larger: Mapping[str, int] | None = None,
                 timeout: float = BODY_TIMEOUT_S):
        self.app = app
        self.limit = limit
        self.larger = dict(larger or {})
        self.timeout = timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.larger.get(scope["path"], self.limit)
        announced = dict(scope["headers"]).get(b"content-length")
        if announced is not None:
            text = announced.decode("latin-1")
            if not text.isdigit():
                return await _refuse(send, 400, f"Content-Length must be a number of bytes, "
                                                f"got {text[:40]!r}")
            if int(text) > limit:
                return await _refuse(send, 413, f"request body of {text[:20]} bytes; the limit "
                                                f"is {limit}")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        body = bytearray()
        more = True
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                return await _refuse(send, 408, f"the request body did not arrive within "
                                                f"{self.timeout:.0f} s")
            if message["type"] == "http.disconnect":  # nobody is left to answer
                log.warning("client disconnected before sending its request body: %s %s",
                            scope["method"], logged_path(scope["path"]))
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > limit:
                return await _refuse(send, 413, f"request body over {limit} bytes; the limit "
                                                f"is {limit}")
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout (``header_timeout`` seconds)
    and JSON 400s (module docstring)."""

    def __init__(self, *args, header_timeout: float = HEADER_TIMEOUT_S, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._watch_headers()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_headers()

    def connection_lost(self, exc) -> None:
        self._stop_header_timer()
        super().connection_lost(exc)

    def _watch_headers(self) -> None:
        """A timer runs while a request's headers are awaited after some bytes of
        it came (or from the connection's start); it stops once they are all in."""
        waiting = self.conn.their_state is h11.IDLE and (
            self.timeout_keep_alive_task is None)  # idle keep-alive has its own timer
        if waiting and self._header_timer is None and not self.transport.is_closing():
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late)
        elif not waiting:
            self._stop_header_timer()

    def _stop_header_timer(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        body = _error_body(408, f"the request headers did not arrive within "
                                f"{self.header_timeout:.0f} s")
        self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json"
                             b"\r\ncontent-length: " + str(len(body)).encode() +
                             b"\r\nconnection: close\r\n\r\n" + body)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        body = _error_body(400, f"bad HTTP request ({msg.rstrip('.')}): check its request line "
                                f"and headers, Content-Length included")
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"),
                   (b"content-length", str(len(body)).encode())]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                      h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()


class LimitedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, sans-I/O), closing on a text
    message that is not UTF-8 with code 1007 and one log line: uvicorn logs a
    traceback for each such frame, so any client could fill the log."""

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                log.warning("closed a WebSocket that sent text that is not UTF-8 (1007)")
                self.frames = []
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()


def uvicorn_options(proxy: str | None = None,
                    header_timeout: float = HEADER_TIMEOUT_S) -> dict:
    """The ``uvicorn.Config`` settings of these limits, with ``header_timeout``
    seconds for a request's headers (the protocol is a partial, which the
    ``--workers`` processes can be sent; a class made here could not). A client
    is the address it connects from: ``X-Forwarded-For`` is read only from
    ``proxy`` (the addresses of a reverse proxy, comma-separated), else never
    (uvicorn would believe it from 127.0.0.1, so any local client could name
    itself anyone, and escape the limit on unknown tokens)."""
    return {"http": functools.partial(LimitedH11Protocol, header_timeout=header_timeout),
            "ws": LimitedWebSocketProtocol,
            "timeout_keep_alive": KEEP_ALIVE_S,
            "h11_max_incomplete_event_size": 16 * 1024,
            "proxy_headers": bool(proxy), "forwarded_allow_ips": proxy or ""}
