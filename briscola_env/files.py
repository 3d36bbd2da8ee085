"""Files written whole or not at all: checkpoints, records and reports are written to a
temporary file next to their place, then renamed over it, so an interrupted write (Ctrl-C,
a full disk, a killed process) leaves the old file, or none, never part of a new one.
Every module that writes such a file uses these two functions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Union

PathLike = Union[str, os.PathLike]


def replace_atomically(path: PathLike, write: Callable[[Path], object]) -> None:
    """Call ``write(temporary)`` to write the new contents to a temporary file next to ``path``,
    then rename it over ``path`` (atomic on one file system). The temporary file starts absent,
    so a writer that appends finds no leftover of an earlier, interrupted write, and is removed
    if ``write`` fails."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(path: PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`replace_atomically`."""
    replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))
