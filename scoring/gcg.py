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
from dataclasses import dataclass, field

from .board import Direction, Layout, LAYOUTS, Square
from .events import (ChallengeBonus, EndRackPenalty, EndRackPoints, Event, Exchange, Pass,
                     PhonyWithdrawn, Play, TimePenalty, TurnLost)
from .game import Game, GameError
from .placement import PlacedTile, Placement, PlacementError
from .rules import RuleProfile
from .tiles import BLANK, Distribution

UNKNOWN_RACK = "UNKNOWN"
TURN_LOST_NOTE = "#unsuccessful-challenge"
MAX_DIGITS = 6          # of a score or a total; int() of 4,300 digits raises, and none is real
NICK_MAX = 64           # the longest in the liwords games is 42
_SCORE = re.compile(r"^[+-][0-9]+$")
_CUMULATIVE = re.compile(r"^-?[0-9]+$")
_ACROSS = re.compile(r"^([0-9]{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])([0-9]{1,2})$")
_LINE_END = re.compile(r"\r\n|\r|\n")


class GcgError(ValueError):
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
    racks missing or partial, trailing text after the cumulative score."""
    if isinstance(text, bytes):
        text = decode(text)
    game = GcgGame()
    nicks: dict[str, int] = {}
    in_note = False
    turns = game.turns

    def add_note(line_no: int, raw: str, note: str) -> None:
        if turns:
            last = turns[-1]
            joined = f"{last.note}\n{note}" if last.note else note
            turns[-1] = GcgTurn(**{**last.__dict__, "note": joined})
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
            if key in ("player1", "player2"):
                idx = int(key[-1]) - 1
                nick, _, name = value.partition(" ")
                if not nick:
                    raise GcgError(line_no, line, f"#{key} needs a nickname")
                while len(game.players) <= idx:
                    game.players.append(Player("", ""))
                game.players[idx] = Player(nick, name.strip() or nick)
                nicks[nick] = idx
            elif key in ("rack1", "rack2"):
                game.final_racks[int(key[-1]) - 1] = value
            elif key == "note":
                add_note(line_no, line, value)
            elif key == "character-encoding":
                game.meta["character-encoding"] = value
            else:
                game.meta[key] = value
            continue
        if stripped.startswith(">"):
            in_note = False
            turns.append(_read_turn(line_no, line, nicks, game.players))
            continue
        if in_note:  # a note may run over several lines
            add_note(line_no, line, line)
            continue
        raise GcgError(line_no, line, "not a GCG line (expected '#pragma' or '>player: ...')")
    return game


def _read_turn(line_no: int, line: str, nicks: dict[str, int], players: list[Player]) -> GcgTurn:
    head, sep, rest = line.strip()[1:].partition(":")
    nick = head.strip()
    if not sep or not nick:
        raise GcgError(line_no, line, "a turn line starts '>nick:'")
    if nick not in nicks:
        if len(nicks) >= 2:
            raise GcgError(line_no, line, f"unknown player {nick!r}")
        idx = min({0, 1} - set(nicks.values()))  # the first seat no nickname holds
        nicks[nick] = idx
        while len(players) <= idx:
            players.append(Player("", ""))
        players[idx] = Player(nick, nick)
    player = nicks[nick]
    tokens = rest.split()
    # The score is the first "+N"/"-N" followed by the cumulative; anything after is trailing text.
    at = next((i for i in range(len(tokens) - 1)
               if _SCORE.match(tokens[i]) and _CUMULATIVE.match(tokens[i + 1])), None)
    if at is None:
        raise GcgError(line_no, line, "missing score and cumulative (expected '+N TOTAL' at the end)")
    score, cumulative = _number(line_no, line, tokens[at]), _number(line_no, line, tokens[at + 1])
    body = tokens[:at]
    base = dict(line_no=line_no, text=line, player=player, score=score, cumulative=cumulative)

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
        return GcgTurn(**base, rack=rack_of(body[:-1]), kind="withdrawn")
    if last == "-":
        return GcgTurn(**base, rack=rack_of(body[:-1]), kind="pass")
    if last.lower() == "(challenge)":
        return GcgTurn(**base, rack=rack_of(body[:-1]), kind="challenge")
    if last.lower() == "(time)":
        return GcgTurn(**base, rack=rack_of(body[:-1]), kind="time")
    if last.startswith("-") and len(last) > 1:
        what = last[1:]
        if _CUMULATIVE.match(what):
            return GcgTurn(**base, rack=rack_of(body[:-1]), kind="exchange", count=_number(line_no, line, what))
        return GcgTurn(**base, rack=rack_of(body[:-1]), kind="exchange", exchanged=what)
    if last.startswith("(") and last.endswith(")"):
        tiles = last[1:-1]
        rack = rack_of(body[:-1])
        # "RACK (RACK) -N" is a player losing their own rack; "(RACK) +N" the out-player's gain.
        penalty = score < 0 or (score == 0 and rack == tiles)
        return GcgTurn(**base, rack=rack, kind="end_penalty" if penalty else "end_points",
                       exchanged=tiles)
    if len(body) >= 2 and (_ACROSS.match(body[-2]) or _DOWN.match(body[-2])):
        return GcgTurn(**base, rack=rack_of(body[:-2]), kind="play", position=body[-2], word=body[-1])
    if len(body) >= 2 and re.match(r"^[A-Za-z]*\d+[A-Za-z]*$", body[-2]):
        raise GcgError(line_no, line, f"unknown coordinate {body[-2]!r}")
    raise GcgError(line_no, line, f"cannot read the play {' '.join(body)!r}")


def _number(line_no: int, line: str, token: str) -> int:
    digits = len(token.lstrip("+-"))
    if digits > MAX_DIGITS:
        raise GcgError(line_no, line, f"a number of {digits} digits (at most {MAX_DIGITS})")
    return int(token)


# ---- replay a GCG game into an event log ----------------------------------------------

def parse_position(pos: str, layout: Layout) -> tuple[Square, Direction]:
    """'8D' -> (row 7, col 3) across; 'D8' -> down. Raises ValueError when off the board."""
    if m := _ACROSS.match(pos):
        row, col, direction = int(m.group(1)) - 1, ord(m.group(2).upper()) - 65, Direction.ACROSS
    elif m := _DOWN.match(pos):
        row, col, direction = int(m.group(2)) - 1, ord(m.group(1).upper()) - 65, Direction.DOWN
    else:
        raise ValueError(f"unknown coordinate {pos!r}")
    sq = Square(row, col)
    if not layout.contains(sq):
        raise ValueError(f"coordinate {pos!r} is off the {layout.size}x{layout.size} board")
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
    game = Game(profile, dist, layout)
    findings: list[Finding] = []
    line_nos: list[int] = []
    for t in gcg.turns:
        p, rack = t.player, t.rack
        try:
            dist.check_tiles(rack, "rack")
            match t.kind:
                case "play":
                    ev = game.play(p, placement_from_gcg(game, t.position, t.word), t.score, rack, t.note)
                case "withdrawn":
                    ev = game.withdraw(p, t.score, rack, t.note)
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
        if engine is not None and engine != t.score:
            findings.append(Finding(t.line_no, idx, p, "score", t.score, engine, t.text))
        if ev.cumulative != t.cumulative:
            findings.append(Finding(t.line_no, idx, p, "cumulative", t.cumulative, ev.cumulative, t.text))
    record = GameRecord(tuple(gcg.players) or (Player("player1", "player1"), Player("player2", "player2")),
                        tuple(game.events), dict(gcg.meta), rules or profile.name, lang or dist.name,
                        layout.name)
    return record, findings, line_nos


# ---- writer ------------------------------------------------------------------------

# Pragmas the writer writes itself; a meta key of that name would add a second one.
_OWN_PRAGMAS = {"player1", "player2", "rack1", "rack2", "character-encoding", "note"}
_PRAGMA_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# macondo (and so Woogles) matches its line patterns anywhere in a line, and tries #player,
# #title, #description, #id, #rack1/2, #character-encoding and plays before #note: a note
# saying "#player1 x y" would add a player there, and ">x: A 8D A +2 2" a play. A space
# after that '#' or '>' keeps the text a note; hashtags such as #findingsmall stay as they are.
_FOREIGN_LINE = re.compile(r"#(?=player[12]\s|title|description|id\s|rack[12] |character-encoding )|>(?=\S+:\s)")


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


def _rack(rack: str | None) -> str:
    # Never an empty rack field on these lines: readers would take the next token for the rack.
    return _token(rack, "rack", rack) if rack else UNKNOWN_RACK


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
    rack = _token(ev.rack, "rack", ev.rack) if ev.rack else dist.spell([BLANK if t.blank else t.letter for t in pl.tiles])
    return rack, format_position(start, pl.direction), dist.spell(cells)


def write_gcg(record: GameRecord, profile: RuleProfile, dist: Distribution,
              layout: Layout | None = None) -> str:
    """Strict GCG: UTF-8 header first, '.' for played-through tiles, one line per event.

    No field can start a line of its own: nicknames must pass check_nick, racks and words
    be one word (GcgError otherwise); names and other text are kept to one line, and a
    note's lines each become a '#note' line.
    """
    out = ["#character-encoding UTF-8"]
    nicks = [check_nick(pl.nick) for pl in record.players[:2]]
    if len(set(nicks)) != len(nicks):
        raise GcgError(0, nicks[0], "both players have the same nickname")
    for i, pl in enumerate(record.players[:2], start=1):
        # macondo needs a name after the nickname; our reader gives the nickname when none
        out.append(f"#player{i} {pl.nick} {_one_line(pl.name) or pl.nick}")
    known = ["title", "description", "id", "lexicon"]
    for key in known + sorted(set(record.meta) - set(known) - _OWN_PRAGMAS):
        if not _PRAGMA_KEY.match(key):
            raise GcgError(0, key, "a pragma name is one word of letters, digits, '_', '.' or '-'")
        if value := _free_text(record.meta.get(key) or ""):
            out.append(f"#{key} {value}")
    out.extend(_note_lines(record.meta.get("note") or ""))
    game = Game(profile, dist, layout or LAYOUTS[record.layout])
    for ev in record.events:
        nick = record.players[ev.player].nick
        note_lines = _note_lines(ev.note or "")
        match ev:
            case Play():
                # >Josh: AEFGITT 8J .EGIFT +36 128
                rack, pos, word = play_notation(ev, game)
                line = f">{nick}: {rack} {pos} {word} {ev.agreed:+d} {ev.cumulative}"
            case PhonyWithdrawn():
                # >Peter: ?BCHRUY --  -115 277
                line = f">{nick}: {_rack(ev.rack)} -- {ev.agreed:+d} {ev.cumulative}"
            case TurnLost():
                # GCG has no lost turn: a pass plus a note saying why.  >emely: DEIILTZ - +0 55
                line = f">{nick}: {_rack(ev.rack)} - +0 {ev.cumulative}"
                note_lines.insert(0, f"#note {TURN_LOST_NOTE}")
            case Pass():
                # >josh: GROUU - +0 287
                line = f">{nick}: {_rack(ev.rack)} - +0 {ev.cumulative}"
                if note_lines and note_lines[0].startswith(f"#note {TURN_LOST_NOTE}"):  # would read as a lost turn
                    note_lines[0] = "#note # " + note_lines[0][len("#note #"):]
            case Exchange():
                # >cesar: AAIIOOS -AIIOO +0 190   or, tiles unknown:  >josh: IIIU -4 +0 349
                what = _token(ev.tiles, "exchanged tiles", ev.tiles) if ev.tiles else str(ev.count)
                line = f">{nick}: {_rack(ev.rack or ev.tiles)} -{what} +0 {ev.cumulative}"
            case ChallengeBonus():
                # >jvc: ?ADENTU (challenge) +5 266
                line = f">{nick}: {_rack(ev.rack)} (challenge) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPoints():
                # >cesar: (BLONST) +16 457
                line = f">{nick}: ({_token(ev.opponent_rack, 'rack', ev.opponent_rack)}) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPenalty():
                # >Marlon_Hill: ?AEEOTT (?AEEOTT) -6 -6
                rack = _token(ev.rack, "rack", ev.rack)
                line = f">{nick}: {rack} ({rack}) {ev.agreed:+d} {ev.cumulative}"
            case TimePenalty():
                # >Josh: AEI (time) -10 420
                line = f">{nick}: {_rack(ev.rack)} (time) {ev.agreed:+d} {ev.cumulative}"
            case _:
                raise TypeError(f"cannot write {type(ev).__name__}")
        out.append(line)
        out.extend(note_lines)
        game.append(ev)
    return "\n".join(out) + "\n"
