"""Worker processes of the web server (the slow AI seats, the coach).

:func:`spawn_pool` makes a ``ProcessPoolExecutor`` of spawned processes that
end with the server: the server shuts its pools down when it stops (its
lifespan), and each worker also watches its parent, so that a server stopped
in a way that skips the shutdown (SIGKILL, a crash, or uvicorn re-raising
SIGTERM before the interpreter's own exit handlers run) leaves no process
behind holding its memory and its inherited pipes.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

#: How often a worker checks that the server is still its parent, in seconds.
PARENT_CHECK_S = 0.5


def _end_with_parent(parent: int) -> None:
    """Worker initializer: a daemon thread that exits the worker once the process
    that started it is gone (the worker is then re-parented, so its parent id changes)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)  # no cleanup to run: the work was the server's, and it is gone

    threading.Thread(target=watch, name="end-with-server", daemon=True).start()


def spawn_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that end with this process."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_end_with_parent, initargs=(os.getpid(),))
