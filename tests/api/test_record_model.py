"""The model-based test of the record (issue 35, docs/testing.md): random sequences of what people
and the cameras do to one game, through the real HTTP API and the camera's own entry path, with the
invariants checked after every step.

People (HTTP, the operator token): typed plays (with and without a rack), exchanges (a count or the
tiles), passes, challenges, time penalties, corrections of every kind and their undo, voids, a
runner-up taken, a reading confirmed, blanks named, rack reads confirmed or fixed, the end.
The cameras (in-process, as the station does it): the board camera is a real ``Scorekeeper`` fed
board snapshots (``Snapshot.from_board``, sure or unsure) whose decisions go through the station's
``GameLink.commit`` (``Writer.commit``, the recorder's path); a rack camera's settled read goes
through ``GameLink.rack`` (the rack log) and ``Scorekeeper.rack_seen`` (its camera corrections), as
``Recorder.rack_seen`` does.

After every step, on the game: the set's counts hold over the board, the racks, the exchanges and
the unseen pool; the GCG export passes tests/gcgcheck.py and ``tilecam verify`` agrees with the
record; a camera reading under review stays under review until a person confirms it; /live, the
OBS fields and the SSE stream show what is stored; nothing the camera guessed goes unflagged;
no rack is public before the game is over, nor a rack read's words (issue 43); no request is
answered with a 500.

Bounded for `make test` (a fixed, derandomized run); TILECAM_MBT_EXAMPLES=500 (and
TILECAM_MBT_STEPS) hunts longer with fresh random seeds.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
from argparse import Namespace
from collections import Counter

import httpx
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from apiserver import AUTH, LiveServer, SseReader, wait_for
from gcgcheck import check_gcg
from tilecam.api.commands import verify
from tilecam.api.service import RacksOnAir
from tilecam.api.station.link import GameLink
from tilecam.scoring.board import Direction, Square
from tilecam.scoring.decode import DecodeConfig
from tilecam.scoring.game import Game
from tilecam.api.settings import Settings
from tilecam.scoring.racks import RackSeen
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS

# Invariants that fail on this branch because of a bug another branch of issue 35 fixes: each is
# still checked, and a failure of one named here is noted instead of raised. The lead empties this
# set once those branches are merged (then every invariant fails the test again).
# the station's one threshold for rack reads ([racks] review_below, its default)
RACK_TRUST = RacksOnAir.from_settings(Settings()).trust   # as the station builds it
# Words that quote a rack read (scoring.racks.RackBook.judge, the scorekeeper's rack notes): the
# operator's alone; every other view gets scoring.unquoted_rack_note's, which name no tile.
QUOTED = re.compile(r"rack read [A-Z?.\[]|read under|\('\.' not seen\)|as an exchange: ")
KNOWN_FAILING: set[str] = set()   # emptied once issue 35's fixes were merged; a new known bug goes here, named
SEEN_KNOWN: Counter = Counter()  # how often each known invariant failed in this run (the report's)
BROKEN: set[str] = set()  # the known invariants that failed in this check: what follows from them is theirs
TRIED: Counter = Counter()  # (what, outcome) of every step: a run that only meets refusals tests little

EXAMPLES = int(os.environ.get("TILECAM_MBT_EXAMPLES", "0"))
STEPS = int(os.environ.get("TILECAM_MBT_STEPS", "0"))
HUNT = EXAMPLES > 0
SETTINGS = settings(max_examples=EXAMPLES or 14, stateful_step_count=STEPS or 18, deadline=None,
                    derandomize=not HUNT, database=None, print_blob=True,
                    suppress_health_check=list(HealthCheck))

# (rules, tile set, players) of the games: the tournament rules for two, the box rules for three
# and four; English and German (a set with other letters and other counts: 1 V... 6 N).
SETUPS = [("naspa", "en", 2), ("box", "de", 3), ("box", "en", 4), ("wespa", "de", 2)]
REVIEW_BELOW = DecodeConfig().review_below
CAMERA_CONFIDENCE = [0.99, 0.7, 0.4]  # sure, unsure, very unsure squares


def expect(name: str, ok: bool, why: str) -> None:
    """One invariant: fails the test, unless it is a known failure fixed on another branch."""
    if ok:
        return
    if name in KNOWN_FAILING:
        SEEN_KNOWN[name] += 1
        BROKEN.add(name)
        return
    if BROKEN:  # a consequence of a known failure (an exchange past the set makes a GCG macondo refuses)
        SEEN_KNOWN[f"{name} (after {min(BROKEN)})"] += 1
        return
    raise AssertionError(f"{name}: {why}")


def tiles_of(rows: list[str]) -> Counter:
    """The board's tiles as the set counts them: a blank is a blank, whatever it stands for."""
    return Counter(BLANK if ch.islower() else ch for row in rows for ch in row if ch != ".")


def over(counted: Counter, dist) -> list[str]:
    return [f"{n} {t} (the set has {dist.counts.get(t, 0)})" for t, n in counted.items()
            if n > dist.counts.get(t, 0)]


def gcg_square(sq: Square, direction: Direction) -> str:
    col = chr(ord("A") + sq.col)
    return f"{sq.row + 1}{col}" if direction is Direction.ACROSS else f"{col}{sq.row + 1}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The default [racks] on_air: "broadcast", so the public may see a rack only once the game is over.
    # Keep-alives every 0.2 s: an example's stream reader then hangs up at once when it ends.
    from tilecam.api.settings import get_settings

    live = LiveServer(tmp_path_factory.mktemp("mbt") / "games.sqlite3")
    live.settings = live.settings.model_copy(update={"live": live.settings.live.model_copy(
        update={"keepalive_s": 0.2})})
    live.app.dependency_overrides[get_settings] = lambda: live.settings
    with live:
        yield live


class RecordMachine(RuleBasedStateMachine):
    api: LiveServer = None  # set by the test

    def __init__(self) -> None:
        super().__init__()
        self.client = httpx.Client(base_url=self.api.url, timeout=20)
        self.sse: SseReader | None = None
        self.sse_last: dict | None = None
        self.gid = 0
        self.last_status = 0
        # The model: what the record must keep that a replay alone cannot say.
        self.under_review: set[int] = set()      # seqs of camera plays seen under review
        self.person_fixes: dict[int, list[int]] = {}  # move seq -> the person's corrections standing on it
        self.rack_must_flag: set[int] = set()    # rack reads that broke the set when read
        self.rack_confirmed: set[int] = set()

    def teardown(self) -> None:
        if self.sse is not None:
            self.sse.__exit__()
        self.client.close()

    # ---- helpers --------------------------------------------------------------------------
    def call(self, method: str, path: str, **kw) -> httpx.Response:
        r = self.client.request(method, f"/api/games/{self.gid}{path}", headers=AUTH, **kw)
        assert r.status_code < 500, f"{method} {path} {kw.get('json')}: {r.status_code} {r.text}"
        self.last_status = r.status_code
        what = "/".join(p for p in path.split("/") if p and not p.isdigit())
        TRIED[(method, what, r.status_code)] += 1
        return r

    def get(self, path: str, operator: bool = False):
        r = self.client.get(f"/api/games/{self.gid}{path}", headers=AUTH if operator else {})
        assert r.status_code == 200, f"GET {path}: {r.status_code} {r.text}"
        return r

    def view(self):
        return self.api.service.load(self.gid)

    def pool(self) -> list[str]:
        """The unseen tiles, one entry per tile."""
        return list(Counter(self.get("/unseen").json()["tiles"]).elements())

    def line(self, data, board, size: int, letters: list[str]) -> tuple[str, str, list[tuple[Square, str]]]:
        """A play on one line through an empty square next to a tile (the centre on an empty
        board): its GCG position, its GCG word ('.' for tiles played through) and its new tiles."""
        direction = data.draw(st.sampled_from([Direction.ACROSS, Direction.DOWN]))
        dr, dc = (0, 1) if direction is Direction.ACROSS else (1, 0)
        occupied = {sq for sq, _ in board.items()}
        if not occupied:
            k = data.draw(st.integers(2, 5))
            back = data.draw(st.integers(0, k - 1))
            start = Square(7 - dr * back, 7 - dc * back)
        else:
            near = sorted({Square(sq.row + a, sq.col + b) for sq in occupied for a, b in
                           ((0, 1), (1, 0), (0, -1), (-1, 0))
                           if 0 <= sq.row + a < size and 0 <= sq.col + b < size} - occupied)
            if not near:
                return "", "", []
            start = data.draw(st.sampled_from(near))
            k = data.draw(st.integers(1, 4))
        new, sq = [], start
        while len(new) < k and sq.row < size and sq.col < size:
            if sq not in occupied:
                new.append((sq, data.draw(st.sampled_from(letters))))
            sq = Square(sq.row + dr, sq.col + dc)
        if not new:
            return "", "", []
        first, last = new[0][0], new[-1][0]
        while Square(first.row - dr, first.col - dc) in occupied:
            first = Square(first.row - dr, first.col - dc)
        while Square(last.row + dr, last.col + dc) in occupied:
            last = Square(last.row + dr, last.col + dc)
        placed = dict(new)
        word, sq = "", first
        while True:
            word += placed.get(sq, ".")
            if sq == last:
                break
            sq = Square(sq.row + dr, sq.col + dc)
        return gcg_square(first, direction), word, new

    def letters(self, data, sure: bool) -> list[str]:
        """Tiles to draw from: the unseen pool (a real rack's), or any letter of the set (a typo,
        a misread: more of a tile than the set has, which the record must refuse or flag)."""
        pool = self.pool() or list(self.dist.letters)
        return pool if sure else list(self.dist.letters) + [BLANK]

    # ---- the game -------------------------------------------------------------------------
    @initialize(setup=st.sampled_from(SETUPS))
    def new_game(self, setup):
        rules, lang, n = setup
        names = ["Ann Ames", "Ben Brown", "Cy Cole", "Dee Dunn"][:n]
        r = self.client.post("/api/games", headers=AUTH, json={"players": [{"name": p} for p in names],
                                                               "rules": rules, "lang": lang})
        assert r.status_code == 201, r.text
        self.gid, self.rules, self.lang, self.players = r.json()["id"], rules, lang, n
        self.dist = DISTRIBUTIONS[lang]
        self.classes = classes_for(self.dist.letters)
        view = self.view()
        self.keeper = Scorekeeper(Game(view.profile, view.dist, view.layout, n))
        self.link = GameLink(self.api.service, self.gid)
        self.sse = SseReader(f"{self.api.url}/api/games/{self.gid}/events", limit=100_000).__enter__()

    # ---- what people enter (HTTP) ---------------------------------------------------------
    @rule(data=st.data(), sure=st.booleans(), with_rack=st.booleans())
    def typed_play(self, data, sure, with_rack):
        view = self.view()
        letters = self.letters(data, sure)
        pos, word, new = self.line(data, view.game_at().state.board, view.layout.size,
                                   [t for t in letters if t != BLANK] or ["E"])
        if not new:
            return
        if data.draw(st.booleans()) and len(new) > 0:  # a blank, named
            i = data.draw(st.integers(0, len(new) - 1))
            sq, ch = new[i]
            word = _with_blank(word, pos, sq, ch)
        body = {"position": pos, "word": word, "engine_stands": data.draw(st.booleans())}
        if with_rack:
            extra = data.draw(st.lists(st.sampled_from(letters), max_size=max(0, 7 - len(new))))
            body["rack"] = "".join(ch for _, ch in new) + "".join(extra)
        self.call("POST", "/plays", json=body)

    def scoreless(self, data) -> bool:
        """Whether a scoreless turn may go in now: rarely once three are in a row (six end a
        two-player game), so most games last long enough to meet the other steps."""
        return self.view().game_at().state.scoreless_turns < 3 or data.draw(st.integers(0, 5)) == 0

    @rule(data=st.data())
    def pass_turn(self, data):
        if self.scoreless(data):
            self.call("POST", "/passes", json={})

    @rule(data=st.data())
    def exchange(self, data):
        if not self.scoreless(data):
            return
        if data.draw(st.booleans()):
            self.call("POST", "/exchanges", json={"count": data.draw(st.integers(1, 7))})
            return
        # tiles thrown in: often the same letter again and again (VVV with both V on the board)
        letter = data.draw(st.sampled_from(list(self.dist.letters)))
        tiles = letter * data.draw(st.integers(1, 3)) + "".join(
            data.draw(st.lists(st.sampled_from(self.pool() or ["E"]), max_size=2)))
        self.call("POST", "/exchanges", json={"tiles": tiles})

    @rule(outcome=st.sampled_from(["phony", "valid"]), words=st.none() | st.integers(1, 3))
    def challenge(self, outcome, words):
        self.call("POST", "/challenges", json={"outcome": outcome, **({"words": words} if words else {})})

    @rule(data=st.data())
    def time_penalty(self, data):
        """Overtime, entered once the game is over (macondo reads no negative running total on a
        turn's line: a penalty mid-game would make one; see docs/testing.md)."""
        if not self.get("").json()["ended"]:
            return
        self.call("POST", "/time-penalties", json={"player": data.draw(st.integers(0, self.players - 1)),
                                                   "minutes": data.draw(st.integers(0, 3))})

    @rule(data=st.data())
    def end(self, data):
        body = {}
        if data.draw(st.booleans()):
            pool = self.pool()
            body["racks"] = ["".join(data.draw(st.lists(st.sampled_from(pool or ["E"]), max_size=3)))
                             for _ in range(self.players)]
        self.call("POST", "/end", json=body)

    # ---- corrections and their undo --------------------------------------------------------
    def moves(self) -> list[dict]:
        return self.get("/moves", operator=True).json()

    def _corrected(self, r: httpx.Response, move: dict) -> None:
        if r.status_code == 200:
            self.person_fixes.setdefault(move["seq"], []).append(r.json()["seqs"][0])

    @rule(data=st.data())
    def correct(self, data):
        moves = self.moves()
        if not moves:
            return
        move = data.draw(st.sampled_from(moves))
        kind = data.draw(st.sampled_from(["letter", "blank", "play", "exchange", "pass", "score"]))
        body: dict = {"kind": kind, "reason": "model"}
        if kind in ("letter", "blank"):
            rows = self.get("/board").json()["rows"]
            squares = [f"{r + 1}{chr(65 + c)}" for r, row in enumerate(rows) for c, ch in enumerate(row)
                       if ch != "." and (kind == "letter" or ch.islower())]
            if not squares:
                return
            body |= {"square": data.draw(st.sampled_from(squares)),
                     "letter": data.draw(st.sampled_from(list(self.dist.letters)))}
            if kind == "blank":
                body["letter"] = body["letter"].lower()
        elif kind == "play":
            if move["kind"] != "play":
                return
            view = self.view()
            before = Game(view.profile, view.dist, view.layout, self.players, view.events[:move["index"]],
                          within_set=False)
            pos, word, new = self.line(data, before.state.board, view.layout.size, list(self.dist.letters))
            if not new:
                return
            body |= {"position": pos, "word": word}
        elif kind == "exchange":
            body["count"] = data.draw(st.integers(1, 7))
        elif kind == "score":
            body["agreed"] = data.draw(st.integers(0, 60))  # >= 0: see time_penalty
        r = self.call("POST", f"/moves/{move['index']}/corrections", json=body)
        self._corrected(r, move)

    @rule(data=st.data())
    def confirm_reading(self, data):
        """'Confirm' on the console: the play re-entered as read."""
        moves = [m for m in self.moves() if m["review"]]
        if moves:
            move = data.draw(st.sampled_from(moves))
            r = self.call("POST", f"/moves/{move['index']}/corrections",
                          json={"kind": "play", "position": move["position"], "word": move["word"],
                                "reason": "confirmed as read"})
            self._corrected(r, move)

    @rule(data=st.data())
    def take_runner_up(self, data):
        offers = [(m, u) for m in self.moves() for u in m["runner_ups"]]
        if offers:
            move, up = data.draw(st.sampled_from(offers))
            r = self.call("POST", f"/moves/{move['index']}/corrections",
                          json={"kind": "play", "position": up["position"], "word": up["word"],
                                "reason": "runner-up reading taken"})
            self._corrected(r, move)

    @rule(data=st.data())
    def name_blank(self, data):
        undecided = [m for m in self.moves() if m["blank_undecided"]]
        if not undecided:
            return
        move = data.draw(st.sampled_from(undecided))
        rows = self.get("/board").json()["rows"]
        blanks = [f"{r + 1}{chr(65 + c)}" for r, row in enumerate(rows) for c, ch in enumerate(row)
                  if ch == BLANK or ch.islower()]
        if blanks:
            r = self.call("POST", f"/moves/{move['index']}/corrections",
                          json={"kind": "blank", "square": data.draw(st.sampled_from(blanks)),
                                "letter": data.draw(st.sampled_from(list(self.dist.letters))).lower()})
            self._corrected(r, move)

    @rule(data=st.data())
    def undo_correction(self, data):
        fixes = [c for c in self.get("/recount").json()["corrections"] if c["kind"] == "correction"]
        if not fixes:
            return
        fix = data.draw(st.sampled_from(fixes))
        r = self.call("POST", f"/corrections/{fix['seq']}/undo", json={"reason": "model"})
        if r.status_code == 200:
            standing = self.person_fixes.get(fix["target"], [])
            if fix["seq"] in standing:
                standing.remove(fix["seq"])  # the move as it stood before that correction

    @rule(data=st.data())
    def void(self, data):
        moves = self.moves()
        if moves:
            move = moves[-1] if data.draw(st.booleans()) else data.draw(st.sampled_from(moves))
            self.call("POST", f"/moves/{move['index']}/void", json={"reason": "model", "seq": move["seq"]})

    # ---- the cameras (in-process, the station's path) ---------------------------------------
    def _follow(self) -> None:
        if self.link.count() != len(self.keeper.entries):
            self.keeper.sync(self.link.entries())

    def _commit(self, entries) -> None:
        """As Recorder._decide commits a decision: at the seq it was made on, or dropped."""
        TRIED[("camera", entries[0].kind if entries else "nothing", "")] += 1
        if not entries:
            return
        from tilecam.api.errors import Conflict
        from tilecam.scoring.errors import ScoringError
        try:
            seqs = self.link.commit(list(entries), None, len(self.keeper.entries) - len(entries))
        except (Conflict, ScoringError, ValueError):
            self.keeper.sync(self.link.entries(), pending=len(entries))
            return
        for entry, seq in zip(entries, seqs):
            if getattr(entry, "review", False) or getattr(getattr(entry, "replacement", None), "review", False):
                self.under_review.add(getattr(entry, "target", seq))

    @rule(data=st.data(), confidence=st.sampled_from(CAMERA_CONFIDENCE), sure=st.booleans())
    def camera_play(self, data, confidence, sure):
        """The board camera sees new tiles at a clock press (a blank shows as a blank tile: the camera
        cannot know its letter)."""
        self._follow()
        game = self.keeper.game
        letters = [t for t in self.letters(data, sure) if t != BLANK] or ["E"]
        _, _, new = self.line(data, game.state.board, game.layout.size, letters)
        if not new:
            return
        rows = [list(r) for r in game.state.board.rows()]
        for i, (sq, ch) in enumerate(new):
            rows[sq.row][sq.col] = ch.lower() if i == 0 and data.draw(st.booleans()) else ch
        snap = Snapshot.from_board(["".join(r) for r in rows], self.classes, confidence)
        obs = self.keeper.observe(snap, player=game.state.on_turn, pressed=True)
        self._commit(obs.entries)

    @rule(data=st.data(), confidence=st.sampled_from(CAMERA_CONFIDENCE))
    def camera_press_unchanged(self, data, confidence):
        """A clock press with nothing new on the board: a pass, or an exchange when the rack camera
        saw the rack change."""
        if not self.scoreless(data):
            return
        self._follow()
        snap = Snapshot.from_board(self.keeper.game.state.board.rows(), self.classes, confidence)
        self._commit(self.keeper.observe(snap, player=self.keeper.game.state.on_turn, pressed=True).entries)

    @rule(data=st.data(), sure=st.booleans(), certainty=st.sampled_from([0.99, 0.5]))
    def rack_read(self, data, sure, certainty):
        """A rack camera settles on a rack: the rack log, then the scorekeeper (Recorder.rack_seen)."""
        player = data.draw(st.integers(0, self.players - 1))
        pool = self.pool()
        source = pool if sure and pool else list(self.dist.letters) + [BLANK]
        tiles = data.draw(st.lists(st.sampled_from(source), min_size=1, max_size=7))
        if data.draw(st.booleans()) and len(tiles) > 1:
            tiles[0] = None  # a hand over one slot
        # an unsure read has some slots under the threshold, not all: its sure tiles still tell an
        # exchange (RackBook.changed_since_turn), a read whose play fills its unsure slots is whole
        cert = tuple(0.99 if certainty == 0.99 or data.draw(st.booleans()) else certainty for _ in tiles)
        seen = RackSeen(player, float(len(self.keeper.entries)), tuple(tiles), cert)
        board = tiles_of(self.get("/board").json()["rows"])
        fitted = self.keeper.rack_fit(seen, RACK_TRUST)   # as Recorder.rack_seen takes a read
        review = RACK_TRUST.review(fitted)
        seq = self.link.rack(fitted.logged, None, review, read=fitted.read if fitted.changed and not fitted.breaks
                             else None, breaks=fitted.breaks or None)
        TRIED[("rack camera", "read", "")] += 1
        if over(board + Counter(t for t in tiles if t), self.dist):
            self.rack_must_flag.add(seq)
        self._follow()
        self._commit(self.keeper.rack_seen(fitted.rack, RACK_TRUST))

    @rule(data=st.data(), fix=st.booleans())
    def confirm_rack(self, data, fix):
        reads = self.get("/racks", operator=True).json()["reads"]
        if reads:
            read = data.draw(st.sampled_from(reads))
            body = {"tiles": "".join(data.draw(st.lists(st.sampled_from(self.pool() or ["E"]), min_size=1,
                                                        max_size=7)))} if fix else None
            r = self.call("POST", f"/racks/{read['seq']}/confirm", json=body)
            if r.status_code == 200:
                self.rack_confirmed.add(read["seq"])

    # ---- the invariants --------------------------------------------------------------------
    @invariant()
    def the_record_holds(self):
        if not self.gid:
            return
        BROKEN.clear()
        detail = self.get("").json()
        board = self.get("/board").json()
        unseen = self.get("/unseen").json()
        export = self.get(".json").json()
        moves = self.moves()
        live = self.get("/live").json()
        self._counts(board, unseen, export, moves)
        self._gcg(detail, export)
        self._review(moves, live)
        self._shown(detail, board, unseen, live)
        self._racks(detail, live)

    def _counts(self, board, unseen, export, moves) -> None:
        dist = self.dist
        on_board = tiles_of(board["rows"])
        expect("board within the set", not over(on_board, dist), f"the board holds {over(on_board, dist)}")
        pool = Counter(unseen["tiles"])
        expect("board + unseen is the set", on_board + pool == Counter(dist.counts),
               f"board {dict(on_board)} + unseen {dict(pool)} is not the set {dist.name}")
        expect("unseen count", unseen["count"] == sum(pool.values()) == dist.total - sum(on_board.values()),
               f"unseen count {unseen['count']}, pool {sum(pool.values())}, board {sum(on_board.values())}")
        # every known rack and every exchange's tiles fit beside the board as it stood then
        view = self.view()
        game = Game(view.profile, dist, view.layout, self.players, within_set=False)
        for i, ev in enumerate(view.events):
            before = Counter(BLANK if t.blank else t.letter for _, t in game.state.board.items())
            rack = getattr(ev, "rack", None)
            if rack:
                found = over(before + Counter(t.upper() if t != BLANK else t for t in dist.tokens(rack)), dist)
                expect("rack within the set", not found, f"move {i + 1} ({ev.kind}) rack {rack}: {found}")
            if ev.kind == "exchange" and ev.tiles:
                found = over(before + Counter(dist.tokens(ev.tiles.upper())), dist)
                expect("exchange within the set", not found, f"move {i + 1} exchanges {ev.tiles}: {found}")
            game.append(ev)
        # a runner-up offered for one click must keep the set too
        for m in moves:
            for up in m["runner_ups"]:
                after = Counter(on_board)
                for ch in up["changes"]:
                    if ch["was"]:
                        after[BLANK if ch["was"] == BLANK or ch["was"].islower() else ch["was"]] -= 1
                    if ch["now"]:
                        after[BLANK if ch["now"] == BLANK or ch["now"].islower() else ch["now"]] += 1
                found = over(+after, dist)
                expect("runner-up within the set", not found or up["score"] is None,
                       f"move {m['number']} offers {up['position']} {up['word']}: {found}")

    def _gcg(self, detail, export) -> None:
        if not export["events"]:
            return
        r = self.client.get(f"/api/games/{self.gid}.gcg")
        assert r.status_code == 200, r.text
        text = r.text
        readers = ("macondo", "quackle") if self.players == 2 else ("quackle",)  # macondo: two only
        problems = check_gcg(text, readers)
        expect("GCG loads in macondo and Quackle", problems == [], f"{problems}\n{text}")
        path = self.tmp / f"{self.gid}.gcg"
        path.write_text(text, encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
            code = verify.run(Namespace(gcg=str(path), rules=self.rules, lang=self.lang, lexicon=None, json=True))
        expect("tilecam verify reads the export", code in (0, 1), f"exit {code}: {err.getvalue()}\n{text}")
        if code not in (0, 1):
            return
        report = json.loads(out.getvalue())
        recount = self.get("/recount").json()
        expect("tilecam verify agrees with the record",
               report["final"] == detail["scores"] == recount["final"]
               and len(report["moves"]) == len(recount["moves"])
               and [m["totals"] for m in report["moves"]] == [m["totals"] for m in recount["moves"]]
               and report["cumulative_findings"] == [],
               f"verify {report['final']} ({len(report['moves'])} moves), record {detail['scores']} "
               f"({len(recount['moves'])} moves), findings {report['cumulative_findings']}\n{text}")
        # A director's ruling reads back as a claimed score (GCG has no word for a ruling), and an
        # engine_stands play as the engine's: what verify flags, the recount flags, at the same move.
        found = {d["index"] for d in report["discrepancies"]}
        flagged = {d["index"] for d in recount["discrepancies"]}
        over_set = ({d["index"] for d in report["discrepancies"] if d["what"] == "tiles"},
                    {d["index"] for d in recount["discrepancies"] if d["what"] == "tiles"})
        expect("tilecam verify finds what the recount finds", found <= flagged and over_set[0] == over_set[1],
               f"verify {report['discrepancies']}\nrecount {recount['discrepancies']}\n{text}")

    def _review(self, moves, live) -> None:
        unconfirmed = []
        for m in moves:
            confirmed = bool(self.person_fixes.get(m["seq"]))
            if m["review"]:
                self.under_review.add(m["seq"])
                unconfirmed.append(m["index"])
            if m["seq"] in self.under_review and not confirmed:
                expect("review until a person confirms", m["review"],
                       f"move {m['number']} ({m['text']}) left review with no person's word on it")
            if m["certainty"] is not None and m["certainty"] < REVIEW_BELOW and not confirmed:
                expect("nothing unflagged the camera guessed", m["review"],
                       f"move {m['number']} read at {m['certainty']} is on air unflagged")
            if m["kind"] == "play" and m["word"] and BLANK in m["word"]:
                expect("an unnamed blank is flagged", m["blank_undecided"],
                       f"move {m['number']} ({m['word']}) holds '?' unflagged")
        expect("live says which moves are unconfirmed", live["unconfirmed"] == unconfirmed,
               f"live {live['unconfirmed']}, moves {unconfirmed}")
        undecided = [m["index"] for m in moves if m["blank_undecided"]]
        expect("live says which blanks are unnamed", live["blank_undecided"] == undecided,
               f"live {live['blank_undecided']}, moves {undecided}")

    def _shown(self, detail, board, unseen, live) -> None:
        seqs = [e["seq"] for e in self.get(".json").json()["log"]]
        stored = {"scores": detail["scores"], "rows": board["rows"], "on_turn": detail["on_turn"],
                  "ended": detail["ended"], "unseen_count": unseen["count"], "bag": detail["bag"],
                  "seq": seqs[-1] if seqs else -1}
        shown = {k: live[k] for k in stored}
        expect("/live is the record", shown == stored, f"live {shown}\nstored {stored}")
        fields = self.get("/fields").json()
        expect("/fields are the live fields", fields == live["fields"], f"{fields}\n{live['fields']}")
        for i, score in enumerate(detail["scores"]):
            expect("the score fields", fields[f"p{i + 1}_score"] == str(score), f"p{i + 1}_score {fields}")
        expect("the unseen field", fields["unseen_count"] == str(unseen["count"]), f"{fields['unseen_count']}")
        # the stream: its latest update is the live state as served now
        want = _steady(live)

        def caught_up():
            while not self.sse.events.empty():
                self.sse_last = self.sse.events.get_nowait()[2]["live"]
            return self.sse_last is not None and _steady(self.sse_last) == want
        try:
            wait_for(caught_up, timeout=5)
        except AssertionError:
            expect("SSE shows the record", False, f"stream {self.sse_last}\nlive {live}")

    def _racks(self, detail, live) -> None:
        # Issue 43: a move's rack shown a move later still showed its leave, which the player held (the
        # long hunt's "player 1's rack read at move 2 public at move 2": after a typed exchange of
        # unnamed tiles, the rack book tied the read of the new rack to the player's play before it,
        # then a move old). Now no rack is public before the game is over, whatever a read is tied to.
        over = live["ended"]
        for r in live["racks"]:
            expect("no rack public before the game is over", over or r is None,
                   f"player {r and r['player'] + 1}'s rack read at move {r and r['turn']} public at move "
                   f"{detail['moves']}")
        fields = self.get("/fields").json()
        for i, r in enumerate(live["racks"]):
            expect("the rack fields are the live racks", fields[f"rack{i + 1}"] == (r["text"] if r else ""),
                   f"rack{i + 1} {fields[f'rack{i + 1}']!r}, live {r}")
        reads = self.get("/racks", operator=True).json()["reads"]
        for m in self.get("/moves").json():
            expect("no rack public before the game is over", over or (m["rack"], m["rack_seq"]) == (None, None),
                   f"move {m['number']} shows rack {m['rack']} (read {m['rack_seq']}) before the game is over")
            expect("no rack read quoted without the token", not QUOTED.search(m["note"] or ""),
                   f"move {m['number']}'s note quotes a rack read: {m['note']!r}")
        if not over:   # (once over, the GCG may say a rack on air, as read, holds tiles no longer off the board)
            gcg = self.get(".gcg").text
            expect("no rack read quoted without the token", not QUOTED.search(gcg), "the public GCG quotes a rack read")
        for read in reads:
            if read["seq"] in self.rack_must_flag and read["seq"] not in self.rack_confirmed:
                expect("rack read within the set or flagged", read["review"],
                       f"rack read {read['seq']} ({read['text']}) breaks the set beside the board, unflagged")
            unsure = any(c is not None and c < RACK_TRUST.review_below for c in read["certainty"])
            if unsure and read["confirmed_by"] is None:
                expect("an unsure rack read is flagged", read["review"], f"rack read {read['seq']} {read}")


def _with_blank(word: str, pos: str, sq: Square, ch: str) -> str:
    """The GCG word with the new tile at `sq` written as a blank standing for `ch`."""
    across = pos[0].isdigit()
    row = int("".join(c for c in pos if c.isdigit())) - 1
    col = ord([c for c in pos if c.isalpha()][0].upper()) - 65
    i = (sq.col - col) if across else (sq.row - row)
    return word[:i] + ch.lower() + word[i + 1:]


def _steady(live: dict) -> dict:
    """The live state without the clock's moment of measurement."""
    return {k: v for k, v in live.items() if k != "clock"}


def test_the_record_under_random_sequences(server, tmp_path):
    RecordMachine.api = server
    RecordMachine.tmp = tmp_path
    SEEN_KNOWN.clear()
    TRIED.clear()
    try:
        run_state_machine_as_test(RecordMachine, settings=SETTINGS)
    finally:
        if SEEN_KNOWN:  # the known failures this run met: said, not hidden
            print("known failures (issue 35, other branches):", dict(SEEN_KNOWN))
        if HUNT:
            print("steps:", sorted(TRIED.items()))
