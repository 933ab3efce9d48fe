"""The strict GCG writer: a GameRecord to text that macondo, Woogles and Quackle all load.

Only here is the event log flattened to what GCG can say (a lost turn becomes a pass plus
a note). The writer never writes a line separator inside a field: a note's line breaks
become separate '#note' lines, and names, titles and other text have them turned into spaces.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import replace

from ..blanks import designate, undecided_squares
from ..board import Layout, LAYOUTS
from ..events import (ChallengeBonus, EndRackPenalty, EndRackPoints, Exchange, Pass, PhonyWithdrawn, Play,
                      TimePenalty, TurnLost, note_of)
from ..game import Game
from ..lexicon import Lexicon
from ..rules import MAX_PLAYERS, RuleProfile
from ..tally import unseen
from ..tiles import Distribution
from ..turns import TURNS_INFERRED, hedge, turn_order
from .notation import one_word, play_notation, played_tiles, rack_holds
from .records import MACONDO_LAYOUTS, GameRecord, GcgError, Mark, Player, check_nick, gcg_lang, marked
from .woogles import WRITTEN, woogles_gap

__all__ = ["write_gcg"]

# Pragmas the writer writes itself; a meta key of that name would add a second one.
_OWN_PRAGMAS = {"character-encoding", "note"}
_PRAGMA_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# macondo (and so Woogles) matches its line patterns anywhere in a line, and tries #player,
# #title, #description, #id, #rack1/2, #character-encoding and plays before #note: a note
# saying "#player1 x y" would add a player there, and ">x: A 8D A +2 2" a play. A space
# after that '#' or '>' keeps the text a note; hashtags such as #findingsmall stay as they are.
_NUMBERS = "|".join(str(n) for n in range(1, MAX_PLAYERS + 1))  # the players' (rules.MAX_PLAYERS)
_FOREIGN_LINE = re.compile(rf"#(?=player(?:{_NUMBERS})\s|title|description|id\s|rack(?:{_NUMBERS}) |character-encoding )"
                           r"|>(?=\S+:\s)")


def _one_line(text: object) -> str:
    """Free text for one GCG line: every line break and control character becomes a space."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in str(text)).strip()


def _free_text(text: object) -> str:
    return _FOREIGN_LINE.sub(lambda m: m.group(0) + " ", _one_line(text))


def _note_lines(note: str) -> list[str]:
    """'#note' lines for a note: one per line of it (str.splitlines breaks at every separator);
    blank lines are dropped, since a bare '#note' is not a line macondo reads."""
    return [f"#note {line}" for line in map(_free_text, note.splitlines()) if line]


def _mark(line: str) -> Mark | None:
    """How a reader takes one of our '#note' lines (records.marked)."""
    return marked(line.removeprefix("#note "))


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


def _header(record: GameRecord, dist: Distribution, layout: Layout, doubt: str | None = None) -> list[str]:
    """The pragmas after the players, each one macondo and the GCG spec define; any other metadata
    (macondo refuses an unknown pragma, and the whole file with it) goes into '#description', and
    so does `doubt` (scoring.turns.hedge: the turns inferred, a game's result with them a guess)."""
    meta = {k: v for k, v in record.meta.items() if v is not None and _one_line(v)}
    for key in meta:
        if not _PRAGMA_KEY.match(key):
            raise GcgError(0, key, "a pragma name is one word of letters, digits, '_', '.' or '-'")
    out = []
    if title := _free_text(meta.pop("title", "")):
        out.append(f"#title {title}")
    # a hedge read back from a file is said again as the record's turns have it now
    described = [d for d in meta.pop("description", "").split("; ") if not d.startswith(f"{TURNS_INFERRED} at ")]
    described.append(doubt or "")
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
    if not dist.gcg_name:
        raise GcgError(0, dist.name, "no GCG tile-distribution name for this tile set")
    out.append(f"#tile-distribution {dist.gcg_name}")
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
    unless the lexicon left only that letter, a '#note' with Mark.BLANK_GUESSED. A play whose turn was
    inferred (no clock press said whose it was) has a '#note' with Mark.TURN_INFERRED, and the
    '#description' says the turns were inferred (scoring.turns.hedge): who played which move, and
    so the result, is a guess. A game over whose end racks are not in the record (no '(RACK) +N'
    or 'RACK (RACK) -N' lines: nobody saw them) ends with a '#note' saying Woogles will not mark it
    complete (woogles.py); they are never made up.

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
    events, moved = _overtime_last(record.events)
    order = turn_order(events, profile, dist, layout, len(record.players))
    out.extend(_header(record, dist, layout, hedge(order)))
    game = Game(profile, dist, layout, len(record.players))
    for i, ev in enumerate(events):
        nick = nicks[ev.player]
        note_lines = _note_lines(note_of(ev))
        # what the event's own note lines will say to a reader (a rack read's note says RACK_NOT_SEEN)
        said = {_mark(n) for n in note_lines}
        if i in moved:
            note_lines.append(f"#note overtime entered after move {moved[i]}, before the game was over; written "
                              "at the end, where GCG readers take it")
        if i in order.inferred:  # read back as Play.turn_inferred
            note_lines.append(f"#note {Mark.TURN_INFERRED.value}: no clock press seen; who played this move is a guess")
        # (a withdrawn play's rack holds its tiles, still on the board; a penalty's rack is its point)
        if (not isinstance(ev, (EndRackPenalty, PhonyWithdrawn)) and getattr(ev, "rack", None)
                and not _drawable(one_word(ev.rack, "rack", ev.rack), game)):
            # macondo sets the rack from the tiles off the board: a read holding more of a tile than
            # they have (a misread) would refuse the whole file. What was read stays in the note.
            note_lines.append(f"#note {Mark.RACK_NOT_SEEN.value}: the rack read {_free_text(ev.rack)} holds tiles "
                              "no longer off the board; not written")
            said.add(Mark.RACK_NOT_SEEN)
            ev = replace(ev, rack=None)
        rack = None   # the rack field as written (an end-rack points line has none)
        match ev:
            case Play():
                # >Josh: AEFGITT 8J .EGIFT +36 128
                named = designate(game.state.board, ev.placement, dist, lexicon, ev.claimed)
                rack, pos, word = play_notation(replace(ev, placement=named.placement), game)
                if not named.decided or ev.blank_guessed:  # read back as Play.blank_guessed
                    guessed = set(undecided_squares(ev.placement)) | (
                        {t.square for t in ev.placement.tiles if t.blank} if ev.blank_guessed else set())
                    letters = ", ".join(t.letter.lower() for t in named.placement.tiles if t.square in guessed)
                    note_lines.insert(0, f"#note {Mark.BLANK_GUESSED.value}: written as {letters}")
                line = f">{nick}: {rack} {pos} {word} {ev.agreed:+d} {ev.cumulative}"
            case PhonyWithdrawn():
                # >Peter: ?BCHRUY --  -115 277   (rack unknown: the withdrawn play's tiles)
                taken = game.events[game.state.last_play].placement if game.state.last_play is not None else None
                rack = ev.rack or (played_tiles(taken, dist) if taken else _placeholder(1, game))
                rack = one_word(rack, "rack", rack)
                line = f">{nick}: {rack} -- {_minus(ev.agreed)} {ev.cumulative}"
            case TurnLost():
                # GCG has no lost turn: a pass plus a note saying why.  >emely: DEIILTZ - +0 55
                rack = _rack(ev.rack, 1, game)
                line = f">{nick}: {rack} - +0 {ev.cumulative}"
                note_lines.insert(0, f"#note {Mark.TURN_LOST.value}")
            case Pass():
                # >josh: GROUU - +0 287
                rack = _rack(ev.rack, 1, game)
                line = f">{nick}: {rack} - +0 {ev.cumulative}"
                if note_lines and _mark(note_lines[0]) is Mark.TURN_LOST:  # a note that would read as a lost turn
                    note_lines[0] = "#note # " + note_lines[0][len("#note #"):]
            case Exchange():
                # >cesar: AAIIOOS -AIIOO +0 190   or, tiles unknown:  >josh: IIIU -4 +0 349
                # ('-4' is Quackle's count; macondo exchanges the rack's first 4 tiles)
                if ev.tiles:
                    tiles = one_word(ev.tiles, "exchanged tiles", ev.tiles)
                    rack = ev.rack if ev.rack and rack_holds(ev.rack, tiles, dist) else tiles
                    rack = one_word(rack, "rack", rack)
                    line = f">{nick}: {rack} -{tiles} +0 {ev.cumulative}"
                else:
                    rack = _rack(ev.rack if ev.rack and _plain_head(ev.rack, ev.count, dist) else None, ev.count, game)
                    line = f">{nick}: {rack} -{ev.count} +0 {ev.cumulative}"
            case ChallengeBonus():
                # >jvc: ?ADENTU (challenge) +5 266
                rack = _rack(ev.rack, 1, game)
                line = f">{nick}: {rack} (challenge) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPoints():
                # >cesar: (BLONST) +16 457
                line = f">{nick}: ({one_word(ev.opponent_rack, 'rack', ev.opponent_rack)}) {ev.agreed:+d} {ev.cumulative}"
            case EndRackPenalty():
                # >Marlon_Hill: ?AEEOTT (?AEEOTT) -6 -6
                rack = one_word(ev.rack, "rack", ev.rack)
                line = f">{nick}: {rack} ({rack}) {_minus(ev.agreed)} {ev.cumulative}"
            case TimePenalty():
                # >Josh: AEI (time) -10 420
                rack = _rack(ev.rack, 1, game)
                line = f">{nick}: {rack} (time) {_minus(ev.agreed)} {ev.cumulative}"
            case _:
                raise TypeError(f"cannot write {type(ev).__name__}")
        if isinstance(ev, (PhonyWithdrawn, TurnLost, Pass, Exchange, ChallengeBonus, TimePenalty)) \
                and rack != ev.rack:
            note_lines.append(f"#note {_stand_in(ev, rack)}")
        elif isinstance(ev, Play) and not ev.rack and Mark.RACK_NOT_SEEN not in said:
            # a play's line needs a rack too: its own tiles stand in, and the file says so as it does
            # for a pass or an exchange (a reader would otherwise take them for the rack seen)
            note_lines.append(f"#note {Mark.RACK_NOT_SEEN.value}: the rack field holds the play's own tiles {rack}")
        out.append(line)
        out.extend(note_lines)
        game.append(ev)
    if (gap := woogles_gap(game)) in WRITTEN:
        # over, but the end's lines are not in the log: never made up, said (on the last event,
        # where macondo hangs a note; our reader drops it again)
        out.append(f"#note {gap}")
    return "\n".join(out) + "\n"


def _overtime_last(events: tuple) -> tuple[list, dict[int, int]]:
    """The events as GCG can say them: overtime ('(time)') at the end. macondo reads a negative
    running total only on a '(time)' or end-rack line and takes '(time)' as the end of the game, so
    a time penalty an older version let in before the game was over (its total then below zero on
    the turns after it, '>ann: E - +0 -30') goes after every turn, the totals between without it.
    Returns the events and, for each penalty moved, its new index -> how many moves came before it."""
    turns = (Play, PhonyWithdrawn, Pass, Exchange, TurnLost, ChallengeBonus)
    last_turn = max((i for i, e in enumerate(events) if isinstance(e, turns)), default=-1)
    early = [i for i, e in enumerate(events) if isinstance(e, TimePenalty) and i < last_turn]
    if not early:
        return list(events), {}
    out, owed, scores = [], Counter(), Counter()
    for i, ev in enumerate(events):
        if i in early:
            owed[ev.player] += ev.agreed
            continue
        out.append(replace(ev, cumulative=ev.cumulative - owed[ev.player]))
        scores[ev.player] = out[-1].cumulative
    moved = {}
    for i in early:
        ev = events[i]
        scores[ev.player] += ev.agreed
        moved[len(out)] = i
        out.append(replace(ev, cumulative=scores[ev.player]))
    return out, moved


def _stand_in(ev, written: str) -> str:
    """The note under a line whose rack field is not the rack (GCG readers need one there), saying
    what it holds: known tiles (an exchange's, a withdrawn play's) or placeholders. It starts with
    Mark.RACK_NOT_SEEN, by which our reader drops the stand-in again."""
    unseen_rack = Mark.RACK_NOT_SEEN.value
    if isinstance(ev, Exchange) and ev.tiles:
        return f"{unseen_rack}: the exchanged tiles {written} were seen; the rack field holds them alone"
    if isinstance(ev, Exchange):
        return (f"{unseen_rack}, nor the {ev.count} tiles exchanged: {written} stands in "
                "(GCG readers need a rack here)")
    if isinstance(ev, PhonyWithdrawn) and not ev.rack:
        return f"{unseen_rack}: the rack field holds the withdrawn play's tiles {written}"
    return f"{unseen_rack}: {written} stands in (GCG readers need a rack here)"


def _drawable(rack: str, game: Game) -> bool:
    """Whether the tiles off the board (the bag and every rack) can make `rack`."""
    have = unseen(game.state.board, game.dist)
    need = Counter(t.upper() for t in game.dist.tokens(rack))
    return all(have[t] >= n for t, n in need.items())


def _rack(rack: str | None, n: int, game: Game) -> str:
    # Never an empty rack field: Quackle would take the next token for the rack, macondo's pass
    # pattern refuses the line, and the word UNKNOWN would be read as the tiles U, N, K, ...
    return one_word(rack, "rack", rack) if rack else _placeholder(n, game)


def _plain_head(rack: str, n: int, dist: Distribution) -> bool:
    """A known rack macondo can take a '-N' exchange from: at least N tiles, the first N one byte each."""
    tiles = dist.tokens(rack)
    return len(tiles) >= n and all(len(t) == 1 and t.isascii() for t in tiles[:n])
