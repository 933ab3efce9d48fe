"""The recorder's watch on itself: a game the camera stops following is never lost in silence.

`LostWatch` is fed what each frame did (the gate's state, a snapshot dropped as covered, a snapshot
decided) and raises an alert the moment the record stops following the board:

* **unexplained**: a decided snapshot leaves tiles on the board, read with confidence, that no
  committed play explains (a play it could not decode, plays missed while the gate stood still);
* **unread**: a play the camera could not read (a guess: letters the unseen tiles cannot supply, or a
  certainty under `[decode] hold_below`), held over `[decode] hold_snapshots` reads and never
  committed (scoring/scorekeeper/hold.py): its squares, until a snapshot reads it or a person enters it;
* **no_snapshot**: hands came and went over the board `hand_visits` times over `no_snapshot_s` and
  the gate took no snapshot (the board is never judged still long enough). A hand laying a play
  tile by tile comes and goes several times within a turn, the board still a moment between (less
  than the gate's still time: a half-laid play is no snapshot), and the board then rests: a turn,
  not a lost game (issue 36);
* **dropped**: `max_dropped` snapshots in a row thrown away as covered (something lies on the
  board, or the cover test trips on this table);
* **restless**: the board judged moving for `restless_s` without a break (sensor noise or a
  flickering lamp taken for hands);
* **blind**: the frame stands still but the board's grid is not found where it was (or fits too
  poorly) for `blind_s`: said as what the locator saw, a board elsewhere (turned where the grid is
  not found again, a dark board in a dark room) or no board at all (the camera knocked off it);
* **no_board**: no board has been found in the frames for `no_board_s` (a station started over a
  table top, a camera pointed away before the game): without it the watch only began once a grid
  was found, and such a station said nothing for as long as it ran. A folder of one photo per move
  has no time between its photos to judge by: there it is `no_board_photos` photos in a row with no
  board (`photo`), the only alert such a source can raise from its frames (issue 43).

An alert stands until what raised it is over (a snapshot that leaves no unexplained tiles, a
snapshot decided, a still frame); each is kept with when it was raised and cleared. The recorder
surfaces the open ones: its status (the console, /api/status), the game's meta ("camera_lost",
which /tournament flags and the forwarder carries to the central), the status LED and
`tilecam record`'s last lines and exit status.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from tilecam.api.settings import LostConfig  # the tree holds it: the web never imports the station

__all__ = ["Alert", "LostConfig", "LostWatch"]


@dataclass
class Alert:
    kind: str           # "unexplained" | "unread" | "no_snapshot" | "dropped" | "restless" | "blind" | "no_board"
    what: str           # what the camera sees, in words
    frame_index: int
    t: float
    cleared_at: int | None = None

    def as_dict(self) -> dict:
        return {"kind": self.kind, "what": self.what, "frame_index": self.frame_index, "t": round(self.t, 3),
                "cleared_at": self.cleared_at}


@dataclass
class LostWatch:
    cfg: LostConfig = field(default_factory=LostConfig)
    alerts: list[Alert] = field(default_factory=list)   # every alert raised, open or cleared
    # the gate's still time (seconds): a board still this long was judged still, and a snapshot not
    # taken then is a board unchanged since the last (a hand passed over it), not one never still
    still_s: float | None = None
    _still_since: float | None = None
    _visits: int = 0            # moving spells that ended in a still board, since the last snapshot
    _first_visit: float | None = None   # when the first of them ended
    _was_moving: bool = False
    _moving_since: float | None = None
    _dropped: int = 0
    _blind_since: float | None = None
    _absent: tuple[float, int, str, int] | None = None   # no board since: (t, frame, wall clock, frames)

    @property
    def open(self) -> list[Alert]:
        return [a for a in self.alerts if a.cleared_at is None]

    def summary(self) -> str | None:
        """The open alerts in one line, or None."""
        return "; ".join(a.what for a in self.open) or None

    def _raise(self, kind: str, what: str, index: int, t: float) -> Alert | None:
        for a in self.open:
            if a.kind == kind:
                a.what = what   # what it sees now
                return None
        alert = Alert(kind, what, index, t)
        self.alerts.append(alert)
        return alert

    def _clear(self, kind: str, index: int) -> None:
        for a in self.open:
            if a.kind == kind:
                a.cleared_at = index

    def frame(self, index: int, t: float, state: str, in_view: bool = True) -> Alert | None:
        """A frame the gate judged (state: "moving", "clear", "occluded", "no_board" (no grid found
        yet), "blind" (occluded yet still), or "snapshot" when the gate took one; `in_view`: the
        locator saw a board in this frame, when blind). Returns the alert raised, if any."""
        raised = None
        if state == "no_board":
            return self._no_board(index, t)
        self._board_found(index)
        if state == "blind":
            if self._blind_since is None:
                self._blind_since = t
            if t - self._blind_since >= self.cfg.blind_s:
                what = ("the board is in view but its grid is not found where it was (the board moved or "
                        "turned?)" if in_view else
                        "no board in view where it was (the camera moved off the board, or something covers it)")
                return self._raise("blind", f"{what} for {t - self._blind_since:.0f} s", index, t)
            return None
        if state in ("clear", "snapshot", "moving"):
            self._blind_since = None
            self._clear("blind", index)
        if state == "moving":
            if not self._was_moving or self._moving_since is None:
                self._moving_since = t
            self._was_moving = True
            if t - self._moving_since >= self.cfg.restless_s:
                raised = self._raise("restless", f"the board has not stood still for {t - self._moving_since:.0f} s",
                                     index, t)
            return raised
        if self._was_moving and state in ("clear", "snapshot"):
            self._visits += 1   # something moved over the board, and it stands still again
            if self._first_visit is None:
                self._first_visit = t
        if self._was_moving or self._still_since is None:
            self._still_since = t
        self._was_moving, self._moving_since = False, None
        self._clear("restless", index)
        if state != "snapshot" and self.still_s is not None and t - self._still_since >= self.still_s:
            self._visits, self._first_visit = 0, None   # judged still long enough: nothing new to take
        if state == "snapshot":
            self._visits, self._first_visit = 0, None
            self._clear("no_snapshot", index)
        elif self._visits >= self.cfg.hand_visits and t - self._first_visit >= self.cfg.no_snapshot_s:
            raised = self._raise("no_snapshot", f"something moved over the board {self._visits} times and no "
                                                "snapshot was taken: the board was never judged still long enough",
                                 index, t)
        return raised

    def photo(self, index: int, t: float, board: bool) -> Alert | None:
        """A photo of a folder of one photo per move (each one a press; no moving or still between
        them): `board`, whether the locator found a board in it. `no_board_photos` photos in a row
        without one raise no_board; a photo with a board clears it."""
        if not board:
            return self._no_board(index, t, photos=True)
        self._board_found(index)
        return None

    def _no_board(self, index: int, t: float, photos: bool = False) -> Alert | None:
        if self._absent is None:
            self._absent = (t, index, time.strftime("%H:%M:%S"), 0)
        since, first, wall, n = self._absent
        self._absent = (since, first, wall, n + 1)
        # the words never change while it stands: the meta is written once
        if photos and n + 1 >= self.cfg.no_board_photos:
            return self._raise("no_board", f"no board in {self.cfg.no_board_photos} photos in a row since {wall} "
                                           f"(frame {first}): the camera finds no board's grid", index, t)
        if not photos and t - since >= self.cfg.no_board_s:
            return self._raise("no_board", f"no board in view since {wall} (frame {first}): the camera "
                                           "finds no board's grid", index, t)
        return None

    def _board_found(self, index: int) -> None:
        self._absent = None
        self._clear("no_board", index)

    def dropped(self, index: int, t: float) -> Alert | None:
        """A snapshot thrown away as covered."""
        self._dropped += 1
        if self._dropped >= self.cfg.max_dropped:
            return self._raise("dropped", f"{self._dropped} snapshots in a row dropped as covered", index, t)
        return None

    def decided(self, index: int, t: float, unexplained: list[str], unread: list[str] = ()) -> Alert | None:
        """A snapshot reached the decoder; `unexplained`: the squares (as written, "H8") of tiles read
        with confidence that no committed play explains after its decision; `unread`: those of a play
        the camera could not read (Scorekeeper.unread), no tiles committed."""
        self._dropped = 0
        self._clear("dropped", index)
        raised = None
        if unread:
            raised = self._raise("unread", f"the camera could not read this play ({', '.join(unread[:8])}"
                                           f"{' ...' if len(unread) > 8 else ''}): no tiles committed; enter it "
                                           "by hand", index, t)
        else:
            self._clear("unread", index)
        if len(unexplained) >= self.cfg.min_unexplained:
            shown = ", ".join(unexplained[:8]) + (" ..." if len(unexplained) > 8 else "")
            return self._raise("unexplained", f"{len(unexplained)} tiles on the board that no recorded play "
                                              f"explains ({shown})", index, t) or raised
        self._clear("unexplained", index)
        return raised
