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

A kill run (``--kills``) plays whole matches through ``aluette serve`` while
the server is SIGKILLed and restarted that many times; the clients send an
unanswered request again, as the page does. It counts the plays answered 200
that the finished matches' records lack (target: 0).

A table run (``--tables``) seats four people at each of that many tables,
each person a WebSocket client (``--tables 50``: 200 connections) that plays
when the server pushes its turn: the server time of their plays, the errors,
and the server's memory per table.

A second run puts slow AI seats (``expert``, about 35 ms a move) in a share of
the games (``--expert-share``) and reports the other games' requests apart:
AI moves run in worker threads, so the slow games should not delay the others
(target: their p99 under 50 ms). The server is given a core of its own where
the machine has two or more (the clients run on the others).

    python benchmarks/bench_web.py [--sessions 200] [--players ai] [--db URL]
                                   [--kills 20] [--kill-sessions 20] [--tables 50]
                                   [--expert-sessions 40] [--expert-share 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc

import httpx

TIMING = re.compile(r"app;dur=([0-9.]+), cpu;dur=([0-9.]+)")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


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


def start_server(port: int, players: str, max_games: int, db: str) -> subprocess.Popen:
    code = (
        "import uvicorn\n"
        "from aluette_env.apps.web.server import ServerConfig, create_app\n"
        f"app = create_app(ServerConfig(partner={players!r}, left={players!r}, "
        f"right={players!r}, max_games={max_games}, db={db!r}))\n"
        f"uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning', "
        "access_log=False)\n")
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
    pin(0, set(range(1, os.cpu_count() or 1)) or {0})
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


async def kill_match(client: httpx.AsyncClient, seed: int, counts: dict[str, int]) -> None:
    """One match played through kills: every request sent until it is answered;
    then the plays answered 200 are looked for in the match's record."""
    rng = random.Random(seed)

    async def call(method: str, path: str, body=None) -> httpx.Response:
        while True:
            try:
                r = await client.request(method, path, json=body)
                if r.status_code < 500:
                    return r
            except httpx.TransportError:
                pass
            counts["resent"] += 1
            await asyncio.sleep(0.2)

    data = (await call("POST", "/api/games", {})).json()
    gid, state = data["id"], data["state"]
    answered: list[int] = []
    while not state["match"]["over"]:
        if state["deal"]["done"]:
            r = await call("POST", f"/api/games/{gid}/next-deal", {"version": state["version"]})
        else:
            card = rng.choice(state["legal"])
            r = await call("POST", f"/api/games/{gid}/play",
                           {"card": card, "version": state["version"]})
            if r.status_code == 200:
                answered.append(card)
        if r.status_code == 409:  # a next deal dealt before its answer was lost
            r = await call("GET", f"/api/games/{gid}")
            counts["stale"] += 1
        state = r.json()["state"]
    record = (await call("GET", f"/api/games/{gid}/record")).json()
    kept = [card for deal in record["deals"] for agent, card in deal["plays"]
            if agent == "player_0"]
    counts["answered"] += len(answered)
    # The record holds every play answered 200, in order, and no other of the person's.
    counts["lost"] += sum(1 for k, card in enumerate(answered)
                          if k >= len(kept) or kept[k] != card)


async def run_kills(args: argparse.Namespace) -> None:
    """Whole matches played while the server is SIGKILLed ``--kills`` times."""
    if args.kills <= 0:
        return
    port = free_port()
    server = KilledServer(port, args.players, args.db)
    server.start()
    counts = {"answered": 0, "lost": 0, "resent": 0, "stale": 0}
    killer_rng = random.Random(0)
    limits = httpx.Limits(max_connections=args.kill_sessions,
                          max_keepalive_connections=args.kill_sessions)
    start = time.perf_counter()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                     timeout=30) as client:
            await wait_up(client, server.proc)
            matches = asyncio.gather(*(kill_match(client, 1000 + i, counts)
                                       for i in range(args.kill_sessions)))
            kills = 0

            async def killer() -> None:
                nonlocal kills
                while kills < args.kills:
                    await asyncio.sleep(killer_rng.uniform(0.3, 1.5))
                    server.kill()
                    kills += 1
                    server.start()
                    await wait_up(client, server.proc)

            await asyncio.gather(matches, killer())
    finally:
        server.kill()
    print(f"bench_web kills: {args.kill_sessions} sessions play whole matches while the server "
          f"(aluette serve, games in {backend(args.db)}) is SIGKILLed and restarted {kills} "
          f"times; {time.perf_counter() - start:.1f} s")
    print(f"  plays answered 200  {counts['answered']}   lost {counts['lost']} (target 0)   "
          f"requests sent again {counts['resent']}   stale next-deal answers {counts['stale']}")


async def person(client: httpx.AsyncClient, port: int, token: str, host: bool,
                 server_ms: list[float], errors: list[str], ready: asyncio.Event) -> None:
    """One person at a table: plays a random card each time the server pushes
    their turn; the host (seat 0) also asks for each next deal."""
    from websockets.asyncio.client import connect

    rng = random.Random(token)
    url = f"ws://127.0.0.1:{port}/api/games/{token}/updates"
    async with connect(url, origin=f"http://127.0.0.1:{port}", max_size=2**22) as ws:
        await ready.wait()
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
            r = await client.post(f"/api/games/{token}/{path}", json=body)
            m = TIMING.search(r.headers.get("server-timing", ""))
            if m and path == "play":
                server_ms.append(float(m.group(1)))
            if r.status_code != 200:
                errors.append(f"{path}: {r.status_code} {r.text[:100]}")


async def run_tables(args: argparse.Namespace) -> None:
    """Tables of four people, each a WebSocket client playing on the pushes."""
    if args.tables <= 0:
        return
    port = free_port()
    proc = start_server(port, args.players, max(1000, args.tables * 2), args.db)
    limits = httpx.Limits(max_connections=args.tables * 4,
                          max_keepalive_connections=args.tables * 4)
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
            tasks = [asyncio.create_task(person(client, port, token, s == 0, server_ms,
                                                errors, ready))
                     for table in tokens for s, token in enumerate(table)]
            await asyncio.sleep(1.0)  # every socket open, every table live
            rss_live = rss_kib(proc.pid)
            ready.set()
            await asyncio.gather(*tasks)
            wall = time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"bench_web tables: {args.tables} tables of four people, {args.tables * 4} WebSocket "
          f"connections, one match each, games in {backend(args.db)}; {wall:.1f} s")
    print(f"  plays           {len(server_ms)}: server time p50 {pct(server_ms, 0.5):.2f} ms   "
          f"p99 {pct(server_ms, 0.99):.2f} ms")
    print(f"  errors          {len(errors)}" + (f"  first: {errors[0]}" if errors else ""))
    print(f"  memory          server RSS +{(rss_live - rss_before) / args.tables:.1f} KiB per "
          f"table (four open sockets included)")


def _set(event: asyncio.Event) -> asyncio.Event:
    event.set()
    return event


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--players", default="ai", help="the AI spec of the three other seats")
    p.add_argument("--expert-sessions", type=int, default=40,
                   help="sessions of the mixed run (0 skips it)")
    p.add_argument("--expert-share", type=float, default=0.1,
                   help="share of the mixed run's games with expert seats")
    p.add_argument("--db", default=None, help="the database's URL (default: a SQLite file in "
                   "a temporary directory)")
    p.add_argument("--kills", type=int, default=20,
                   help="SIGKILLs of the server during the kill run (0 skips it)")
    p.add_argument("--kill-sessions", type=int, default=20, help="sessions of the kill run")
    p.add_argument("--tables", type=int, default=50,
                   help="tables of four people of the table run (0 skips it)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        args.db = args.db or f"sqlite:///{tmp}/games.db"
        if args.sessions > 0:
            asyncio.run(run(args))
        asyncio.run(run_kills(args))
        asyncio.run(run_tables(args))
        asyncio.run(run_mixed(args))


if __name__ == "__main__":
    main()
