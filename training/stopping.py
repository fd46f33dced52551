"""A trainer's stop, for every backend: SIGINT and SIGTERM as a request to stop
at the next safe point, and the line a trainer ends with.

May import: the standard library only.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def stop_requests(target: Any) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM set ``target.stop_requested`` instead of
    interrupting: the trainer stops at its next safe point and checkpoints."""

    def request_stop(signum, frame):
        target.stop_requested = True

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def end_message(run_dir: Path, state: dict, timesteps: int, checkpoint: Path,
                stopped: bool) -> str:
    """The line a trainer prints when it returns: stopped (and how to resume) or done."""
    if stopped:
        return (f"stopped by signal at {timesteps:,} samples; checkpoint saved to {checkpoint}; "
                f"resume with: aluette train CONFIG --resume {run_dir}")
    best = state["best"]
    return (f"done: {timesteps:,} samples; best vs {best['opponent']}: "
            f"{best['points_per_deal']:+.3f} points/deal at {best['timesteps']:,} -> {run_dir}")
