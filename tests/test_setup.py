"""The set-up the tests and the docs rely on: the PostgreSQL test server found from a plain user's
PATH, and no committed file naming the folder of the machine it was written on."""
from __future__ import annotations

import subprocess
from pathlib import Path

from pgserver import PgServer

REPO = Path(__file__).resolve().parents[1]
# The shared data's folder on the machines these files were written on (spelled in two parts so
# this file does not hold it): docs and results say ../shared/data, relative to the repo.
MACHINE_ROOT = "/" + "work/"


def test_the_test_server_runs_its_programs_without_sbin_on_path(monkeypatch):
    # A plain user's PATH on Debian: no /usr/sbin, where util-linux puts runuser.
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    done = PgServer()._run("pg_ctl", "--version")
    assert "PostgreSQL" in done.stdout


def committed_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    return [REPO / n for n in names.decode().split("\0") if n]


def test_no_committed_file_names_the_machine_s_folder():
    found = []
    for path in committed_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        found += [f"{path.relative_to(REPO)}:{i}" for i, line in enumerate(text.splitlines(), 1)
                  if MACHINE_ROOT in line]
    assert not found, f"absolute machine paths (write ../shared/data, relative to the repo): {found}"
