"""GCG, the game-record format of Quackle, macondo and Woogles: a lenient reader and a strict writer.

GCG is an export and an import. The event log keeps more than GCG can say; only
`write_gcg` flattens it (a lost turn becomes a pass plus a note).

Coordinates: number first = across (8D: row 8, column D), letter first = down (D8).

Lines end at \n (a \r before it or on its own also ends one), as macondo's and Woogles'
reader splits them; any other line separator (U+2028, U+0085, ...) is text inside a line.
The writer never writes one inside a field: a note's line breaks become separate '#note'
lines, and names, titles and other text have them turned into spaces.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace

from .blanks import designate, undecided_squares
from .errors import ScoringError
from .board import Direction, Layout, LAYOUTS, Square
from .events import (BLANK_NOT_READ, ChallengeBonus, EndRackPenalty, EndRackPoints, Event, Exchange,
                     Pass, PhonyWithdrawn, Play, TimePenalty, TurnLost)
from .game import Game, GameError
from .lexicon import Lexicon
from .placement import PlacedTile, Placement, PlacementError
from .rules import RuleProfile
from .tally import unseen
from .tiles import BLANK, Distribution

UNKNOWN_RACK = "UNKNOWN"
TURN_LOST_NOTE = "#unsuccessful-challenge"
# A line whose rack nobody saw still needs one (every reader does); the writer puts stand-in
# tiles there and says so in a note starting with this, and the reader drops both again.
RACK_NOT_SEEN = "rack not seen"
MAX_DIGITS = 6          # of a score or a total; int() of 4,300 digits raises, and none is real
NICK_MAX = 64           # the longest in the liwords games is 42
_SCORE = re.compile(r"^[+-][0-9]+$")
_CUMULATIVE = re.compile(r"^-?[0-9]+$")
_ACROSS = re.compile(r"^([0-9]{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])([0-9]{1,2})$")
_LINE_END = re.compile(r"\r\n|\r|\n")
MAX_PLAYERS = 4         # box rules; Quackle writes #player1..#playerN

# Tile sets as macondo (and so Woogles) names them in '#tile-distribution'.
MACONDO_DISTRIBUTIONS = {"en": "english", "de": "german", "fr": "french", "es": "spanish",
                         "pl": "polish", "en-super": "english_super"}
# '#lexicon' prefixes that say the tile set (a lexicon is one language's word list).
LEXICON_LANGS = (("OSPS", "pl"), ("RD", "de"), ("FRA", "fr"), ("ODS", "fr"), ("FILE", "es"),
                 ("FISE", "es"), ("NWL", "en"), ("TWL", "en"), ("CSW", "en"), ("COLLINS", "en"))
MACONDO_LAYOUTS = {"super": "SuperCrosswordGame"}  # the standard board is macondo's default


class GcgError(ScoringError):
    """A GCG line that cannot be read or replayed. Names the line and why."""

    def __init__(self, line_no: int, line: str, reason: str) -> None:
        # line_no 0: not from a file (a nickname checked on its way in, a record being written)
        self.line_no, self.line, self.reason = line_no, line, reason
        where = f"line {line_no}: " if line_no else ""
        shown = line.strip() if len(line.strip()) <= 100 else line.strip()[:100] + "..."
        super().__init__(f"{where}{reason}: {shown!r}" if shown else f"{where}{reason}")


@dataclass(frozen=True)
class Player:
    nick: str
    name: str


@dataclass(frozen=True)
class GcgTurn:
    """One '>' line as written, before replay."""

    line_no: int
    text: str
    player: int
    rack: str | None
    kind: str            # play | withdrawn | pass | exchange | challenge | end_points | end_penalty | time
    score: int
    cumulative: int
    position: str | None = None
    word: str | None = None
    exchanged: str | None = None
    count: int = 0
    note: str = ""


@dataclass
class GcgGame:
    players: list[Player] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)   # title, description, id, lexicon, ...
    final_racks: dict[int, str] = field(default_factory=dict)  # #rack1 / #rack2
    turns: list[GcgTurn] = field(default_factory=list)


@dataclass(frozen=True)
class GameRecord:
    """A whole game: who played, under which rules and set, and the event log."""

    players: tuple[Player, ...]
    events: tuple[Event, ...]
    meta: dict[str, str] = field(default_factory=dict)
    rules: str = "naspa"
    lang: str = "en"
    layout: str = "standard"


def decode(data: bytes) -> str:
    """GCG text is Latin-1 unless a #character-encoding pragma (or a UTF-8 BOM) says otherwise."""
    bom = data.startswith(b"\xef\xbb\xbf")
    m = None if bom else re.search(rb"^#character-encoding\s+(\S+)", data, re.M | re.I)
    encoding = "utf-8" if bom else m.group(1).decode("ascii", "replace") if m else "iso-8859-1"
    try:
        return data[3:].decode("utf-8") if bom else data.decode(encoding)
    except LookupError:  # not an encoding, or not a text one (rot13, hex)
        raise GcgError(data[: m.start()].count(b"\n") + 1, m.group(0).decode("latin-1"),
                       f"unknown character encoding {encoding!r}") from None
    except UnicodeError as exc:
        start = getattr(exc, "start", 0) + (3 if bom else 0)
        line_no = data[:start].count(b"\n") + 1
        raise GcgError(line_no, data.split(b"\n")[line_no - 1].decode("latin-1"),
                       f"not valid {encoding} text") from None


def read_gcg(text: str | bytes) -> GcgGame:
    """Read GCG leniently: CRLF, lower-case coordinates, repeated and multi-line notes,
    racks missing or partial, trailing text after the cumulative score, two to four players
    (#player1..#player4), and two players with one nickname (Quackle's "NoName"), told apart
    by turn order."""
    if isinstance(text, bytes):
        text = decode(text)
    game = GcgGame()
    seats: dict[str, list[int]] = {}   # nickname -> the seats it names, in seat order
    declared = False                   # a #playerN line names the seats: no others join
    in_note = False
    turns = game.turns

    def add_note(line_no: int, raw: str, note: str) -> None:
        if turns:
            last = turns[-1]
            turns[-1] = replace(last, note=f"{last.note}\n{note}" if last.note else note)
        else:
            prev = game.meta.get("note")
            game.meta["note"] = f"{prev}\n{note}" if prev is not None else note

    lines = _LINE_END.split(text)
    if not any(line.strip() for line in lines):
        raise GcgError(1, "", "empty file: no '#pragma' or '>player: ...' line")
    for line_no, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            in_note = False
            continue
        if stripped.startswith("#"):
            key, _, value = stripped[1:].partition(" ")
            key, value = key.lower(), value.strip()
            in_note = key == "note"
            if m := re.fullmatch(r"player([0-9]+)", key):
                idx = int(m.group(1)) - 1
                if not 0 <= idx < MAX_PLAYERS:
                    raise GcgError(line_no, line, f"#{key}: a game has 2 to {MAX_PLAYERS} players")
                if turns:
                    raise GcgError(line_no, line, f"#{key} after the first turn (players come first)")
                nick, _, name = value.partition(" ")
                if not nick:
                    raise GcgError(line_no, line, f"#{key} needs a nickname")
                while len(game.players) <= idx:
                    game.players.append(Player("", ""))
                game.players[idx] = Player(nick, name.strip() or nick)
                seats.setdefault(nick, []).append(idx)
                seats[nick].sort()
                declared = True
            elif m := re.fullmatch(r"rack([0-9]+)", key):
                game.final_racks[int(m.group(1)) - 1] = value
            elif key == "note":
                add_note(line_no, line, value)
            else:
                game.meta[key] = value
            continue
        if stripped.startswith(">"):
            in_note = False
            nick, turn = _read_turn(line_no, line)
            turns.append(replace(turn, player=_seat(nick, turn, seats, declared, game.players, turns)))
            continue
        if in_note:  # a note may run over several lines
            add_note(line_no, line, line)
            continue
        raise GcgError(line_no, line, "not a GCG line (expected '#pragma' or '>player: ...')")
    for i, p in enumerate(game.players):  # a seat no line named (only #player2 given, nobody played 1)
        if not p.nick:
            game.players[i] = Player(f"player{i + 1}", f"player{i + 1}")
    return game


def _seat(nick: str, turn: GcgTurn, seats: dict[str, list[int]], declared: bool,
          players: list[Player], turns: list[GcgTurn]) -> int:
    """The seat a turn line's nickname stands for."""
    line_no, line = turn.line_no, turn.text
    if nick not in seats:
        free = [i for i in range(2) if i >= len(players) or not players[i].nick]
        if not free:
            raise GcgError(line_no, line, f"unknown player {nick!r}"
                           + ("" if declared else " (more than two players are named on #player3 and #player4 lines)"))
        idx = free[0]
        while len(players) <= idx:
            players.append(Player("", ""))
        players[idx] = Player(nick, nick)
        seats[nick] = [idx]
    options = seats[nick]
    if len(options) == 1:
        return options[0]
    # One nickname for several seats (Quackle's "NoName"): turn order decides.
    n = len(players)
    moved = [t for t in turns if t.kind in ("play", "pass", "exchange", "withdrawn")]
    plays = [t for t in turns if t.kind == "play"]
    if turn.kind in ("withdrawn", "challenge", "end_points") and plays and plays[-1].player in options:
        return plays[-1].player  # the player whose play it was
    if turn.kind in ("play", "pass", "exchange"):
        nxt = (moved[-1].player + 1) % n if moved else 0
        return min(options, key=lambda i: (i - nxt) % n)
    done = {t.player for t in turns if t.kind == turn.kind}
    return next((i for i in options if i not in done), options[0])


def _read_turn(line_no: int, line: str) -> tuple[str, GcgTurn]:
    """(nickname, the turn with player 0): read_gcg gives it its seat."""
    head, sep, rest = line.strip()[1:].partition(":")
    nick = head.strip()
    if not sep or not nick:
        raise GcgError(line_no, line, "a turn line starts '>nick:'")
    tokens = rest.split()
    # The score is the first "+N"/"-N" followed by the cumulative; anything after is trailing text.
    at = next((i for i in range(len(tokens) - 1)
               if _SCORE.match(tokens[i]) and _CUMULATIVE.match(tokens[i + 1])), None)
    if at is None:
        raise GcgError(line_no, line, "missing score and cumulative (expected '+N TOTAL' at the end)")
    score, cumulative = _number(line_no, line, tokens[at]), _number(line_no, line, tokens[at + 1])
    body = tokens[:at]
    base = dict(line_no=line_no, text=line, player=0, score=score, cumulative=cumulative)

    def rack_of(extra: list[str]) -> str | None:
        if len(extra) > 1:
            raise GcgError(line_no, line, f"unexpected text {' '.join(extra)!r}")
        if not extra or extra[0].upper() == UNKNOWN_RACK:
            return None
        return extra[0]

    if not body:
        raise GcgError(line_no, line, "no play between the player and the score")
    last = body[-1]
    if last == "--":
        return nick, GcgTurn(**base, rack=rack_of(body[:-1]), kind="withdrawn")
    if last == "-":
        return nick, GcgTurn(**base, rack=rack_of(body[:-1]), kind="pass")
    if last.lower() == "(challenge)":
        return nick, GcgTurn(**base, rack=rack_of(body[:-1]), kind="challenge")
    if last.lower() == "(time)":
        return nick, GcgTurn(**base, rack=rack_of(body[:-1]), kind="time")
    if last.startswith("-") and len(last) > 1:
        what = last[1:]
        if _CUMULATIVE.match(what):
            return nick, GcgTurn(**base, rack=rack_of(body[:-1]), kind="exchange",
                                 count=_number(line_no, line, what))
        return nick, GcgTurn(**base, rack=rack_of(body[:-1]), kind="exchange", exchanged=what)
    if last.startswith("(") and last.endswith(")"):
        tiles = last[1:-1]
        rack = rack_of(body[:-1])
        # "RACK (RACK) -N" is a player losing their own rack; "(RACK) +N" the out-player's gain.
        penalty = score < 0 or (score == 0 and rack == tiles)
        return nick, GcgTurn(**base, rack=rack, kind="end_penalty" if penalty else "end_points",
                             exchanged=tiles)
    if len(body) >= 2 and (_ACROSS.match(body[-2]) or _DOWN.match(body[-2])):
        return nick, GcgTurn(**base, rack=rack_of(body[:-2]), kind="play", position=body[-2], word=body[-1])
    if len(body) >= 2 and re.match(r"^[A-Za-z]*\d+[A-Za-z]*$", body[-2]):
        raise GcgError(line_no, line, f"unknown coordinate {body[-2]!r}")
    raise GcgError(line_no, line, f"cannot read the play {' '.join(body)!r}")


def gcg_lang(meta: dict[str, str]) -> str | None:
    """The tile set a record names: '#tile-distribution' (macondo's names), else the '#lexicon'
    prefix (OSPS: Polish, RD: German, FRA/ODS: French, FILE/FISE: Spanish, NWL/TWL/CSW: English)."""
    named = meta.get("tile-distribution", "").strip().lower()
    for lang, name in MACONDO_DISTRIBUTIONS.items():
        if named == name:
            return lang
    lexicon = meta.get("lexicon", "").strip().upper()
    return next((lang for prefix, lang in LEXICON_LANGS if lexicon.startswith(prefix)), None)


def _number(line_no: int, line: str, token: str) -> int:
    digits = len(token.lstrip("+-"))
    if digits > MAX_DIGITS:
        raise GcgError(line_no, line, f"a number of {digits} digits (at most {MAX_DIGITS})")
    return int(token)


# ---- replay a GCG game into an event log ----------------------------------------------

def parse_position(pos: str, layout: Layout) -> tuple[Square, Direction]:
    """'8D' -> (row 7, col 3) across; 'D8' -> down. Raises PlacementError (where a play goes)
    when the coordinate is not one or is off the board."""
    if m := _ACROSS.match(pos):
        row, col, direction = int(m.group(1)) - 1, ord(m.group(2).upper()) - 65, Direction.ACROSS
    elif m := _DOWN.match(pos):
        row, col, direction = int(m.group(2)) - 1, ord(m.group(1).upper()) - 65, Direction.DOWN
    else:
        raise PlacementError(f"unknown coordinate {pos!r}")
    sq = Square(row, col)
    if not layout.contains(sq):
        raise PlacementError(f"coordinate {pos!r} is off the {layout.size}x{layout.size} board")
    return sq, direction


def format_position(sq: Square, direction: Direction) -> str:
    col = chr(65 + sq.col)
    return f"{sq.row + 1}{col}" if direction is Direction.ACROSS else f"{col}{sq.row + 1}"


def _word_cells(word: str, dist: Distribution) -> list[tuple[str, bool]]:
    """(tile text, marked as played-through) per square; '.' and '(AB)' mark played-through tiles."""
    cells: list[tuple[str, bool]] = []
    through = False
    for tok in dist.tokens(word.replace("(", "\x01").replace(")", "\x02")):
        if tok == "\x01":
            through = True
        elif tok == "\x02":
            through = False
        else:
            cells.append((tok, through or tok == "."))
    return cells


def placement_from_gcg(game: Game, position: str, word: str) -> Placement:
    """The newly placed tiles of a play written as position + word on the current board."""
    board, dist = game.state.board, game.dist
    start, direction = parse_position(position, game.layout)
    dr, dc = direction.step
    placed: list[PlacedTile] = []
    for i, (tok, through) in enumerate(_word_cells(word, dist)):
        sq = Square(start.row + dr * i, start.col + dc * i)
        if not game.layout.contains(sq):
            raise PlacementError(f"{word!r} runs off the board")
        on_board = board[sq]
        if through or (on_board is not None and tok != BLANK and tok.upper() == on_board.letter):
            if on_board is None:
                raise PlacementError(f"{word!r} plays through {format_position(sq, direction)}, "
                                     "which is empty")
            continue
        if on_board is not None:
            raise PlacementError(f"square {format_position(sq, direction)} already holds "
                                 f"{on_board}, not {tok}")
        if tok == BLANK:  # a blank nobody named (tilecam wrote these before it named them)
            placed.append(PlacedTile(sq, BLANK, blank=True))
            continue
        letter = tok.upper()
        if letter not in dist.values:
            raise PlacementError(f"{tok!r} is not a tile of the {dist.name} set")
        placed.append(PlacedTile(sq, letter, blank=tok != letter))
    if not placed:
        raise PlacementError(f"{word!r} places no new tile")
    return Placement(tuple(placed), direction)


@dataclass(frozen=True)
class Finding:
    """A recount finding: a score or a running total that the engine does not reproduce."""

    line_no: int
    event_index: int
    player: int
    what: str          # "score" | "cumulative"
    recorded: int
    engine: int
    text: str


def record_from_gcg(gcg: GcgGame, profile: RuleProfile, dist: Distribution,
                    layout: Layout | None = None, rules: str | None = None,
                    lang: str | None = None) -> tuple[GameRecord, list[Finding], list[int]]:
    """Replay a GCG game through the rules engine.

    Returns the record, the findings (claimed score != engine score, recorded cumulative
    != previous + claimed) and the GCG line number of each event.
    """
    layout = layout or LAYOUTS["standard"]
    players = tuple(gcg.players) + tuple(Player(f"player{i + 1}", f"player{i + 1}")
                                         for i in range(len(gcg.players), 2))
    try:
        game = Game(profile, dist, layout, len(players))
    except (GameError, ValueError) as exc:
        first = gcg.turns[0] if gcg.turns else None
        raise GcgError(first.line_no if first else 1, first.text if first else "", str(exc)) from None
    findings: list[Finding] = []
    line_nos: list[int] = []
    for t in gcg.turns:
        t = _unseen_rack(t)
        p, rack = t.player, t.rack
        try:
            dist.check_tiles(rack, "rack")
            match t.kind:
                case "play":
                    ev = game.play(p, placement_from_gcg(game, t.position, t.word), t.score, rack, t.note)
                case "withdrawn":
                    claimed, note = _withdrawn_score(game, t)
                    ev = game.withdraw(p, claimed, rack, note)
                case "pass":
                    if t.note.startswith(TURN_LOST_NOTE):
                        ev = game.lose_turn(p, rack, t.note[len(TURN_LOST_NOTE):].lstrip("\n"))
                    else:
                        ev = game.pass_turn(p, rack, t.note)
                case "exchange":
                    dist.check_tiles(t.exchanged, "exchanged tiles")
                    count = len(dist.tokens(t.exchanged)) if t.exchanged else t.count
                    ev = game.append(Exchange(p, count, t.exchanged, game.state.scores[p], rack, t.note))
                case "challenge":
                    ev = game.challenge_bonus(p, claimed=t.score, rack=rack, note=t.note)
                case "end_points":
                    dist.check_tiles(t.exchanged, "rack")
                    ev = game.end_rack_points(p, t.exchanged, t.score, t.note)
                case "end_penalty":
                    dist.check_tiles(t.exchanged, "rack")
                    ev = game.end_rack_penalty(p, t.exchanged, t.score, t.note)
                case "time":
                    ev = game.time_penalty(p, claimed=t.score, rack=rack, note=t.note)
                case _:
                    raise GameError(f"unknown turn kind {t.kind}")
        except (PlacementError, GameError, ValueError) as exc:
            if isinstance(exc, GcgError):
                raise
            raise GcgError(t.line_no, t.text, str(exc)) from None
        idx = len(game.events) - 1
        line_nos.append(t.line_no)
        engine = getattr(ev, "engine", None)
        if engine is not None and engine != getattr(ev, "claimed", t.score):
            findings.append(Finding(t.line_no, idx, p, "score", t.score, engine, t.text))
        if ev.cumulative != t.cumulative:
            findings.append(Finding(t.line_no, idx, p, "cumulative", t.cumulative, ev.cumulative, t.text))
    record = GameRecord(players, tuple(game.events), dict(gcg.meta), rules or profile.name,
                        lang or dist.name, layout.name)
    return record, findings, line_nos


def _unseen_rack(t: GcgTurn) -> GcgTurn:
    """The turn without the stand-in rack our writer put on a line whose rack nobody saw."""
    lines = t.note.split("\n") if t.note else []
    kept = [line for line in lines if not line.startswith(RACK_NOT_SEEN)]
    return t if len(kept) == len(lines) else replace(t, rack=None, note="\n".join(kept))


def _withdrawn_score(game: Game, t: GcgTurn) -> tuple[int, str]:
    """(claimed, note) of a '--' line. Quackle writes a withdrawn play as '-- +0' with the right
    running total: there the total is the truth, and the note says what the line said."""
    s = game.state
    if s.last_play is None or t.cumulative == s.scores[t.player] + t.score:
        return t.score, t.note
    taken = -game.events[s.last_play].agreed
    if t.cumulative != s.scores[t.player] + taken:
        return t.score, t.note
    said = f"'--' line written {t.score:+d}; its running total {t.cumulative} takes the play's {-taken} off"
    return taken, f"{t.note}\n{said}" if t.note else said


# ---- writer ------------------------------------------------------------------------

# Pragmas the writer writes itself; a meta key of that name would add a second one.
_OWN_PRAGMAS = {"character-encoding", "note"}
_PRAGMA_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# macondo (and so Woogles) matches its line patterns anywhere in a line, and tries #player,
# #title, #description, #id, #rack1/2, #character-encoding and plays before #note: a note
# saying "#player1 x y" would add a player there, and ">x: A 8D A +2 2" a play. A space
# after that '#' or '>' keeps the text a note; hashtags such as #findingsmall stay as they are.
_FOREIGN_LINE = re.compile(r"#(?=player[1-4]\s|title|description|id\s|rack[1-4] |character-encoding )|>(?=\S+:\s)")


def check_nick(nick: str) -> str:
    """A GCG nickname, returned as is, or GcgError saying why it cannot be one.

    A turn line is '>nick: ...' and '#player1 nick Full Name' splits at the first space,
    so a nickname is one printable word without ':'; the display name keeps any spaces.
    """
    if not nick:
        raise GcgError(0, "", "a nickname cannot be empty")
    if len(nick) > NICK_MAX:
        raise GcgError(0, "", f"nickname of {len(nick)} characters (at most {NICK_MAX})")
    if ":" in nick:
        raise GcgError(0, nick, "a nickname cannot hold ':' (a GCG turn line is '>nick: ...')")
    if any(ch.isspace() for ch in nick):
        raise GcgError(0, nick, "a nickname is one word: no spaces or line breaks (the display name can have them)")
    if not nick.isprintable():
        raise GcgError(0, nick, "a nickname cannot hold control or invisible characters")
    return nick


def _one_line(text: object) -> str:
    """Free text for one GCG line: every line break and control character becomes a space."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in str(text)).strip()


def _free_text(text: object) -> str:
    return _FOREIGN_LINE.sub(lambda m: m.group(0) + " ", _one_line(text))


def _note_lines(note: str) -> list[str]:
    """'#note' lines for a note: one per line of it (str.splitlines breaks at every separator);
    blank lines are dropped, since a bare '#note' is not a line macondo reads."""
    return [f"#note {line}" for line in map(_free_text, note.splitlines()) if line]


def _token(value: str, what: str, line: str) -> str:
    """A rack, coordinate or word: one printable word, or the record cannot be written."""
    if not value or not value.isprintable() or any(ch.isspace() for ch in value):
        raise GcgError(0, line, f"{what} {value!r} is not one printable word")
    return value


def play_notation(ev: Play, game: Game) -> tuple[str, str, str]:
    """(rack, position, word) of a play against the board before it: '.' for played-through tiles."""
    dist, board = game.dist, game.state.board
    pl = ev.placement
    dr, dc = pl.direction.step
    placed = {t.square: t for t in pl.tiles}
    sq = pl.tiles[0].square
    while True:  # back to the start of the main word
        prev = Square(sq.row - dr, sq.col - dc)
        if not game.layout.contains(prev) or prev not in board:
            break
        sq = prev
    start, cells = sq, []
    while game.layout.contains(sq) and (sq in placed or sq in board):
        cells.append(str(placed[sq].tile) if sq in placed else ".")
        sq = Square(sq.row + dr, sq.col + dc)
    played = _played_tiles(pl, dist)
    # macondo sets the rack and takes the play's tiles from it: a rack without them is not written
    rack = ev.rack if ev.rack and _holds(_token(ev.rack, "rack", ev.rack), played, dist) else played
    return rack, format_position(start, pl.direction), dist.spell(cells)


def _played_tiles(pl: Placement, dist: Distribution) -> str:
    """The tiles a play took from the rack: '?' for a blank, whatever it stands for."""
    return dist.spell([BLANK if t.blank else t.letter for t in pl.tiles])


def _holds(rack: str, tiles: str, dist: Distribution) -> bool:
    """Whether `rack` contains every tile of `tiles` (a rack's letters are upper case, '?' a blank)."""
    have = Counter(t.upper() if t != BLANK else t for t in dist.tokens(rack))
    have.subtract(t.upper() if t != BLANK else t for t in dist.tokens(tiles))
    return all(n >= 0 for n in have.values())


def _placeholder(n: int, game: Game) -> str:
    """n tiles for a rack nobody saw. Every reader needs a rack on these lines (Quackle takes the
    next token for it, macondo's pass and exchange patterns need one), and macondo sets it from the
    tiles not on the board, so they come from there: the most plentiful plain letters first, one
    byte each, since macondo's '-N' exchange takes the rack's first N bytes."""
    dist = game.dist
    pool = unseen(game.state.board, dist)
    order = sorted(dist.letters, key=lambda t: (not (len(t) == 1 and t.isascii()), -pool[t],
                                                dist.letters.index(t)))
    out: list[str] = []
    for tile in order:
        take = min(pool[tile], n - len(out))
        out.extend([tile] * take)
    # a board holding more tiles than the set (a misread) leaves too few: the commonest letter then
    out.extend([order[0]] * (n - len(out)))
    return dist.spell(out)


def _minus(points: int) -> str:
    # macondo reads '-- -N', '(time) -N' and 'RACK (RACK) -N' only with a minus, zero included
    return f"-{-points}" if points <= 0 else f"+{points}"


def _unique_nicks(players: tuple[Player, ...]) -> list[str]:
    """Each seat's nickname, checked; a repeated one (Quackle writes "NoName" for both) gets the
    seat number, since macondo refuses two players with one nickname."""
    nicks: list[str] = []
    for i, pl in enumerate(players, start=1):
        nick = check_nick(pl.nick)
        while nick in nicks:
            nick = check_nick(f"{pl.nick}_{i}" if nick == pl.nick else f"{nick}_")
        nicks.append(nick)
    return nicks


def _header(record: GameRecord, dist: Distribution, layout: Layout) -> list[str]:
    """The pragmas after the players, each one macondo and the GCG spec define; any other metadata
    (macondo refuses an unknown pragma, and the whole file with it) goes into '#description'."""
    meta = {k: v for k, v in record.meta.items() if v is not None and _one_line(v)}
    for key in meta:
        if not _PRAGMA_KEY.match(key):
            raise GcgError(0, key, "a pragma name is one word of letters, digits, '_', '.' or '-'")
    out = []
    if title := _free_text(meta.pop("title", "")):
        out.append(f"#title {title}")
    described = [meta.pop("description", "")]
    # '#note' before the first turn: macondo has no event to hang it on
    described += (meta.pop("note", "") or "").splitlines()
    ident = _one_line(meta.pop("id", "")).split()
    if len(ident) != 2:  # macondo's '#id' is 'AUTHORITY ID'
        described.append(f"id: {' '.join(ident)}" if ident else "")
    lexicon = _one_line(meta.pop("lexicon", ""))
    if lexicon and gcg_lang({"lexicon": lexicon}) not in (None, dist.name.split("-")[0]):
        described.append(f"lexicon: {lexicon}")  # a word list of another language: not this set's
        lexicon = ""
    for key in ("tile-distribution", "board-layout", "character-encoding", "game-type"):
        meta.pop(key, None)  # said by the record itself, below
    described += [f"{key}: {meta[key]}" for key in sorted(set(meta) - _OWN_PRAGMAS)
                  if not re.fullmatch(r"(player|rack)[0-9]+", key)]
    if description := _free_text("; ".join(_one_line(d) for d in described if _one_line(d))):
        out.append(f"#description {description}")
    if len(ident) == 2:
        out.append(f"#id {_free_text(ident[0])} {_free_text(ident[1])}")
    if lexicon:
        out.append(f"#lexicon {_free_text(lexicon)}")
    if dist.name not in MACONDO_DISTRIBUTIONS:
        raise GcgError(0, dist.name, "no GCG tile-distribution name for this tile set")
    out.append(f"#tile-distribution {MACONDO_DISTRIBUTIONS[dist.name]}")
    if layout.name in MACONDO_LAYOUTS:
        out.append(f"#board-layout {MACONDO_LAYOUTS[layout.name]}")
    return out


def write_gcg(record: GameRecord, profile: RuleProfile, dist: Distribution,
              layout: Layout | None = None, lexicon: Lexicon | None = None) -> str:
    """Strict GCG that macondo, Woogles and Quackle all load (tests/gcgcheck.py holds their rules):
    UTF-8 header first, the players, then only pragmas they define, '#tile-distribution' always;
    '.' for played-through tiles; one line per event.

    Every line has a rack, never the word UNKNOWN: the rack when known, else a play's own tiles,
    a withdrawn play's tiles, or placeholder tiles from those not on the board (`_placeholder`).
    A blank nobody named gets a letter (`scoring.blanks.designate`, with `lexicon` when given) and,
    unless the lexicon left only that letter, a '#note' with BLANK_NOT_READ.

    No field can start a line of its own: nicknames must pass check_nick, racks and words
    be one word (GcgError otherwise); names and other text are kept to one line, and a
    note's lines each become a '#note' line.
    """
    layout = layout or LAYOUTS[record.layout]
    out = ["#character-encoding UTF-8"]
    nicks = _unique_nicks(record.players)
    for i, (pl, nick) in enumerate(zip(record.players, nicks), start=1):
        # macondo needs a name after the nickname; our reader gives the nickname when none
        out.append(f"#player{i} {nick} {_one_line(pl.name) or nick}")
    out.extend(_header(record, dist, layout))
    game = Game(profile, dist, layout, len(record.players))
    for ev in record.events:
        nick = nicks[ev.player]
        note_lines = _note_lines(ev.note or "")
        match ev:
            case Play():
                # >Josh: AEFGITT 8J .EGIFT +36 128
                named = designate(game.state.board, ev.placement, dist, lexicon, ev.claimed)
                rack, pos, word = play_notation(replace(ev, placement=named.placement), game)
                if not named.decided and BLANK_NOT_READ not in (ev.note or ""):
                    letters = ", ".join(t.letter.lower() for t in named.placement.tiles
                                        if t.square in undecided_squares(ev.placement))
                    note_lines.insert(0, f"#note {BLANK_NOT_READ}: written as {letters}")
                line = f">{nick}: {rack} {pos} {word} {ev.agreed:+d} {ev.cumulative}"
            case PhonyWithdrawn():
                # >Peter: ?BCHRUY --  -115 277   (rack unknown: the withdrawn play's tiles)
                taken = game.events[game.state.last_play].placement if game.state.last_play is not None else None
                rack = ev.rack or (_played_tiles(taken, dist) if taken else _placeholder(1, game))
                line = f">{nick}: {_token(rack, 'rack', rack)} -- {_minus(ev.agreed)} {ev.cumulative}"
            case TurnLost():
                # GCG has no lost turn: a pass plus a note saying why.  >emely: DEIILTZ - +0 55
                line = f">{nick}: {_rack(ev.rack, 1, game)} - +0 {ev.cumulative}"
                note_lines.insert(0, f"#note {TURN_LOST_NOTE}")
            case Pass():
                # >josh: GROUU - +0 287
                line = f">{nick}: {_rack(ev.rack, 1, game)} - +0 {ev.cumulative}"
                if note_lines and note_lines[0].startswith(f"#note {TURN_LOST_NOTE}"):  # would read as a lost turn
                    note_lines[0] = "#note # " + note_lines[0][len("#note #"):]
            case Exchange():
                # >cesar: AAIIOOS -AIIOO +0 190   or, tiles unknown:  >josh: IIIU -4 +0 349
                # ('-4' is Quackle's count; macondo exchanges the rack's first 4 tiles)
                if ev.tiles:
                    tiles = _token(ev.tiles, "exchanged tiles", ev.tiles)
                    rack = ev.rack if ev.rack and _holds(ev.rack, tiles, dist) else tiles
                    line = f">{nick}: {_token(rack, 'rack', rack)} -{tiles} +0 {ev.cumulative}"
                else:
                    rack = ev.rack if ev.rack and _plain_head(ev.rack, ev.count, dist) else None
                    line = f">{nick}: {_rack(rack, ev.count, game)} -{ev.count} +0 {ev.cumulative}"
            case ChallengeBonus():
                # >jvc: ?ADENTU (challenge) +5 266
                line = f">{nick}: {_rack(ev.rack, 1, game)} (challenge) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPoints():
                # >cesar: (BLONST) +16 457
                line = f">{nick}: ({_token(ev.opponent_rack, 'rack', ev.opponent_rack)}) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPenalty():
                # >Marlon_Hill: ?AEEOTT (?AEEOTT) -6 -6
                rack = _token(ev.rack, "rack", ev.rack)
                line = f">{nick}: {rack} ({rack}) {_minus(ev.agreed)} {ev.cumulative}"
            case TimePenalty():
                # >Josh: AEI (time) -10 420
                line = f">{nick}: {_rack(ev.rack, 1, game)} (time) {_minus(ev.agreed)} {ev.cumulative}"
            case _:
                raise TypeError(f"cannot write {type(ev).__name__}")
        written = line.split(" ", 2)[1]
        if isinstance(ev, (PhonyWithdrawn, TurnLost, Pass, Exchange, ChallengeBonus, TimePenalty)) \
                and written != ev.rack:
            note_lines.append(f"#note {RACK_NOT_SEEN}: {written} stands in (GCG readers need a rack here)")
        out.append(line)
        out.extend(note_lines)
        game.append(ev)
    return "\n".join(out) + "\n"


def _rack(rack: str | None, n: int, game: Game) -> str:
    # Never an empty rack field: Quackle would take the next token for the rack, macondo's pass
    # pattern refuses the line, and the word UNKNOWN would be read as the tiles U, N, K, ...
    return _token(rack, "rack", rack) if rack else _placeholder(n, game)


def _plain_head(rack: str, n: int, dist: Distribution) -> bool:
    """A known rack macondo can take a '-N' exchange from: at least N tiles, the first N one byte each."""
    tiles = dist.tokens(rack)
    return len(tiles) >= n and all(len(t) == 1 and t.isascii() for t in tiles[:n])
