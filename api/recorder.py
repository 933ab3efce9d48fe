"""The recorder: the one place where the stages are wired together.

frame -> board fix (tracked) -> rectified board -> stability gate -> tile read ->
oriented snapshot -> scorekeeper -> log entries -> service (SQLite + live bus).

Each stage is called in order, like a recognizer's predict(); the stages know
nothing of each other.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tilecam.capture.frame import Frame
from tilecam.scoring.events import LogEntry
from tilecam.scoring.game import GameError
from tilecam.scoring.placement import PlacementError
from tilecam.scoring.scorekeeper import Observation, Scorekeeper
from tilecam.scoring.snapshot import Snapshot, turns_to_fit
from tilecam.vision.draw import draw_grid
from tilecam.vision.stability import StabilityConfig, StabilityGate

from .store import Conflict

__all__ = ["TRIGGER_ACTIONS", "FixedBoard", "FrameOutcome", "GameLink", "PrewarpedBoard", "Reader",
           "Recorder", "RecorderConfig", "service_sink", "Timings", "TrackedBoard"]


class RecorderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    square_px: int = Field(40, description="pixels per square of the rectified board")
    every_frame_is_a_press: bool = Field(
        False, description="treat every frame as a clock press (a folder of one photo per move)")
    min_square_conf: float = Field(0.45, description="a square read with less confidence counts as unsure")
    max_unsure_squares: int = Field(
        8, description="more unsure squares than this: something lies on the board (a hand at rest); "
                       "the snapshot is not used")
    evidence_jpeg_quality: int = Field(85, description="JPEG quality of the evidence frame kept per move")
    preview_every_ms: float = Field(100.0, description="least time between two preview frames")
    self_enroll: bool = Field(
        True, description="calibrate the reader to the table as the game goes: committed tiles read "
                          "with confidence, and squares an operator corrected, become exemplars of this set")
    empty_reference: bool = Field(
        True, description="keep each square's look while empty (from the clear board before the first "
                          "play, then from squares still empty), so occupancy asks 'does it still look "
                          "empty?' and print on the board does not pass for a tile")
    enroll_min_prob: float = Field(
        0.9, gt=0.0, lt=1.0, description="a committed tile (or a square still empty) teaches the reader "
                                          "only when it was read as such with at least this probability")


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


# What a trigger means to the recorder. Hardware only reports presses; this table decides.
TRIGGER_ACTIONS = {
    "turn_end": "snapshot",     # the player hit their clock: the board they leave is their move
    "snapshot": "snapshot",     # an operator's "read the board now"
    "challenge": "notice",      # the outcome is for the operator to enter under the game's rule
    "undo": "notice",           # a held button: the operator decides what to take back
}


class Recorder:
    """Feed frames (and clock presses); committed entries go to `sink(entry, frame) -> seq`.

    A `GameLink` as the sink also keeps the recorder on the record as the store holds it:
    entries others wrote (an operator's correction, a play entered by hand) are adopted before
    each decision, and what one snapshot decided is committed in one transaction at the seq
    the decision was made on."""

    COMMIT_TRIES = 3  # decisions re-made when another writer got in first

    def __init__(self, keeper: Scorekeeper, locator, reader, sink, cfg: RecorderConfig | None = None,
                 stability: StabilityConfig | None = None, preview=None) -> None:
        self.keeper = keeper
        self.locator = locator          # update(image) -> (state, homography | None, quality)
        self.reader = reader            # read(warped) -> (Snapshot, quarter_turns | None)
        self.sink = sink
        self.cfg = cfg or RecorderConfig()
        self.gate = StabilityGate(stability)
        self.preview = preview
        self.timings = Timings()
        self._press: tuple[bool, int | None] = (False, None)
        self._lock = threading.Lock()
        self._quarter_turns: int | None = None
        self._last_preview = 0.0
        self._last_photo: np.ndarray | None = None
        self.last: FrameOutcome | None = None
        self.board_status: str | None = None
        self.camera_status: str | None = None   # set by whoever owns the frame source
        self.notices: list[str] = []
        self._calibrated_upto = 0  # log entries already looked at for operator corrections
        # Photos the record was already made from (a folder source started over after a restart):
        # history, not moves; the last of them is where the record stands.
        recorded = sink.frames() if isinstance(sink, GameLink) else []
        self._recorded = set(recorded)
        self._last_recorded = recorded[-1] if recorded else None
        if hasattr(self.reader, "calibrate_with"):
            self.reader.calibrate_with(self.cfg.self_enroll, self.cfg.empty_reference, self.cfg.enroll_min_prob)

    def on_trigger(self, trigger) -> str:
        """A hardware.Trigger (from any thread): returns what the recorder made of it."""
        action = TRIGGER_ACTIONS.get(trigger.kind, "notice")
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
                "entries": len(self.keeper.entries), "notices": list(self.notices[-5:])}

    def press(self, player: int | None = None) -> None:
        """A clock press (from any thread): snapshot at the next clear frame."""
        with self._lock:
            self._press = (True, player)
            self.gate.trigger()

    def process(self, frame: Frame) -> FrameOutcome:
        self.last = self._process(frame)
        return self.last

    def _process(self, frame: Frame) -> FrameOutcome:
        self.timings.frames += 1
        if frame.path is not None and frame.path in self._recorded:
            if frame.path == self._last_recorded:
                self.keeper.caught_up()
            return FrameOutcome(frame.index, frame.t, "recorded")
        with self.timings.stage("locate"):
            state, homography, quality = self.locator.update(frame.image)
        self.board_status = state
        self._homography = homography  # the sidecar keeps this frame's grid corners
        self._maybe_preview(frame, homography)
        if homography is None:
            self.gate.update(frame.t, None, 0.0)
            return FrameOutcome(frame.index, frame.t, "no_board")
        if self.cfg.every_frame_is_a_press:
            # One photo per move, taken at the press: each is a snapshot; the gate has nothing to wait for.
            # A camera never takes the same photo twice (sensor noise): a frame equal to the last one
            # is a copied file, not a press, and must not become a pass that flips the turn order.
            last, self._last_photo = self._last_photo, frame.image
            if last is not None and last.shape == frame.image.shape and np.array_equal(last, frame.image):
                return FrameOutcome(frame.index, frame.t, "duplicate")
            pressed, player = True, None
        else:
            # Every frame: a small warp is all the gate compares; the full one waits for a snapshot.
            small = 2 * self.gate.cfg.compare_px
            scale = np.diag([small / (15 * self.cfg.square_px)] * 2 + [1.0])
            with self.timings.stage("gate"):
                board = cv2.warpPerspective(frame.image, scale @ homography, (small, small), flags=cv2.INTER_AREA)
                gate = self.gate.update(frame.t, board, quality)
            if not gate.snapshot:
                return FrameOutcome(frame.index, frame.t, gate.state)
            with self._lock:
                pressed, player = self._press
                self._press = (False, None)
        n = self.cfg.square_px * 15
        with self.timings.stage("warp"):
            warped = cv2.warpPerspective(frame.image, homography, (n, n), flags=cv2.INTER_LINEAR)
        with self.timings.stage("read"):
            snap, quarter_turns = self.reader.read(warped)
        snap = replace(snap, t=frame.t, frame_index=frame.index)  # keeps the letters' rotations
        self._follow()
        # The first play fixes the board's orientation: until a play is committed it follows the tiles
        # in view; afterwards each read is turned to lie on the committed tiles, so a turntable turned
        # half round between turns (the grid looks the same, nothing is re-detected) still reads right.
        committed = self.keeper.game.state.board
        if len(committed):
            self._quarter_turns = turns_to_fit(snap, committed, self._quarter_turns or 0, quarter_turns)
        elif quarter_turns is not None:
            self._quarter_turns = quarter_turns
        unsure = snap.confidence() < self.cfg.min_square_conf
        # Whatever lies on the board reads as unsure squares with a rim of wrong but confident ones;
        # away from it the board is in clear view.
        clear = ~cv2.dilate(unsure.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if int(unsure.sum()) > self.cfg.max_unsure_squares:
            if pressed:  # keep the press for the next clear frame, and what it did show
                self.press(player)
                k = self._quarter_turns or 0
                with self.timings.stage("score"):
                    self.keeper.glimpse(snap.turned(k), np.rot90(clear, k))
            return FrameOutcome(frame.index, frame.t, "occluded")
        k = self._quarter_turns or 0
        snap = snap.turned(k)  # upright: the board's rows read as the players read them
        with self.timings.stage("score"):
            obs, seqs = self._decide(snap, frame, player, pressed, np.rot90(clear, k))
        if hasattr(self.reader, "calibrate") and obs.status != "behind":
            with self.timings.stage("calibrate"):
                self._calibrate(snap, obs, k)
        return FrameOutcome(frame.index, frame.t, "snapshot", obs, seqs)

    def _follow(self) -> None:
        """Adopt what others appended to the game since we last looked (one COUNT when nothing)."""
        if isinstance(self.sink, GameLink) and self.sink.count() != len(self.keeper.entries):
            self.keeper.sync(self.sink.entries())

    def _decide(self, snap: Snapshot, frame: Frame, player, pressed: bool, clear: np.ndarray):
        """The scorekeeper's decision on this snapshot, committed; returns (observation, seqs)."""
        if not isinstance(self.sink, GameLink):
            obs = self.keeper.observe(snap, player=player, pressed=pressed, clear=clear)
            return obs, tuple(self.sink(entry, frame) for entry in obs.entries)
        for _ in range(self.COMMIT_TRIES):
            obs = self.keeper.observe(snap, player=player, pressed=pressed, clear=clear)
            if not obs.entries:
                return obs, ()
            expect = len(self.keeper.entries) - len(obs.entries)
            try:
                return obs, tuple(self.sink.commit(list(obs.entries), frame, expect, self._sidecar(frame)))
            except Conflict:
                # another writer got in between: decide again on the record as it now stands
                self.keeper.sync(self.sink.entries(), pending=len(obs.entries))
            except (GameError, PlacementError) as exc:
                # the record refuses it (it changed under us in a way the decision did not see)
                self.keeper.sync(self.sink.entries(), pending=len(obs.entries))
                return Observation((), "unclear", f"not committed: {exc}"), ()
        return Observation((), "unclear", "not committed: the game kept changing under the recorder"), ()

    def _sidecar(self, frame: Frame) -> dict:
        """What the recorder saw, kept with each entry: the frame, and the evidence board behind it."""
        snap = self.keeper.evidence.posterior() if self.keeper.evidence is not None else None
        return {"frame_index": frame.index, "t": round(frame.t, 3), "frame": frame.path,
                "evidence": snap.board() if snap is not None else None,
                "confidence": np.round(snap.confidence(), 3).tolist() if snap is not None else None,
                "corners": self._corners()}

    def _corners(self) -> list[list[float]] | None:
        """The outer grid corners in the frame, in the game's orientation (top-left, top-right,
        bottom-right, bottom-left), so an evidence photo can be rectified the way the board reads."""
        h = getattr(self, "_homography", None)
        if h is None:
            return None
        from tilecam.vision.rectify import grid_corners
        image = cv2.perspectiveTransform(grid_corners(self.cfg.square_px)[:, None], np.linalg.inv(h))[:, 0]
        # The game board is the warped image turned by k quarter turns (see `Snapshot.turned`): its corner i
        # is the image's corner i + k.
        return np.round(np.roll(image, -(self._quarter_turns or 0), axis=0), 2).tolist()

    def _calibrate(self, snap: Snapshot, obs: Observation, k: int) -> None:
        """Teach the reader what the game now holds (docs/recording.md, step 6)."""
        # Before the first play the board is clear: that play must cover the centre, so while
        # nothing is committed and the centre reads empty, no play is on the board (print read
        # as letters elsewhere is what the reference will put right).
        board = self.keeper.game.state.board
        clear_board = not len(board) and float(snap.probs[7, 7, snap.classes.index(".")]) >= self.cfg.enroll_min_prob
        # squares of plays an operator corrected since the last call: the operator's word is the label
        new = self.keeper.entries[self._calibrated_upto:]
        self._calibrated_upto = len(self.keeper.entries)
        corrected = [t.square.row * 15 + t.square.col for e in new
                     if e.kind == "correction" and e.by != self.keeper.camera_name and e.replacement.kind == "play"
                     for t in e.replacement.placement.tiles]
        if obs.status == "unclear" and not clear_board and not corrected:
            return
        # the warped image shows the game board turned back by k: image square i holds game square order[i]
        order = np.rot90(np.arange(225).reshape(15, 15), k=-k).ravel()
        image_square = np.argsort(order)
        game = "".join(board.rows())
        self.reader.calibrate("".join(game[g] for g in order), [int(image_square[g]) for g in corrected],
                              board_clear=clear_board, learn=bool(obs.entries) or bool(corrected))

    def finish(self) -> list[LogEntry]:
        """End of the recording: the end-of-game rack adjustments, if a player went out."""
        self._follow()
        entries = self.keeper.finish()
        if isinstance(self.sink, GameLink) and entries:
            try:
                self.sink.commit(entries, None, len(self.keeper.entries) - len(entries))
            except (Conflict, GameError, PlacementError):
                # someone (the operator) ended the game meanwhile: theirs stands
                self.keeper.sync(self.sink.entries(), pending=len(entries))
                return []
            return entries
        for e in entries:
            self.sink(e, None)
        return entries

    def _maybe_preview(self, frame: Frame, homography: np.ndarray | None) -> None:
        """The live frame for whoever watches the preview: with the grid and the committed letters
        when the board is found, as it is when not (framing and focusing the camera needs that)."""
        if self.preview is None or abs(frame.t - self._last_preview) * 1000.0 < self.cfg.preview_every_ms:
            return
        if not self.preview.viewers:  # drawing is wasted when nobody watches the preview
            return
        self._last_preview = frame.t
        with self.timings.stage("preview"):
            if homography is None:
                self.preview.publish(frame.image)
            else:
                self.preview.publish(draw_grid(frame.image, homography, self.cfg.square_px,
                                               self.keeper.game.state.board.rows(), self._quarter_turns or 0))


class GameLink:
    """The recorder's line to its game in the store (through the service): what others wrote, and
    one transaction per decision holding the entries, their evidence frame and sidecar data.
    Also a plain sink, `link(entry, frame) -> seq`."""

    def __init__(self, service, game_id: int, jpeg_quality: int = 85, on_commit=None) -> None:
        self.service = service
        self.game_id = game_id
        self.jpeg_quality = jpeg_quality
        self.on_commit = on_commit  # called with the new seqs after each commit (e.g. write the sidecar)

    def count(self) -> int:
        return self.service.store.count(self.game_id)

    def entries(self) -> list[LogEntry]:
        return [e.entry for e in self.service.store.entries(self.game_id)]

    def frames(self) -> list[str]:
        """The image files the game's entries were read from, in log order."""
        return [e.sidecar["frame"] for e in self.service.store.entries(self.game_id)
                if e.sidecar and e.sidecar.get("frame")]

    def commit(self, entries: list[LogEntry], frame: Frame | None, expect: int | None,
               sidecar: dict | None = None) -> list[int]:
        """Raises store.Conflict when the game no longer has `expect` entries."""
        jpeg = None
        if frame is not None:
            ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
            jpeg = buf.tobytes() if ok else None
        seqs = self.service.commit(self.game_id, entries, expect=expect, jpeg=jpeg, sidecar=sidecar)
        if self.on_commit is not None:
            self.on_commit(seqs)
        return seqs

    def __call__(self, entry: LogEntry, frame: Frame | None) -> int:
        return self.commit([entry], frame, None)[0]


def service_sink(service, game_id: int, jpeg_quality: int = 85) -> GameLink:
    """Commit each entry to the service (SQLite + live bus) with the frame it was read from."""
    return GameLink(service, game_id, jpeg_quality)


# ---- adapters: each stage's own API -> what the recorder calls --------------------------

class FixedBoard:
    """A camera that does not move and corners given once (a calibration, or a pre-warped frame)."""

    def __init__(self, corners: np.ndarray, square_px: int) -> None:
        from tilecam.vision.rectify import homography_from_corners
        self.homography = homography_from_corners(np.asarray(corners, np.float32), square_px)

    def update(self, image: np.ndarray):
        return "tracked", self.homography, 1.0


class PrewarpedBoard:
    """Frames that already show the board from above, edge to edge (ScrabScrap's warps): the
    corners come from the first frame, then stay (a FixedBoard)."""

    def __init__(self, square_px: int) -> None:
        self.square_px = square_px
        self._fixed: FixedBoard | None = None

    def update(self, image: np.ndarray):
        if self._fixed is None:
            from tilecam.vision.classify import prewarped_corners
            self._fixed = FixedBoard(prewarped_corners(image), self.square_px)
        return self._fixed.update(image)


class TrackedBoard:
    """vision.track's GridKeeper over a BoardTracker -> what the recorder calls: (state, the warp
    to our square size, quality). The keep-or-accept policy and its thresholds are the tracker's
    (TrackConfig); this only turns fixes into warps, once per fix, not per frame."""

    def __init__(self, tracker, square_px: int) -> None:
        from tilecam.vision.track import GridKeeper
        self.keeper = GridKeeper(tracker)
        self.square_px = square_px
        self._cached: tuple[object, np.ndarray] | None = None

    def _homography(self, fix) -> np.ndarray:
        if self._cached is None or self._cached[0] is not fix:
            from tilecam.vision.rectify import homography_from_corners
            self._cached = (fix, homography_from_corners(fix.corners, self.square_px))
        return self._cached[1]

    def update(self, image: np.ndarray):
        kept = self.keeper.update(image)
        if kept.fix is None:
            return kept.status, None, 0.0
        return kept.status, self._homography(kept.fix), kept.quality


class Reader:
    """vision.classify.TileReader -> (snapshot, quarter turns that make the tiles upright).

    Calibrates the reader to the table as the game goes (``calibrate``, called by the recorder
    after each snapshot it used): the clear board before the first play becomes the empty-board
    reference, squares still empty keep it up to date under changing light, and committed
    tiles read with confidence (and every square an operator corrected) become exemplars of
    this tile set."""

    def __init__(self, tile_reader) -> None:
        self.base = tile_reader
        self.tile_reader = tile_reader
        self.enrollment = None
        self.reference = False
        self.min_prob = 0.9
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def calibrate_with(self, self_enroll: bool, reference: bool, min_prob: float) -> None:
        from tilecam.vision.enroll import TableEnrollment
        self.min_prob = min_prob
        self.reference = reference
        # a reader given a tile set (tilecam enroll) keeps it; the table adds to nothing then
        self.enrollment = TableEnrollment(self.base, min_prob=min_prob) \
            if self_enroll and self.base.tileset is None else None

    def read(self, warped: np.ndarray):
        r = self.tile_reader.read(warped)
        self._last = (warped, r.snapshot.probs.reshape(225, -1))
        turns = None if r.orientation_deg is None else int(round(r.orientation_deg / 90.0)) % 4
        return r.snapshot, turns

    def calibrate(self, labels: str, operator_squares=(), board_clear: bool = False, learn: bool = True) -> None:
        """``labels``: the committed board in the last read's orientation (225 characters);
        ``learn``: the snapshot committed something (exemplars are taken only then, so a board
        standing still does not fill the bags with copies of itself)."""
        if self._last is None:
            return
        warped, probs = self._last
        empty_p = probs[:, self.tile_reader.classes.index(".")]
        still_empty = np.array([ch == "." for ch in labels]) & (empty_p >= self.min_prob)
        if self.reference:
            from tilecam.vision.reference import EmptyBoardRef
            ref = self.tile_reader.empty_ref
            if ref is None and board_clear:
                ref = EmptyBoardRef.from_frame(warped, source="recorder")
                self.base.empty_ref = self.tile_reader.empty_ref = ref
            elif ref is not None and still_empty.any():
                ref.update(warped, still_empty.reshape(15, 15))
        if self.enrollment is not None and learn and self.enrollment.add(warped, labels, probs, operator_squares):
            tileset = self.enrollment.tileset()
            if tileset is not None:
                self.tile_reader = self.base.with_tileset(tileset)
