"""Load benchmark of the web game: concurrent sessions each play a whole match
through the HTTP API against a local server (uvicorn on 127.0.0.1, a child
process), with the default AI (``ai``) in the three other seats.

Prints the server's own time per request (its ``Server-Timing`` header: the
wall time from the request reaching the app to its answer, AI moves included,
and the CPU time the server spent on it; no deliberate pacing: the page paces
AI cards, the server never waits), the time the clients saw, errors, and the
memory a live game takes (the server's RSS growth per game while all games are
live, and the Python heap per game measured in this process with tracemalloc).
Target: p99 server time under 50 ms, no errors. Server and clients share this
machine's cores, so a busy machine inflates the wall times: the CPU figure
shows the work itself.

Every game is kept in a database (``--db``; by default a SQLite file in a
temporary directory; ``--db postgresql+psycopg://...`` for PostgreSQL), each
play written before it is answered, so these are the times of a play with
its database write.

Each run is made with SQLite (a file) and then with PostgreSQL (a throwaway
cluster of Debian's binaries, where they and psycopg are installed), unless
``--db`` names one database.

A table run (``--tables``) seats four people at each of that many tables,
each person a WebSocket client (``--tables 50``: 200 connections) that plays
when the server pushes its turn, on the version that push showed: the server
time of their plays (target: p99 under 50 ms with SQLite), the connections
held at once, the errors (target 0: a 409 there means a push showed a view
that was not the game's), and the server's memory per table.

A kill run (``--kills``) has ``--kill-tables`` tables of four people play
whole matches over HTTP through ``aluette serve`` while it is SIGKILLed at
random moments and restarted that many times; the clients send an
unanswered request again, as the page does. It counts the plays answered 200
that the finished matches' records lack (target: 0) and the cards a record
holds twice in one deal (a play sent again applied twice; target: 0).

A mixed run puts slow AI seats (``expert``, about 35 ms a move) in a share of
the games (``--expert-share``) and reports the other games' requests apart:
AI moves run in worker threads, so the slow games should not delay the others
(target: their p99 under 50 ms).

The server is given core 0 (``os.sched_setaffinity``) and the clients the
other cores, where the machine has two or more. ``--quick`` is a smoke run of
well under a minute, SQLite only (``benchmarks/run_all.py --quick``).

    python benchmarks/bench_web.py [--quick] [--sessions 200] [--players ai] [--db URL]
                                   [--kills 20] [--kill-tables 10] [--tables 50]
                                   [--expert-sessions 40] [--expert-share 0.1]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import httpx

TIMING = re.compile(r"app;dur=([0-9.]+), cpu;dur=([0-9.]+)")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_and_wait_s(pid: int) -> tuple[float, float]:
    """Seconds the threads of ``pid`` ran on a CPU, and waited for one while
    runnable (Linux's /proc/PID/task/*/schedstat)."""
    ran = waited = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                fields = f.read().split()
        except OSError:
            continue
        ran, waited = ran + int(fields[0]), waited + int(fields[1])
    return ran / 1e9, waited / 1e9


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(pid: int, cores: set[int]) -> None:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(pid, cores)


def children(pid: int) -> list[int]:
    """Child processes of ``pid`` (Linux), e.g. the server's AI workers."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return found


async def children_elsewhere(pid) -> None:
    """Keep the server's worker processes (the coach's deal reviews, started
    as deals end; the slow AI players) off the server's core, every half
    second until cancelled: the server's core is its own. ``pid``: the
    server's pid, or a callable giving the current one."""
    others = set(range(1, os.cpu_count() or 1)) or {0}
    while True:
        for child in children(pid() if callable(pid) else pid):
            try:
                pin(child, others)
            except OSError:  # it ended meanwhile
                pass
        await asyncio.sleep(0.5)


def start_server(port: int, players: str, max_games: int, db: str) -> subprocess.Popen:
    code = (
        "import uvicorn\n"
        "from aluette_env.apps.web import listening_socket\n"
        "from aluette_env.apps.web.server import ServerConfig, create_app\n"
        f"app = create_app(ServerConfig(partner={players!r}, left={players!r}, "
        f"right={players!r}, max_games={max_games}, db={db!r}))\n"
        # aluette serve's socket, so its connections are the ones a person's get
        "server = uvicorn.Server(uvicorn.Config(app, log_level='warning', access_log=False))\n"
        f"server.run(sockets=[listening_socket('127.0.0.1', {port})])\n")
    proc = subprocess.Popen([sys.executable, "-c", code])
    pin(proc.pid, {0})  # the server's own core; the clients take the others
    return proc


async def wait_up(client: httpx.AsyncClient, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with code {proc.returncode}")
        try:
            if (await client.get("/api/players")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the server did not start within 120 s")


async def play_match(client: httpx.AsyncClient, seed: int, server_ms: list[tuple[float, float]],
                     client_ms: list[float], errors: list[str], ready: asyncio.Event,
                     created: list[int], seats: dict[str, str] | None = None) -> None:
    rng = random.Random(seed)

    async def call(method: str, path: str, body=None) -> dict | None:
        start = time.perf_counter()
        try:
            r = await client.request(method, path, json=body)
        except httpx.HTTPError as err:
            errors.append(f"{path}: {type(err).__name__}")
            return None
        client_ms.append((time.perf_counter() - start) * 1000)
        m = TIMING.search(r.headers.get("server-timing", ""))
        if m:
            server_ms.append((float(m.group(1)), float(m.group(2))))
        if r.status_code >= 400:
            errors.append(f"{path}: {r.status_code} {r.text[:100]}")
            return None
        return r.json()

    data = await call("POST", "/api/games", seats)
    created.append(1)
    await ready.wait()  # every session is live before the matches start
    if data is None:
        return
    gid, state = data["id"], data["state"]
    while not state["match"]["over"]:
        if state["deal"]["done"]:
            data = await call("POST", f"/api/games/{gid}/next-deal")
        else:
            card = rng.choice(state["legal"])
            data = await call("POST", f"/api/games/{gid}/play",
                              {"card": card, "version": state["version"]})
        if data is None:
            return
        state = data["state"]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def heap_per_game(players: str, n: int = 500) -> float:
    """Python heap (KiB) per live game, in-process, players shared as the server does."""
    from aluette_env.apps.session import GameSession
    from aluette_env.players import load_player

    shared = {s: load_player(players) for s in (1, 2, 3)}
    GameSession(shared, {1: players, 2: players, 3: players}, seed=0)  # warm caches
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    games = [GameSession(shared, {1: players, 2: players, 3: players}, seed=i) for i in range(n)]
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del games
    return used / n / 1024


async def run_mixed(args: argparse.Namespace) -> None:
    """A share of the games with expert seats: the other games' request times."""
    if args.expert_sessions <= 0 or args.expert_share <= 0:
        return
    port = free_port()
    proc = start_server(port, args.players, max(1000, args.expert_sessions * 2), args.db)
    n_slow = max(1, round(args.expert_sessions * args.expert_share))
    slow = {"left": "expert", "partner": "expert", "right": "expert"}
    limits = httpx.Limits(max_connections=args.expert_sessions,
                          max_keepalive_connections=args.expert_sessions)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                     timeout=600) as client:
            await wait_up(client, proc)
            await play_match(client, -1, [], [], [], _set(asyncio.Event()), [], slow)  # warm-up
            # The expert's worker process shares the clients' cores, not the server's.
            for child in children(proc.pid):
                pin(child, set(range(1, os.cpu_count() or 1)) or {0})
            fast_server: list[tuple[float, float]] = []
            fast_client: list[float] = []
            slow_server: list[tuple[float, float]] = []
            errors: list[str] = []
            ready = asyncio.Event()
            created: list[int] = []
            start = time.perf_counter()
            tasks = [asyncio.create_task(play_match(
                client, i, slow_server if i < n_slow else fast_server,
                [] if i < n_slow else fast_client, errors, ready, created,
                slow if i < n_slow else None)) for i in range(args.expert_sessions)]
            while len(created) < args.expert_sessions:
                await asyncio.sleep(0.01)
            ready.set()
            await asyncio.gather(*tasks)
            wall = time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    fast = [w for w, _ in fast_server]
    print(f"bench_web mixed: {args.expert_sessions} concurrent sessions, {n_slow} of them with "
          f"expert in all three AI seats, the others {args.players!r}; {wall:.1f} s")
    print(f"  other games     {len(fast)} requests: server time p50 {pct(fast, 0.5):.2f} ms   "
          f"p99 {pct(fast, 0.99):.2f} ms   client p50 {pct(fast_client, 0.5):.2f} ms   "
          f"p99 {pct(fast_client, 0.99):.2f} ms   (target: server p99 < 50 ms)")
    slow_ms = [w for w, _ in slow_server]
    print(f"  expert games    {len(slow_ms)} requests: server time p50 {pct(slow_ms, 0.5):.1f} ms"
          f"   p99 {pct(slow_ms, 0.99):.1f} ms (their own AI moves)")
    print(f"  errors          {len(errors)}" + (f"  first: {errors[0]}" if errors else ""))


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    proc = start_server(port, args.players, max(1000, args.sessions * 2), args.db)
    # The load generator yields the cores to the server it measures.
    os.nice(5)
    limits = httpx.Limits(max_connections=args.sessions, max_keepalive_connections=args.sessions)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                     timeout=60) as client:
            await wait_up(client, proc)
            # Warm-up: one match, so model loading and JIT compilation are not measured.
            await play_match(client, -1, [], [], [], _set(asyncio.Event()), [])
            rss_before = rss_kib(proc.pid)
            server_ms: list[tuple[float, float]] = []
            client_ms: list[float] = []
            errors: list[str] = []
            ready = asyncio.Event()
            created: list[int] = []
            start = time.perf_counter()
            tasks = [asyncio.create_task(play_match(client, i, server_ms, client_ms, errors,
                                                    ready, created))
                     for i in range(args.sessions)]
            while len(created) < args.sessions:
                await asyncio.sleep(0.01)
            rss_live = rss_kib(proc.pid)
            ready.set()
            await asyncio.gather(*tasks)
            wall = time.perf_counter() - start
            rss_after = rss_kib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    heap = heap_per_game(args.players)
    n = len(server_ms)
    wall_ms = [w for w, _ in server_ms]
    cpu_ms = [c for _, c in server_ms]
    load = os.getloadavg()[0]
    print(f"bench_web: {args.sessions} concurrent sessions, one match each, players "
          f"{args.players!r}, games in {backend(args.db)}, server and clients on this machine "
          f"({os.cpu_count()} CPUs, load average {load:.1f} at the end)")
    print(f"  requests        {n} in {wall:.1f} s ({n / wall:.0f}/s)")
    print(f"  server time     p50 {pct(wall_ms, 0.5):.2f} ms   p99 {pct(wall_ms, 0.99):.2f} ms"
          f"   max {max(wall_ms):.2f} ms   (wall; target p99 < 50 ms)")
    print(f"  server CPU      p50 {pct(cpu_ms, 0.5):.2f} ms   p99 {pct(cpu_ms, 0.99):.2f} ms"
          f"   max {max(cpu_ms):.2f} ms   (the event loop's CPU time per request, moves aside)")
    print(f"  client latency  p50 {pct(client_ms, 0.5):.2f} ms   p99 {pct(client_ms, 0.99):.2f} ms"
          f"   (includes queueing behind the other {args.sessions - 1} sessions)")
    print(f"  errors          {len(errors)}" + (f"  first: {errors[0]}" if errors else ""))
    print(f"  memory          server RSS +{(rss_live - rss_before) / args.sessions:.1f} KiB per "
          f"new game ({args.sessions} live), +{(rss_after - rss_before) / args.sessions:.1f} KiB "
          f"per finished game; Python heap {heap:.1f} KiB per game (tracemalloc, 500 games)")


def backend(url: str) -> str:
    return url.split(":", 1)[0].split("+", 1)[0]


class KilledServer:
    """``aluette serve`` in its own process group, SIGKILLed and started again."""

    def __init__(self, port: int, players: str, db: str):
        self.port, self.players, self.db = port, players, db
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aluette_env", "serve", "--port", str(self.port),
             "--db", self.db, "--partner", self.players, "--left", self.players,
             "--right", self.players], stdout=subprocess.DEVNULL, start_new_session=True)
        pin(self.proc.pid, {0})

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


async def kill_table(client: httpx.AsyncClient, seed: int, counts: dict[str, int]) -> None:
    """One table of four people played to the end through kills, over HTTP:
    each play made on the view its seat was just sent, every request sent
    again until it is answered (as the page does). Then the plays answered
    200 are looked for in the match's record, and each deal of the record is
    checked to hold each card once (a play sent again was applied once)."""
    rng = random.Random(seed)

    async def call(method: str, path: str, body=None) -> httpx.Response:
        tries = 0
        while True:
            try:
                r = await client.request(method, path, json=body)
                if r.status_code < 500:
                    counts["resent"] += tries
                    return r
            except httpx.TransportError:
                pass
            tries += 1
            await asyncio.sleep(0.2)

    made = (await call("POST", "/api/tables",
                       {"people": {str(s): f"P{s}" for s in range(4)}})).json()
    tokens = [made["seats"][str(s)]["token"] for s in range(4)]
    answered: list[tuple[int, str, int]] = []  # (deal, agent, card) answered 200
    state = (await call("GET", f"/api/games/{tokens[0]}")).json()["state"]
    while not state["match"]["over"]:
        if state["deal"]["done"]:
            r = await call("POST", f"/api/games/{tokens[0]}/next-deal",
                           {"version": state["version"]})
        else:
            seat = state["deal"]["to_act"]  # seat 0's view counts seats as they are
            mine = (await call("GET", f"/api/games/{tokens[seat]}")).json()["state"]
            if not mine["your_turn"]:  # the view moved between the two reads
                state = mine
                continue
            card = rng.choice(mine["legal"])
            r = await call("POST", f"/api/games/{tokens[seat]}/play",
                           {"card": card, "version": mine["version"]})
            if r.status_code == 200:
                answered.append((mine["deal"]["number"], f"player_{seat}", card))
        if r.status_code == 409:  # a move whose answer was lost moved the game on
            counts["stale"] += 1
        elif r.status_code != 200:
            counts["errors"] += 1
        state = (await call("GET", f"/api/games/{tokens[0]}")).json()["state"]
    record = (await call("GET", f"/api/games/{tokens[0]}/record")).json()
    kept = {(k + 1, agent, card) for k, deal in enumerate(record["deals"])
            for agent, card in deal["plays"]}
    counts["answered"] += len(answered)
    counts["lost"] += sum(1 for play in answered if play not in kept)
    counts["twice"] += sum(len(d["plays"]) - len({c for _, c in d["plays"]})
                           for d in record["deals"])
    counts["plays"] += sum(len(d["plays"]) for d in record["deals"])


async def run_kills(args: argparse.Namespace) -> dict | None:
    """Tables of four people play while the server is SIGKILLed ``--kills`` times."""
    if args.kills <= 0:
        return None
    port = free_port()
    server = KilledServer(port, args.players, args.db)
    server.start()
    counts = {"answered": 0, "lost": 0, "resent": 0, "stale": 0, "errors": 0, "twice": 0,
              "plays": 0}
    killer_rng = random.Random(0)
    limits = httpx.Limits(max_connections=args.kill_tables * 2,
                          max_keepalive_connections=args.kill_tables * 2)
    start = time.perf_counter()
    kills = 0
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                     timeout=30) as client:
            await wait_up(client, server.proc)
            elsewhere = asyncio.create_task(children_elsewhere(lambda: server.proc.pid))
            tables = asyncio.ensure_future(asyncio.gather(
                *(kill_table(client, 1000 + i, counts) for i in range(args.kill_tables))))

            async def killer() -> None:
                nonlocal kills
                while kills < args.kills and not tables.done():
                    await asyncio.sleep(killer_rng.uniform(0.2, 1.2))
                    server.kill()
                    kills += 1
                    server.start()
                    await wait_up(client, server.proc)

            await asyncio.gather(tables, killer())
            elsewhere.cancel()
    finally:
        server.kill()
    print(f"bench_web kills ({backend(args.db)}): {args.kill_tables} tables of four people "
          f"play whole matches over HTTP while the server (aluette serve) is SIGKILLed at "
          f"random moments and restarted {kills} times; {time.perf_counter() - start:.1f} s")
    print(f"  plays answered 200  {counts['answered']}   lost {counts['lost']} (target 0)   "
          f"applied twice {counts['twice']} (target 0)   requests sent again "
          f"{counts['resent']}   409 after a lost answer {counts['stale']}   "
          f"errors {counts['errors']}")
    return {"kills": kills, **counts}


async def person(client: httpx.AsyncClient, port: int, token: str, host: bool,
                 server_ms: list[float], errors: list[str], ready: asyncio.Event,
                 held: dict[str, int], think: float = 0.0) -> None:
    """One person at a table: plays a random card each time the server pushes
    their turn, after ``think`` seconds on average; the host (seat 0) also asks
    for each next deal."""
    from websockets.asyncio.client import connect

    rng = random.Random(token)
    url = f"ws://127.0.0.1:{port}/api/games/{token}/updates"
    async with connect(url, origin=f"http://127.0.0.1:{port}", max_size=2**22) as ws:
        held["now"] += 1
        held["most"] = max(held["most"], held["now"])
        await ready.wait()
        try:
            await play_pushes(ws, client, token, host, rng, server_ms, errors, think)
        finally:
            held["now"] -= 1


async def play_pushes(ws, client: httpx.AsyncClient, token: str, host: bool,
                      rng: random.Random, server_ms: list[float], errors: list[str],
                      think: float = 0.0) -> None:
    """A random card each time a push says it is this seat's turn, played on
    that push's version after a pause drawn uniformly from 0 to 2 x ``think``
    seconds (0: at once, every table always waiting on the server)."""
    async for message in ws:
        state = json.loads(message)["state"]
        if state["match"]["over"]:
            return
        if state["your_turn"]:
            path, body = "play", {"card": rng.choice(state["legal"]),
                                  "version": state["version"]}
        elif state["deal"]["done"] and host:
            path, body = "next-deal", {"version": state["version"]}
        else:
            continue
        if think > 0 and path == "play":
            await asyncio.sleep(rng.uniform(0.0, 2 * think))
        r = await client.post(f"/api/games/{token}/{path}", json=body)
        m = TIMING.search(r.headers.get("server-timing", ""))
        if m and path == "play":
            server_ms.append(float(m.group(1)))
        if r.status_code != 200:
            errors.append(f"{path}: {r.status_code} {r.text[:100]}")


async def run_tables(args: argparse.Namespace) -> dict | None:
    """Tables of four people, each a WebSocket client playing on the pushes."""
    if args.tables <= 0:
        return None
    port = free_port()
    proc = start_server(port, args.players, max(1000, args.tables * 2), args.db)
    limits = httpx.Limits(max_connections=args.tables * 4,
                          max_keepalive_connections=args.tables * 4)
    held = {"now": 0, "most": 0}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                     timeout=120) as client:
            await wait_up(client, proc)
            rss_before = rss_kib(proc.pid)
            tokens = []
            for _ in range(args.tables):
                made = (await client.post("/api/tables", json={
                    "people": {str(s): f"P{s}" for s in range(4)}})).json()
                tokens.append([made["seats"][str(s)]["token"] for s in range(4)])
            server_ms: list[float] = []
            errors: list[str] = []
            ready = asyncio.Event()
            start = time.perf_counter()
            elsewhere = asyncio.create_task(children_elsewhere(proc.pid))
            tasks = [asyncio.create_task(person(client, port, token, s == 0, server_ms,
                                                errors, ready, held, args.think))
                     for table in tokens for s, token in enumerate(table)]
            while held["now"] < len(tasks) and not any(t.done() for t in tasks):
                await asyncio.sleep(0.05)  # every socket open, every table live
            await asyncio.sleep(0.5)
            rss_live = rss_kib(proc.pid)
            ran, waited = cpu_and_wait_s(proc.pid)
            ready.set()
            await asyncio.gather(*tasks)
            wall = time.perf_counter() - start
            elsewhere.cancel()
            ran, waited = (a - b for a, b in zip(cpu_and_wait_s(proc.pid), (ran, waited)))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    per_table = (rss_live - rss_before) / args.tables
    print(f"bench_web tables ({backend(args.db)}): {args.tables} tables of four people, "
          f"{held['most']} WebSocket connections held at once, one match each, "
          f"{args.think:g} s to choose a card on average; {wall:.1f} s")
    print(f"  plays           {len(server_ms)}: server time p50 {pct(server_ms, 0.5):.2f} ms   "
          f"p99 {pct(server_ms, 0.99):.2f} ms   (target p99 < 50 ms with SQLite)")
    print(f"  server CPU      {ran * 1000 / max(1, len(server_ms)):.2f} ms per play (its "
          f"pushes to the four sockets included; {ran / wall:.0%} of its core); it waited "
          f"{waited:.1f} s in all for a CPU while it had work (summed over its threads: the "
          f"event loop and the move threads share its one core, with anything else on it)")
    print(f"  errors          {len(errors)}" + (f"  first: {errors[0]}" if errors else ""))
    print(f"  memory          server RSS +{per_table:.0f} KiB per table (four open sockets "
          f"included)")
    return {"plays": len(server_ms), "p50": pct(server_ms, 0.5), "p99": pct(server_ms, 0.99),
            "held": held["most"], "errors": len(errors), "kib_per_table": per_table,
            "cpu_ms": ran * 1000 / max(1, len(server_ms)), "waited_s": waited}


@contextlib.contextmanager
def throwaway_postgres():
    """A PostgreSQL cluster in a temporary directory (Debian's binaries; run as
    the ``postgres`` user when this runs as root): its URL, or None with the
    reason printed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not found or importlib.util.find_spec("psycopg") is None:
        print("PostgreSQL: skipped (no pg_ctl under /usr/lib/postgresql, or no psycopg)")
        yield None
        return
    bin_dir = found[-1].parent
    root = Path(tempfile.mkdtemp(prefix="bench-web-pg-"))
    run_as = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", free_port()
    try:
        subprocess.run([*run_as, str(bin_dir / "initdb"), "-D", str(data), "-U", "aluette",
                        "--auth=trust", "-E", "UTF8"], capture_output=True, check=True)
        subprocess.run([*run_as, str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-l",
                        str(root / "log"), "-o", f"-p {port} -k {root} -h 127.0.0.1",
                        "start"], capture_output=True, check=True)
        yield f"postgresql+psycopg://aluette@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*run_as, str(bin_dir / "pg_ctl"), "-D", str(data), "-m",
                        "immediate", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _set(event: asyncio.Event) -> asyncio.Event:
    event.set()
    return event


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="a smoke run of well under a minute: SQLite only, 4 sessions, "
                        "1 table, 1 kill during 1 table's match, no mixed run")
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--players", default="ai", help="the AI spec of the three other seats")
    p.add_argument("--expert-sessions", type=int, default=40,
                   help="sessions of the mixed run (0 skips it)")
    p.add_argument("--expert-share", type=float, default=0.1,
                   help="share of the mixed run's games with expert seats")
    p.add_argument("--db", default=None, help="the database's URL (default: a SQLite file in "
                   "a temporary directory, then a throwaway PostgreSQL cluster where "
                   "Debian's binaries and psycopg are installed)")
    p.add_argument("--kills", type=int, default=20,
                   help="SIGKILLs of the server during the kill run (0 skips it)")
    p.add_argument("--kill-tables", type=int, default=10,
                   help="tables of four people that play during the kill run")
    p.add_argument("--tables", type=int, default=50,
                   help="tables of four people of the table run (0 skips it)")
    p.add_argument("--think", type=float, default=0.0,
                   help="mean seconds a person of the table run takes to choose a card "
                        "(0: at once, a stress load with every table always waiting on the "
                        "server; people take seconds)")
    args = p.parse_args()
    if args.quick:
        args.sessions, args.tables, args.kills, args.kill_tables = 4, 1, 1, 1
        args.expert_sessions = 0
    # The server gets core 0 (start_server, KilledServer); this load generator the others.
    pin(0, set(range(1, os.cpu_count() or 1)) or {0})
    print(f"bench_web: {os.cpu_count()} CPUs, the server pinned to core 0 and the clients "
          f"to the others; load average {os.getloadavg()[0]:.1f} at the start (other work "
          f"on the machine inflates the wall times)")
    figures = {}
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp, \
            contextlib.ExitStack() as stack:
        urls = [args.db] if args.db else [f"sqlite:///{tmp}/games.db"]
        if not args.db and not args.quick:
            pg = stack.enter_context(throwaway_postgres())
            urls += [pg] if pg else []
        for url in urls:
            args.db = url
            if args.sessions > 0:
                asyncio.run(run(args))
            figures[backend(url)] = (asyncio.run(run_tables(args)), asyncio.run(run_kills(args)))
            if url == urls[0]:
                asyncio.run(run_mixed(args))
    print("bench_web summary: a play's server time at tables of four over WebSockets, and the "
          "kill run")
    print("  | database | plays | p50 ms | p99 ms | CPU ms per play | waited for a CPU s "
          "| connections | errors | KiB per table | kills | plays answered 200 | lost "
          "| applied twice |")
    for name, (tables, kills) in figures.items():
        t = tables or {}
        k = kills or {}
        print(f"  | {name} | {t.get('plays', '-')} | {t.get('p50', float('nan')):.1f} "
              f"| {t.get('p99', float('nan')):.1f} | {t.get('cpu_ms', float('nan')):.2f} "
              f"| {t.get('waited_s', float('nan')):.1f} | {t.get('held', '-')} "
              f"| {t.get('errors', '-')} | {t.get('kib_per_table', float('nan')):.0f} "
              f"| {k.get('kills', '-')} | {k.get('answered', '-')} | {k.get('lost', '-')} "
              f"| {k.get('twice', '-')} |")


if __name__ == "__main__":
    main()
