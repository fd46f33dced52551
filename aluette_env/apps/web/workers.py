"""Worker processes of the web server (the slow AI seats, the coach).

:class:`RestartingPool` runs each job in a pool of spawned processes that end
with the server (:func:`aluette_env._workers.spawn_pool`: each worker watches
its parent, so a server stopped in a way that skips the shutdown leaves no
process behind). A worker that dies (killed, out of memory) is replaced: the
broken pool is dropped, a new one started and the job tried once more; if that
fails too, :class:`WorkerUnavailable` tells the route to answer 503 (try again
shortly), and the next job starts a fresh pool.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any
from collections.abc import Callable

from aluette_env._workers import spawn_pool

log = logging.getLogger("aluette.web")

#: Tries of one job: the first, and one more in a new pool after a worker died.
TRIES = 2


class WorkerUnavailable(RuntimeError):
    """A worker process died during a job and its replacement did not finish it
    either: the server answers 503 and the next job starts a new pool."""


class RestartingPool:
    """``workers`` spawned processes, started on first use and restarted when one dies."""

    def __init__(self, workers: int, name: str = "worker"):
        self.workers = workers
        self.name = name
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        #: How many times a dead pool was replaced (tests, logs).
        self.restarts = 0

    def current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = spawn_pool(self.workers)
            return self._pool

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
                self.restarts += 1
                log.warning("a %s process died; starting a new one", self.name)
        broken.shutdown(wait=False, cancel_futures=True)

    def _unavailable(self) -> WorkerUnavailable:
        return WorkerUnavailable(f"the {self.name} process stopped and is being restarted; "
                                 f"try again in a few seconds")

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process, waiting for it (in a thread)."""
        for _ in range(TRIES):
            pool = self.current()
            try:
                return pool.submit(fn, *args).result()
            except BrokenProcessPool:
                self._replace(pool)
        raise self._unavailable()

    async def run_async(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process, awaited (on the event loop)."""
        for _ in range(TRIES):
            pool = self.current()
            try:
                return await asyncio.wrap_future(pool.submit(fn, *args))
            except BrokenProcessPool:
                self._replace(pool)
        raise self._unavailable()

    def processes(self) -> list[int]:
        """The pids of the live pool's worker processes (tests)."""
        with self._lock:
            pool = self._pool
        return [] if pool is None else list(getattr(pool, "_processes", None) or {})

    def close(self, wait: bool = True) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)


__all__ = ["RestartingPool", "WorkerUnavailable"]
