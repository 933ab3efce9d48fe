"""GCG, the game-record format of Quackle, macondo and Woogles: a lenient reader and a strict writer.

GCG is an export and an import. The event log keeps more than GCG can say; only
`write_gcg` flattens it (a lost turn becomes a pass plus a note).

Coordinates: number first = across (8D: row 8, column D), letter first = down (D8).
"""
from __future__ import annotations

import re
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
_SCORE = re.compile(r"^[+-]\d+$")
_CUMULATIVE = re.compile(r"^-?\d+$")
_ACROSS = re.compile(r"^(\d{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])(\d{1,2})$")


class GcgError(ValueError):
    """A GCG line that cannot be read or replayed. Names the line and why."""

    def __init__(self, line_no: int, line: str, reason: str) -> None:
        self.line_no, self.line, self.reason = line_no, line, reason
        super().__init__(f"line {line_no}: {reason}: {line.strip()!r}")


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
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    m = re.search(rb"^#character-encoding\s+(\S+)", data, re.M | re.I)
    encoding = m.group(1).decode("ascii", "replace") if m else "iso-8859-1"
    try:
        return data.decode(encoding)
    except LookupError:
        raise GcgError(data[: m.start()].count(b"\n") + 1, m.group(0).decode("latin-1"),
                       f"unknown character encoding {encoding!r}") from None
    except UnicodeDecodeError as exc:
        line_no = data[: exc.start].count(b"\n") + 1
        raise GcgError(line_no, data.splitlines()[line_no - 1].decode("latin-1"),
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

    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
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
        idx = len(nicks) if len(nicks) < len(players) and players[len(nicks)].nick == "" else len(nicks)
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
    score, cumulative = int(tokens[at]), int(tokens[at + 1])
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
        if what.isdigit():
            return GcgTurn(**base, rack=rack_of(body[:-1]), kind="exchange", count=int(what))
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

def _rack(rack: str | None) -> str:
    # Never an empty rack field on these lines: readers would take the next token for the rack.
    return rack if rack else UNKNOWN_RACK


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
    rack = ev.rack or dist.spell([BLANK if t.blank else t.letter for t in pl.tiles])
    return rack, format_position(start, pl.direction), dist.spell(cells)


def write_gcg(record: GameRecord, profile: RuleProfile, dist: Distribution,
              layout: Layout | None = None) -> str:
    """Strict GCG: UTF-8 header first, '.' for played-through tiles, one line per event."""
    out = ["#character-encoding UTF-8"]
    for i, pl in enumerate(record.players[:2], start=1):
        out.append(f"#player{i} {pl.nick} {pl.name}".rstrip())
    known = ["title", "description", "id", "lexicon"]
    for key in known + sorted(set(record.meta) - set(known) - {"note", "character-encoding"}):
        if record.meta.get(key):
            out.append(f"#{key} {record.meta[key]}")
    if record.meta.get("note"):
        out.extend(f"#note {line}".rstrip() for line in record.meta["note"].split("\n"))
    game = Game(profile, dist, layout or LAYOUTS[record.layout])
    for ev in record.events:
        nick = record.players[ev.player].nick
        note = ev.note
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
                note = TURN_LOST_NOTE + (f"\n{note}" if note else "")
            case Pass():
                # >josh: GROUU - +0 287
                line = f">{nick}: {_rack(ev.rack)} - +0 {ev.cumulative}"
            case Exchange():
                # >cesar: AAIIOOS -AIIOO +0 190   or, tiles unknown:  >josh: IIIU -4 +0 349
                what = ev.tiles if ev.tiles else str(ev.count)
                line = f">{nick}: {_rack(ev.rack or ev.tiles)} -{what} +0 {ev.cumulative}"
            case ChallengeBonus():
                # >jvc: ?ADENTU (challenge) +5 266
                line = f">{nick}: {_rack(ev.rack)} (challenge) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPoints():
                # >cesar: (BLONST) +16 457
                line = f">{nick}: ({ev.opponent_rack}) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPenalty():
                # >Marlon_Hill: ?AEEOTT (?AEEOTT) -6 -6
                line = f">{nick}: {ev.rack} ({ev.rack}) {ev.agreed:+d} {ev.cumulative}"
            case TimePenalty():
                # >Josh: AEI (time) -10 420
                line = f">{nick}: {_rack(ev.rack)} (time) {ev.agreed:+d} {ev.cumulative}"
            case _:
                raise TypeError(f"cannot write {type(ev).__name__}")
        out.append(line)
        if note:
            out.extend(f"#note {n}".rstrip() for n in note.split("\n"))
        game.append(ev)
    return "\n".join(out) + "\n"
