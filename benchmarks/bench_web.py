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

    python benchmarks/bench_web.py [--sessions 200] [--players ai]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import socket
import subprocess
import sys
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


def start_server(port: int, players: str, max_games: int) -> subprocess.Popen:
    code = (
        "import uvicorn\n"
        "from aluette_env.apps.web.server import ServerConfig, create_app\n"
        f"app = create_app(ServerConfig(partner={players!r}, left={players!r}, "
        f"right={players!r}, max_games={max_games}))\n"
        f"uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning', "
        "access_log=False)\n")
    return subprocess.Popen([sys.executable, "-c", code])


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
                     created: list[int]) -> None:
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

    data = await call("POST", "/api/games")
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
            data = await call("POST", f"/api/games/{gid}/play", {"card": card})
        if data is None:
            return
        state = data["state"]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def heap_per_game(players: str, n: int = 500) -> float:
    """Python heap (KiB) per live game, in-process, players shared as the server does."""
    from aluette_env.apps.web.session import GameSession
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


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    proc = start_server(port, args.players, max_games=max(1000, args.sessions * 2))
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
          f"{args.players!r}, server and clients on this machine ({os.cpu_count()} CPUs, "
          f"load average {load:.1f} at the end)")
    print(f"  requests        {n} in {wall:.1f} s ({n / wall:.0f}/s)")
    print(f"  server time     p50 {pct(wall_ms, 0.5):.2f} ms   p99 {pct(wall_ms, 0.99):.2f} ms"
          f"   max {max(wall_ms):.2f} ms   (wall; target p99 < 50 ms)")
    print(f"  server CPU      p50 {pct(cpu_ms, 0.5):.2f} ms   p99 {pct(cpu_ms, 0.99):.2f} ms"
          f"   max {max(cpu_ms):.2f} ms   (the server thread's CPU time per request)")
    print(f"  client latency  p50 {pct(client_ms, 0.5):.2f} ms   p99 {pct(client_ms, 0.99):.2f} ms"
          f"   (includes queueing behind the other {args.sessions - 1} sessions)")
    print(f"  errors          {len(errors)}" + (f"  first: {errors[0]}" if errors else ""))
    print(f"  memory          server RSS +{(rss_live - rss_before) / args.sessions:.1f} KiB per "
          f"new game ({args.sessions} live), +{(rss_after - rss_before) / args.sessions:.1f} KiB "
          f"per finished game; Python heap {heap:.1f} KiB per game (tracemalloc, 500 games)")


def _set(event: asyncio.Event) -> asyncio.Event:
    event.set()
    return event


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--players", default="ai", help="the AI spec of the three other seats")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
