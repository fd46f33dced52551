"""The web game hosted for friends (docs/WEB.md, "Host it for friends"):
every option of ``aluette serve`` also from its ``ALUETTE_...`` variable (the
option wins, a bad value refused naming the variable, each one in the docs),
the update socket's origin check behind an HTTPS reverse proxy (a page of the
site accepted, a foreign page refused), ``/healthz`` and ``/readyz``, the
access log and the ``--log-level`` that shows or hides it, the docs' backup
commands run as written, the wait for a database that is not up yet,
Debian's nginx with TLS (the configuration docs/hosting/nginx.conf ships, a
certificate made here) in front of ``aluette serve`` for a deal at a friends'
table with its live updates on the WebSocket, and the systemd unit checked by
``systemd-analyze verify``. nginx, openssl, pg_dump and systemd-analyze are
the system's: without them those tests are skipped and say why."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from aluette_env.apps import web
from aluette_env.apps.web.store import DatabaseDown, StoreUnavailable
from aluette_env.apps.web.tables import TableRoutes
from aluette_env.commands import UsageError, _Parser

from web_helpers import Served, client, free_port

ROOT = Path(__file__).resolve().parent.parent
HOSTING = ROOT / "docs" / "hosting"


# ------------------------------------------------------------------ settings

def environment_names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each option of ``parser`` and the variable its help names."""
    return {a.option_strings[-1]: re.search(r"\[(ALUETTE_\w+)\]", a.help).group(1)
            for a in parser._actions if a.option_strings and a.dest != "help"}


def serve_parser() -> argparse.ArgumentParser:
    parser = _Parser()
    web.add_arguments(parser)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    return serve_parser().parse_args(argv)


def test_every_serve_option_is_read_from_its_documented_variable_and_the_option_wins(
        monkeypatch):
    names = environment_names(serve_parser())
    assert names["--max-games"] == "ALUETTE_MAX_GAMES" and names["--db"] == "ALUETTE_DB"
    assert len(set(names.values())) == len(names)  # one variable per option
    docs = (ROOT / "docs" / "WEB.md").read_text()
    assert not [n for n in names.values() if f"`{n}`" not in docs]
    db = _Parser()
    web.add_db_arguments(db)
    prune = db._subparsers._group_actions[0].choices["prune"]
    shared = {o: n for o, n in environment_names(prune).items() if o in names}
    assert shared == {o: names[o] for o in ("--db", "--keep-unfinished", "--keep-finished")}
    monkeypatch.setenv("ALUETTE_PORT", "8123")
    monkeypatch.setenv("ALUETTE_PROXY", "127.0.0.1")
    monkeypatch.setenv("ALUETTE_OPEN", "yes")
    monkeypatch.setenv("ALUETTE_LOG_LEVEL", "INFO")
    monkeypatch.setenv("ALUETTE_MAX_GAMES", "")  # empty: unset
    args = parse([])
    assert (args.port, args.proxy, args.open, args.log_level, args.max_games) == (
        8123, "127.0.0.1", True, "info", 1000)
    assert parse(["--port", "9000"]).port == 9000  # the option wins
    monkeypatch.setenv("ALUETTE_WORKERS", "many")
    with pytest.raises(UsageError, match=r"--workers: from ALUETTE_WORKERS='many': expected "
                                         r"an integer from 1 to 64"):
        parse([])
    assert parse(["--workers", "2"]).workers == 2  # a bad variable the option replaces


def test_a_bad_variable_stops_serve_in_one_line_and_names_it():
    env = {**os.environ, "ALUETTE_LOG_LEVEL": "loud"}
    r = subprocess.run([sys.executable, "-m", "aluette_env", "serve", "--port", "0"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "ALUETTE_LOG_LEVEL='loud'" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ the socket's origin

def socket_of(headers: dict[str, str], scheme: str = "ws"):
    return SimpleNamespace(headers={k.lower(): v for k, v in headers.items()},
                           url=SimpleNamespace(scheme=scheme))


@pytest.mark.parametrize("headers, accepted", [
    # nginx as docs/hosting/nginx.conf sets it up: the browser's host and scheme
    ({"Host": "cards.example.org", "Origin": "https://cards.example.org",
      "X-Forwarded-Proto": "https"}, True),
    ({"Host": "cards.example.org:8443", "Origin": "https://cards.example.org:8443",
      "X-Forwarded-Proto": "https"}, True),
    # nginx's default Host (its upstream), a proxy naming the browser's host instead
    ({"Host": "127.0.0.1:8000", "Origin": "https://cards.example.org",
      "X-Forwarded-Host": "cards.example.org", "X-Forwarded-Proto": "https"}, True),
    ({"Host": "127.0.0.1:8000", "Origin": "https://cards.example.org",
      "Sec-Fetch-Site": "same-origin"}, True),
    ({"Host": "127.0.0.1:8000", "Origin": "https://cards.example.org"}, False),
    # a foreign page, however the request came
    ({"Host": "cards.example.org", "Origin": "https://evil.example",
      "X-Forwarded-Proto": "https"}, False),
    ({"Host": "127.0.0.1:8000", "Origin": "https://evil.example",
      "Sec-Fetch-Site": "cross-site"}, False),
    ({"Host": "cards.example.org", "Origin": "https://cards.example.org.evil.example",
      "X-Forwarded-Proto": "https"}, False),
    ({"Host": "cards.example.org", "Origin": "http://cards.example.org",
      "X-Forwarded-Proto": "https"}, False),  # the page over plain HTTP
    ({"Host": "cards.example.org", "Origin": "https://cards.example.org"}, False),  # no proxy
    ({"Host": "cards.example.org", "Origin": "null", "Sec-Fetch-Site": "same-origin"}, False),
    ({"Host": "cards.example.org:x", "Origin": "http://cards.example.org:x"}, False),
])
def test_the_socket_accepts_the_sites_pages_through_a_proxy_and_refuses_foreign_ones(
        headers, accepted):
    assert TableRoutes.same_origin(socket_of(headers)) is accepted


# ------------------------------------------------------------------ health, logs

def test_healthz_answers_while_the_server_runs_and_readyz_while_its_database_does():
    with client() as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        assert c.get("/readyz").json() == {"status": "ready", "database": "sqlite"}
        db = c.app.state.store.db

        def down():
            raise StoreUnavailable("connection refused")
        db.ping = down
        r = c.get("/readyz")
        assert r.status_code == 503 and r.json()["code"] == "store_unavailable"
        assert "connection refused" in r.json()["error"]
        assert c.get("/healthz").status_code == 200  # alive, not ready


def test_each_request_is_one_access_log_line_with_its_token_cut_short(caplog):
    with client() as c, caplog.at_level(logging.INFO, logger="aluette.access"):
        token = c.post("/api/games").json()["id"]
        c.get(f"/api/games/{token}")
        c.get("/no/such/page")
    lines = [r.getMessage() for r in caplog.records if r.name == "aluette.access"]
    assert len(lines) == 3, lines
    assert re.fullmatch(r'testclient "POST /api/games HTTP/1\.1" 201 [\d.]+ ms', lines[0])
    assert f'"GET /api/games/{token[:4]}\u2026 HTTP/1.1" 200' in lines[1]
    assert token not in caplog.text and '"GET /no/such/page HTTP/1.1" 404' in lines[2]


def _serve_in_process(argv, monkeypatch, capsys):
    from test_web import _serve
    return _serve(argv, monkeypatch, capsys)


def test_the_log_level_decides_whether_requests_are_logged(monkeypatch, capsys, tmp_path):
    """``aluette serve`` sets its loggers to ``--log-level``: by default
    (warning) no request is logged; at info and below, each request is one
    access line on stdout."""
    db = f"sqlite:///{tmp_path / 'g.db'}"
    with client() as c:
        for options, lines in (([], 0), (["--log-level", "info"], 2),
                               (["--log-level", "warning"], 0)):
            code, err = _serve_in_process(["--db", db, *options], monkeypatch, capsys)
            assert code == 0, err
            token = c.post("/api/games").json()["id"]
            c.get(f"/api/games/{token}")
            out = capsys.readouterr().out
            requests = re.findall(r'"(?:POST|GET) /api/games\S* HTTP/1\.1" 20[01] ', out)
            assert len(requests) == lines, (options, out)


def test_serve_waits_for_a_database_that_is_not_up_yet_and_says_so(monkeypatch, capsys,
                                                                    tmp_path):
    from aluette_env.apps.web import store
    tries = []
    real = store.Database._upgrade

    def not_yet(self):
        tries.append(time.monotonic())
        if len(tries) < 3:
            raise DatabaseDown("--db postgresql://…: cannot use it: connection refused")
        return real(self)
    monkeypatch.setattr(store.Database, "_upgrade", not_yet)
    monkeypatch.setattr(store, "RETRY_FIRST_S", 0.01)
    code, err = _serve_in_process(["--db", f"sqlite:///{tmp_path / 'g.db'}"], monkeypatch,
                                  capsys)
    assert code == 0 and len(tries) == 3, err
    waits = [line for line in err if "does not answer yet" in line]  # the server's log
    assert len(waits) == 2 and "connection refused" in waits[0], err


def test_serve_gives_up_on_a_database_that_never_answers_in_one_line():
    port = free_port()  # nothing listens there
    r = subprocess.run([sys.executable, "-m", "aluette_env", "serve", "--port", "0",
                        "--db", f"postgresql+psycopg://aluette@127.0.0.1:{port}/games",
                        "--db-wait", "1"], capture_output=True, text=True, timeout=120)
    if "No module named" in r.stderr:
        pytest.skip("psycopg is not installed")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and "gave up after waiting 1 s" in lines[-1], r.stderr
    assert lines[-1].startswith("aluette: error:")
    assert any("does not answer yet" in line for line in lines[:-1]), r.stderr


# ------------------------------------------------------------------ nginx, systemd

def nginx() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",)
                                           if os.path.exists(p)), None)
    if found is None:
        pytest.skip("nginx is not installed (.ci/run installs Debian's)")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate for nginx")
    return found


def certificate(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def replaced(text: str, changes: dict[str, str]) -> str:
    """``text`` with each key replaced by its value; each key must be there
    once (the shipped file changed: the test says so instead of testing another)."""
    for old, new in changes.items():
        assert text.count(old) == 1, f"docs/hosting/nginx.conf no longer has {old!r} once"
        text = text.replace(old, new)
    return text


def start_nginx(tmp: Path, upstream: int) -> tuple[subprocess.Popen, int]:
    binary = nginx()
    cert, key = certificate(tmp)
    port, plain = free_port(), free_port()
    site = replaced((HOSTING / "nginx.conf").read_text(), {
        "listen 443 ssl;": f"listen 127.0.0.1:{port} ssl;",
        "listen 80;": f"listen 127.0.0.1:{plain};",
        "/etc/letsencrypt/live/cards.example.org/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/cards.example.org/privkey.pem": str(key),
        "proxy_pass http://127.0.0.1:8000;": f"proxy_pass http://127.0.0.1:{upstream};",
    })
    (tmp / "site.conf").write_text(site)
    temp = {name: tmp / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    (tmp / "nginx.conf").write_text(
        f"worker_processes 1;\nerror_log {tmp / 'error.log'} warn;\npid {tmp / 'nginx.pid'};\n"
        f"events {{ worker_connections 64; }}\n"
        f"http {{\n  access_log off;\n"
        f"  client_body_temp_path {temp['body']};\n  proxy_temp_path {temp['proxy']};\n"
        f"  fastcgi_temp_path {temp['fastcgi']};\n  uwsgi_temp_path {temp['uwsgi']};\n"
        f"  scgi_temp_path {temp['scgi']};\n  include {tmp / 'site.conf'};\n}}\n")
    checked = subprocess.run([binary, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([binary, "-p", str(tmp), "-c", str(tmp / "nginx.conf"),
                             "-g", "daemon off;"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "nginx did not listen"
        time.sleep(0.05)


@pytest.mark.slow  # nginx and a server, each a process of its own
def test_a_deal_at_a_friends_table_through_nginx_with_tls_and_live_updates(tmp_path):
    """nginx with docs/hosting/nginx.conf and TLS in front of ``aluette serve
    --proxy 127.0.0.1``: Ann and Bob play a deal through it, and every move
    reaches both pages and the spectator's on their update sockets (wss://,
    not the page's fallback of asking); a one-person game's socket opens too.
    The access log names the address nginx forwards."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    nginx()
    server = Served(f"sqlite:///{tmp_path / 'games.db'}",
                    options=("--proxy", "127.0.0.1", "--log-level", "info")).start()
    proxy = None
    try:
        proxy, port = start_nginx(tmp_path, server.port)
        site = f"https://127.0.0.1:{port}"
        tls = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        web_client = httpx.Client(base_url=site, verify=tls, timeout=60,
                                  headers={"x-forwarded-for": "10.1.2.3"})
        assert web_client.get("/healthz").json() == {"status": "ok"}
        assert web_client.get("/readyz").json()["status"] == "ready"
        made = web_client.post("/api/tables", json={"people": {"0": "Ann", "2": "Bob"}}).json()
        tokens = {"Ann": made["seats"]["0"]["token"], "Bob": made["seats"]["2"]["token"],
                  "spectator": made["spectator"]["token"]}

        def updates(token: str, origin: str = site):
            return connect(f"wss://127.0.0.1:{port}/api/games/{token}/updates?lang=en",
                           ssl=tls, origin=origin, open_timeout=30,
                           additional_headers={"x-forwarded-for": "10.1.2.3"})

        with contextlib.ExitStack() as stack:
            sockets = {who: stack.enter_context(updates(token)) for who, token in tokens.items()}
            seen = {who: json.loads(ws.recv(timeout=30))["version"]
                    for who, ws in sockets.items()}
            moves = 0
            while True:
                views = {who: web_client.get(f"/api/games/{tokens[who]}").json()["state"]
                         for who in ("Ann", "Bob")}
                if views["Ann"]["deal"]["done"]:
                    break
                who = next(w for w, v in views.items() if v["your_turn"])
                answer = web_client.post(f"/api/games/{tokens[who]}/play", json={
                    "card": views[who]["legal"][0], "version": views[who]["version"]})
                assert answer.status_code == 200, answer.text
                version = answer.json()["state"]["version"]
                moves += 1
                for name, ws in sockets.items():  # pushed to every page, this move's too
                    while seen[name] < version:
                        seen[name] = json.loads(ws.recv(timeout=30))["version"]
            assert moves == 2 * 9  # Ann and Bob each played their nine cards
            one = web_client.post("/api/games", json={}).json()
            with updates(one["id"]) as ws:
                assert json.loads(ws.recv(timeout=30))["version"] == one["state"]["version"]
            with pytest.raises(InvalidStatus) as refused, updates(tokens["Ann"],
                                                                  "https://evil.example"):
                pass
            assert refused.value.response.status_code == 403  # a foreign page's socket
        web_client.close()
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=30)
        server.proc.terminate()
        out, _ = server.proc.communicate(timeout=60)
    assert re.search(r'10\.1\.2\.3 "POST /api/tables HTTP/1\.1" 201', out), out[-2000:]
    assert re.search(r'10\.1\.2\.3 "WEBSOCKET /api/games/\S{4}\u2026/updates HTTP/1\.1" 101',
                     out), out[-2000:]
    assert tokens["Ann"] not in out


def test_the_shipped_systemd_unit_passes_systemd_analyze_verify(tmp_path):
    verify = shutil.which("systemd-analyze")
    if verify is None:
        pytest.skip("systemd-analyze is not installed")
    unit = (HOSTING / "aluette.service").read_text()
    assert unit.count("ExecStart=/opt/aluette/.venv/bin/aluette serve") == 1
    assert "ALUETTE_PROXY=127.0.0.1" in unit and "ALUETTE_LOG_LEVEL=info" in unit
    # verify checks that the command exists: this Python's, with the same arguments.
    (tmp_path / "aluette.service").write_text(unit.replace(
        "/opt/aluette/.venv/bin/aluette serve", f"{sys.executable} -m aluette_env serve"))
    r = subprocess.run([verify, "verify", str(tmp_path / "aluette.service")], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "aluette.service" not in r.stderr, r.stderr  # no warning about the unit


@pytest.mark.parametrize("name, fence", [("nginx.conf", "nginx"), ("aluette.service", "ini")])
def test_the_docs_show_the_hosting_files_as_shipped(name, fence):
    docs = (ROOT / "docs" / "WEB.md").read_text()
    shown = re.search(rf"```{fence}\n(.*?)```", docs, re.S)
    assert shown and shown.group(1) == (HOSTING / name).read_text()


def backup_lines() -> dict[str, list[str]]:
    """The commands of docs/WEB.md's **Backup** block, each as its words, by its program."""
    docs = (ROOT / "docs" / "WEB.md").read_text()
    block = re.search(r"\*\*Backup\*\*.*?```bash\n(.*?)```", docs, re.S)
    assert block, "docs/WEB.md has no **Backup** block of commands"
    lines = (shlex.split(line, comments=True) for line in block.group(1).splitlines())
    return {words[0]: words for words in lines if words}


def test_the_docs_backup_command_copies_the_default_database_as_written(tmp_path,
                                                                        monkeypatch, capsys):
    """The docs' ``aluette db backup`` line, run as written with its file put in
    a folder of the test's: it copies the server's default database, and the
    copy serves its games at the URL the docs give for it."""
    from test_web_upkeep import aluette, fill

    argv = backup_lines()["aluette"]
    assert argv[:3] == ["aluette", "db", "backup"], argv
    docs = (ROOT / "docs" / "WEB.md").read_text()
    assert re.search(r"`aluette serve --db\s+sqlite:///(\S+)`", docs).group(1) == argv[3]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("ALUETTE_DB", "ALUETTE_DRY_RUN"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "data" / "aluette").mkdir(parents=True)
    kept = fill(tmp_path / "data" / "aluette" / "games.db", expired=0, kept=1)
    copy = tmp_path / argv[3].lstrip("/")
    copy.parent.mkdir(parents=True)
    r = aluette(capsys, *argv[1:3], str(copy), *argv[4:])
    assert r.returncode == 0 and "backed up" in r.stdout, r.stderr
    with client(db=f"sqlite:///{copy}") as c:
        assert c.get(f"/api/games/{kept[0]}").status_code == 200


def test_the_docs_pg_dump_line_is_one_pg_dump_reads(tmp_path):
    """The docs' ``pg_dump`` line, with its file put in a folder of the test's and
    its server at a port where none listens: pg_dump reads every option, then
    fails only to connect (a misspelt option or format fails before)."""
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        pytest.skip("pg_dump is not installed")
    argv = backup_lines()["pg_dump"]
    url = argv[-1]
    assert url.startswith("postgresql://") and "--file" in argv, argv
    file = argv.index("--file") + 1
    dump = tmp_path / argv[file].lstrip("/")
    dump.parent.mkdir(parents=True)
    argv[file] = str(dump)
    argv[-1] = re.sub(r"@[^/]+/", f"@127.0.0.1:{free_port()}/", url)
    r = subprocess.run([pg_dump, *argv[1:]], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "LC_ALL": "C"},  # its messages in English
                       stdin=subprocess.DEVNULL, start_new_session=True)  # no password asked
    assert r.returncode == 1 and "Connection refused" in r.stderr, r.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_the_servers_socket_gives_every_accepted_connection_tcp_nodelay(host):
    """``aluette serve``'s socket (:func:`web.listening_socket`) names its protocol,
    so a connection accepted from it gets TCP_NODELAY from asyncio: an answer's
    body is not held back until the client acknowledges its headers, which a
    client delays by about 40 ms on each kept-alive connection (a page's fetches).
    A socket made with the protocol left at 0 (``socket.socket()``, as uvicorn's
    own ``bind_socket`` once did) fails this."""
    import asyncio
    import concurrent.futures
    try:
        sock = web.listening_socket(host, 0)
    except UsageError as err:  # no IPv6 here
        pytest.skip(f"cannot listen on {host} here: {err}")

    async def accepted() -> int:
        loop = asyncio.get_running_loop()
        nodelay = loop.create_future()

        class Accepted(asyncio.Protocol):
            def connection_made(self, transport):
                nodelay.set_result(transport.get_extra_info("socket").getsockopt(
                    socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await loop.create_server(Accepted, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            try:
                return await asyncio.wait_for(nodelay, 30)
            finally:
                writer.close()

    # A thread of its own: a worker that ran a browser test has Playwright's loop
    # running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        assert thread.submit(asyncio.run, accepted()).result() != 0


def test_a_port_already_taken_is_refused_in_one_line():
    taken = web.listening_socket("127.0.0.1", 0)
    with taken, pytest.raises(UsageError, match=r"^cannot listen on 127\.0\.0\.1:\d+: "):
        web.listening_socket("127.0.0.1", taken.getsockname()[1]).close()


def test_a_port_already_taken_with_a_database_in_memory_is_still_one_line(capsys):
    """The note that games in memory are lost comes once the server listens: a
    refusal to listen is the one line on stderr."""
    from aluette_env.commands import run_command
    taken = web.listening_socket("127.0.0.1", 0)
    with taken:
        assert run_command(["serve", "--port", str(taken.getsockname()[1]),
                            "--db", "sqlite:///:memory:", "--partner", "random",
                            "--left", "random", "--right", "random"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot listen on 127.0.0.1:" in err, err
