"""The web game's refusals, free of any web framework: :class:`ApiError` is
what the service (:mod:`.service`) and the routes raise for a request they
refuse, and the server (:mod:`.server`) answers it as JSON.

May import: the standard library only.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refused request, answered with a JSON ``{"error": detail}`` body and
    ``status_code`` (4xx for a bad request). ``code`` names a case the page
    acts on (``no_game``: an unknown game or seat token); ``fields``, the
    values the page's words for it need."""

    def __init__(self, status_code: int, detail: str, code: str | None = None,
                 fields: dict[str, Any] | None = None):
        super().__init__(detail)
        self.status_code, self.detail, self.code, self.fields = status_code, detail, code, fields


__all__ = ["ApiError"]
