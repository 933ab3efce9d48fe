"""Benchmark: 100 concurrent SSE clients on loopback each receive a move <= 100 ms after it is committed.

    python tests/bench/bench_sse.py [--clients 100] [--moves 20] [--gap-ms 250]

Runs `tilecam serve` in a subprocess on a temporary database, opens the clients (raw asyncio
sockets, so the client side adds little), then records the moves of a real shared game one
by one through the operator API. Latency per client and move = time the event was read minus
the commit time the server put into it (same machine, same clock). Writes docs/results/sse.json.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from tilecam.scoring.gcg import read_gcg  # noqa: E402

TOKEN = "bench-token-0123456789"
GAME = "doug_vs_emely.gcg"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def sse_client(port: int, game_id: int, ready: asyncio.Event, counter: list[int], n: int,
                     got: list[tuple[int, float, float]]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    first = True
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if not line.startswith(b"data: "):
                continue
            now = time.time()
            data = json.loads(line[6:])
            if first:  # the current state: this client is subscribed
                first = False
                counter[0] += 1
                if counter[0] == n:
                    ready.set()
            elif data["entry"] is not None:
                got.append((data["live"]["seq"], data["committed"], now))
    finally:
        writer.close()


def turn_request(turn) -> tuple[str, dict] | None:
    match turn.kind:
        case "play":
            return "plays", {"position": turn.position, "word": turn.word, "claimed": turn.score}
        case "withdrawn":
            return "challenges", {"outcome": "phony"}
        case "pass":
            return "passes", {}
        case "exchange":
            return "exchanges", {"count": turn.count or len(turn.exchanged or "") or 1}
    return None


async def run(args) -> dict:
    data = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
    turns = read_gcg((data / "gcg" / "liwords" / GAME).read_bytes()).turns
    requests = [r for r in map(turn_request, turns)][: args.moves]
    if None in requests:
        requests = requests[: requests.index(None)]
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--port", str(port), "--db",
                                   str(Path(tmp) / "bench.sqlite3")], cwd=REPO,
                                  env={**os.environ, "TILECAM_TOKEN": TOKEN}, stdout=subprocess.DEVNULL)
        try:
            auth = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
                deadline = time.monotonic() + 20
                while True:
                    try:
                        await http.get("/api/games")
                        break
                    except httpx.TransportError:
                        if server.poll() is not None or time.monotonic() > deadline:
                            raise RuntimeError("the server did not start") from None
                        await asyncio.sleep(0.05)
                r = await http.post("/api/games", headers=auth,
                                    json={"players": [{"name": "Doug"}, {"name": "Emely"}]})
                game_id = r.json()["id"]
                ready, counter, got = asyncio.Event(), [0], []
                clients = [asyncio.create_task(sse_client(port, game_id, ready, counter, args.clients, got))
                           for _ in range(args.clients)]
                await asyncio.wait_for(ready.wait(), 30)
                posted: dict[int, float] = {}
                for path, body in requests:
                    t0 = time.time()
                    r = await http.post(f"/api/games/{game_id}/{path}", headers=auth, json=body)
                    r.raise_for_status()
                    posted[r.json()["seqs"][-1]] = t0
                    await asyncio.sleep(args.gap_ms / 1000)
                expected = len(requests) * args.clients
                deadline = time.monotonic() + 10
                while len(got) < expected and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                for c in clients:
                    c.cancel()
        finally:
            server.terminate()
            server.wait(10)
    latencies = [(now - committed) * 1000 for _, committed, now in got]
    per_move: dict[int, list[float]] = {}
    for seq, committed, now in got:
        per_move.setdefault(seq, []).append((now - committed) * 1000)
    q = statistics.quantiles(latencies, n=100)
    return {
        "clients": args.clients,
        "moves": len(requests),
        "deliveries": len(got),
        "expected_deliveries": expected,
        "commit_to_client_ms": {"p50": round(q[49], 2), "p95": round(q[94], 2), "p99": round(q[98], 2),
                                "max": round(max(latencies), 2)},
        "within_100_ms": round(sum(lat <= 100 for lat in latencies) / expected, 4),
        "worst_client_per_move_ms": [round(max(v), 2) for _, v in sorted(per_move.items())],
        "gap_between_moves_ms": args.gap_ms,
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus".strip(),
        "python": platform.python_version(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                                 capture_output=True, text=True).stdout.strip(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--gap-ms", type=int, default=250, help="pause between moves")
    args = ap.parse_args()
    result = asyncio.run(run(args))
    out = REPO / "docs" / "results" / "sse.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    lat = result["commit_to_client_ms"]
    print(f"{result['clients']} SSE clients x {result['moves']} moves: {result['deliveries']}/"
          f"{result['expected_deliveries']} delivered; commit->client p50 {lat['p50']} ms, p95 {lat['p95']} ms, "
          f"p99 {lat['p99']} ms, max {lat['max']} ms; {result['within_100_ms']:.1%} within 100 ms")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
