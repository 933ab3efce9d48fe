"""The scorekeeper: turns stable snapshots and clock presses into log entries.

Pure bookkeeping, no pixels: the recorder hands it snapshots already read and oriented. Two
steps: `fuse` adds a snapshot to the board belief (once per snapshot), and `decide` makes the move
decision from the fused belief and the game as it stands, with `decode_move`: it appends events to
the game and amends misreads with Correction entries (never by rewriting the log). `decide` can be
retried on the same fused snapshot after the game changed under it (another writer got in first);
`observe` is the two in one.

One object, `Scorekeeper`, that the recorder talks to; each of its jobs in a file:

    keeper.py       Scorekeeper: the entry points, each handing over to its job below
    state.py        the log every job shares (the game, its entries) and `sync`, the log as the
                    store holds it; what each job remembers is a part its own module owns
                    (credit.Turns, fuse.Fusing, resume.Replay, decide.Deciding, hold.Holding,
                    join_game.Joins, redecide.Redeciding), changed only through its methods
    outcome.py      Observation (what it made of a snapshot), Fused (a snapshot fused)
    fuse.py         fusing a snapshot into the board belief; a glimpse at a covered press; what the
                    belief holds that the record does not (unexplained)
    resume.py       a resumed source replaying the record's history (behind, here, beyond)
    decide.py       deciding the move a snapshot shows; the tile check before the first play
    join_game.py    joining a game: more new tiles than a turn lays, explained as plays
    redecide.py     the last play decided again when later boards contradict it
    credit.py       crediting plays to players; re-crediting one from a clock press
    misreads.py     committed tiles read again (over more frames, or retiled by the tile set)
    rack_reads.py   what the rack cameras add: the rack a play came from, exchanges, late reads
    end_racks.py    the end: the rack adjustments when a player went out
"""
from .keeper import Scorekeeper
from .outcome import Fused, Observation

__all__ = ["Fused", "Observation", "Scorekeeper"]
