"""A GCG to Woogles: the link that opens it in Woogles' editor, and whether Woogles will mark the
game complete.

Woogles' editor takes a camera's GCG at /scrabblecam/callback?gcg=<the GCG> (liwords-ui
boardwizard/callback_handler.tsx: `new URLSearchParams(location.search).get("gcg")`, built for the
Scrabblecam annotator), asks for the lexicon and challenge rule, and imports it with macondo's GCG
reader (liwords pkg/omgwords/service.go:ImportGCG). The game is marked complete when its replay
reaches the end: after a player went out, at the '>nick: (RACK) +N total' line (macondo ends the
game there, and Woogles takes the opponent's last rack from it); without it the game stays open
(Woogles issue #1295). After the scoreless turns Woogles ends the game itself and takes each rack
off as the racks it holds say, so only the '>nick: RACK (RACK) -N total' lines (the rack fields
before them) make its end the one played. Those lines are the end's events in our log
(`Game.settled`); they are never made up. Read from liwords' and macondo's source; not tried
against the site.
"""
from __future__ import annotations

from urllib.parse import quote

from ..game import Game

__all__ = ["WOOGLES_CALLBACK", "WOOGLES_INCOMPLETE", "END_RACKS_NOT_SEEN", "ZEROS_RACKS_NOT_SEEN", "woogles_link",
           "woogles_gap"]

WOOGLES_CALLBACK = "https://woogles.io/scrabblecam/callback"
# What the page, the CLI and the GCG's own note say when Woogles will not take the game's end as played.
WOOGLES_INCOMPLETE = "Woogles will not mark this game complete"
END_RACKS_NOT_SEEN = f"{WOOGLES_INCOMPLETE}: the end racks were not seen"
# after the scoreless turns Woogles ends the game itself (cwgame handleConsecutiveScorelessTurns),
# taking each rack off as the racks it holds say: the rack fields, stand-ins where nobody saw them
ZEROS_RACKS_NOT_SEEN = ("Woogles will end this game on its scoreless turns with rack penalties of its own: "
                        "the end racks were not seen")
NOT_OVER = f"{WOOGLES_INCOMPLETE}: the game is not over"
CLOSED_EARLY = f"{WOOGLES_INCOMPLETE}: a director closed it before the rules ended it"
TWO_PLAYERS = "Woogles cannot import this game: it imports two-player games only"
# the sentences the writer puts in a GCG's last note, which the reader drops again
WRITTEN = (END_RACKS_NOT_SEEN, ZEROS_RACKS_NOT_SEEN)


def woogles_link(gcg: str) -> str:
    """The Woogles editor's import link carrying `gcg` whole. Encoded as JavaScript's
    encodeURIComponent does: URLSearchParams reads '+' as a space, so every '+' of a score
    must go as %2B, and line breaks, '#' and '&' escaped too."""
    return f"{WOOGLES_CALLBACK}?gcg={quote(gcg, safe='')}"


def woogles_gap(game: Game, closed: bool = False) -> str | None:
    """What Woogles will not take as played in the game `game` has replayed, in a sentence; None
    when it will mark it complete as played. `closed`: a director closed the game (the log's
    Close, not a rule's end)."""
    if game.players != 2:   # macondo's reader takes '#player1' and '#player2' only
        return TWO_PLAYERS
    if not game.state.ended:
        return CLOSED_EARLY if closed else NOT_OVER
    if not game.settled:   # the end's own lines (Game.settled: what the rules still owe) are missing
        return END_RACKS_NOT_SEEN if game.state.end_reason == "out" else ZEROS_RACKS_NOT_SEEN
    return None
