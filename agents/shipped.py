"""What travels with the package, found by name: ``ppo:best`` plays ``checkpoints/best.pt`` wherever the
package is installed, a clone or a wheel (pyproject.toml installs the folder as the data package
:data:`NETWORKS_PACKAGE`); :func:`data_folder` finds any data package's folder, the configs' too
(:func:`training.config.config_file`). A wheel carries ``best`` alone, to stay small; an editable install
of a clone reads the clone's folder, so every network there has its name (``ppo:strong``, ``ppo:league``).
A path is always read as the path it is: a name is looked up only when no such file exists and it has no
folder or suffix."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Optional, Union

NETWORKS_PACKAGE = "briscola_networks"
"""The data package of the shipped networks (the repository's checkpoints/ folder)."""
NETWORK_SUFFIX = ".pt"


def data_folder(package: str) -> Optional[Path]:
    """The folder of the data package ``package`` (a folder of files, no module), or None when this
    installation lacks it. Found by its import spec rather than importlib.resources, which cannot read a
    namespace package an editable install maps to a folder of the clone."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    locations = spec.submodule_search_locations if spec is not None else None
    return next((Path(place) for place in locations or () if Path(place).is_dir()), None)


def shipped_networks() -> list[str]:
    """The names of the networks this installation ships, sorted."""
    folder = data_folder(NETWORKS_PACKAGE)
    if folder is None:
        return []
    return sorted(entry.name.removesuffix(NETWORK_SUFFIX) for entry in folder.iterdir()
                  if entry.name.endswith(NETWORK_SUFFIX) and entry.is_file())


def is_plain_name(path: Union[str, os.PathLike]) -> bool:
    """Whether ``path`` reads as a name (no folder, no suffix: ``best``, ``tiny``) rather than a file's path."""
    given = Path(path)
    return len(given.parts) == 1 and not given.suffix and str(path) not in ("", ".", "..")


def network_file(path: Union[str, os.PathLike]) -> Path:
    """The file ``path`` names: the path itself when that file exists or it is no name
    (:func:`is_plain_name`), else the shipped network of that name; a ValueError listing the shipped
    names for a name that is neither a file nor shipped."""
    given = Path(path)
    if given.exists() or not is_plain_name(path):
        return given
    folder = data_folder(NETWORKS_PACKAGE)
    shipped = folder / f"{given.name}{NETWORK_SUFFIX}" if folder is not None else None
    if shipped is None or not shipped.is_file():
        raise ValueError(f"no checkpoint at {path}, and no shipped network of that name; shipped networks: "
                         f"{', '.join(shipped_networks()) or 'none'} (or give a checkpoint's path)")
    return shipped
