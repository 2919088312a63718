"""`listok import` / `listok export`: tournament files into and out of the
venue server's database (EXCHANGE.md), round trip included."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp.cli import main
from webapp.extensions import db
from webapp.models import Tournament
from webapp.rules import exchange

DATA = Path(__file__).resolve().parent / "data"
WORKED = DATA / "worked_example.json"


def imported(result) -> int:
    assert result.exit_code == 0, result.output
    return int(result.output.strip())


def test_import_then_export_round_trip(app, runner, tmp_path):
    tid = imported(runner.invoke(args=["listok", "import", str(WORKED)]))
    with app.app_context():
        t = db.session.get(Tournament, tid)
        assert (t.name, len(t.players), len(t.rounds)) == ("RULES.md §3 worked example", 9, 1)
    out = runner.invoke(args=["listok", "export", str(tid)])
    assert out.exit_code == 0
    back = exchange.loads(out.output, "export")
    with app.app_context():
        assert back.extra.pop("id") == db.session.get(Tournament, tid).uid  # the stable id, written into the file
    assert back == exchange.load(WORKED)
    target = tmp_path / "out.json"
    assert runner.invoke(args=["listok", "export", str(tid), "-o", str(target)]).exit_code == 0
    assert target.read_text(encoding="utf-8") == out.output


def test_round_trip_of_a_finished_tournament_with_events_and_corrections(app, runner, tmp_path):
    from webapp.demo.simulate import make_players, play_tournament

    rt = play_tournament(make_players(30, seed=11, clubs=3), seed=11, name="SEM 9 - Levice", date="2026-06-06")
    d = exchange.to_dict(rt)
    d["venue"] = "Levice"
    d["events"] = [{"type": "card", "colour": "yellow", "start_no": 4, "round": 2, "referees": ["Novák"]}]
    last = d["rounds"][-1]  # an override there leaves the earlier cuts as drawn
    table = last["tables"][0]
    table["points"] = [1, 3, 5]
    d["corrections"] = [{"round": last["round"], "table": table["table"], "kind": "operator-error",
                         "old": ["1"], "new": ["2"], "asked_by": "Horváth", "approved_by": "Novák",
                         "at": "2026-06-06T12:00:00"}]
    source = tmp_path / "levice.json"
    source.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    tid = imported(runner.invoke(args=["listok", "import", str(source)]))
    with app.app_context():
        t = db.session.get(Tournament, tid)
        assert t.status == "finished" and t.venue == "Levice" and all(r.status == "closed" for r in t.rounds)
        cut_rounds = [r for r in t.rounds if r.advancing is not None]
        assert cut_rounds and all(set(r.advancing) == {s for tab in r.tables for s in tab.players}
                                  for r in cut_rounds)
    out = runner.invoke(args=["listok", "export", str(tid)])
    assert out.exit_code == 0
    back = exchange.loads(out.output, "export")
    assert back.extra.pop("id")
    assert back == exchange.load(source)


@pytest.mark.parametrize("content, message", [
    ('{"format": "listok-tournament/1", "players": [{"start_no": 1}]}',
     "listok: bad.json: start number 1: missing \"name\""),
    ("not json", "listok: bad.json: invalid JSON at line 1"),
])
def test_import_of_a_bad_file_is_one_line_and_stores_nothing(app, runner, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = runner.invoke(args=["listok", "import", str(bad)])
    assert result.exit_code == 2
    line = result.output.strip().replace(str(tmp_path) + "/", "")
    assert line.startswith(message) and "\n" not in line and "Traceback" not in result.output
    with app.app_context():
        assert db.session.query(Tournament).count() == 0


def test_missing_file_and_unknown_tournament(app, runner, tmp_path):
    result = runner.invoke(args=["listok", "import", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and result.output.strip().endswith("none.json: no such file")
    result = runner.invoke(args=["listok", "export", "42"])
    assert result.exit_code == 2 and result.output.strip() == "listok: no tournament with id 42"


def test_standalone_listok_uses_the_configured_database(tmp_path, monkeypatch):
    """`listok import` without Flask's CLI: the app comes from the environment,
    and a database without tables is brought up to date first."""
    import webapp.cli.server

    upgraded = []

    def upgrade(app):  # the schema as the models say; the Alembic migration is checked elsewhere
        upgraded.append(app)
        with app.app_context():
            db.create_all()

    monkeypatch.setattr(webapp.cli.server, "upgrade_database", upgrade)
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'venue.db'}", "LISTOK_SECRET_KEY": "cli-test"}
    runner = CliRunner()
    result = runner.invoke(main, ["import", str(WORKED)], env=env)
    assert result.exit_code == 0, result.output
    tid = int(result.stdout.strip())
    result = runner.invoke(main, ["export", str(tid)], env=env)
    back = exchange.loads(result.stdout) if result.exit_code == 0 else None
    assert back is not None and back.extra.pop("id") and back == exchange.load(WORKED)
    assert len(upgraded) == 1  # only the empty database was upgraded
    result = runner.invoke(main, ["export", "nope"], env=env)
    assert result.exit_code == 2 and result.stderr.startswith("listok: ")


def test_cli_module_stays_cheap_to_import():
    import subprocess
    import sys

    code = "import sys, webapp.cli; print(any(m == 'flask' or m.startswith('flask.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "False"
