"""How long a client may take to send a request to the web server: the
defaults and bounds of ``aluette serve --header-timeout`` and
``--body-timeout``. The command reads them (it loads no web library) and so
do the server's limits (:mod:`.limits`).

May import: nothing (constants only).
"""

from __future__ import annotations

#: Seconds a connection may take to send one request's headers.
HEADER_TIMEOUT_S = 10.0
#: Seconds a request may take to send its whole body.
BODY_TIMEOUT_S = 20.0
#: The bounds of both settings, in seconds.
TIMEOUT_RANGE_S = (0.5, 3600.0)
