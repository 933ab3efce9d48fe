"""The recorder: the stages called in order, once per frame, like a recognizer's predict().

    locate  (vision.locator.BoardLocator.update)     where the board is in the frame
    gate    (vision.stability.StabilityGate.look)     clear and still long enough, or a press waiting
    read    (vision.reader.BoardReader.read)          the board in game orientation, and what covers it
    decide  (scoring.scorekeeper.Scorekeeper)         fuse the snapshot once, then decide the move
    commit  (GameLink.commit)                         one transaction per decision, retried on Conflict
    learn   (vision.reader.BoardReader.learn)         calibrate the reader to the table
    watch   (api.station.lostwatch.LostWatch)         say at once when the record stops following the board

A rack camera's thread (station/racks.py) hands its settled racks to ``rack_seen``: kept through the
link, then given to the scorekeeper under the lock every frame holds, so that no two threads are ever
inside the scorekeeper.

The recorder knows no pixels and no rules: it only calls the stages and passes their results on.
What it shows and keeps of a frame goes to sinks the station plugs in (station/sinks.py): the
preview (``preview.show``: the grid drawn over the frame) and the evidence (the link encodes it).
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from tilecam.capture.frame import Frame
from tilecam.scoring import (EMPTY, PRESS_CAUSE, Fused, GameError, LogEntry, Observation, PlacementError, Scorekeeper,
                             by_operator)
from tilecam.scoring.gcg import format_square
from tilecam.api.errors import Conflict
from tilecam.vision import RepeatedPhoto, StabilityConfig, StabilityGate

from tilecam.api.settings import RecorderConfig  # the tree holds it: the web never imports the station
from tilecam.api.station.lostwatch import Alert, LostWatch
from .triggers import recorder_action

__all__ = ["FrameOutcome", "Recorder", "RecorderConfig", "Timings"]


@dataclass
class Timings:
    """Milliseconds per stage, summed over frames."""

    ms: dict[str, float] = field(default_factory=dict)
    frames: int = 0

    @contextmanager
    def stage(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0

    def per_frame(self) -> dict[str, float]:
        return {k: v / max(self.frames, 1) for k, v in self.ms.items()}


@dataclass(frozen=True)
class FrameOutcome:
    index: int
    t: float
    state: str                        # "no_board" | "moving" | "occluded" | "clear" | "snapshot" | "duplicate"
    #                                   | "recorded" (a photo the record was already made from)
    observation: Observation | None = None
    seqs: tuple[int, ...] = ()        # log positions of the entries this frame committed


@dataclass(frozen=True)
class RackKept:
    """What became of a rack read (Recorder.rack_seen): whether it waits for the operator (the
    station's RackTrust, asked once) and the log positions of the entries it committed."""
    review: bool
    seqs: tuple[int, ...] = ()


class Recorder:
    """Feed frames (and triggers); what each snapshot decided is committed through `link` (a
    GameLink), which also keeps the recorder on the record as the store holds it: entries others
    wrote (an operator's correction, a play entered by hand) are adopted before each decision, and
    a decision is committed in one transaction at the seq it was made on.

    Two locks, always taken in this order (`_keeper_lock`, then `_lock`), never the other way:
    - `_keeper_lock` (re-entrant): the scorekeeper and the link's commits, and with them every field
      the frame's stages write (`gate`, `watch`, `counts`, `timings`, `last`, `board_status`,
      `_retries`, `_covered`, `_blind`, `_flag`, `_inferring`, `_turns`, `_corners`, `_last_preview`,
      `_repeat`): `process` (the board's frames), `rack_seen` (a rack camera's thread) and `finish`
      hold it throughout. `status`, `alerts` and `lost` read them without it (each value as it stands).
    - `_lock` (held for moments, from any thread: a clock press, a trigger, a notice): the press
      waiting for a snapshot (`_press`, `_kept`, and `gate.trigger` with them) and `notices`.
    `camera_status` is set by whoever owns the frame source, one assignment, no lock."""

    COMMIT_TRIES = 3  # decisions re-made when another writer got in first

    def __init__(self, scorekeeper: Scorekeeper, locator, reader, link,
                 cfg: RecorderConfig | None = None, stability: StabilityConfig | None = None,
                 preview=None) -> None:
        self.scorekeeper = scorekeeper
        self.locator = locator          # vision.locator.BoardLocator
        self.reader = reader            # vision.reader.BoardReader
        self.link = link                # station.link.GameLink (or MemoryLink)
        self.cfg = cfg or RecorderConfig()
        self.gate = StabilityGate(stability)
        self.preview = preview          # a sink: station.sinks.PreviewSink (None: no preview)
        self.timings = Timings()
        self._press: tuple[bool, int | None] = (False, None)
        self._kept = False              # _press is a press kept for the retry of its unclear snapshot
        self._lock = threading.Lock()  # presses and notices, from any thread
        # The scorekeeper and the commits: a board frame, a rack camera's rack, the end of the game.
        self._keeper_lock = threading.RLock()
        self._turns = 0                 # the board's orientation as last read (for the preview)
        self._corners = None            # the snapshot's grid corners, in game orientation (the sidecar's)
        self._last_preview = 0.0
        self._repeat = RepeatedPhoto()
        self.last: FrameOutcome | None = None
        self.board_status: str | None = None
        self.camera_status: str | None = None   # set by whoever owns the frame source
        self.notices: list[str] = []
        self.watch = LostWatch(self.cfg.lost, still_s=self.gate.cfg.stable_ms / 1000.0)
        # gate: snapshots the gate took; dropped: thrown away as covered; decoded: reached the decoder
        self.counts = {"gate": 0, "dropped": 0, "decoded": 0, "retried": 0}
        self._retries = 0       # snapshots retaken on this still board
        self._covered = 0       # snapshots of this still board dropped as covered
        self._blind = False     # the last frame: occluded, yet standing still
        self._flag: str | None = None   # the lost-game alert as the game's meta last said it
        self._inferring = False         # the last play was credited without a press (said once per run)
        # Photos the record was already made from (a folder source started over after a restart):
        # history, not moves; the last of them is where the record stands.
        recorded = link.frames()
        self._recorded = set(recorded)
        self._last_recorded = recorded[-1] if recorded else None

    def on_trigger(self, trigger) -> str:
        """A hardware.Trigger (from any thread), after the clock (station.triggers.connect): returns
        what the recorder made of it (station.triggers.MEANING)."""
        action = recorder_action(trigger.kind)
        if action == "snapshot":
            self.press(trigger.player)
        else:
            with self._lock:
                self.notices.append(f"{trigger.kind} by player {trigger.player}")
        return action

    def status(self) -> dict:
        """For the service's /api/status: what the camera and the board look like now."""
        per = self.timings.per_frame()
        last = self.last
        return {"frames": self.timings.frames, "state": last.state if last else None,
                "board": self.board_status, "camera": self.camera_status,
                "ms_per_frame": {k: round(v, 2) for k, v in per.items()},
                "entries": len(self.scorekeeper.entries), "notices": list(self.notices[-5:]),
                "lost": self.watch.summary(), "snapshots": dict(self.counts)}

    @property
    def alerts(self) -> list[dict]:
        """Every lost-game alert raised so far, open or cleared (api.station.lostwatch.Alert.as_dict)."""
        return [a.as_dict() for a in self.watch.alerts]

    @property
    def lost(self) -> str | None:
        """What the camera sees that the record does not follow (the open alerts), or None."""
        return self.watch.summary()

    def press(self, player: int | None = None) -> None:
        """A clock press (from any thread): snapshot at the next clear frame."""
        with self._lock:
            self._press, self._kept = (True, player), False
            self.gate.trigger()

    def process(self, frame: Frame) -> FrameOutcome:
        with self._keeper_lock:
            self.last = self._process(frame)
        return self.last

    def notice(self, text: str) -> None:
        """A line for the console's notices (from any thread): a rack camera dropped, ended."""
        with self._lock:
            self.notices.append(text)

    def rack_seen(self, seen, frame: Frame | None, *, trust) -> RackKept:
        """A settled rack (scoring.racks.RackSeen) from a rack camera's thread, under the lock the
        board's frames hold: taken under the set's counts (``Scorekeeper.rack_fit``: the reader's
        runner-ups where the read breaks them), kept with its evidence frame (``link.rack``) and
        whether it waits for the console's review (`trust`, the station's scoring.RackTrust, says:
        a tile it finds unsure, or no rack under the counts fits it; the one decision, stored with
        the read), then given to the scorekeeper (``Scorekeeper.rack_seen``); the entries it returns
        (a pass the rack shows was an exchange: a camera Correction) are committed like a decision,
        at the seq they were made on. Returns that decision and their seqs."""
        keeper = self.scorekeeper
        with self._keeper_lock:
            self._follow()
            fitted = keeper.rack_fit(seen, trust)
            review = trust.review(fitted)
            self.link.rack(fitted.logged, frame, review, read=fitted.read if fitted.changed and not fitted.breaks
                           else None, breaks=fitted.breaks or None)
            entries = keeper.rack_seen(fitted.rack, trust)
            if not entries:
                return RackKept(review)
            sidecar = {"frame_index": frame.index if frame else None, "t": round(frame.t, 3) if frame else None,
                       "frame": frame.path if frame else None, "rack": fitted.rack.to_json()}
            try:
                seqs = tuple(self.link.commit(list(entries), frame, len(keeper.entries) - len(entries), sidecar))
            except (Conflict, GameError, PlacementError) as exc:
                keeper.sync(self.link.entries(), pending=len(entries))  # the record moved on: theirs stands
                self.notice(f"rack of player {seen.player + 1}: not committed: {exc}")
                return RackKept(review)
        self.notice(f"rack of player {seen.player + 1}: " + "; ".join(_said(e) for e in entries))
        return RackKept(review, seqs)

    def _process(self, frame: Frame) -> FrameOutcome:
        self.timings.frames += 1
        if frame.path is not None and frame.path in self._recorded:
            if frame.path == self._last_recorded:
                self.scorekeeper.caught_up(pressed=self.cfg.every_frame_is_a_press)
            return FrameOutcome(frame.index, frame.t, "recorded")
        with self.timings.stage("locate"):
            located = self.locator.update(frame.image)
        self.board_status = located.state
        self._maybe_preview(frame, located)
        pressed, player, state = self._gate(frame, located)
        photos = self.cfg.every_frame_is_a_press
        if photos:   # one photo per move: no time between them to judge by, a count of photos instead
            self._alert(self.watch.photo(frame.index, frame.t, state != "no_board"))
        else:
            self._alert(self.watch.frame(frame.index, frame.t, "blind" if state == "occluded" and self._blind
                                         else state or "snapshot", located.in_view))
            if state == "moving":
                self._retries = self._covered = 0
                with self._lock:   # a kept press is for the still board it was made at, not the next turn's
                    if self._kept:
                        self._press, self._kept = (False, None), False
        if state is not None:
            return FrameOutcome(frame.index, frame.t, state)
        self.counts["gate"] += 1
        self._follow()  # before the read: the reader sees the board as the record holds it
        with self.timings.stage("read"):
            view = self.reader.read(frame.image, located, self.scorekeeper.game.state.board, frame.t, frame.index)
        self._turns, self._corners = view.turns, view.corners
        if view.occluded and (photos or self._covered < self.cfg.covered_drops) and self._came_to_rest(view):
            self._covered += 1
            self.counts["dropped"] += 1
            self._alert(self.watch.dropped(frame.index, frame.t))
            self._retry()   # something lies on the board: look again while it stays still
            if pressed:  # keep the press for the next clear frame, and what it did show
                self.press(player)
                with self.timings.stage("score"):
                    self.scorekeeper.glimpse(view.snapshot, view.clear)
            return FrameOutcome(frame.index, frame.t, "occluded")
        self.counts["decoded"] += 1
        self.gate.used()
        with self.timings.stage("score"):
            obs, seqs = self._decide(self.scorekeeper.fuse(view.snapshot), frame, player, pressed, view.clear)
        if seqs:
            self._turn_notice(frame, obs)
        if obs.status == "unclear" and not photos:
            # more frames of the same still board: more evidence for the belief; a press stays with
            # the retry (a retake without it at a board the press left unchanged is no change, and
            # the pass or exchange the press ended would be lost), until the board moves
            if self._retry() and pressed:
                with self._lock:
                    if self._press == (False, None):   # a press since stands as it is
                        self._press, self._kept = (True, player), True
        elif obs.entries:
            self._retries = 0
        if obs.status != "behind":
            unexplained = [format_square(sq) for sq in self.scorekeeper.unexplained()]
            unread = [format_square(sq) for sq in self.scorekeeper.unread()]
            self._alert(self.watch.decided(frame.index, frame.t, unexplained, unread))
        if obs.status == "tile_check":  # calibration, never a play: the check's tiles teach the reader
            with self.timings.stage("calibrate"):
                labels = self.reader.learn_tile_check() if hasattr(self.reader, "learn_tile_check") else None
            if labels is not None:  # every tile it labelled is learned at this table (scoring.trust)
                self._learned_outside_log(t for t in labels if t != EMPTY)
        elif obs.status != "behind":
            with self.timings.stage("calibrate"):
                state = self.scorekeeper.game.state
                changed = self.reader.learn(state.board, self.scorekeeper.operator_squares(),
                                            committed=bool(obs.entries), unclear=obs.status == "unclear",
                                            finished=bool(obs.entries) and state.ended)
            if changed:  # the game's tile set re-read committed tiles: their plays re-decided, for review
                seqs = seqs + self._retile(changed, frame)
        return FrameOutcome(frame.index, frame.t, "snapshot", obs, seqs)

    def _learned_outside_log(self, tiles) -> None:
        """Tiles the table learned that no log entry says (a tile check): the scorekeeper trusts
        them from now on, and the game's meta keeps them (the live state's `learning`, a restart)."""
        keeper = self.scorekeeper
        keeper.given = keeper.given | frozenset(tiles)
        self.link.learned(keeper.given)

    def _turn_notice(self, frame: Frame, obs: Observation) -> None:
        """Say on the console's notices when the turn order becomes a guess (a play credited to the
        player on turn with no clock press since a known turn) and when a press contradicts it (the
        camera's correction crediting a play to the presser); scoring.turns flags both for good."""
        events = len(self.scorekeeper.game.events)
        for k, e in enumerate(obs.entries):
            if e.kind == "correction" and not by_operator(e, self.scorekeeper.camera_name) \
                    and e.cause == PRESS_CAUSE:
                note = f"turn order: {e.reason}"
            elif e.kind == "play" and e.turn_inferred and not self._inferring:
                number = events - sum(1 for x in obs.entries[k + 1:] if x.kind not in ("correction", "void"))
                note = f"turns inferred from move {number}: no clock press seen (an exchange or a pass would go unseen)"
            else:
                continue
            with self._lock:
                self.notices.append(f"frame {frame.index}: {note}")
        plays = [e for e in obs.entries if e.kind == "play"]
        if plays:
            self._inferring = plays[-1].turn_inferred

    def _came_to_rest(self, view) -> bool:
        """What the reader takes for a cover (vision.reader.covered) came with the last movement: most
        of its squares changed since the last snapshot used (the gate's `changed_squares`). A table the
        reader is unsure of everywhere, with nothing on it, changes only where a play went down.
        Before a snapshot was used there is nothing to compare with: the reader's word stands for
        photos (each one a press), and a video's first snapshot is read (a station joining a game
        in a dark room would drop every one)."""
        changed = self.gate.changed_squares(view.snapshot.size)
        if changed is None:
            return self.cfg.every_frame_is_a_press
        over = ~view.clear
        return bool((np.rot90(changed, view.turns) & over).sum() * 2 > over.sum())

    def _retry(self) -> bool:
        """Take the snapshot again once the board has stood still once more (at most `retries` times
        on one still board). False when none is left."""
        if self._retries < self.cfg.retries:
            self._retries += 1
            self.counts["retried"] += 1
            self.gate.retry()
            return True
        return False

    def _alert(self, raised: Alert | None) -> None:
        """A lost-game alert raised (or the open ones changed): said on the console's notices and
        kept in the game's meta ("camera_lost": /tournament flags it, the forwarder carries it)."""
        if raised is not None:
            with self._lock:
                self.notices.append(f"frame {raised.frame_index}: lost: {raised.what}")
        summary = self.watch.summary()
        if summary != self._flag:
            self._flag = summary
            self.link.flag(summary)

    def _retile(self, changed, frame: Frame) -> tuple[int, ...]:
        """Committed tiles the game's tile set reads as other tiles (the reader's learn: more of a
        tile read than the bag has): the plays they belong to amended by camera corrections
        on the review queue, committed like a decision, and said on the console's notices."""
        keeper = self.scorekeeper
        entries = keeper.retile(changed)
        if not entries:
            return ()
        try:
            seqs = tuple(self.link.commit(entries, frame, len(keeper.entries) - len(entries), self._sidecar(frame)))
        except (Conflict, GameError, PlacementError):
            keeper.sync(self.link.entries(), pending=len(entries))  # the record moved on: theirs stands
            return ()
        with self._lock:
            self.notices.append(f"frame {frame.index}: the tile counts re-read "
                                + ", ".join(f"{format_square(sq)} as {t}" for sq, t in sorted(changed.items()))
                                + " (for review)")
        return seqs

    def _gate(self, frame: Frame, located) -> tuple[bool, int | None, str | None]:
        """(pressed, by whom, None) when this frame is to be read; else the frame's state."""
        if located.homography is None:
            self.gate.look(frame.t, frame.image, None, located.square_px)
            return False, None, "no_board"
        if self.cfg.every_frame_is_a_press:
            # One photo per move, taken at the press: each is a snapshot; the gate has nothing to wait for.
            if self._repeat.repeated(frame.image):  # a copied file, not a press
                return False, None, "duplicate"
            return True, None, None
        with self.timings.stage("gate"):
            gate = self.gate.look(frame.t, frame.image, located.homography, located.square_px, located.quality)
        if not gate.snapshot:
            # occluded, yet the frame stands still: the board is there and its grid is not found
            self._blind = gate.state == "occluded" and gate.still
            return False, None, gate.state
        with self._lock:
            (pressed, player), self._press, self._kept = self._press, (False, None), False
        return pressed, player, None

    def _follow(self) -> None:
        """Adopt what others appended to the game since we last looked (one COUNT when nothing)."""
        if self.link.count() != len(self.scorekeeper.entries):
            self.scorekeeper.sync(self.link.entries())

    def _decide(self, fused: Fused, frame: Frame, player, pressed: bool, clear: np.ndarray):
        """The move decision on the fused snapshot, committed; on a Conflict the record is re-read
        and the decision made again from the same fused snapshot (it is fused once). Returns
        (observation, seqs)."""
        keeper = self.scorekeeper
        for _ in range(self.COMMIT_TRIES):
            obs = keeper.decide(fused, player=player, pressed=pressed, clear=clear)
            if not obs.entries:
                return obs, ()
            expect = len(keeper.entries) - len(obs.entries)
            try:
                return obs, tuple(self.link.commit(list(obs.entries), frame, expect, self._sidecar(frame)))
            except Conflict:
                # another writer got in between: decide again on the record as it now stands
                keeper.sync(self.link.entries(), pending=len(obs.entries))
            except (GameError, PlacementError) as exc:
                # the record refuses it (it changed under us in a way the decision did not see)
                keeper.sync(self.link.entries(), pending=len(obs.entries))
                return Observation((), "unclear", f"not committed: {exc}"), ()
        return Observation((), "unclear", "not committed: the game kept changing under the recorder"), ()

    def _sidecar(self, frame: Frame) -> dict:
        """What the recorder saw, kept with each entry: the frame, and the board belief behind it."""
        belief = self.scorekeeper.belief
        snap = belief.posterior() if belief is not None else None
        return {"frame_index": frame.index, "t": round(frame.t, 3), "frame": frame.path,
                "evidence": snap.board() if snap is not None else None,
                "confidence": np.round(snap.confidence(), 3).tolist() if snap is not None else None,
                "corners": self._corners}

    def finish(self) -> list[LogEntry]:
        """End of the recording: the end-of-game rack adjustments, if a player went out."""
        with self._keeper_lock:
            self._follow()
            entries = self.scorekeeper.finish()
            if entries:
                try:
                    self.link.commit_end(entries, len(self.scorekeeper.entries) - len(entries))
                except (Conflict, GameError, PlacementError):
                    # someone (the operator) ended the game meanwhile: theirs stands
                    self.scorekeeper.sync(self.link.entries(), pending=len(entries))
                    return []
        return entries

    def _maybe_preview(self, frame: Frame, located) -> None:
        """The live frame for whoever watches the preview (the sink draws the grid and the committed
        letters when the board is found, and shows the frame as it is when not)."""
        if self.preview is None or abs(frame.t - self._last_preview) * 1000.0 < self.cfg.preview_every_ms:
            return
        if not self.preview.watched:  # drawing is wasted when nobody watches the preview
            return
        self._last_preview = frame.t
        with self.timings.stage("preview"):
            self.preview.show(frame.image, located, self.scorekeeper.game.state.board.rows(), self._turns)


def _said(entry: LogEntry) -> str:
    """An entry a rack committed, in a few words for the console's notices."""
    reason = getattr(entry, "reason", "")
    return f"{entry.kind}{f': {reason}' if reason else ''}"
