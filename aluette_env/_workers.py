"""Worker processes that end with the process that started them.

:func:`spawn_pool` makes a ``ProcessPoolExecutor`` of spawned processes, each of
which watches its parent: once the parent is gone (SIGKILL, a crash, or a stop
that skips the pool's shutdown), the worker exits on its own instead of staying
behind with its memory, its inherited pipes and multiprocessing's resource
tracker (which ends when the last process holding its pipe does). The web
server's AI and coach workers and ``duplicate_eval(jobs=N)``'s use it.
:func:`stop_with_parent` does the same for a process that has its own
shutdown to run (a server process of ``aluette serve --workers N``): it is
asked to stop (SIGTERM) when its parent is gone, and ends if it has not
within a grace period.

Ctrl-C in a terminal sends SIGINT to the whole process group, workers included,
and a service manager sends SIGTERM to all its processes. The workers ignore
both from the moment they exist (blocked while they start, ignored once they
run: no KeyboardInterrupt traceback from a worker, no job answered with one, no
worker dead before its parent has heard the stop), and the parent, which does
handle them, ends its workers with :func:`stop_pool` instead of waiting for the
work in progress.

Standard library only.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor

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


#: Linux's ``prctl`` option: the signal this process gets when its parent dies.
PR_SET_PDEATHSIG = 1
#: Seconds a process told to stop by :func:`stop_with_parent` has for its shutdown.
SHUTDOWN_GRACE_S = 10.0


def stop_with_parent(parent: int, grace_s: float = SHUTDOWN_GRACE_S) -> None:
    """This process gets SIGTERM (its own shutdown runs) once ``parent``, the
    process that started it, is gone, even if that one was killed with SIGKILL;
    if it is still there ``grace_s`` seconds later it exits. On Linux the
    kernel sends the signal at the parent's death (``prctl(PR_SET_PDEATHSIG)``);
    elsewhere, and in case the parent died before this call, a thread checks
    the parent id every :data:`PARENT_CHECK_S` seconds. Call it from the
    process's main thread, early (its parent must be the one that started it)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):  # no C library to call: the thread does it
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_s)
        os._exit(1)  # a shutdown that hangs (a client that never lets go) ends here

    threading.Thread(target=watch, name="stop-with-parent", daemon=True).start()


#: The stops a worker leaves to its parent (which ends it with :func:`stop_pool`).
PARENTS_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def start_worker(parent: int) -> None:
    """Worker initializer: :data:`PARENTS_SIGNALS` ignored, then unblocked (they
    were blocked from the spawn on, :class:`_Pool`); the worker ends with ``parent``."""
    for sig in PARENTS_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, PARENTS_SIGNALS)
    end_with_parent(parent)


class _Pool(ProcessPoolExecutor):
    """A ``ProcessPoolExecutor`` whose workers never see :data:`PARENTS_SIGNALS`:
    they start inside :meth:`submit`, with those blocked in the thread that
    spawns them, and a new process keeps that mask until :func:`start_worker`
    ignores them (a Ctrl-C while a worker imports would print its traceback)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if not hasattr(signal, "pthread_sigmask"):
            return super().submit(fn, *args, **kwargs)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, PARENTS_SIGNALS)
        try:
            return super().submit(fn, *args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def spawn_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that end with this process and
    leave SIGINT and SIGTERM to it (spawned: a forked copy of a process holding
    torch or onnxruntime threads can hang)."""
    return _Pool(workers, mp_context=multiprocessing.get_context("spawn"),
                 initializer=start_worker, initargs=(os.getpid(),))


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """End ``pool`` now, for a stop (Ctrl-C, SIGTERM, an error, a server's end)
    whose caller waits for none of its results: the jobs not started are
    dropped and the workers killed in the middle of theirs (they ignore SIGTERM),
    so a stop never waits for the work in progress (a slice of an evaluation can
    take minutes). Their work is this process's: they hold nothing to save.
    Returns once the pool's own thread has ended, its queues with it: their
    semaphores are released even if this process then ends by a signal (a
    server process of ``aluette serve --workers N`` does)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()
    pool.shutdown(wait=True, cancel_futures=True)  # no worker left to wait for
