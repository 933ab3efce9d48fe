"""Benchmark (issue 22): 40 stations forward real games to ONE central `tilecam serve` on
PostgreSQL while 500 SSE clients watch over two service replicas.

    python tests/bench/bench_tournament.py [--stations 40] [--turn-s 115] [--speedup 10] [--clients 500]
                                           [--stress 1,0.5,0.25,0.12] [--stress-s 30] [--workers 4]

Real speed: a 25-minute-a-side tournament game has ~26 turns, so 50 min / 26 ~ 115 s per turn
(--turn-s); at --speedup 10 each station commits one entry every 11.5 s. The stress steps then
commit one entry every N seconds per station (0.12 s: ~330 entries/s offered) to find the ceiling.

Set-up: PostgreSQL from tests/pgserver.py; replica 1 (`tilecam serve`, the one the stations
forward to) and replica 2 (another `tilecam serve` on the same database, another port: it learns
of entries by LISTEN/NOTIFY). Stations run as threads in --workers subprocesses of this script
(`--worker`): each station has its own SQLite file, a recorder GameService writing it as
`tilecam run`'s recorder does (service.commit with expect, the evidence JPEG and a sidecar), and
the real Forwarder (api/station/forwarder.py) on a store connection of its own. Games come from
../shared/data/gcg/**/*.gcg, relative to the repo (TILECAM_SHARED_DATA overrides it); station i
plays game i, i+40, ... (mod 67) round after round.

Per phase (a round: every station starts new games at its table): the games are created, the
central's mirrors are waited for, then SSE clients subscribe (one observer per game on replica 1;
in the real-speed phase also --clients spread over both replicas) and the stations commit on
their schedule (each with a random offset inside its interval). Latency = the SSE client's read
time minus the station's time.time() when service.commit returned (one machine, one clock).
After each phase the central's log of every game is compared with the station's (entries,
sidecars, frames): every entry once, in order. Writes docs/results/tournament.json.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "bench"))

import httpx  # noqa: E402

from bench_sse import free_port  # noqa: E402

DIRECTOR = "director-token-0123456789abcdef"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def shared_data() -> Path:
    return Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))


def quantiles(values: list[float]) -> dict | None:
    if not values:
        return None
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, max(0, math.ceil(q * len(v)) - 1))]  # nearest rank
    return {"n": len(v), "p50": round(pick(0.50), 1), "p95": round(pick(0.95), 1), "p99": round(pick(0.99), 1),
            "max": round(v[-1], 1)}


# ---------------------------------------------------------------------------------------------
# The station worker: `--worker`, driven by JSON lines on stdin, answering JSON lines on stdout.

def load_game(path: str):
    from tilecam.scoring.gcg import choose_rules, read_gcg, record_from_gcg
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.tiles import DISTRIBUTIONS

    gcg = read_gcg(Path(path).read_bytes())
    rules = choose_rules("auto", gcg)
    record, _, _ = record_from_gcg(gcg, get_profile(rules), DISTRIBUTIONS["en"], rules=rules)
    return record


def sidecar(rng: random.Random, k: int) -> dict:
    # About the size of the recorder's (api/station/recorder.py _sidecar): the board read and 15x15 confidences.
    return {"frame_index": k * 25, "t": round(k * 11.5, 3), "frame": None,
            "evidence": ["." * 15] * 15, "confidence": [[round(rng.random(), 3) for _ in range(15)] for _ in range(15)],
            "corners": [[100.0, 80.0], [1180.0, 82.0], [1178.0, 900.0], [102.0, 898.0]]}


class Station:
    def __init__(self, spec: dict, central: str) -> None:
        from tilecam.api.bus import Bus
        from tilecam.api.station.forwarder import Central, Forwarder
        from tilecam.api.service import GameService
        from tilecam.api.store import open_store

        self.name, self.table = spec["name"], spec["table"]
        self.recorder = GameService(open_store(spec["db"]), Bus(8))   # the recorder's, as in tilecam run
        self._fw_store = open_store(spec["db"])                       # the forwarder's own connection
        self.central = Central(central, self.name, spec["token"])
        self.errors: list[str] = []
        self.forwarder = Forwarder(GameService(self._fw_store, Bus(1)), self.central,
                                   say=lambda m: self.errors.append(m)).start()
        self.games: list[tuple[int, object]] = []  # (local id, record) of this phase

    def close(self) -> None:
        self.forwarder.stop()
        self.recorder.store.close()
        self._fw_store.close()


def worker() -> None:
    plan = json.loads(sys.stdin.readline())
    out = lambda obj: print(json.dumps(obj), flush=True)
    stations = [Station(spec, plan["central"]) for spec in plan["stations"]]
    jpegs = [Path(p).read_bytes() for p in plan["frames"]]
    records: dict[str, object] = {}
    out({"ready": len(stations)})
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "quit":
            break
        if cmd["cmd"] == "prepare":
            for st in stations:
                st.games = []
                for path in cmd["games"][st.name]:
                    rec = records.get(path) or records.setdefault(path, load_game(path))
                    row = st.recorder.create_game([(p.name, p.nick) for p in rec.players], rec.rules, rec.lang,
                                                  meta={"created_by": "tilecam run", "table": str(st.table)})
                    st.games.append((row.id, rec))
            # The central's mirror exists before the first entry (as a game set up before its first move).
            mapping, deadline = [], time.monotonic() + 120
            for st in stations:
                while True:
                    uids = {gid: st.recorder.game(gid).meta.get("station_uid") for gid, _ in st.games}
                    if all(uids.values()):
                        status, answer = st.central.call("GET")
                        held = {g["uid"]: g["game_id"] for g in answer.get("games", [])}
                        if all(u in held for u in uids.values()):
                            mapping += [{"station": st.name, "local": gid, "uid": uids[gid], "central": held[uids[gid]],
                                         "entries": len(rec.events)} for gid, rec in st.games]
                            break
                    if time.monotonic() > deadline:
                        raise SystemExit(f"station {st.name}: the central never got its games ({st.errors[-3:]})")
                    time.sleep(0.1)
            out({"prepared": mapping})
        elif cmd["cmd"] == "go":
            commits: list[list] = []
            lock = threading.Lock()

            def play(st: Station, index: int) -> None:
                rng = random.Random(f"{st.name} {cmd['t0']}")
                t = cmd["t0"] + rng.uniform(0, cmd["interval"])
                mine = []
                try:
                    for gid, rec in st.games:
                        for k, ev in enumerate(rec.events):
                            time.sleep(max(0.0, t - time.time()))
                            st.recorder.commit(gid, [ev], expect=k, sidecar=sidecar(rng, k),
                                               jpeg=jpegs[(index + k) % len(jpegs)] if jpegs else None)
                            mine.append([st.name, gid, k, time.time()])  # the local commit has returned
                            t += cmd["interval"]
                except Exception as exc:  # reported, not lost with the thread
                    st.errors.append(f"commit failed: {exc!r}")
                with lock:
                    commits.extend(mine)

            threads = [threading.Thread(target=play, args=(st, i)) for i, st in enumerate(stations)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            # Then until every forwarder has pushed all of it (the central holds every entry and
            # every frame: frames go after their entries, so they lag under load).
            done_at, deadline = time.time(), time.monotonic() + 300
            for st in stations:
                want = {st.recorder.game(gid).meta["station_uid"]: (len(rec.events), len(st.recorder.frame_seqs(gid)))
                        for gid, rec in st.games}
                while True:
                    status, answer = st.central.call("GET")
                    held = {g["uid"]: (g["next"], len(g["frames"])) for g in answer.get("games", [])}
                    if all(held.get(u, (0, 0)) >= n for u, n in want.items()) or time.monotonic() > deadline:
                        break
                    time.sleep(0.1)
            out({"done": commits, "caught_up_after_s": round(time.time() - done_at, 3),
                 "forward_errors": {st.name: st.errors[-3:] for st in stations if st.errors}})
    for st in stations:
        st.close()


# ---------------------------------------------------------------------------------------------
# SSE clients: raw asyncio sockets (as bench_sse.py) reading only the `id:` line of each event,
# so 500 of them fit beside the service. bench_sse's client keys on data.live.seq, which is the
# game's newest seq for every entry of a batch the central publishes together; the event's id is
# the entry's own seq.

class Watch:
    __slots__ = ("game", "replica", "observer", "got", "subscribed", "closed")

    def __init__(self, game: int, replica: int, observer: bool) -> None:
        self.game, self.replica, self.observer = game, replica, observer
        self.got: list[tuple[int, float, float | None]] = []  # (seq, read at, central's publish time)
        self.subscribed = False
        self.closed = False


async def watch(port: int, w: Watch, subscribed: asyncio.Event, counter: list[int], n: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(f"GET /api/games/{w.game}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    seq = None
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                seq = int(line[4:])
            elif line.startswith(b"data: "):
                now = time.time()
                if not w.subscribed:  # the first event is the current state
                    w.subscribed = True
                    counter[0] += 1
                    if counter[0] >= n:
                        subscribed.set()
                elif b'"entry":null' not in line:
                    committed = None
                    if w.observer:  # the central's publish time, for the forwarding part of the latency
                        at = line.rfind(b'"committed":')
                        committed = float(line[at + 12:].rstrip(b"}\r\n"))
                    w.got.append((seq, now, committed))
    finally:
        w.closed = True
        writer.close()


# ---------------------------------------------------------------------------------------------
# CPU per component, from /proc (utime + stime of the processes, in seconds).

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def children(ppid: int) -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int(d.joinpath("stat").read_text().rsplit(")", 1)[1].split()[1]) == ppid:
                    found.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


class Cpu:
    def __init__(self, groups: dict[str, callable]) -> None:
        self.groups = groups  # name -> () -> list of pids

    def sample(self) -> dict[str, float]:
        s = {name: sum(proc_cpu(p) for p in pids()) for name, pids in self.groups.items()}
        t = os.times()
        s["bench clients (this process)"] = t.user + t.system
        return s


# ---------------------------------------------------------------------------------------------
# The orchestrator.

def start_serve(config: Path, port: int, password: str, logfile: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--port", str(port), "--config",
                             str(config)], cwd=REPO, env={**os.environ, "TILECAM_STORE_PASSWORD": password},
                            stdout=subprocess.DEVNULL, stderr=open(logfile, "w"))
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=2)
            return proc
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"tilecam serve did not start: {logfile.read_text()[-2000:]}")
            time.sleep(0.1)


class Worker:
    def __init__(self, plan: dict, tmp: Path, i: int) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], cwd=REPO, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(tmp / f"worker{i}.log", "w"))
        self.send(plan)

    def send(self, obj: dict) -> None:
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"a station worker ended (exit {self.proc.wait()}); see its log")
        return json.loads(line)


def ask_all(workers: list[Worker], obj: dict | None) -> list[dict]:
    if obj is not None:
        for w in workers:
            w.send(obj)
    return [w.answer() for w in workers]  # each answers once; reading in turn is fine


async def run_phase(name: str, interval: float, games_per_station: int, clients: int, workers: list[Worker],
                    station_names: list[str], gcgs: list[str], round_no: int, ports: list[int], cpu: Cpu,
                    store_url: str, station_dbs: dict[str, str]) -> dict:
    loop = asyncio.get_running_loop()
    n_st = len(station_names)
    games = {st: [gcgs[(i + (round_no + j) * n_st) % len(gcgs)] for j in range(games_per_station)]
             for i, st in enumerate(station_names)}
    log(f"{name}: creating {n_st * games_per_station} games, waiting for the central's mirrors")
    prepared = [m for a in await loop.run_in_executor(None, ask_all, workers, {"cmd": "prepare", "games": games})
                for m in a["prepared"]]
    by_central = {m["central"]: m for m in prepared}
    watches = [Watch(m["central"], 0, True) for m in prepared]  # part 1: one observer per game on replica 1
    centrals = sorted(by_central)
    watches += [Watch(centrals[i % len(centrals)], i % len(ports), False) for i in range(clients)]
    subscribed, counter = asyncio.Event(), [0]
    tasks = []
    for i, w in enumerate(watches):
        tasks.append(asyncio.create_task(watch(ports[w.replica], w, subscribed, counter, len(watches))))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # not 500 connects in one burst
    await asyncio.wait_for(subscribed.wait(), 60)
    expected_total = sum(m["entries"] for m in prepared)
    log(f"{name}: {len(watches)} SSE clients subscribed; {n_st} stations commit {expected_total} entries, "
        f"one per {interval:g} s per station (~{n_st / interval:.1f} entries/s offered)")
    before, t0 = cpu.sample(), time.time() + 1.0
    go = loop.run_in_executor(None, ask_all, workers, {"cmd": "go", "t0": t0, "interval": interval})
    observers = [w for w in watches if w.observer]
    while not go.done():
        await asyncio.sleep(5)
        seen = sum(len(w.got) for w in observers)
        rate = seen / max(1e-9, time.time() - t0)
        log(f"{name}: {seen}/{expected_total} entries seen on replica 1 ({rate:.1f}/s), "
            f"{sum(len(w.got) for w in watches)} deliveries to all clients, load {os.getloadavg()[0]:.1f}")
    answers = await go
    t_end = time.time()
    after = cpu.sample()
    # The last updates may still be on their way to the clients.
    want_deliveries = sum(by_central[w.game]["entries"] for w in watches)
    deadline = time.monotonic() + 30
    while sum(len(w.got) for w in watches) < want_deliveries and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    commits = {(st, gid, k): t for a in answers for st, gid, k, t in a["done"]}
    local_of = {m["central"]: (m["station"], m["local"]) for m in prepared}
    first_commit, last_commit = min(commits.values()), max(commits.values())

    def lat(ws: list[Watch]) -> tuple[list[float], list[float]]:
        total, ingest = [], []
        for w in ws:
            st, gid = local_of[w.game]
            for seq, now, committed in w.got:
                c = commits.get((st, gid, seq))
                if c is not None:
                    total.append((now - c) * 1000)
                    if committed is not None:
                        ingest.append((committed - c) * 1000)
        return total, ingest

    obs_total, obs_ingest = lat(observers)
    arrivals = sorted(committed for w in observers for _, _, committed in w.got)
    # Sustained: what arrived while every station was committing (games differ in length, so the
    # window ends with the first station to finish; its first interval is left out).
    last_per_station: dict[str, float] = {}
    for (st, _, _), c in commits.items():
        last_per_station[st] = max(c, last_per_station.get(st, c))
    lo, hi = first_commit + interval, min(last_per_station.values())
    window = [a for a in arrivals if lo <= a <= hi]
    sustained = len(window) / (hi - lo) if hi - lo > 0 else None
    offered = [c for c in commits.values() if lo <= c <= hi]
    result = {
        "phase": name, "interval_s_per_station": interval, "games_per_station": games_per_station,
        "stations": n_st, "games": len(prepared), "entries_committed": len(commits),
        "offered_entries_per_s": round(len(offered) / (hi - lo), 2) if hi - lo > 0 else None,
        "sustained_entries_per_s_at_central": round(sustained, 2) if sustained else None,
        "commit_span_s": round(last_commit - first_commit, 1),
        "central_caught_up_after_last_commit_s": max(a["caught_up_after_s"] for a in answers),
        "commit_to_replica1_sse_ms": quantiles(obs_total),
        "commit_to_central_publish_ms": quantiles(obs_ingest),
        "within_500_ms": round(sum(x <= 500 for x in obs_total) / max(1, len(obs_total)), 4),
        "forward_errors": {k: v for a in answers for k, v in a["forward_errors"].items()},
    }
    # Every update to every client: count per client, none missing, none twice, in order.
    per_client, checks = [], {"missing": 0, "duplicates": 0, "out_of_order": 0}
    for w in watches:
        seqs = [seq for seq, _, _ in w.got]
        want = by_central[w.game]["entries"]
        checks["duplicates"] += len(seqs) - len(set(seqs))
        checks["out_of_order"] += sum(b <= a for a, b in zip(seqs, seqs[1:]))
        checks["missing"] += len(set(range(want)) - set(seqs))
        per_client.append((w, len(set(seqs)), want))
    result["sse_clients"] = {
        "observers_replica1": len(observers), "clients": clients,
        "clients_per_replica": [sum(1 for w in watches if not w.observer and w.replica == r) for r in range(len(ports))],
        "deliveries": sum(len(w.got) for w in watches), "expected_deliveries": want_deliveries,
        **checks,
        "clients_missing_any": sum(got < want for _, got, want in per_client),
        "per_client_updates_min_max": [min(g for _, g, _ in per_client), max(g for _, g, _ in per_client)],
    }
    if clients:
        for r in range(len(ports)):
            total, _ = lat([w for w in watches if not w.observer and w.replica == r])
            result["sse_clients"][f"commit_to_client_replica{r + 1}_ms"] = quantiles(total)
    span = t_end - t0
    result["cpu_percent_of_one_core"] = {k: round((after[k] - before[k]) / span * 100, 1) for k in after}
    result["loadavg_1min_at_end"] = round(os.getloadavg()[0], 2)
    result["exactly_once_in_order"] = await loop.run_in_executor(None, compare, prepared, store_url, station_dbs)
    return result


def compare(prepared: list[dict], store_url: str, station_dbs: dict[str, str]) -> dict:
    """Each central game's log against its station's: same entries (kind, data, sidecar) by seq,
    nothing more, nothing less, and the same evidence frames."""
    from tilecam.api.store import open_store
    from tilecam.scoring.events import to_json

    central = open_store(store_url)
    ok, entries_ok, bad, stores = 0, 0, [], {}
    try:
        for m in prepared:
            local = stores.get(m["station"]) or stores.setdefault(m["station"], open_store(station_dbs[m["station"]]))
            mine = [(e.seq, to_json(e.entry), e.sidecar) for e in local.entries(m["local"])]
            theirs = [(e.seq, to_json(e.entry), e.sidecar) for e in central.entries(m["central"])]
            frames_same = local.frame_seqs(m["local"]) == central.frame_seqs(m["central"])
            entries_ok += mine == theirs and len(mine) == m["entries"]
            if mine == theirs and len(mine) == m["entries"] and frames_same:
                ok += 1
            else:
                bad.append({"station": m["station"], "central": m["central"], "station_entries": len(mine),
                            "central_entries": len(theirs), "frames_same": frames_same})
    finally:
        central.close()
        for s in stores.values():
            s.close()
    return {"games": len(prepared), "identical": ok, "entries_identical": entries_ok, "differing": bad[:10]}


def lock_holds(store_url: str, gcgs: list[str], frames: list[str], games: int = 2) -> dict:
    """How long one ingest transaction holds the database's write lock (PostgresStore.writing:
    one advisory lock for every writer of the database), alone on the machine's central: the
    serial cost of one forwarded entry and of its frame. In this process, on the bench's database."""
    from contextlib import contextmanager

    from tilecam.api.bus import Bus
    from tilecam.api.service import GameService
    from tilecam.api.store import open_store
    from tilecam.scoring.events import to_json

    store = open_store(store_url)
    inner, held = store.writing, []

    @contextmanager
    def timed():
        outer, t0 = getattr(store._local, "conn", None) is None, time.perf_counter()
        with inner():
            yield
        if outer:  # nested ones are part of the outer transaction
            held.append(time.perf_counter() - t0)

    store.writing = timed  # the service and the store's own methods look it up on the instance
    service, rng, out = GameService(store, Bus(8)), random.Random(1), {"entries": [], "frame": []}
    jpeg = Path(frames[0]).read_bytes() if frames else None
    try:
        for g in range(games):
            rec, uid = load_game(gcgs[g]), f"{0xbe7c4 + g:032x}"
            service.ingest_header("lock-probe", "probe", uid, [{"name": p.name, "nick": p.nick} for p in rec.players],
                                  rec.rules, rec.lang, "standard", {})
            for k, ev in enumerate(rec.events):
                held.clear()
                service.ingest_entries("lock-probe", "probe", uid, [(k, to_json(ev), sidecar(rng, k))])
                out["entries"].append(sum(held) * 1000)
                if jpeg is not None:
                    held.clear()
                    service.ingest_frame("lock-probe", "probe", uid, k, jpeg)
                    out["frame"].append(sum(held) * 1000)
    finally:
        store.close()
    return {"one_entry_ms": quantiles(out["entries"]), "one_frame_ms": quantiles(out["frame"])}


def git_head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()


async def orchestrate(args) -> dict:
    from pgserver import PgServer

    commit = git_head()  # the code the processes load now; others may commit during a long run

    gcgs = sorted(str(p) for p in (shared_data() / "gcg").rglob("*.gcg"))
    frames = sorted(str(p) for p in (shared_data() / "scrabscrap" / "game06").glob("image-*.jpg"))[:8] \
        if args.frames else []
    load_before = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="tilecam-tournament-"))
    log(f"work folder {tmp}; load average {load_before[0]:.1f} (other work on this machine counts in)")
    pg = PgServer().create()
    procs: list[subprocess.Popen] = []
    workers: list[Worker] = []
    try:
        url = pg.new_database()
        names = [f"pi-{i + 1:02d}" for i in range(args.stations)]
        tokens = {n: f"station-{n}-token-{os.urandom(8).hex()}" for n in names}
        config = tmp / "central.toml"
        config.write_text(f'[store]\nurl = "{url}"\n\n[auth.tokens]\ndirector = "{DIRECTOR}"\n' +
                          "".join(f'"{n}" = "{t}"\n' for n, t in tokens.items()))
        ports = [free_port() for _ in range(2)]
        for i, port in enumerate(ports):  # replica 1 first: it migrates the empty database
            procs.append(start_serve(config, port, pg.password, tmp / f"serve{i + 1}.log"))
        log(f"PostgreSQL on {pg.port}; replica 1 on {ports[0]} (the stations' central), replica 2 on {ports[1]}")
        os.environ["TILECAM_STORE_PASSWORD"] = pg.password  # for compare()
        dbs = {n: str(tmp / f"{n}.sqlite3") for n in names}
        per = math.ceil(args.stations / args.workers)
        for i in range(args.workers):
            mine = names[i * per:(i + 1) * per]
            if mine:
                workers.append(Worker({"central": f"http://127.0.0.1:{ports[0]}", "frames": frames,
                                       "stations": [{"name": n, "token": tokens[n], "table": names.index(n) + 1,
                                                     "db": dbs[n]} for n in mine]}, tmp, i))
        ask_all(workers, None)
        log(f"{args.stations} stations up in {len(workers)} worker processes ({per} threads of stations each)")
        postmaster = int((pg.data / "postmaster.pid").read_text().split()[0])
        cpu = Cpu({"replica 1 (ingest + SSE)": lambda: [procs[0].pid], "replica 2 (SSE)": lambda: [procs[1].pid],
                   "postgresql": lambda: [postmaster, *children(postmaster)],
                   "stations (recorders + forwarders)": lambda: [w.proc.pid for w in workers]})
        phases, round_no = [], 0
        real = args.turn_s / args.speedup
        if args.real:
            phases.append(await run_phase(f"real speed x{args.speedup:g}", real, 1, args.clients, workers, names,
                                          gcgs, round_no, ports, cpu, url, dbs))
            round_no += 1
            log(json.dumps({k: phases[-1][k] for k in ("sustained_entries_per_s_at_central",
                                                         "commit_to_replica1_sse_ms")}))
        for interval in args.stress:
            k = max(1, math.ceil(args.stress_s / (interval * 27)))  # ~27 entries per shared game
            phases.append(await run_phase(f"stress {interval:g} s", interval, k, 0, workers, names, gcgs,
                                          round_no, ports, cpu, url, dbs))
            round_no += k
            log(json.dumps({k: phases[-1][k] for k in ("offered_entries_per_s", "sustained_entries_per_s_at_central",
                                                         "commit_to_replica1_sse_ms")}))
        log("the write lock's hold per ingest transaction, alone")
        holds = lock_holds(url, gcgs, frames)
        log(json.dumps(holds))
    finally:
        for w in workers:
            try:
                w.send({"cmd": "quit"})
                w.proc.wait(20)
            except Exception:
                w.proc.kill()
        for p in procs:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        pg.destroy()
    keeps_up = [p for p in phases if p["sustained_entries_per_s_at_central"]
                and p["commit_to_replica1_sse_ms"] and p["commit_to_replica1_sse_ms"]["p99"] <= 500
                and not p["exactly_once_in_order"]["differing"]]
    return {
        "what": "stations -> one central tilecam serve on PostgreSQL -> SSE clients on two replicas (issue 22)",
        "real_speed": {"turn_s": args.turn_s, "speedup": args.speedup, "entry_every_s_per_station": real,
                       "why": "25 minutes a side, ~26 turns a game: 3000 s / 26 ~ 115 s a turn"},
        "stations": args.stations, "worker_processes": len(workers),
        "stations_as": "threads: a recorder GameService (SQLite, its own file) and a Forwarder thread per station",
        "evidence_frames": {"count": len(frames), "bytes_avg": round(statistics.mean(Path(f).stat().st_size
                                                                                     for f in frames)) if frames else 0},
        "target": "p99 local commit -> central SSE <= 500 ms",
        "phases": phases,
        "central_write_lock_held_alone": holds,
        "ceiling_entries_per_s_within_target": max((p["sustained_entries_per_s_at_central"] for p in keeps_up),
                                                   default=None),
        "loadavg_before": [round(x, 2) for x in load_before], "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus".strip(),
        "python": platform.python_version(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        **({"head_at_end": git_head()} if git_head() != commit else {}),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--stations", type=int, default=40)
    ap.add_argument("--workers", type=int, default=4, help="processes the stations run in (as threads)")
    ap.add_argument("--turn-s", type=float, default=115.0, help="real seconds per turn (25 min a side, ~26 turns)")
    ap.add_argument("--speedup", type=float, default=10.0)
    ap.add_argument("--clients", type=int, default=500, help="SSE clients during the real-speed phase")
    ap.add_argument("--no-real", dest="real", action="store_false", help="skip the real-speed phase")
    ap.add_argument("--stress", type=lambda s: [float(x) for x in s.split(",") if x], default=[1.0, 0.5, 0.25, 0.12],
                    help="seconds between entries per station in the stress steps (empty: none)")
    ap.add_argument("--stress-s", type=float, default=30.0, help="about how long each stress step commits")
    ap.add_argument("--no-frames", dest="frames", action="store_false",
                    help="commit without evidence JPEGs (default: real ~330 KB photos, forwarded as tilecam run's)")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "tournament.json")
    args = ap.parse_args()
    if args.worker:
        return worker()
    result = asyncio.run(orchestrate(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for p in result["phases"]:
        lat, cl = p["commit_to_replica1_sse_ms"] or {}, p["sse_clients"]
        print(f"{p['phase']}: offered {p['offered_entries_per_s']}/s, arrived {p['sustained_entries_per_s_at_central']}/s;"
              f" commit->SSE p50 {lat.get('p50')} p95 {lat.get('p95')} p99 {lat.get('p99')} max {lat.get('max')} ms; "
              f"identical games {p['exactly_once_in_order']['identical']}/{p['exactly_once_in_order']['games']}; "
              f"clients {cl['deliveries']}/{cl['expected_deliveries']} delivered, missing {cl['missing']}")
    print(f"ceiling within target: {result['ceiling_entries_per_s_within_target']} entries/s; wrote {args.out}")


if __name__ == "__main__":
    main()
