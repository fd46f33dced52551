"""Atomic writes: a file is written to a temporary name in its folder, then
renamed over its name, so a reader (or a process killed mid-write) never sees
half a file. Run folders, exports, data sets and recipes all write this way;
:func:`remove_partial_writes` clears what a killed write leaves.

May import: the standard library only.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def atomic_path(path: Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` on success.
    A folder at ``path`` is IsADirectoryError naming ``path``, before any work."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "a folder is where this file is written; "
                                "move it away", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                               suffix=suffix or path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def remove_partial_writes(*folders: Path) -> list[Path]:
    """Delete the temporary files :func:`atomic_path` leaves in ``folders`` when a
    process dies mid-write (``.<name>.<random>``); returns them. For folders that
    only the calling process writes (a run, a loop, a data set it completes)."""
    gone = []
    for folder in folders:
        for p in Path(folder).glob(".*.*"):
            if p.is_file():
                p.unlink(missing_ok=True)
                gone.append(p)
    return gone


def write_text(path: Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2) + "\n")


def append_jsonl(path: Path, record: dict) -> None:
    """Append one line; the file is rewritten atomically so a crash never leaves half a line."""
    old = path.read_text() if path.exists() else ""
    write_text(path, old + json.dumps(record) + "\n")


def copy_file(src: Path, dst: Path) -> None:
    """Atomic copy (``latest.zip`` from the checkpoint ``state.json`` names)."""
    import shutil
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)
