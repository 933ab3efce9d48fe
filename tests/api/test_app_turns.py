"""Whose turn each move was, over real HTTP: plays the camera credited without a clock press are
marked inferred in /moves, said in /live's `turns` and flagged `inferred` on /api/tables; a press
that contradicts the inferred order, or a person's entry out of turn, is flagged `order`; a press
after the play it ends is no pass. The scorekeeper decides from board snapshots, and its entries go
through the recorder's own link into the store (station.link.GameLink), as at a station."""
from __future__ import annotations

from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.api.station.link import GameLink
from tilecam.scoring.events import PRESS_CAUSE
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS

EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)
EMPTY = ["." * 15] * 15
CAT = EMPTY[:7] + ["......CAT......"] + EMPTY[8:]
COW = CAT[:8] + ["......O........", "......W........"] + CAT[10:]
TON = COW[:8] + ["......O.O......", "......W.N......"] + COW[10:]


class Station:
    """A scorekeeper committing what it decides through GameLink, as the recorder does."""

    def __init__(self, api, gid):
        self.keeper = Scorekeeper(Game(get_profile("naspa"), EN))
        self.link = GameLink(api.service, gid)

    def see(self, rows, player=None, pressed=False):
        obs = self.keeper.observe(Snapshot.from_board(rows, CLASSES, 0.97), player=player, pressed=pressed)
        if obs.entries:
            self.link.commit(list(obs.entries), None, len(self.keeper.entries) - len(obs.entries))
        return obs


def table(client, n):
    [t] = [t for t in client.get("/api/tables").json()["tables"] if t["table"] == n]
    return t


def test_plays_seen_without_a_clock_press_are_inferred_and_flagged(api, client):
    """The demo video through `tilecam run --source` in miniature: no press, and Cesar's exchange
    after COW leaves no trace, so TON (Josh's) goes to Cesar. Nothing can tell, but it is said."""
    gid = new_game(client, "Cesar", "Josh", table=51)
    station = Station(api, gid)
    for rows in (CAT, COW, TON):
        assert station.see(rows).status == "play"
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert [(m["player"], m["turn_inferred"], m["out_of_turn"]) for m in moves] == [
        (0, False, False), (1, True, False), (0, True, False)]  # move 1 is the seating's
    live = client.get(f"/api/games/{gid}/live").json()
    assert live["turns"] == "turns inferred since move 2: no clock press seen"
    assert live["turns_inferred"] == [1, 2] and live["out_of_turn"] == []
    t = table(client, 51)
    # (the synthetic snapshots' plays may also be under review: that flag is not this test's)
    assert {"inferred"} <= set(t["flags"]) <= {"inferred", "review"} and t["turns"] == live["turns"]
    assert client.get("/api/tables", params={"flagged": "true"}).json()["flagged"] >= 1


def test_a_press_naming_the_other_player_contradicts_the_inferred_order(api, client):
    """Josh presses his clock with TON still on the board as it was: TON was his, so a turn went
    unseen before it. The camera credits TON to Josh by a correction, and the table says a move
    was taken out of turn, where the missed turn lies."""
    gid = new_game(client, "Cesar", "Josh", table=52)
    station = Station(api, gid)
    for rows in (CAT, COW, TON):
        station.see(rows)
    obs = station.see(TON, player=1, pressed=True)
    assert obs.status == "corrected" and "clock press of player 2" in obs.detail
    assert obs.entries[-1].cause == PRESS_CAUSE   # what the console follows (station.recorder), not the words
    moves = client.get(f"/api/games/{gid}/moves").json()
    # still a guess (issue 43): the press fits Cesar forgetting the clock after TON as well
    assert [(m["nick"], m["turn_inferred"], m["out_of_turn"]) for m in moves] == [
        ("Cesar", False, False), ("Josh", True, False), ("Josh", True, True)]
    assert [m["kind"] for m in moves] == ["play"] * 3  # the press was no pass
    t = table(client, 52)
    assert t["flags"][0] == "order" and "inferred" in t["flags"]
    assert t["turns"].startswith("move 3: Josh took a turn with Cesar on turn (a turn missed between moves 1 and 3")
    assert t["turns"].endswith("turns inferred since move 2: no clock press seen")
    recount = client.get(f"/api/games/{gid}/recount").json()
    [fix] = recount["corrections"]
    assert fix["by"] == "camera" and fix["number"] == 3 and "credited to player 2, not 1" in fix["change"]


def test_a_press_after_the_play_it_ends_is_no_pass_and_the_next_turn_is_known(api, client):
    """At a station with clock buttons the board stands still before the player reaches the clock:
    the play goes down unpressed, then the press ends its turn (it was recorded as a pass)."""
    gid = new_game(client, "Cesar", "Josh", table=53)
    station = Station(api, gid)
    assert station.see(CAT).status == "play"
    assert station.see(CAT, player=0, pressed=True).status == "no_change"
    assert station.see(COW).status == "play"           # Josh's turn is known: Cesar pressed
    assert station.see(COW, player=1, pressed=True).status == "no_change"
    assert station.see(COW, player=0, pressed=True).status == "pass"   # Cesar passes: a press, nothing new
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert [(m["kind"], m["player"], m["turn_inferred"]) for m in moves] == [
        ("play", 0, False), ("play", 1, False), ("pass", 0, False)]
    t = table(client, 53)
    assert "inferred" not in t["flags"] and "order" not in t["flags"] and t["turns"] is None


def test_a_person_confirming_an_inferred_plays_tiles_leaves_its_player_a_guess(api, client):
    """The console's confirm is a person's word on the tiles read (the review queue), not on who
    laid them: the play stays inferred and hedged (issue 43 item 2; the station machine asked)."""
    gid = new_game(client, "Cesar", "Josh", table=55)
    station = Station(api, gid)
    for rows in (CAT, COW):
        station.see(rows)
    cow = client.get(f"/api/games/{gid}/moves", headers=AUTH).json()[1]
    r = client.post(f"/api/games/{gid}/moves/1/corrections", headers=AUTH,
                    json={"kind": "play", "position": cow["position"], "word": cow["word"], "reason": "confirmed as read"})
    assert r.status_code == 200, r.text
    moves = client.get(f"/api/games/{gid}/moves").json()
    assert moves[1]["corrected"] and moves[1]["turn_inferred"]
    assert client.get(f"/api/games/{gid}/live").json()["turns_inferred"] == [1]
    station.keeper.sync(station.link.entries())   # the recorder follows the log first (Recorder._follow)
    assert station.see(TON).status == "play"      # and the camera's next play is no more known for it
    assert client.get(f"/api/games/{gid}/live").json()["turns_inferred"] == [1, 2]


def test_a_persons_entry_out_of_turn_is_flagged(api, client):
    gid = new_game(client, "Cesar", "Josh", table=54)
    r = client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "8G", "word": "CAT"})
    assert r.status_code == 200, r.text
    assert table(client, 54)["flags"] == []
    r = client.post(f"/api/games/{gid}/plays", headers=AUTH, json={"position": "G8", "word": ".OW", "player": 0})
    assert r.status_code == 200, r.text
    t = table(client, 54)
    assert t["flags"] == ["order"]
    assert t["turns"] == ("move 2: Cesar took a turn with Josh on turn (a turn missed before move 2: an exchange "
                          "or a pass?, or a play credited to the wrong player)")
    assert client.get(f"/api/games/{gid}/moves").json()[1]["out_of_turn"] is True
