"""Worker processes that end with the process that started them.

:func:`spawn_pool` makes a ``ProcessPoolExecutor`` of spawned processes, each of
which watches its parent: once the parent is gone (SIGKILL, a crash, or a stop
that skips the pool's shutdown), the worker exits on its own instead of staying
behind with its memory, its inherited pipes and multiprocessing's resource
tracker (which ends when the last process holding its pipe does). The web
server's AI and coach workers and ``duplicate_eval(jobs=N)``'s use it.

Standard library only.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

#: How often a worker checks that its parent is still there, in seconds.
PARENT_CHECK_S = 0.5


def end_with_parent(parent: int) -> None:
    """Worker initializer: a daemon thread that exits the worker once the process
    that started it is gone (the worker is then re-parented, so its parent id changes)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)  # no cleanup to run: the work was the parent's, and it is gone

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def spawn_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that end with this process (spawned:
    a forked copy of a process holding torch or onnxruntime threads can hang)."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=end_with_parent, initargs=(os.getpid(),))
