"""Debian's Chromium, headless, driven by playwright: the one launcher the page tests share."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium_page(profile_dir: Path, width: int, height: int):
    """A page in a fresh persistent context (the explicit --user-data-dir the flags call for);
    a missing browser fails the test, it does not skip it. The page's script errors collect in
    `page.errors`, for the tests to assert there are none."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile_dir), executable_path=str(CHROMIUM), args=FLAGS, headless=True,
            viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.errors = []
            page.on("pageerror", lambda e: page.errors.append(str(e)))
            yield page
        finally:
            context.close()


def open_console_game(page, url: str, token: str, game_id: int) -> None:
    """The operator console at `url` with `token` given, on game `game_id` (the steps an operator
    takes: the token, then the game from the list once it is there)."""
    page.goto(f"{url}/operator")
    page.fill("#token", token)
    page.dispatch_event("#token", "change")
    page.wait_for_function(f"() => [...document.querySelectorAll('#game option')].some((o) => o.value === '{game_id}')")
    page.select_option("#game", str(game_id))
