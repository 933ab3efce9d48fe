"""The recount report: per event the claimed, engine and agreed score and the running totals."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from .board import LAYOUTS
from .events import Event, Play
from .game import Game
from .gcg import Finding, GameRecord, play_notation
from .rules import get_profile
from .tiles import DISTRIBUTIONS


@dataclass(frozen=True)
class RecountLine:
    index: int
    line_no: int | None
    player: int
    kind: str
    text: str            # what was played, e.g. "8D QUALM" or "exchange 4"
    claimed: int | None
    engine: int | None
    agreed: int
    cumulative: int
    totals: tuple[int, ...]  # every player's total after this event


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


def recount(record: GameRecord, line_nos: list[int] | None = None) -> list[RecountLine]:
    totals = [0] * len(record.players)
    out = []
    dist = DISTRIBUTIONS[record.lang]
    game = Game(get_profile(record.rules), dist, LAYOUTS[record.layout], len(record.players))
    for i, ev in enumerate(record.events):
        text = describe(ev)
        if isinstance(ev, Play):
            _, pos, word = play_notation(ev, game)
            text = f"{pos} {word}" + "".join(f" +{w}" for w in ev.words[1:])
        game.append(ev)
        totals[ev.player] = ev.cumulative
        out.append(RecountLine(i, line_nos[i] if line_nos else None, ev.player, ev.kind, text,
                               getattr(ev, "claimed", None), getattr(ev, "engine", None),
                               getattr(ev, "agreed", 0), ev.cumulative, tuple(totals)))
    return out


def report_json(record: GameRecord, findings: list[Finding], line_nos: list[int]) -> dict:
    lines = recount(record, line_nos)
    final = list(lines[-1].totals) if lines else [0] * len(record.players)
    return {
        "players": [asdict(p) for p in record.players],
        "rules": record.rules,
        "lang": record.lang,
        "moves": [{**asdict(ln), "totals": list(ln.totals)} for ln in lines],
        "discrepancies": [asdict(f) for f in findings],
        "first_discrepancy": asdict(findings[0]) if findings else None,
        "final": final,
    }
