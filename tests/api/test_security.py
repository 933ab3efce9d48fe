"""The operator token and the browser-facing headers, over real HTTP, a real `tilecam serve`
subprocess and headless Debian chromium: security headers on every response, no third-party
code on the origin, the back-off after wrong tokens, tokens that are never printed by default,
weak tokens refused at start, and the operator console's token in sessionStorage only."""
from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tilecam.api.commands.serve import TokenError, operator_tokens
from tilecam.api.security import TokenGuard
from tilecam.api.settings import SettingsError, load_settings
from apiserver import AUTH, TOKEN, LiveServer, api, client, create_game_when_up, new_game  # noqa: F401  (fixtures)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api" / "static"))  # where test_overlay_browser lives
from test_overlay_browser import browser_page  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "api" / "static"


def csp(response: httpx.Response) -> dict[str, str]:
    """The Content-Security-Policy header as directive -> sources."""
    parts = (p.strip().split(" ", 1) for p in response.headers["content-security-policy"].split(";"))
    return {p[0]: p[1] if len(p) > 1 else "" for p in parts}


# -- headers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/games", "/api/games/424242", "/openapi.json", "/static/operator.js",
                                  "/static/overlay.css", "/operator", "/docs", "/"])
def test_every_response_gets_the_strict_headers(client, path):
    r = client.get(path, follow_redirects=False)
    assert r.status_code in (200, 307, 404), r.text
    policy = csp(r)
    assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'" and "unsafe" not in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_refused_writes_and_streams_get_the_headers_too(client):
    gid = new_game(client)
    r = client.post(f"/api/games/{gid}/passes", json={})
    assert r.status_code == 401 and r.headers["x-frame-options"] == "DENY"
    with client.stream("GET", f"/api/games/{gid}/events") as stream:
        assert stream.status_code == 200 and stream.headers["x-content-type-options"] == "nosniff"
        assert csp(stream)["frame-ancestors"] == "'none'"


def test_overlay_pages_can_be_framed_and_take_obs_custom_css(client):
    """OBS loads overlays as a top-level page, but applies a source's Custom CSS as a <style>
    element; the overlays hold no secret and trigger no write, so framing is allowed too."""
    gid = new_game(client)
    for path in (f"/overlay/{gid}", f"/overlay/{gid}/p1_score"):
        r = client.get(path)
        assert r.status_code == 200
        policy = csp(r)
        assert policy["frame-ancestors"] == "*" and "x-frame-options" not in r.headers
        assert policy["style-src"] == "'self' 'unsafe-inline'" and policy["script-src"] == "'self'"
        assert r.headers["x-content-type-options"] == "nosniff"


# -- no third-party code on the origin ----------------------------------------------------------

@pytest.mark.parametrize("page", sorted(STATIC.glob("*.html")), ids=lambda p: p.name)
def test_pages_load_only_our_own_files(page):
    html = page.read_text(encoding="utf-8")
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", html)
    assert not [u for u in urls if re.match(r"(?i)(https?:)?//", u)], "a URL off this origin"
    for src in re.findall(r"""<script[^>]*src=["']([^"']+)""", html):
        assert (STATIC / src.removeprefix("/static/")).is_file(), src
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>\s*\S", html), "an inline script"
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html, re.I), "inline style or handler"


def test_api_docs_are_our_own_page(client):
    assert client.get("/redoc").status_code == 404
    assert client.get("/docs/oauth2-redirect").status_code == 404
    r = client.get("/docs")
    assert r.status_code == 200 and '<script src="/static/docs.js">' in r.text
    assert "cdn" not in r.text.lower()


# -- the back-off after wrong tokens ------------------------------------------------------------

def test_guard_doubles_the_wait_caps_it_and_forgets():
    now = [0.0]
    guard = TokenGuard(max_failures=3, initial_s=2.0, max_s=60.0, clock=lambda: now[0])
    for _ in range(2):
        guard.failed("10.0.0.5")
    assert guard.wait_s("10.0.0.5") == 0
    waits = []
    for _ in range(7):
        guard.failed("10.0.0.5")
        waits.append(guard.wait_s("10.0.0.5"))
        now[0] += waits[-1]
    assert waits == [2, 4, 8, 16, 32, 60, 60]
    assert guard.wait_s("10.0.0.6") == 0  # per address
    now[0] += 61  # quiet for longer than the longest wait: a fresh start
    guard.failed("10.0.0.5")
    assert guard.wait_s("10.0.0.5") == 0
    guard.failed("10.0.0.5")
    guard.succeeded("10.0.0.5")  # a right token: from zero again
    guard.failed("10.0.0.5")
    guard.failed("10.0.0.5")
    assert guard.wait_s("10.0.0.5") == 0


@pytest.fixture()
def strict_api(tmp_path):
    with LiveServer(tmp_path / "games.sqlite3") as server:
        server.app.state.guard = TokenGuard(max_failures=3, initial_s=1.0, max_s=30.0)
        yield server


def test_wrong_tokens_get_401_then_429_for_a_growing_time(strict_api):
    bad = {"Authorization": "Bearer wrong-token-wrong-token"}
    body = {"players": [{"name": "A"}, {"name": "B"}]}
    with httpx.Client(base_url=strict_api.url, timeout=10) as c:
        assert [c.post("/api/games", json=body, headers=bad).status_code for _ in range(3)] == [401] * 3
        r = c.post("/api/games", json=body, headers=AUTH)  # even the right token waits
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        assert r.json()["detail"] == "too many wrong tokens; try again in 1 s"
        # Another address is not held up: 127.0.0.2 is loopback too.
        with httpx.Client(base_url=strict_api.url, timeout=10,
                          transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:
            assert other.post("/api/games", json=body, headers=AUTH).status_code == 201
        assert c.get("/api/games").status_code == 200  # reads need no token and never wait
        time.sleep(1.05)
        assert c.post("/api/games", json=body, headers=bad).status_code == 401
        r = c.post("/api/games", json=body, headers=bad)
        assert r.status_code == 429 and r.headers["retry-after"] == "2"
        time.sleep(2.05)
        assert c.post("/api/games", json=body, headers=AUTH).status_code == 201
        # The right token started the address from zero.
        assert [c.post("/api/games", json=body, headers=bad).status_code for _ in range(3)] == [401] * 3


# -- where tokens come from ---------------------------------------------------------------------

@pytest.mark.parametrize("token, message", [
    ("", "token 'desk' is empty"),
    ("s3cret", "token 'desk' has 6 characters; at least 16 are needed"),
    ("correct horse battery", "token 'desk' must be printable ASCII without spaces"),
])
def test_weak_configured_tokens_are_refused(tmp_path, token, message):
    path = tmp_path / "tilecam.toml"
    path.write_text(f'[auth.tokens]\ndesk = "{token}"\n')
    with pytest.raises(SettingsError, match=re.escape(message)):
        load_settings(path)
    r = run_serve(["--config", str(path), "--db", str(tmp_path / "g.sqlite3")])
    assert r.returncode == 2 and r.stdout == ""
    assert message in r.stderr and "Traceback" not in r.stderr


def test_token_sources(tmp_path):
    db = str(tmp_path / "g.sqlite3")
    tokens, where = operator_tokens({}, {}, None, db)
    path = tmp_path / "g.sqlite3.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == tokens["operator"] + "\n" and len(tokens["operator"]) >= 32
    assert where == [f"operator: new, written to {path}"]
    # Created once, then reused: the operator's console keeps working after a restart.
    assert operator_tokens({}, {}, None, db) == (tokens, [f"operator: in {path}"])
    desk = {"desk": "d" * 20}
    assert operator_tokens(desk, {}, None, db) == (desk, ["desk: from the settings file"])
    assert operator_tokens(desk, {"TILECAM_TOKEN": "e" * 16}, None, db) == (
        {**desk, "operator": "e" * 16}, ["desk: from the settings file", "operator: from $TILECAM_TOKEN"])
    with pytest.raises(TokenError, match="not both"):
        operator_tokens({}, {"TILECAM_TOKEN": "e" * 16}, str(path), db)


def run_serve(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TILECAM_TOKEN"} | (env or {})
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "serve", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=30)


def bad_token_file(tmp_path: Path, text: str, mode: int) -> Path:
    path = tmp_path / "token"
    path.write_text(text)
    path.chmod(mode)
    return path


@pytest.mark.parametrize("case, message", [
    ("--token", "--token was removed: a token on the command line is visible to every user in ps"),
    ("empty env", "$TILECAM_TOKEN is empty"),
    ("short env", "$TILECAM_TOKEN has 9 characters; at least 16 are needed"),
    ("open file", "can be read by others (mode 0644); chmod 600 it"),
    ("short file", "has 5 characters; at least 16 are needed"),
    ("binary file", "must be printable ASCII without spaces"),
    ("both", "give $TILECAM_TOKEN or --token-file, not both"),
    ("folder is a file", "cannot create the folder of token file"),
])
def test_serve_refuses_bad_token_sources(tmp_path, case, message):
    args, env = ["--db", str(tmp_path / "g.sqlite3")], {}
    if case == "--token":
        args += ["--token", "a-long-enough-token-value"]
    elif case == "empty env":
        env["TILECAM_TOKEN"] = ""
    elif case == "short env":
        env["TILECAM_TOKEN"] = "too-short"
    elif case == "open file":
        args += ["--token-file", str(bad_token_file(tmp_path, "x" * 20, 0o644))]
    elif case == "short file":
        args += ["--token-file", str(bad_token_file(tmp_path, "short\n", 0o600))]
    elif case == "binary file":
        args += ["--token-file", str(bad_token_file(tmp_path, "\u00e9" * 20, 0o600))]
    elif case == "both":
        env["TILECAM_TOKEN"] = "x" * 20
        args += ["--token-file", str(tmp_path / "token")]
    elif case == "folder is a file":  # a missing folder is made (a fresh machine); a file in the way is not
        (tmp_path / "plain").write_text("not a folder")
        args += ["--token-file", str(tmp_path / "plain" / "token")]
    r = run_serve(args, env)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_and_post(tmp_path: Path, args: list[str], env: dict[str, str], token_of) -> str:
    """Start `tilecam serve`, read what it prints, create a game with the token `token_of(output)`
    names, stop it with Ctrl-C; returns the output."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "TILECAM_TOKEN"} | env
    proc = subprocess.Popen([sys.executable, "-m", "tilecam.api.cli", "serve", "--port", str(port),
                             "--db", str(tmp_path / "g.sqlite3"), *args],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        lines = []
        while not lines or "operator token" not in lines[-1]:
            line = proc.stdout.readline()
            assert line, f"serve ended: {lines}"
            lines.append(line)
        output = "".join(lines)
        token = token_of(output)
        r = create_game_when_up(proc, port, token)
        assert r.status_code == 201, r.text
        proc.send_signal(signal.SIGINT)
        output += proc.stdout.read()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return output


def test_serve_writes_the_token_to_a_private_file_and_never_prints_it(tmp_path):
    path = tmp_path / "g.sqlite3.token"
    output = serve_and_post(tmp_path, [], {}, lambda out: path.read_text().strip())
    token = path.read_text().strip()
    assert f"operator token    operator: new, written to {path}" in output
    assert token not in output and len(token) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_serve_takes_the_token_from_the_environment_and_shows_it_only_when_asked(tmp_path):
    token = "from-the-environment-0123"
    output = serve_and_post(tmp_path, [], {"TILECAM_TOKEN": token}, lambda out: token)
    assert "operator: from $TILECAM_TOKEN" in output and token not in output
    assert not (tmp_path / "g.sqlite3.token").exists()
    output = serve_and_post(tmp_path, ["--show-token"], {"TILECAM_TOKEN": token}, lambda out: token)
    assert f"operator = {token}" in output


# -- the broadcast token (issue 43): made and kept as the operator's, never printed unasked --

def test_serve_makes_a_broadcast_token_and_prints_the_overlay_without_it(tmp_path):
    path = tmp_path / "g.sqlite3.broadcast-token"
    output = serve_and_post(tmp_path, [], {}, lambda out: (tmp_path / "g.sqlite3.token").read_text().strip())
    token = path.read_text().strip()
    assert len(token) >= 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token not in output
    assert "/overlay/table/<n>?broadcast=<broadcast token>" in output and str(path) in output
    assert token != (tmp_path / "g.sqlite3.token").read_text().strip()
    output = serve_and_post(tmp_path, ["--show-token"], {}, lambda out: (tmp_path / "g.sqlite3.token").read_text().strip())
    assert f"/overlay/table/<n>?broadcast={token}" in output   # asked for: the same token, kept


def test_a_broadcast_token_that_is_an_operator_token_is_refused(tmp_path):
    r = run_serve(["--db", str(tmp_path / "g.sqlite3")],
                  {"TILECAM_TOKEN": "the-same-token-for-both", "TILECAM_BROADCAST_TOKEN": "the-same-token-for-both"})
    assert r.returncode == 2 and "broadcast token is an operator token" in r.stderr and "Traceback" not in r.stderr


# -- in the browser -----------------------------------------------------------------------------

def test_operator_console_keeps_the_token_for_this_tab_only(api, browser_page):
    page = browser_page
    page.goto(f"{api.url}/operator")
    page.evaluate("localStorage.setItem('tilecam-token', 'left-by-an-older-version')")
    page.reload()
    assert page.evaluate("localStorage.getItem('tilecam-token')") is None
    page.fill("#token", TOKEN)
    page.dispatch_event("#token", "change")
    assert page.evaluate("sessionStorage.getItem('tilecam-token')") == TOKEN
    assert page.evaluate("localStorage.length") == 0
    page.reload()
    assert page.input_value("#token") == TOKEN  # the same tab keeps it
    other = page.context.new_page()  # a new tab starts without it
    try:
        other.goto(f"{api.url}/operator")
        assert other.input_value("#token") == ""
    finally:
        other.close()


def test_pages_work_under_the_policy(api, client, browser_page):
    """No page breaks on its own policy; OBS-style injected CSS styles the overlay pages only."""
    gid = new_game(client, "Pat Policy", "Quinn Quote")
    page = browser_page
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    inject = ("() => { const s = document.createElement('style'); s.textContent = "
              "'body { outline: 3px solid rgb(1, 2, 3) }'; document.head.appendChild(s);"
              " return getComputedStyle(document.body).outlineColor; }")

    page.goto(f"{api.url}/overlay/{gid}/p1_name")
    page.wait_for_function("() => document.getElementById('field').textContent === 'Pat Policy'", timeout=10_000)
    assert page.evaluate(inject) == "rgb(1, 2, 3)"
    page.goto(f"{api.url}/overlay/{gid}")
    page.wait_for_function("() => document.querySelectorAll('.sq').length === 225", timeout=10_000)
    page.goto(f"{api.url}/docs")
    page.wait_for_function("() => Number(document.body.dataset.loaded) > 10", timeout=10_000)
    assert "/api/games/{game_id}/plays" in page.inner_text("#api")
    assert violations == []

    page.goto(f"{api.url}/operator")
    page.wait_for_function(f"() => [...document.querySelectorAll('#game option')].some(o => o.value === '{gid}')",
                           timeout=10_000)
    assert page.evaluate(inject) != "rgb(1, 2, 3)"  # the console takes no injected style
    assert any("style-src" in v for v in violations)
