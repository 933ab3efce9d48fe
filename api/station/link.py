"""The recorder's line to its game: GameLink (through the game service, into the store) and
MemoryLink (the same interface in memory, for benches and tests). The evidence frame of each
commit is encoded by the sink the link is given (station/sinks.py), never by the recorder."""
from __future__ import annotations

from tilecam.api.errors import Conflict
from tilecam.capture.frame import Frame
from tilecam.scoring import LogEntry

from tilecam.api.service.view import LEARNED_META, LOST_META, learned_meta
from .sinks import JpegEvidence

__all__ = ["GameLink", "MemoryLink"]


class GameLink:
    """The recorder's line to its game in the store (through the service): what others wrote, and
    one transaction per decision holding the entries, their evidence frame and sidecar data. The
    one sink interface (MemoryLink keeps the same in memory, for benches and tests)."""

    def __init__(self, service, game_id: int, evidence=None, on_commit=None) -> None:
        self.service = service
        self.game_id = game_id
        self.evidence = evidence or JpegEvidence()  # image -> bytes kept with the commit
        self.on_commit = on_commit  # called with the new seqs after each commit (e.g. write the sidecar)

    def count(self) -> int:
        return self.service.count(self.game_id)

    def entries(self) -> list[LogEntry]:
        return [e.entry for e in self.service.entries(self.game_id)]

    def frames(self) -> list[str]:
        """The image files the game's entries were read from, in log order."""
        return [e.sidecar["frame"] for e in self.service.entries(self.game_id)
                if e.sidecar and e.sidecar.get("frame")]

    def flag(self, lost: str | None) -> None:
        """The recorder's lost-game alert (None: cleared), kept in the game's meta as LOST_META."""
        self.service.set_meta(self.game_id, {LOST_META: lost})

    def learned(self, tiles) -> None:
        """The tiles the table learned outside the moves (its tile check: scoring.trust's `given`),
        a row of the game's table log, so the live state and a restart see them."""
        self.service.set_learned(self.game_id, tiles)

    def commit(self, entries: list[LogEntry], frame: Frame | None, expect: int | None,
               sidecar: dict | None = None) -> list[int]:
        """Raises store.Conflict when the game no longer has `expect` entries."""
        jpeg = self.evidence(frame.image) if frame is not None else None
        seqs = self.service.commit(self.game_id, entries, expect=expect, jpeg=jpeg, sidecar=sidecar)
        if self.on_commit is not None:
            self.on_commit(seqs)
        return seqs

    def rack(self, seen, frame: Frame | None, review: bool = False, *, read=None, breaks: str | None = None) -> int:
        """A settled rack read (scoring.racks.RackSeen) kept with the game, its frame encoded by the
        evidence sink, `review`: for the operator console's review; `read`: the read as the camera
        made it when scoring took the reader's runner-ups (`seen` being the rack under the set's
        counts); `breaks`: the read breaks the counts and no runner-up mends it (never on air as
        read). The service publishes it live. Returns its seq in the game's rack log."""
        jpeg = self.evidence(frame.image) if frame is not None else None
        data = seen.to_json()
        if review:
            data["review"] = True
        if read is not None:
            data["read"] = list(read.tiles)
        if breaks:
            data["breaks"] = breaks
        return self.service.add_rack(self.game_id, data, jpeg)

    def commit_end(self, entries: list[LogEntry], expect: int | None) -> list[int]:
        """The end of the game: its rack points, and the clock's overtime penalties in the same
        transaction (a shown result never changes after the rack points). Raises as `commit`."""
        seqs = self.service.commit_end(self.game_id, entries, expect=expect)
        if self.on_commit is not None:
            self.on_commit(seqs)
        return seqs


class MemoryLink(GameLink):
    """A game log in memory, as GameLink's interface: `log` holds the committed entries (and
    `sidecars` what the recorder saw); `expect` is checked as the store checks it."""

    def __init__(self, log: list | None = None) -> None:
        self.log: list[LogEntry] = log if log is not None else []
        self.sidecars: list[dict | None] = []
        self.on_commit = None
        self.meta: dict[str, str] = {}
        self.racks: list = []                        # the RackSeen kept, in order
        self.rack_frames: list[Frame | None] = []   # the frame each was read from
        self.rack_reviews: list[bool] = []          # each marked for review
        self.rack_breaks: list[str | None] = []     # each read that breaks the set's counts: why

    def rack(self, seen, frame: Frame | None, review: bool = False, *, read=None, breaks: str | None = None) -> int:
        self.racks.append(seen)
        self.rack_reviews.append(review)
        self.rack_breaks.append(breaks)
        self.rack_frames.append(frame)
        return len(self.racks) - 1

    def flag(self, lost: str | None) -> None:
        if lost is None:
            self.meta.pop(LOST_META, None)
        else:
            self.meta[LOST_META] = lost

    def learned(self, tiles) -> None:
        self.meta[LEARNED_META] = learned_meta(tiles)

    def count(self) -> int:
        return len(self.log)

    def entries(self) -> list[LogEntry]:
        return list(self.log)

    def frames(self) -> list[str]:
        return [s["frame"] for s in self.sidecars if s and s.get("frame")]

    def commit(self, entries: list[LogEntry], frame: Frame | None, expect: int | None,
               sidecar: dict | None = None) -> list[int]:
        if expect is not None and expect != len(self.log):
            raise Conflict(f"the game has {len(self.log)} entries, not {expect}")
        start = len(self.log)
        self.log.extend(entries)
        self.sidecars.extend([sidecar] * len(entries))
        return list(range(start, len(self.log)))

    def commit_end(self, entries: list[LogEntry], expect: int | None) -> list[int]:
        return self.commit(entries, None, expect)  # no clock in memory
