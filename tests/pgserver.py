"""A throwaway PostgreSQL server for the tests: initdb into a temporary folder, pg_ctl on a free
port of 127.0.0.1, a login role with a password (so the store's password paths are exercised for
real), a fresh database per test, stopped and removed at the end (tests/conftest.py: the `pg`
session fixture and `pg_url`).

Debian's `postgresql` package provides the binaries (`make test` installs it). initdb refuses to
run as root, so as root the server runs as the `postgres` system user, which owns the folder.
Anything that keeps the server from starting raises PgError: the tests that need it fail, never skip.
"""
from __future__ import annotations

import itertools
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

USER = "tilecam"          # the role the store logs in as (owner of each test database)
SUPERUSER = "postgres"    # the cluster's superuser: reached over the Unix socket, no password


class PgError(RuntimeError):
    """The test server could not be set up; the message says what to install or look at."""


def pg_bin() -> Path:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise PgError("PostgreSQL is not installed (no initdb): apt-get install postgresql (make test does)")


def runuser() -> str:
    """runuser where Debian puts it (util-linux: /usr/sbin, /sbin on older layouts): a plain user's
    PATH lacks the sbin folders, so the name alone is not enough."""
    for path in (shutil.which("runuser"), "/usr/sbin/runuser", "/sbin/runuser"):
        if path and os.access(path, os.X_OK):
            return path
    raise PgError("runuser is not installed (util-linux): running the test server as root needs it")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    def __init__(self) -> None:
        self.bin = pg_bin()
        self.root = Path(tempfile.mkdtemp(prefix="tilecam-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.password = secrets.token_urlsafe(18)
        self._as_root = os.geteuid() == 0
        self._names = itertools.count(1)
        self.running = False

    # -- running the cluster's own programs ---------------------------------------------
    def _run(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / program), *args]
        if self._as_root:  # initdb and postgres refuse root
            cmd = [runuser(), "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and done.returncode:
            raise PgError(f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
                          f"{self._log_tail()}")
        return done

    def _log_tail(self) -> str:
        try:
            return "\nserver log:\n" + "\n".join(self.log.read_text().splitlines()[-15:])
        except OSError:
            return ""

    def create(self) -> "PgServer":
        """initdb, start, and the login role with its password."""
        if self._as_root:
            shutil.chown(self.root, "postgres", "postgres")
        pwfile = self.root / "superuser.pw"  # initdb wants one; the superuser logs in by the socket's trust
        pwfile.write_text(secrets.token_urlsafe(18) + "\n")
        if self._as_root:
            shutil.chown(pwfile, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={pwfile}", "-E", "UTF8",
                  "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync")
        with open(self.data / "postgresql.conf", "a") as conf:  # a test server: speed over durability
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.root}'\nfsync = off\nsynchronous_commit = off\n"
                       "full_page_writes = off\nmax_connections = 200\n")
        self.start()
        from psycopg import sql

        self.admin(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(USER),
                                                                      sql.Literal(self.password)))
        return self

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")
        self.running = True

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")
        self.running = False

    def restart(self) -> None:
        self.stop()
        self.start()

    @contextmanager
    def down(self):
        """The server stopped inside the block (an outage), started again after it."""
        self.stop()
        try:
            yield
        finally:
            self.start()

    def destroy(self) -> None:
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
            self.running = False
        shutil.rmtree(self.root, ignore_errors=True)

    # -- databases ------------------------------------------------------------------------
    def admin(self, sql, params: tuple = (), dbname: str = "postgres") -> list[tuple]:
        """One statement as the superuser (over the Unix socket)."""
        import psycopg

        with psycopg.connect(host=str(self.root), port=self.port, user=SUPERUSER, dbname=dbname,
                             autocommit=True) as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def new_database(self) -> str:
        """A fresh empty database owned by USER: its URL (no password in it)."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name} OWNER {USER} TEMPLATE template0")
        return self.url(name)

    def url(self, dbname: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{dbname}"
