"""GCG, the game-record format of Quackle, macondo and Woogles: a lenient reader and a strict writer.

GCG is an export and an import. The event log keeps more than GCG can say; only
`write_gcg` flattens it (a lost turn becomes a pass plus a note).

Coordinates: number first = across (8D: row 8, column D), letter first = down (D8).

Lines end at \n (a \r before it or on its own also ends one), as macondo's and Woogles'
reader splits them; any other line separator (U+2028, U+0085, ...) is text inside a line.
The writer never writes one inside a field: a note's line breaks become separate '#note'
lines, and names, titles and other text have them turned into spaces.

records.py   the record types (GcgGame as read, GameRecord as replayed), GcgError, nicknames
notation.py  coordinates and words against a board (and the whole-word form people read)
reader.py    decode, read_gcg, record_from_gcg
writer.py    write_gcg
woogles.py   woogles_link (the Woogles editor's import link), woogles_gap (why it will not mark a game complete)
profile.py   choose_rules (the rule profile a record was played under)
"""
from .notation import (format_position, format_square, parse_position, placement_from_gcg, play_notation, played_tiles,
                       shown_play, word_cells)
from .profile import choose_rules
from .reader import decode, read_gcg, record_from_gcg
from .records import (NICK_MAX, RACK_NOT_SEEN, TURN_INFERRED_NOTE, TURN_LOST_NOTE, Finding, GameRecord, GcgError,
                      GcgGame, GcgTurn, Mark, Player, check_nick, gcg_lang, marked)
from .woogles import WOOGLES_INCOMPLETE, woogles_gap, woogles_link
from .writer import write_gcg

__all__ = [
    # records
    "GcgError", "Player", "GcgTurn", "GcgGame", "GameRecord", "Finding", "Mark", "marked",
    "NICK_MAX", "TURN_LOST_NOTE", "RACK_NOT_SEEN", "TURN_INFERRED_NOTE", "check_nick", "gcg_lang",
    # notation
    "parse_position", "format_position", "format_square", "word_cells", "placement_from_gcg", "play_notation",
    "played_tiles", "shown_play",
    "choose_rules",
    # reader and writer
    "decode", "read_gcg", "record_from_gcg", "write_gcg",
    # Woogles
    "woogles_link", "woogles_gap", "WOOGLES_INCOMPLETE",
]
