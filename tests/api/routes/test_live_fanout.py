"""The SSE fan-out (api/routes/live.py): an update is made once per rack policy, not once per stream."""
from __future__ import annotations

import threading

import httpx

from apiserver import AUTH, LiveServer, SseReader, new_game
from tilecam.api.bus import BusMessage


def test_an_update_is_made_once_per_policy_whatever_the_number_of_streams(tmp_path):
    """Three public streams of one game: the service computes the public's live state once for an
    update, and each stream gets that one answer (before, each stream computed its own)."""
    with LiveServer(tmp_path / "g.sqlite3") as server, httpx.Client(base_url=server.url, timeout=10) as c:
        gid = new_game(c)
        service = server.service
        calls: list[object] = []
        real = type(service).live

        def live(*args, **kwargs):
            calls.append(args[1] if len(args) > 1 else kwargs.get("racks"))
            return real(service, *args, **kwargs)

        service.live = live   # the routes' service, watched
        streams = [SseReader(f"{server.url}/api/games/{gid}/events", limit=2).__enter__() for _ in range(3)]
        try:
            firsts = [sse.next()[2] for sse in streams]   # each stream's own first state
            assert all(f["entry"] is None for f in firsts)
            calls.clear()
            r = c.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
            assert r.status_code == 200, r.text
            got = [sse.next()[2] for sse in streams]
        finally:
            for sse in streams:
                sse.__exit__()
        assert [g["entry"]["kind"] for g in got] == ["play"] * 3
        assert got[0] == got[1] == got[2] and got[0]["live"]["fields"]["p1_score"] == "38"
        public = [p for p in calls if p is not None and not p.raw]
        assert len(public) == 1, calls


def test_a_message_makes_each_key_once_from_any_thread():
    msg = BusMessage(1, 0, "update", {})
    made: list[str] = []
    gate = threading.Event()

    def make(key: str) -> str:
        gate.wait(1)
        made.append(key)
        return key.upper()

    out: list[str] = []
    threads = [threading.Thread(target=lambda k=k: out.append(msg.once(k, lambda: make(k))))
               for k in ("public", "public", "public", "hidden")]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(5)
    assert sorted(out) == ["HIDDEN", "PUBLIC", "PUBLIC", "PUBLIC"]
    assert sorted(made) == ["hidden", "public"]
