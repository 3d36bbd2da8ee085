"""Show a recorded hand from a game-record file (JSON Lines, such as briscola evaluate --record
writes), checked against its replay first: all at once, or one action at a time."""

from __future__ import annotations

import argparse
from pathlib import Path

from briscola_env.cards import LANGUAGES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a games.jsonl, such as briscola evaluate --record writes")
    parser.add_argument("--game", type=int, default=0,
                        help="which record, from 0: the file's N-th non-blank line, read no further; "
                             "it is checked against its replay before it is shown")
    parser.add_argument("--step", action="store_true", help="one action at a time, Enter to go on")
    parser.add_argument("--lang", default="it", choices=LANGUAGES, help="language of the card names")


def run(args: argparse.Namespace) -> int:
    from briscola_env.render import printable
    from evaluation.terminal import replay_in_terminal

    try:
        replay_in_terminal(args.file, args.game, args.lang, args.step)
    except OSError as error:
        raise ValueError(f"cannot read {printable(args.file)}: {error.strerror or error}") from None
    except (EOFError, KeyboardInterrupt):  # --step waits for Enter
        print("\nreplay stopped")
        return 1
    return 0
