"""The station's model-based test (issue 43, docs/testing.md): random games played at a table with
rack cameras, recorded through the station's own entry path, with what leaves the server without a
token checked after every step.

The table (the truth): a bag and each player's rack; on turn a player plays tiles from their rack
(a blank named), passes, or exchanges, pressing the clock or not. The station (as `tilecam run`
builds it, no pixels): the game attached by ``attach_game``; the real ``Recorder`` with the settings'
recorder and stability config, over a locator and reader that hand it ``Snapshot``s of the board as
it stands (``Table``): frames go through ``Recorder.process`` (the gate, the read, the decision,
``GameLink.commit`` into a real ``GameService`` on SQLite), presses through ``Recorder.press``. Each
rack camera is a real ``RackCamera`` whose watch settles on what the camera saw of the player's rack
(``RackEye``): every slot sure, some unsure, some hidden by a hand, one misread, or an empty rack (a
player who went out, the rack lifted for an exchange); its settled read goes ``seen_of`` ->
``on_rack`` -> ``Recorder.rack_seen``, as ``Station._rack`` wires it. A person (HTTP, the operator
token) confirms rack reads and reviewed plays, and may end the game.

The invariants, each a check of its own (``CHECKS``), on every output a request without a token
gets (GCG, .json, /moves, /live, /fields, /recount, the SSE stream, rack evidence frames):
racks are shown as broadcasts show them: no rack camera's tile leaves the server without a token
while the game runs (the live racks are for the operator's and a read-only broadcast token); once it
is over only reads on air by the rules (every slot sure or confirmed, the set can supply it); with
``[racks] on_air = "off"`` none ever, an exchange only the racks saw a count. No note names a tile
of a read that is not on air. Every play whose player is a guess (no press for it), or credited to
another player than the one who played it, is hedged (/live's ``turns_inferred``, the GCG's note).
An exchange the rack cameras saw at a pressed turn is in the record, flagged while its read is
unsure, until a person confirms. An empty rack is a read kept; nothing is dropped with a traceback.

Bounded for `make test` (a fixed, derandomized run of a few short games); TILECAM_STATION_MBT_EXAMPLES
and TILECAM_STATION_MBT_STEPS hunt longer with fresh seeds, and TILECAM_STATION_MBT_ONLY=<check name>
checks that one invariant alone (hypothesis then shrinks to that invariant's smallest failing game).
"""
from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from apiserver import AUTH, LiveServer, SseReader, wait_for
from tilecam.api.service import RacksOnAir
from tilecam.api.settings import Settings
from tilecam.api.station.frames import recorder_config
from tilecam.api.station.game import STATION_META, attach_game
from tilecam.api.station.racks import RackCamera
from tilecam.api.station.recorder import Recorder
from tilecam.capture.frame import Frame
from tilecam.scoring.board import Square
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS
from tilecam.vision.locator import Located
from tilecam.vision.rack import RackTile, RackView
from tilecam.vision.reader import BoardView

EXAMPLES = int(os.environ.get("TILECAM_STATION_MBT_EXAMPLES", "0"))
STEPS = int(os.environ.get("TILECAM_STATION_MBT_STEPS", "0"))
ONLY = os.environ.get("TILECAM_STATION_MBT_ONLY", "")
HUNT = EXAMPLES > 0
SETTINGS = settings(max_examples=EXAMPLES or 6, stateful_step_count=STEPS or 16, deadline=None,
                    derandomize=not HUNT, database=None, print_blob=True,
                    suppress_health_check=list(HealthCheck))

RACK_TRUST = RacksOnAir.from_settings(Settings()).trust   # the station's, from [racks] review_below
SETUPS = [("naspa", "en", 2), ("box", "en", 3), ("wespa", "de", 2)]
ON_AIR = ["broadcast", "off"]   # the default, and racks off
SQUARE_PX = 20              # the fake grid's square: a 300 px board, frames of 300 x 300
STILL_MS = Settings().stability.stable_ms
UNSEEN_MARKS = ".·"         # how a rack's unseen slot is written (rack_text '·', a note '.')
# how a rack camera settles on a rack (StationMachine._seen); a move is followed by the mover's
HOW = ["sure", "sure", "unsure", "hidden", "misread", "empty"]
AFTER = HOW[:-1] + [None]
TRIED: Counter = Counter()  # what the steps did: a run that only meets refusals tests little


class Table:
    """The board camera's locator and reader over the board as it stands (the truth): the
    recorder's stages without pixels, each read a sure snapshot of `rows` (blanks lower case)."""

    square_px = SQUARE_PX

    def __init__(self, size: int, classes) -> None:
        self.rows = ["." * size] * size
        self.classes = classes

    def update(self, image):
        return Located("tracked", np.eye(3), 1.0, self.square_px)

    def read(self, image, located, board, t=0.0, frame_index=-1):
        snap = Snapshot.from_board(self.rows, self.classes, 0.98, t=t, frame_index=frame_index)
        n = len(self.rows)
        return BoardView(snap, 0, np.ones((n, n), bool), False, [[0, 0], [1, 0], [1, 1], [0, 1]])

    def learn(self, board, corrected=(), *, committed, unclear=False, finished=False):
        return None


class RackEye:
    """A rack camera's watch (vision's RackWatch as RackCamera feeds it): settles on `view` at the
    next frame."""

    def __init__(self) -> None:
        self.view: RackView | None = None

    def feed(self, image, t):
        view, self.view = self.view, None
        return view


class Dropped(logging.Handler):
    """Every log record that carries a traceback (a read or a decision dropped on an exception)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(self.format(record))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from tilecam.api.settings import get_settings

    live = LiveServer(tmp_path_factory.mktemp("station-mbt") / "games.sqlite3")
    live.settings = live.settings.model_copy(update={"live": live.settings.live.model_copy(
        update={"keepalive_s": 0.2})})
    live.app.dependency_overrides[get_settings] = lambda: live.settings
    with live:
        yield live


class StationMachine(RuleBasedStateMachine):
    api: LiveServer = None   # set by the test
    dropped: Dropped = None

    def __init__(self) -> None:
        super().__init__()
        self.client = httpx.Client(base_url=self.api.url, timeout=20)
        self.sse: SseReader | None = None
        self.sse_last: dict | None = None
        self.gid = 0
        self.said: list[str] = []          # the rack cameras' words (RackCamera's `say`)
        self.dropped.records.clear()
        self.t, self.frame = 0.0, 0
        self.looks = 0                      # still board images shown (each differs from the last)
        # the model: what the table did that the record cannot say for itself
        self.guessed: set[int] = set()      # seqs of plays committed with no press for them, nor for the turn before
        self.start_known = True             # the last turn the record can see ended at a press (or the game's start)
        # a turn no camera sees since then (passed with no press; an exchange with no press the
        # racks could not tell): a play with no press after it is credited by that press, and that
        # credit is no guess by the ruling of the first move (docs/testing.md), though it is wrong
        self.unseen = False
        self.excused: set[int] = set()      # seqs of such plays
        self.played_by: dict[int, int] = {}  # seq of a committed play -> who really played it
        self.laid: dict[Square, dict] = {}  # each square's tile -> the table's play that laid it
        self.empty_reads = 0                # empty racks the cameras settled on
        self.exchanges: list[dict] = []     # the pressed exchanges: the pass's seq, before and after reads
        self.person: set[int] = set()       # move seqs a person corrected or confirmed
        self.flagged: set[int] = set()      # move seqs seen under review

    def teardown(self) -> None:
        if self.sse is not None:
            self.sse.__exit__()
        self.client.close()

    # ---- the game -------------------------------------------------------------------------
    @initialize(data=st.data(), setup=st.sampled_from(SETUPS), on_air=st.sampled_from(ON_AIR),
                rnd=st.randoms(use_true_random=False))
    def new_game(self, data, setup, on_air, rnd):
        rules, lang, n = setup
        self.on_air = on_air
        self.api.with_racks_on_air(on_air)
        self.api.settings = self.api.settings.model_copy(update={"live": self.api.settings.live.model_copy(
            update={"keepalive_s": 0.2})})
        names = ["Ann Ames", "Ben Brown", "Cy Cole"][:n]
        rec = attach_game(self.api.service, None, players=names, rules=rules, lang=lang, meta=dict(STATION_META),
                          rack_trust=RACK_TRUST)
        self.gid, self.players, self.lang, self.keeper = rec.game_id, n, lang, rec.scorekeeper
        self.dist = DISTRIBUTIONS[lang]
        size = self.keeper.game.layout.size
        self.table = Table(size, classes_for(self.dist.letters))
        settings = self.api.settings
        self.rec = Recorder(self.keeper, self.table, self.table, rec.link, recorder_config(settings),
                            settings.stability)
        self.cams = [RackCamera(p + 1, f"rack{p + 1}.mp4", RackEye(), None, say=self.said.append,
                                on_rack=lambda seen, frame: self.rec.rack_seen(   # Station._rack
                                    seen, frame, trust=RACK_TRUST).review)
                     for p in range(n)]
        # the table: a shuffled bag, seven tiles each, the first player on turn
        self.bag = [t for t, k in self.dist.counts.items() for _ in range(k)]
        rnd.shuffle(self.bag)
        self.rnd = rnd
        self.racks = [[self.bag.pop() for _ in range(self.dist.rack_size)] for _ in range(n)]
        self.board = [["."] * size for _ in range(size)]
        self.turn = 0
        self.done = False
        self.last_read: list[dict | None] = [None] * n   # each player's latest read: what the camera said
        self.sse = SseReader(f"{self.api.url}/api/games/{self.gid}/events", limit=100_000).__enter__()
        self._show()   # the empty board, still
        for p in range(n):   # each rack camera settles on the rack dealt
            self._seen(data, p, data.draw(st.sampled_from(AFTER)))
        TRIED[("setup", f"{rules}/{lang}/{n}", on_air)] += 1

    # ---- the board camera -----------------------------------------------------------------
    def _frames(self, image: np.ndarray, n: int) -> list[int]:
        seqs: list[int] = []
        for _ in range(n):
            self.t += 0.1
            self.frame += 1
            seqs += self.rec.process(Frame(image, round(self.t, 3), self.frame, "board.mp4")).seqs
        return seqs

    def _show(self, press: int | None = None) -> list[int]:
        """A hand over the board, then the board as it stands, still (a new look: the light moved),
        the clock pressed by `press` as the hand leaves; returns the seqs committed."""
        hand = np.full((SQUARE_PX * 15, SQUARE_PX * 15, 3), 90, np.uint8)
        hand[60:240, 100:200] = (60, 90, 160)
        seqs = self._frames(hand, 3)
        self.table.rows = ["".join(r) for r in self.board]
        if press is not None:
            self.rec.press(press)
        self.looks += 1
        still = np.full_like(hand, 100 + (self.looks % 2) * 60)
        return seqs + self._frames(still, int(STILL_MS / 100) + 4)

    def _over(self) -> bool:
        return self.done or self.keeper.over

    def _next(self) -> None:
        self.turn = (self.turn + 1) % self.players

    def _draw(self, player: int) -> None:
        while len(self.racks[player]) < self.dist.rack_size and self.bag:
            self.racks[player].append(self.bag.pop())

    def _committed(self, seqs: list[int]) -> None:
        """Each play committed, told by its tiles (a play held, or seen with the next, is committed at
        a later step than the one that laid it): who laid them, and whether its player is a guess."""
        entries = {e.seq: e.entry for e in self.api.service.store.entries(self.gid)}
        for seq in seqs:
            if entries[seq].kind == "play":
                laid = next((self.laid[t.square] for t in entries[seq].placement.tiles if t.square in self.laid), None)
                if laid is None:
                    continue
                self.played_by[seq] = laid["player"]
                if laid["guess"]:
                    self.guessed.add(seq)
                if laid["excused"]:
                    self.excused.add(seq)


    # ---- what the players do ----------------------------------------------------------------
    @rule(data=st.data(), press=st.booleans(), then=st.sampled_from(AFTER))
    def play(self, data, press, then):
        """The player on turn lays tiles from their rack on one line, then draws."""
        if self._over():
            return
        p = self.turn
        rack = self.racks[p]
        squares = _line(data, self.board, data.draw(st.integers(1, min(len(rack), 5))))
        if not squares:
            return
        order = data.draw(st.permutations(range(len(rack))))[:len(squares)]
        tiles = [rack[i] for i in order]
        # a play after a press is credited by that press's turn order (a pass or an exchange is a
        # press at a clock): a guess only when neither its own turn nor the one before was pressed
        laid = {"player": p, "guess": not (press or self.start_known),
                "excused": not press and self.start_known and self.unseen}
        for sq, tile in zip(squares, tiles):
            letter = tile if tile != BLANK else data.draw(st.sampled_from(list(self.dist.letters))).lower()
            self.board[sq.row][sq.col] = letter
            self.laid[sq] = laid
        for i in sorted(order, reverse=True):
            rack.pop(i)
        self._draw(p)
        seqs = self._show(p if press else None)
        self._committed(seqs)
        self.start_known, self.unseen = press, False
        TRIED[("play", "pressed" if press else "no press", bool(seqs))] += 1
        self._seen(data, p, "empty" if not rack else then)
        if not rack and not self.bag:   # out: the station's source ends, the recorder finishes the game
            self.rec.finish()
            self.done = True
        self._next()

    @rule(data=st.data(), press=st.booleans())
    def pass_turn(self, data, press):
        if self._over() or (self.keeper.game.state.scoreless_turns >= 3 and data.draw(st.integers(0, 4))):
            return
        seqs = self._show(self.turn if press else None)
        self._committed(seqs)
        if press:
            self.start_known, self.unseen = True, False
        else:
            self.unseen = True   # no camera sees it: the record's turn order is as it was
        TRIED[("pass", "pressed" if press else "no press", bool(seqs))] += 1
        self._next()

    @rule(data=st.data(), press=st.booleans(), lifted=st.booleans(), then=st.sampled_from(AFTER))
    def exchange(self, data, press, lifted, then):
        """The player on turn throws tiles in and draws as many (the board does not change: only the
        press and the rack camera can tell)."""
        if self._over() or len(self.bag) < self.dist.rack_size:
            return
        if self.keeper.game.state.scoreless_turns >= 3 and data.draw(st.integers(0, 4)):
            return
        p = self.turn
        rack = self.racks[p]
        held = list(rack)
        n = data.draw(st.integers(1, len(rack)))
        order = data.draw(st.permutations(range(len(rack))))[:n]
        thrown = [rack[i] for i in order]
        for i in sorted(order, reverse=True):
            rack.pop(i)
        if lifted and not rack:   # all seven thrown in: the camera sees the empty rack before the draw
            self._seen(data, p, "empty")
        self._draw(p)
        self.bag += thrown
        self.rnd.shuffle(self.bag)
        before = self.last_read[p] if self.last_read[p] and self.last_read[p]["rack"] == held else None
        seqs = self._show(p if press else None)
        self._committed(seqs)
        if press:
            self.exchanges.append({"player": p, "seqs": seqs, "before": before, "after": None,
                                   "rack": list(rack)})
        self._seen(data, p, then)
        after = self.last_read[p]
        if press:
            self.start_known, self.unseen = True, False
        elif before and before["sure"] and after["rack"] == rack and after["sure"] and after["tiles"]:
            # the racks can tell it (read whole and sure before and after): a turn seen, no press
            self.start_known, self.unseen = False, False
        else:
            self.unseen = True
        TRIED[("exchange", "pressed" if press else "no press", bool(seqs))] += 1
        self._next()

    # ---- the rack cameras -------------------------------------------------------------------
    @rule(data=st.data(), player=st.integers(0, 2), how=st.sampled_from(HOW))
    def rack_seen(self, data, player, how):
        """A rack camera settles on what it sees of a player's rack (a player rearranging tiles)."""
        if player < self.players:
            self._seen(data, player, how)

    def _seen(self, data, player: int, how: str | None) -> None:
        """Player `player`'s rack camera settles on their rack as `how` says: every slot sure, some
        read unsure, some hidden by a hand, one misread (a wrong letter, unsure, the right one its
        runner-up), or empty (out, or the rack lifted for an exchange); None: it does not settle."""
        if how is None:
            return
        tiles = [] if how == "empty" else list(self.racks[player])
        tiles = [tiles[i] for i in data.draw(st.permutations(range(len(tiles))))]
        slots = []
        for i, t in enumerate(tiles):
            odd = data.draw(st.booleans()) if how in ("unsure", "hidden", "misread") else False
            if odd and how == "hidden":
                slots.append(RackTile(None, 0.0, (i, 0, 1, 1)))
            elif odd and how == "misread":
                wrong = data.draw(st.sampled_from([x for x in self.dist.letters if x != t] or [t]))
                slots.append(RackTile(wrong, 0.55, (i, 0, 1, 1), ((t, 0.4),)))
            elif odd:
                slots.append(RackTile(t, 0.6, (i, 0, 1, 1), ()))
            else:
                slots.append(RackTile(t, 0.99, (i, 0, 1, 1), ()))
        cam = self.cams[player]
        cam.watch.view = RackView(tuple(slots), True, 1.0)
        before = len(self.api.service.racks(self.gid))
        self.t += 0.05
        cam.process(Frame(np.zeros((24, 64, 3), np.uint8), round(self.t, 3), cam.frames, cam.uri))
        kept = self.api.service.racks(self.gid)
        read = {"tiles": [x.letter for x in slots], "seq": kept[-1].seq if len(kept) > before else None,
                "rack": list(self.racks[player]), "sure": how == "sure"}
        self.empty_reads += not slots
        self.last_read[player] = read
        for ex in self.exchanges:
            if ex["player"] == player and ex["after"] is None and ex["rack"] == self.racks[player] and slots:
                ex["after"] = read   # the first read after a pressed exchange, of the rack it drew
        TRIED[("rack", how, read["seq"] is not None)] += 1

    # ---- a person -----------------------------------------------------------------------------
    def call(self, method: str, path: str, **kw) -> httpx.Response:
        r = self.client.request(method, f"/api/games/{self.gid}{path}", headers=AUTH, **kw)
        assert r.status_code < 500, f"{method} {path}: {r.status_code} {r.text}"
        TRIED[(method, path.split("/")[1] if "/" in path else path, r.status_code)] += 1
        return r

    @rule(data=st.data())
    def confirm_rack(self, data):
        reads = [r for r in self.call("GET", "/racks").json()["reads"] if r["review"]]
        if reads:
            self.call("POST", f"/racks/{data.draw(st.sampled_from(reads))['seq']}/confirm", json=None)

    @rule(data=st.data())
    def confirm_move(self, data):
        moves = [m for m in self.call("GET", "/moves").json() if m["review"] and m["kind"] == "play"]
        if moves:
            m = data.draw(st.sampled_from(moves))
            r = self.call("POST", f"/moves/{m['index']}/corrections",
                          json={"kind": "play", "position": m["position"], "word": m["word"],
                                "reason": "confirmed as read"})
            if r.status_code == 200:
                self.person.add(m["seq"])

    @rule(data=st.data())
    def end(self, data):
        """The director ends the game (rarely: most games run long enough to meet the cameras)."""
        if not self._over() and data.draw(st.integers(0, 3)) == 0:
            self.call("POST", "/end", json={})
            self.done = True

    # ---- the invariants ------------------------------------------------------------------------
    @invariant()
    def what_leaves_the_server(self):
        if not self.gid:
            return
        out = self._outputs()
        failed = []
        for name, check in CHECKS.items():
            if (ONLY and name != ONLY) or (not ONLY and name in KNOWN_FAILING):
                continue
            why = check(self, out)
            if why:
                failed.append(f"{name}: {why}")
        assert not failed, "\n".join(failed)

    def _outputs(self) -> dict:
        """Everything a request without a token gets, and the operator's rack log to judge it by."""
        base = f"/api/games/{self.gid}"
        get = lambda p: self.client.get(base + p)  # noqa: E731
        out = {"gcg": get(".gcg").text, "json": get(".json").json(), "moves": get("/moves").json(),
               "live": get("/live").json(), "fields": get("/fields").json(), "recount": get("/recount").json(),
               "detail": get("").json()}
        op = self.client.get(base + "/racks", headers=AUTH).json()
        out["reads"] = op["reads"]
        out["op_moves"] = self.client.get(base + "/moves", headers=AUTH).json()
        out["frames"] = {r["seq"]: get(f"/racks/{r['seq']}/frame.jpg").status_code for r in op["reads"]}
        want = {k: v for k, v in out["live"].items() if k != "clock"}

        def caught_up():
            while not self.sse.events.empty():
                self.sse_last = self.sse.events.get_nowait()[2]["live"]
            return self.sse_last is not None and {k: v for k, v in self.sse_last.items() if k != "clock"} == want
        try:
            wait_for(caught_up, timeout=5)
        except AssertionError:
            TRIED[("sse", "behind /live", "")] += 1   # judged as it stands: the checks read it too
        out["sse"] = self.sse_last or {}
        out["over"] = bool(out["detail"]["ended"])
        return out


# ---- the checks: each returns why it fails, or "" --------------------------------------------

def _variants(read: dict) -> set[str]:
    """How a read's tiles can be written in text: with its unseen slots marked either way, and its
    seen letters alone (two or more, else any word would hold them)."""
    tiles = read["tiles"]
    out = {"".join(m if t is None else t for t in tiles) for m in UNSEEN_MARKS}
    letters = "".join(t for t in tiles if t)
    if len(letters) >= 2:
        out.add(letters)
    return {v for v in out if len(v) >= 2}


def _on_air(read: dict) -> bool:
    """A read on air by the rules: every slot seen and sure (or the operator's word), the set can
    supply it."""
    return all(k == "sure" for k in read["slots"]) and bool(read["tiles"]) and not read["breaks"] or \
        read["confirmed_by"] is not None


def _public_racks(out: dict) -> list[tuple[str, int | None, str]]:
    """Every rack a public output shows: (where, the read's seq when it says, the text)."""
    shown = []
    for where in ("live", "sse"):
        for r in out[where].get("racks") or []:
            if r is not None and r.get("text"):
                shown.append((f"/{where} rack of player {r['player'] + 1}", r.get("seq"), r["text"]))
    for k, v in out["fields"].items():
        if re.fullmatch(r"(rack|unseen)\d", k) and v:
            shown.append((f"/fields {k}", None, v))
    for m in out["moves"]:
        if m["rack"] or m["rack_seq"] is not None:
            shown.append((f"/moves move {m['number']}", m["rack_seq"], m["rack"] or ""))
    for i, ev in enumerate(out["json"]["events"]):
        if ev.get("rack"):
            shown.append((f".json event {i + 1}", None, ev["rack"]))
    for seq, status in out["frames"].items():
        if status == 200:
            shown.append((f"rack read {seq}'s evidence frame", seq, "(a photo of the rack)"))
    return shown


def _notes(out: dict) -> list[tuple[str, str]]:
    notes = [("GCG", line) for line in out["gcg"].splitlines() if line.startswith("#note")]
    notes += [(f"/moves move {m['number']}", m["note"]) for m in out["moves"] if m["note"]]
    for i, ev in enumerate(out["json"]["events"]):
        for k in ("note", "rack_note"):
            if ev.get(k):
                notes.append((f".json event {i + 1} {k}", ev[k]))
    notes.append(("/recount", json.dumps(out["recount"])))
    return notes


def _camera_exchanges(out: dict) -> list[str]:
    """Exchanges whose tiles are public (every exchange here is the cameras': nobody typed one)."""
    found = [f"GCG {line}" for line in out["gcg"].splitlines()
             if line.startswith(">") and re.search(r" -[^\s\d-][^\s]* \+0 ", line)]
    found += [f".json event {i + 1} exchange {ev['tiles']}" for i, ev in enumerate(out["json"]["events"])
              if ev.get("kind") == "exchange" and ev.get("tiles")]
    found += [f"/moves move {m['number']} {m['text']!r}" for m in out["moves"]
              if m["kind"] == "exchange" and not re.fullmatch(r"exchange \d+.*", m["text"])]
    return found


def no_rack_while_the_game_runs(self, out) -> str:
    """Racks live only to the operator and a read-only broadcast token: no view without a token
    shows a rack camera's tile until the game is over (default on_air)."""
    if self.on_air == "off" or out["over"]:
        return ""
    leaks = [f"{w} shows {text!r}" + (f" (read {seq})" if seq is not None else "")
             for w, seq, text in _public_racks(out)]
    leaks += [f"{ex} (the rack cameras' tiles)" for ex in _camera_exchanges(out)]
    return "; ".join(leaks)


def no_rack_with_racks_off(self, out) -> str:
    """on_air = "off": nothing a rack camera saw leaves the server without a token, ever; an
    exchange only the racks saw is a count."""
    if self.on_air != "off":
        return ""
    leaks = [f"{w} shows {text!r}" for w, _, text in _public_racks(out)]
    leaks += [f"{ex} (only the rack cameras saw those tiles)" for ex in _camera_exchanges(out)]
    return "; ".join(leaks)


def after_the_game_only_racks_on_air(self, out) -> str:
    """Once the game is over (default on_air): a rack shown whole is a read on air by the rules, and
    no letter of a slot not sure is shown: /live (and the SSE stream) may show a read not whole by its
    sure tiles alone, each other slot marked (docs/racks.md); the moves, exports and frames none."""
    if self.on_air == "off" or not out["over"]:
        return ""
    reads = {r["seq"]: r for r in out["reads"]}
    bad = []
    for where, seq, text in _public_racks(out):
        read = reads.get(seq)
        if read is None:
            continue   # a field without its seq: its text is judged against /live's rack of the same player
        sure_alone = where.startswith(("/live", "/sse")) and len(text) == len(read["slots"]) and all(
            ch in UNSEEN_MARKS for ch, k in zip(text, read["slots"]) if k != "sure")
        if not _on_air(read) and not sure_alone:
            bad.append(f"{where} shows read {seq} ({read['text']}, slots {read['slots']}) as {text!r}, not on air")
    return "; ".join(bad)


def no_note_names_a_read_not_on_air(self, out) -> str:
    """No note that leaves the server without a token names a tile of a read not on air (while the
    game runs none is; with racks off none ever)."""
    hidden = [r for r in out["reads"] if self.on_air == "off" or not out["over"] or not _on_air(r)]
    found = []
    for where, text in _notes(out):
        # a play's own tiles standing in for its rack are on the board, public (found: a read's
        # letters E, T met by chance inside "the play's own tiles IET")
        text = re.sub(r"(the play's own tiles) \S+", r"\1", text)
        for r in hidden:
            for v in _variants(r):
                if v in text and (where != "/recount" or any(m in v for m in UNSEEN_MARKS) or len(v) >= 5):
                    found.append(f"{where} names read {r['seq']} ({r['text']}) as {v!r}: {text[:160]!r}")
        if re.search(r"read under [0-9.]+: [A-Z?]", text) and (self.on_air == "off" or not out["over"]):
            found.append(f"{where} names an unsure rack letter: {text[:160]!r}")
    return "; ".join(sorted(set(found)))


def every_guessed_turn_is_hedged(self, out) -> str:
    """A play whose player is a guess is in /live's turns_inferred (and the GCG says the turns were
    inferred): one credited to another player than the one who played it, and one with no press
    for it that no rack read of its player was tied to (the rack cameras saw whose rack its tiles
    left: `rack_seq` on the operator's /moves). A play with no press after a pressed turn (or as the
    game's first move) is credited by that press (or by the order the game was made with) and is no
    guess (the lead's ruling, docs/testing.md): a turn passed between with no press, which no camera
    sees, makes that credit wrong, and it is left out (`excused`), as it is for the first move."""
    inferred = set(out["live"]["turns_inferred"])
    bad = []
    for m in out["op_moves"]:
        if m["kind"] != "play" or m["seq"] not in self.played_by:
            continue
        # the record's first move is credited by the game's order (the ruling), whatever turns no
        # press and no told exchange put in the record before it (found: two exchanges with no press,
        # the second seen only by its player's rack camera while the other player was on turn)
        first = m["number"] == 1
        guess = m["seq"] in self.guessed and m["rack_seq"] is None and not first
        wrong = self.played_by[m["seq"]] != m["player"] and m["seq"] not in self.excused and not first
        if (guess or wrong) and m["index"] not in inferred:
            why = "; ".join(w for w in ("no press for it, no rack read tied to it" if guess else "",
                                        f"played by player {self.played_by[m['seq']] + 1}, credited to player "
                                        f"{m['player'] + 1}" if wrong else "") if w)
            bad.append(f"move {m['number']} ({m['text']}): {why}; turns_inferred {sorted(inferred)}")
    if inferred and "turns inferred" not in out["gcg"].lower():
        bad.append("the GCG does not say the turns were inferred")
    return "; ".join(bad)


def an_empty_rack_is_kept(self, out) -> str:
    """A rack camera that sees an empty rack (out, or lifted for an exchange) keeps the read."""
    kept = sum(1 for r in out["reads"] if not r["tiles"])
    return "" if kept >= self.empty_reads else \
        f"{self.empty_reads} empty racks seen, {kept} kept; the cameras said: {self.said[-3:]}"


def nothing_dropped_with_a_traceback(self, out) -> str:
    words = [s for s in self.said if "not kept" in s or "not committed" in s or "Traceback" in s]
    tracebacks = [r.splitlines()[-1] for r in self.dropped.records]
    return "; ".join(words + [f"logged with a traceback: {t}" for t in tracebacks])


def a_rack_seen_exchange_is_in_the_record(self, out) -> str:
    """A pressed exchange whose rack the cameras read before and after (every slot seen) is in the
    record: an exchange, or flagged for review while the read is unsure; the flag stays until a
    person confirms."""
    moves = {m["seq"]: m for m in out["op_moves"]}
    bad = []
    for ex in self.exchanges:
        before, after = ex["before"], ex["after"]
        if not ex["seqs"] or before is None or after is None or None in before["tiles"] or \
                None in after["tiles"] or not after["tiles"] or Counter(before["tiles"]) == Counter(after["tiles"]):
            continue
        m = moves.get(ex["seqs"][0])
        if m is None:
            continue   # voided or rewritten by a person
        if m["review"]:
            self.flagged.add(m["seq"])
        if m["kind"] != "exchange" and not m["review"] and m["seq"] not in self.person:
            bad.append(f"move {m['number']} ({m['text']}): the racks read {''.join(before['tiles'])} then "
                       f"{''.join(after['tiles'])}, neither an exchange nor flagged")
        elif m["seq"] in self.flagged and not m["review"] and m["seq"] not in self.person:
            bad.append(f"move {m['number']} ({m['text']}) left review with no person's word on it")
    return "; ".join(bad)


# Found by this machine and not yet fixed (docs/testing.md, the smallest games): left out of the
# default run, each still run alone with TILECAM_STATION_MBT_ONLY="<name>". None now.
KNOWN_FAILING: tuple[str, ...] = ()

CHECKS = {
    "no rack tile public while the game runs": no_rack_while_the_game_runs,
    "no rack tile public with racks off": no_rack_with_racks_off,
    "after the game only racks on air by the rules": after_the_game_only_racks_on_air,
    "no note names a tile of a read not on air": no_note_names_a_read_not_on_air,
    "every guessed turn is hedged": every_guessed_turn_is_hedged,
    "an empty rack read is kept": an_empty_rack_is_kept,
    "nothing dropped with a traceback": nothing_dropped_with_a_traceback,
    "a rack-seen exchange is recorded, flagged while unsure": a_rack_seen_exchange_is_in_the_record,
}


def _line(data, board: list[list[str]], k: int) -> list[Square]:
    """Up to `k` empty squares on one line, through the centre on an empty board, else starting
    next to a tile (played-through tiles skipped): a placement the rules take."""
    size = len(board)
    across = data.draw(st.booleans())
    dr, dc = (0, 1) if across else (1, 0)
    occupied = {Square(r, c) for r in range(size) for c in range(size) if board[r][c] != "."}
    if not occupied:
        k = max(k, 2)
        back = data.draw(st.integers(0, k - 1))
        start = Square(size // 2 - dr * back, size // 2 - dc * back)
    else:
        near = sorted({Square(sq.row + a, sq.col + b) for sq in occupied for a, b in ((0, 1), (1, 0), (0, -1), (-1, 0))
                       if 0 <= sq.row + a < size and 0 <= sq.col + b < size} - occupied)
        if not near:
            return []
        start = data.draw(st.sampled_from(near))
    out, sq = [], start
    while len(out) < k and sq.row < size and sq.col < size:
        if sq not in occupied:
            out.append(sq)
        sq = Square(sq.row + dr, sq.col + dc)
    return out


def test_the_station_under_random_games(server):
    StationMachine.api = server
    StationMachine.dropped = Dropped()
    root = logging.getLogger()
    root.addHandler(StationMachine.dropped)
    TRIED.clear()
    try:
        run_state_machine_as_test(StationMachine, settings=SETTINGS)
    finally:
        root.removeHandler(StationMachine.dropped)
        print("steps:", sorted(TRIED.items(), key=str))  # shown with -s
