"""Recorded games in the browser: the record folder's files, a record opened, stepped through.

A record comes from a file of the record folder given on the command line (``--record``), named
by its bare file name, never by a path: :func:`record_file` accepts only a name that
:func:`record_files` lists (a ``.jsonl`` file right in that folder, not a link), so no request
reaches any other file. Or it comes as the text of a JSON Lines file the browser read itself
(an upload: nothing is read from the server's disk). Either way the record is checked against
its own replay (:func:`briscola_env.records.validate`) before it is shown, and against what the page
can show (:func:`check_showable`: a table of five seats without a monte, text that is Unicode);
the positions of a :class:`Replay` run from 0 (the deal) to the number of recorded actions (the end
of the hand). Hidden files, and files whose names are not UTF-8 text (which the page could not name),
are not offered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from briscola_env import preset, records
from briscola_env.actions import action_to_text
from briscola_env.cards import NUM_SEATS
from briscola_env.render import printable

from .view import table_view

RECORD_SUFFIX = ".jsonl"
SHOWN_TABLE = preset("standard").table_shape  # the table the page draws: five seats of eight cards, no monte


def is_text(value: str) -> bool:
    """Whether ``value`` is Unicode text that UTF-8 can carry (no lone surrogate, as a file name that is
    not UTF-8 holds, or a JSON ``"\\ud800"`` escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def offered(path: Path) -> bool:
    """Whether replay offers ``path``: a ``.jsonl`` file (not a link) with a UTF-8 name, not hidden."""
    name = path.name
    return (name.endswith(RECORD_SUFFIX) and not name.startswith(".") and is_text(name)
            and path.is_file() and not path.is_symlink())


def record_files(folder: Optional[Path]) -> list[dict]:
    """``[{"name", "records"}]``: the files of ``folder`` replay offers (:func:`offered`; none without a
    folder), by name."""
    if folder is None:
        return []
    try:
        paths = sorted(folder.iterdir())
    except OSError:  # the folder was removed or closed to us since the server started: nothing to offer
        return []
    listed = []
    for path in paths:
        if offered(path):
            try:
                count = sum(1 for _ in records.lines(path))
            except OSError:
                continue  # unreadable: not offered
            listed.append({"name": path.name, "records": count})
    return listed


def record_file(folder: Optional[Path], name) -> Path:
    """The file of ``folder`` called ``name``, which must be one that :func:`record_files` lists;
    a ValueError (a bad name) or LookupError (no such file) otherwise."""
    if folder is None:
        raise LookupError("no record folder: start the server with --record DIR to replay its files, "
                          "or open a file from your computer")
    if not isinstance(name, str) or not name:
        raise ValueError(f"file: expected the name of a {RECORD_SUFFIX} file of the record folder; got {name!r}")
    if name != Path(name).name or "\\" in name or name.startswith(".") or not name.endswith(RECORD_SUFFIX):
        raise ValueError(f"file: {name!r} is not a bare {RECORD_SUFFIX} file name (no folders, no hidden files); "
                         "the files are those of GET /api/replay/files")
    if name not in {entry["name"] for entry in record_files(folder)}:
        raise LookupError(f"the record folder holds no file {name!r}; its files: "
                          + (", ".join(entry["name"] for entry in record_files(folder)) or "none"))
    return folder / name


def check_showable(r: dict, label: str) -> None:
    """A ValueError, naming ``label``, if the page cannot show the valid record ``r``: a table other than
    five seats without a monte (the page draws that one only), or a field holding text that is not
    Unicode (a lone surrogate, which no page can be sent)."""
    shape = records.rules_of(r).table_shape
    if shape != SHOWN_TABLE:
        monte = f" and a monte of {shape.monte_size} cards" if shape.monte_size else ""
        raise ValueError(f"{label} is a hand at a table of {shape.seats} seats of {shape.hand_size} cards{monte}; "
                         f"this page draws {SHOWN_TABLE.seats} seats of {SHOWN_TABLE.hand_size} cards without "
                         "a monte: replay it in the terminal with briscola replay FILE --game N")
    for field, value in r.items():
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(f"{label}: its field {field!r} holds text that is not Unicode (a lone surrogate, "
                             f"{printable(error.object[error.start:error.end])}), which the page cannot show") \
                from None


def _read(read, label: str, *args):
    """``read(*args)``, a record's reader; JSON nested too deeply for Python's reader is a ValueError too."""
    try:
        return read(*args)
    except RecursionError:
        raise ValueError(f"{label}: JSON nested too deeply to read (a record's fields nest a few levels)") from None


def _checked(r: dict, label: str) -> dict:
    """``r``, once valid (:func:`briscola_env.records.validate`) and showable (:func:`check_showable`)."""
    _read(records.validate, label, [r], [label])
    check_showable(r, label)
    return r


def record_in_text(text: str, game: int, label: str) -> dict:
    """Record ``game`` (from 0, blank lines not counted) of the JSON Lines ``text``, checked. Text that
    UTF-8 cannot carry (a lone surrogate) is kept as the bytes that say so: not UTF-8."""
    kept = [line for line in text.encode("utf-8", "surrogatepass").splitlines() if line.strip()]
    if not kept:
        raise ValueError(f"{label} holds no records")
    if game >= len(kept):
        raise ValueError(f"{label} holds {len(kept)} records (games 0..{len(kept) - 1}); there is no game {game}")
    where = f"{label}, record {game}"
    return _checked(_read(records.parse, where, kept[game], where), where)


def record_in_file(path: Path, game: int) -> dict:
    """Record ``game`` of the file at ``path`` (read no further than its line), checked."""
    line_number, r = _read(records.record_at, f"{path.name} (game {game})", path, game)
    return _checked(r, f"{path.name}:{line_number} (game {game})")


class Replay:
    """A recorded hand at one of its positions: 0 (as dealt) .. the number of its actions (the end)."""

    def __init__(self, record: dict, source: str, game: int):
        self.record, self.source, self.game_number = record, source, game
        self.length = len(record["actions"])
        self.position = 0
        game = records.game_from_record(record, 0)
        self.seats = []  # the seat of each recorded action
        for action in record["actions"]:
            self.seats.append(game.current_player)
            game.step(action)

    def seek(self, position: int) -> None:
        if not 0 <= position <= self.length:
            raise ValueError(f"position: expected 0..{self.length} (0 the deal, {self.length} the end); "
                             f"got {position}")
        self.position = position

    def view(self) -> dict:
        """Every hand face up, the hand after ``position`` actions, and what the next action is."""
        r = self.record
        game = records.game_from_record(r, self.position)
        ten = game.rules.ten_card
        names = [f"player_{s}" for s in range(NUM_SEATS)]
        done = zip(self.seats, r["actions"][:self.position])
        return {**table_view(game, names, r["agents"], viewer=None, face_up=True),
                "log": [{"seat": seat, "text": action_to_text(a, ten)} for seat, a in done],
                "replay": {"source": self.source, "game": self.game_number, "position": self.position,
                           "length": self.length,
                           "next": action_to_text(r["actions"][self.position], ten)
                           if self.position < self.length else None}}
