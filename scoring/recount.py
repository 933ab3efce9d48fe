"""The recount: per event the claimed, engine and agreed score and the running totals, the
discrepancies between them, and a player's scoresheet held against the record.

One recount for every caller: `tilecam verify` (a GCG file) and the API
(`GET/POST /api/games/{id}/recount`, a stored game) both call `recount` on a GameRecord.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

from .board import LAYOUTS
from .events import Event, PhonyWithdrawn, Play
from .game import Game
from .gcg import Finding, GameRecord, play_notation, shown_play
from .rules import get_profile
from .tally import over_set
from .tiles import DISTRIBUTIONS
from .turns import hedge, turn_order


@dataclass(frozen=True)
class RecountLine:
    index: int
    line_no: int | None      # the GCG line the event came from; None for a stored game
    player: int
    kind: str
    text: str                # what was played as people read it, e.g. "8D ZE(B)rA +BE" or "exchange 4"
    claimed: int | None
    engine: int | None
    agreed: int
    cumulative: int
    totals: tuple[int, ...]  # every player's total after this event
    position: str | None = None  # a play's GCG coordinate, e.g. "8D" across, "D8" down
    word: str | None = None      # a play's main word in GCG notation, '.' for played-through tiles
    shown: str | None = None     # the main word whole: played-through tiles in parentheses, "ZE(B)rA"
    # An entry that puts more of a tile in the record than the set has (a misread the camera
    # committed, a GCG file typed wrong): "the set has 2 V; this play makes 3", "the set has 2 V;
    # both are on the board, so no rack could hold VVV" (an exchange, a rack).
    over_set: str | None = None
    takes_back: int | None = None  # a phony withdrawn's: the index of the play it takes off the board

    @property
    def number(self) -> int:
        """The move's number as people count: from 1."""
        return self.index + 1


@dataclass(frozen=True)
class Discrepancy:
    """A score the engine does not give: announced wrongly ("score"), or a ruling that stands
    against both the announcement and the engine ("correction"); or an entry that puts more of a
    tile in the record than the set has ("tiles", `over_set` says which)."""

    index: int
    line_no: int | None
    player: int
    what: str                # "score" | "correction" | "tiles"
    claimed: int | None
    engine: int | None
    agreed: int
    text: str
    position: str | None = None
    shown: str | None = None
    over_set: str | None = None

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass(frozen=True)
class SheetRow:
    """One turn of a player's scoresheet against the record."""

    turn: int                # the player's turn, from 1
    index: int | None        # the event it is, None past the record's end
    text: str
    sheet: int | None        # the running total on the sheet, None past the sheet's end
    record: int | None
    agrees: bool


def describe(ev: Event) -> str:
    match ev.kind:
        case "play":
            return " ".join(ev.words)
        case "exchange":
            return f"exchange {ev.tiles or ev.count}"
        case "challenge_bonus":
            return f"challenge bonus ({ev.words_challenged} word{'s' * (ev.words_challenged != 1)})"
        case "end_rack_points":
            return f"unplayed tiles {ev.opponent_rack}"
        case "end_rack_penalty":
            return f"own rack {ev.rack}"
        case "time_penalty":
            return f"overtime {ev.minutes} min"
    return ev.kind.replace("_", " ")


def recount_lines(record: GameRecord, line_nos: Sequence[int] | None = None) -> list[RecountLine]:
    """Every event of the record with its scores and every player's total after it."""
    totals = [0] * len(record.players)
    out = []
    game = Game(get_profile(record.rules), DISTRIBUTIONS[record.lang], LAYOUTS[record.layout],
                len(record.players))
    for i, ev in enumerate(record.events):
        text, position, word, shown, over = describe(ev), None, None, None, None
        takes_back = game.state.last_play if isinstance(ev, PhonyWithdrawn) else None
        # the set's counts, as the builders keep them (Game.holds, tally.over_set): the first breach
        found = next(((f, what) for on_board, held, what in game.holds(ev)
                      if (f := over_set(on_board, held, game.dist, than=game.state.peak)) is not None), None)
        if found is not None:
            over = found[0].says(found[1], made=True)
        if isinstance(ev, Play):
            _, position, word = play_notation(ev, game)  # against the board before the play
            shown = shown_play(ev, game)[1]
            text = f"{position} {shown}" + "".join(f" +{w}" for w in ev.words[1:])
        game.append(ev)
        totals[ev.player] = ev.cumulative
        out.append(RecountLine(i, line_nos[i] if line_nos else None, ev.player, ev.kind, text,
                               getattr(ev, "claimed", None), getattr(ev, "engine", None),
                               getattr(ev, "agreed", 0), ev.cumulative, tuple(totals), position, word, shown,
                               over, takes_back))
    return out


def discrepancies(lines: Sequence[RecountLine]) -> list[Discrepancy]:
    """The lines whose scores part, first one first, and the entries that put more of a tile in the
    record than the set has. Events that score nothing by rule (passes, exchanges) have no engine
    score and cannot part."""
    found = []
    for ln in lines:
        if ln.over_set:
            found.append(Discrepancy(ln.index, ln.line_no, ln.player, "tiles", ln.claimed, ln.engine, ln.agreed,
                                     ln.text, ln.position, ln.shown, ln.over_set))
        if ln.engine is None:
            continue
        if ln.claimed is not None and ln.claimed != ln.engine:
            what = "score"
        elif ln.agreed != ln.engine and ln.agreed != ln.claimed:
            what = "correction"
        else:
            continue
        found.append(Discrepancy(ln.index, ln.line_no, ln.player, what, ln.claimed, ln.engine, ln.agreed,
                                 ln.text, ln.position, ln.shown))
    return found


def turns_hedge(record: GameRecord) -> str | None:
    """What a recount's verdict and totals carry when the record's turns were inferred (scoring.turns.hedge):
    every score may agree with the engine, and still who played which move is a guess."""
    return hedge(turn_order(record.events, get_profile(record.rules), DISTRIBUTIONS[record.lang],
                            LAYOUTS[record.layout], len(record.players)))


def final_totals(record: GameRecord, lines: Sequence[RecountLine]) -> list[int]:
    return list(lines[-1].totals) if lines else [0] * len(record.players)


def scoresheet(lines: Sequence[RecountLine], player: int, sheet: Sequence[int]) -> list[SheetRow]:
    """`player`'s running totals as written on their scoresheet, one per turn, against the
    record's; rows run to the longer of the two, so a missing or extra turn shows."""
    mine = [ln for ln in lines if ln.player == player]
    rows = []
    for turn in range(max(len(mine), len(sheet))):
        ln = mine[turn] if turn < len(mine) else None
        on_sheet = sheet[turn] if turn < len(sheet) else None
        rec = ln.cumulative if ln else None
        rows.append(SheetRow(turn + 1, ln.index if ln else None, ln.text if ln else "(not in the record)",
                             on_sheet, rec, on_sheet == rec))
    return rows


def report_json(record: GameRecord, findings: Sequence[Finding] = (),
                line_nos: Sequence[int] | None = None) -> dict:
    """The recount as one JSON object. `findings` are what reading a GCG file found beyond the
    recount: running totals in the file that its own scores do not add up to."""
    lines = recount_lines(record, line_nos)
    found = discrepancies(lines)
    return {
        "players": [asdict(p) for p in record.players],
        "rules": record.rules,
        "lang": record.lang,
        "moves": [{**asdict(ln), "number": ln.number, "totals": list(ln.totals)} for ln in lines],
        "discrepancies": [{**asdict(d), "number": d.number} for d in found],
        "first_discrepancy": {**asdict(found[0]), "number": found[0].number} if found else None,
        "cumulative_findings": [asdict(f) for f in findings if f.what == "cumulative"],
        "final": final_totals(record, lines),
        "turns": turns_hedge(record),
    }


__all__ = ["Discrepancy", "RecountLine", "SheetRow", "describe", "discrepancies", "final_totals", "recount_lines",
           "report_json", "scoresheet", "turns_hedge"]
