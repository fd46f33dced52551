"""Reading a small file the user named, safely: only a regular file (a named
pipe is never waited on, a device such as ``/dev/zero`` never read to its end,
a folder is said to be one), and at most ``limit`` bytes of it.

Standard library only. Problems are ``OSError``s with a ``strerror`` that says
what is wrong, so the callers' usual one-line messages name them.
"""

from __future__ import annotations

import errno
import os
import stat


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (links followed); OSError when it
    is not one (a folder, a pipe, a device) or holds more than ``limit`` bytes."""
    try:
        # O_NONBLOCK: opening a named pipe does not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except UnicodeEncodeError:  # a lone surrogate no file system name can hold
        raise OSError(errno.EINVAL, "not a valid file name (it holds a lone surrogate)",
                      ascii(str(path))) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file (a pipe, a device or a socket)",
                          str(path))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return b"".join(chunks)
