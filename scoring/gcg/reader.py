"""The lenient GCG reader: text (or bytes) to a GcgGame, and a GcgGame replayed through the
rules engine to a GameRecord.

Lines end at \n (a \r before it or on its own also ends one), as macondo's and Woogles'
reader splits them; any other line separator (U+2028, U+0085, ...) is text inside a line.
"""
from __future__ import annotations

import re
from dataclasses import replace

from ..board import Layout, LAYOUTS
from ..events import Exchange
from ..game import Game, GameError
from ..placement import PlacementError
from ..errors import RulesError
from ..rules import RuleProfile, check_player_number
from ..tiles import Distribution
from .notation import is_position, placement_from_gcg
from .records import Finding, GameRecord, GcgError, GcgGame, GcgTurn, Mark, Player, marked
from .woogles import WRITTEN

__all__ = ["decode", "read_gcg", "record_from_gcg"]

UNKNOWN_RACK = "UNKNOWN"
MAX_DIGITS = 6          # of a score or a total; int() of 4,300 digits raises, and none is real
_SCORE = re.compile(r"^[+-][0-9]+$")
_CUMULATIVE = re.compile(r"^-?[0-9]+$")
_LINE_END = re.compile(r"\r\n|\r|\n")


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
    # A byte-order mark (Windows editors save one) decoded with the text, as an HTTP body is: not a line's.
    text = text.removeprefix("\ufeff")
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
                idx = int(m.group(1)) - 1   # Quackle writes #player1..#playerN
                try:
                    check_player_number(idx + 1)
                except RulesError as exc:
                    raise GcgError(line_no, line, str(exc)) from None
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
    turns[:] = map(_read_marks, turns)
    return game


# The marks a turn of each kind takes from its note lines; a line of another's words stays a note.
_MARKS = {"play": {Mark.RACK_NOT_SEEN, Mark.TURN_INFERRED, Mark.BLANK_GUESSED}}


def _read_marks(t: GcgTurn) -> GcgTurn:
    """The turn with our writer's note lines read as its marks and taken off its note: a stand-in
    rack on any line (the rack field goes with it), a play's inferred turn and guessed blank, and a
    pass's lost turn (macondo's note, first)."""
    marks, kept = set(), []
    for line in t.note.split("\n") if t.note else []:
        m = marked(line)
        if m in _MARKS.get(t.kind, {Mark.RACK_NOT_SEEN}):
            marks.add(m)
        else:
            kept.append(line)
    note = "\n".join(kept)
    if t.kind == "pass" and marked(note) is Mark.TURN_LOST:
        marks.add(Mark.TURN_LOST)
        note = note[len(Mark.TURN_LOST.value):].lstrip("\n")
    if not marks:
        return t
    return replace(t, rack=None if Mark.RACK_NOT_SEEN in marks else t.rack, note=note, marks=frozenset(marks))


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
    if len(body) >= 2 and is_position(body[-2]):
        return nick, GcgTurn(**base, rack=rack_of(body[:-2]), kind="play", position=body[-2], word=body[-1])
    if len(body) >= 2 and re.match(r"^[A-Za-z]*\d+[A-Za-z]*$", body[-2]):
        raise GcgError(line_no, line, f"unknown coordinate {body[-2]!r}")
    raise GcgError(line_no, line, f"cannot read the play {' '.join(body)!r}")


def _number(line_no: int, line: str, token: str) -> int:
    digits = len(token.lstrip("+-"))
    if digits > MAX_DIGITS:
        raise GcgError(line_no, line, f"a number of {digits} digits (at most {MAX_DIGITS})")
    return int(token)


def record_from_gcg(gcg: GcgGame, profile: RuleProfile, dist: Distribution,
                    layout: Layout | None = None, rules: str | None = None,
                    lang: str | None = None, within_set: bool = True) -> tuple[GameRecord, list[Finding], list[int]]:
    """Replay a GCG game through the rules engine.

    Returns the record, the findings (claimed score != engine score, recorded cumulative
    != previous + claimed) and the GCG line number of each event. A play, exchange or rack that
    puts more of a tile in the record than the set has is a GcgError naming its line, unless `within_set` is
    False (a record read to be recounted as it stands: the recount flags it).
    """
    layout = layout or LAYOUTS["standard"]
    players = tuple(gcg.players) + tuple(Player(f"player{i + 1}", f"player{i + 1}")
                                         for i in range(len(gcg.players), 2))
    try:
        game = Game(profile, dist, layout, len(players), within_set=within_set)
    except (GameError, ValueError) as exc:
        first = gcg.turns[0] if gcg.turns else None
        raise GcgError(first.line_no if first else 1, first.text if first else "", str(exc)) from None
    findings: list[Finding] = []
    line_nos: list[int] = []
    for t in gcg.turns:
        if t.note and any(line in WRITTEN for line in t.note.split("\n")):  # the writer's word on the end
            t = replace(t, note="\n".join(line for line in t.note.split("\n") if line not in WRITTEN))
        p, rack = t.player, t.rack
        try:
            dist.check_tiles(rack, "rack")
            match t.kind:
                case "play":
                    ev = game.play(p, placement_from_gcg(game, t.position, t.word), t.score, rack, t.note,
                                   turn_inferred=Mark.TURN_INFERRED in t.marks,
                                   blank_guessed=Mark.BLANK_GUESSED in t.marks)
                case "withdrawn":
                    claimed, note = _withdrawn_score(game, t)
                    ev = game.withdraw(p, claimed, rack, note)
                case "pass" if Mark.TURN_LOST in t.marks:
                    ev = game.lose_turn(p, rack, t.note)
                case "pass":
                    ev = game.pass_turn(p, rack, t.note)
                case "exchange":
                    dist.check_tiles(t.exchanged, "exchanged tiles")
                    count = len(dist.tokens(t.exchanged)) if t.exchanged else t.count
                    # rebuilt as any exchange is (Game.rebuild): the set's counts hold for its tiles
                    ev = game.rebuild(Exchange(p, count, t.exchanged, game.state.scores[p], rack, t.note))
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
