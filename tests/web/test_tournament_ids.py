"""Stable tournament ids: every tournament has one, the file carries it
as the top-level `id`, and a second copy is refused unless replaced explicitly."""
from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from webapp.extensions import db
from webapp.models import AuditEntry, Tournament
from webapp.rules import exchange

DATA = Path(__file__).resolve().parents[1] / "data"
WORKED = DATA / "worked_example.json"


def test_a_new_tournament_has_a_stable_id_and_the_file_carries_it(app, runner, tmp_path):
    from tests.helpers import make_tournament

    tid = make_tournament(app, n_players=9)
    with app.app_context():
        uid = db.session.get(Tournament, tid).uid
    assert len(uid) == 36 and uid.count("-") == 4
    out = runner.invoke(args=["listok", "export", str(tid)])
    assert out.exit_code == 0 and json.loads(out.output)["id"] == uid


def test_import_of_the_same_file_twice_exits_2_naming_the_tournament(app, runner):
    first = runner.invoke(args=["listok", "import", str(WORKED)])
    assert first.exit_code == 0
    tid = int(first.output.strip())
    second = runner.invoke(args=["listok", "import", str(WORKED)])
    assert second.exit_code == 2
    assert "RULES.md §3 worked example" in second.output and f"as tournament {tid}" in second.output
    assert "--replace" in second.output and len(second.output.strip().splitlines()) == 1
    with app.app_context():
        assert db.session.scalars(select(Tournament.id)).all() == [tid]


def test_an_exported_file_is_recognised_by_its_id_even_when_reformatted(app, runner, tmp_path):
    tid = int(runner.invoke(args=["listok", "import", str(WORKED)]).output.strip())
    exported = json.loads(runner.invoke(args=["listok", "export", str(tid)]).output)
    exported["name"] = "Renamed on the way"  # the id decides, not the content
    again = tmp_path / "again.json"
    again.write_text(json.dumps(exported, indent=4), encoding="utf-8")
    result = runner.invoke(args=["listok", "import", str(again)])
    assert result.exit_code == 2 and f"id {exported['id']}" in result.output


def test_replace_keeps_the_old_copy_and_says_so_in_both_chains(app, runner, tmp_path):
    tid = int(runner.invoke(args=["listok", "import", str(WORKED)]).output.strip())
    fixed = json.loads(WORKED.read_text(encoding="utf-8"))
    fixed["name"] = "Worked example, corrected"
    path = tmp_path / "fixed.json"
    path.write_text(json.dumps(fixed), encoding="utf-8")
    with app.app_context():
        uid = db.session.get(Tournament, tid).uid
    fixed["id"] = uid
    path.write_text(json.dumps(fixed), encoding="utf-8")
    result = runner.invoke(args=["listok", "import", "--replace", str(path)])
    assert result.exit_code == 0, result.output
    new = int(result.stdout.strip())
    assert new != tid and f"tournament {tid} is replaced by tournament {new}" in result.stderr
    with app.app_context():
        old_t, new_t = db.session.get(Tournament, tid), db.session.get(Tournament, new)
        assert old_t.replaced_by_id == new and new_t.uid == old_t.uid == uid
        assert len(old_t.rounds[0].tables) == 3  # the old copy's sheets are kept as they were
        kinds = {t: [e.action for e in db.session.scalars(
            select(AuditEntry).where(AuditEntry.tournament_id == t).order_by(AuditEntry.seq))] for t in (tid, new)}
        assert kinds[tid][-1] == "tournament.replaced" and "tournament.import" in kinds[new]
        entry = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == new,
                                                           AuditEntry.action == "tournament.import"))
        assert entry.payload["replaces"] == tid
    # the replacement is now the copy that counts: importing it once more is refused again
    assert runner.invoke(args=["listok", "import", str(path)]).exit_code == 2
    assert f"as tournament {new}" in runner.invoke(args=["listok", "import", str(path)]).output


def test_web_import_of_a_tournament_already_here_is_refused(app, op):
    from io import BytesIO

    raw = WORKED.read_bytes()
    assert op.post("/operator/import", data={"file": (BytesIO(raw), "w.json")},
                   content_type="multipart/form-data").status_code == 302
    r = op.post("/operator/import", data={"file": (BytesIO(raw), "w.json")}, content_type="multipart/form-data")
    assert r.status_code == 422 and "is here already as tournament" in r.get_data(as_text=True)
    with app.app_context():
        assert len(db.session.scalars(select(Tournament.id)).all()) == 1


def test_a_file_id_that_is_not_text_is_refused(app, runner, tmp_path):
    d = json.loads(WORKED.read_text(encoding="utf-8"))
    d["id"] = 17
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d), encoding="utf-8")
    result = runner.invoke(args=["listok", "import", str(bad)])
    assert result.exit_code == 2 and "tournament id must be a text" in result.output
    assert exchange.load(bad).extra["id"] == 17
