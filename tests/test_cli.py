"""The `listok` command: JSON on stdout, and on bad input one line on stderr
and exit status 2, never a traceback (EXCHANGE.md)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from webapp.cli import listok, main

DATA = Path(__file__).resolve().parent / "data"
WORKED = str(DATA / "worked_example.json")
POPRAD = str(DATA / "sem27_poprad.json")
ZILINA = str(DATA / "sem27_zilina.json")
R3 = str(DATA / "sem27_poprad_r3.json")


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args, env=None):
        return runner.invoke(main, [str(a) for a in args], env=env)

    return invoke


def ok(result) -> dict:
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


def bad(result, exit_code: int = 2) -> str:
    """The one stderr line, without the `listok: ` prefix."""
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("listok: ")
    return lines[0][len("listok: "):]


def write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def edited(path: str, change) -> dict:
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    change(d)
    return d


def test_main_is_the_listok_group():
    assert main is listok
    assert isinstance(listok, click.Group) and listok.name == "listok"
    assert {"standings", "draw", "season", "rating"} <= set(listok.commands)


# --- the commands -----------------------------------------------------------------


def test_standings(run):
    result = run("standings", WORKED)
    assert "Kučera Miloš" in result.stdout  # UTF-8, not \u-escaped
    d = ok(result)
    assert (d["ruleset"], d["after_round"], d["final"]) == ("sem", 1, False)
    assert [r["start_no"] for r in d["standings"]] == [1, 3, 4, 2, 5, 8, 6, 7, 9]
    assert d["standings"][1]["tie"] == "start number"


def test_standings_after_round(run):
    d = ok(run("standings", POPRAD, "--after-round", 2))
    assert (d["after_round"], d["final"]) == (2, False)
    assert all(r["tournament_points"] is None for r in d["standings"])


def test_final_standings(run):
    d = ok(run("standings", POPRAD))
    assert d["final"] is True and d["clubs"]
    assert d["standings"][0]["tournament_points"]["bonus"] == 100


def test_draw(run):
    d = ok(run("draw", R3, "--round", 4))
    assert d["round"] == 4 and d["advancing"] and d["eliminated"]
    assert sorted(s for t in d["tables"] for s in t["players"]) == sorted(d["advancing"])
    d1 = ok(run("draw", WORKED, "--round", 2))
    assert d1["advancing"] is None and len(d1["tables"]) == 3


def test_season(run):
    d = ok(run("season", POPRAD, ZILINA))
    assert d["players"][0]["place"] == 1 and d["clubs"][0]["place"] == 1
    d1 = ok(run("season", POPRAD, ZILINA, "--best", 1))
    assert all(len(p["dropped"]) == 1 for p in d1["players"])


def test_rating(run):
    d = ok(run("rating", POPRAD, ZILINA))
    assert {r["tournaments"] for r in d["ratings"]} == {2}
    d1 = ok(run("rating", POPRAD, ZILINA, "--window", 1))
    assert {r["tournaments"] for r in d1["ratings"]} == {1}


def test_help_works(run):
    result = run("--help")
    assert result.exit_code == 0 and "standings" in result.stdout
    assert run("draw", "--help").exit_code == 0


# --- every error path: one line, exit status 2 -----------------------------------------


@pytest.mark.parametrize("command", [["standings"], ["draw", "--round", "1"], ["season"], ["rating"]])
def test_missing_file(run, command, tmp_path):
    missing = tmp_path / "nope.json"
    assert bad(run(*command[:1], missing, *command[1:])) == f"{missing}: no such file"


def test_invalid_json(run, tmp_path):
    path = write(tmp_path, "broken.json", '{"format": "listok-tournament/1",\n "players": [,]}')
    assert bad(run("standings", path)).startswith(f"{path}: invalid JSON at line 2, column 14: Expecting value")


def test_invalid_file_names_round_table_and_start_number(run, tmp_path):
    d = edited(WORKED, lambda d: d["rounds"][0]["tables"][2].update(players=[3, 4, 1]))
    path = write(tmp_path, "twice.json", d)
    assert bad(run("draw", path, "--round", 2)) == (
        f"{path}: round 1, table 3: start number 1 is seated twice in round 1 (also at table 1)")


def test_unknown_ruleset(run, tmp_path):
    path = write(tmp_path, "tarok.json", edited(WORKED, lambda d: d.update(ruleset="tarok")))
    assert "unknown rule set 'tarok'" in bad(run("standings", path))


def test_file_that_is_not_an_object(run, tmp_path):
    path = write(tmp_path, "list.json", "[1, 2, 3]")
    assert bad(run("rating", path)) == f"{path}: the file must be an object, not a list"


@pytest.mark.parametrize("k", [0, 7])
def test_after_round_beyond_the_file(run, k):
    assert bad(run("standings", POPRAD, "--after-round", k)) == (
        f"{POPRAD}: cannot give standings after round {k}: the file has rounds 1..6")


@pytest.mark.parametrize("n, message", [
    (7, "round 7 does not exist: the rule set 'sem' has rounds 1..6"),
    (0, "round 0 does not exist: the rule set 'sem' has rounds 1..6"),
    (5, "cannot draw round 5: it needs the results of rounds 1..4, the file has rounds 1..3"),
])
def test_round_out_of_range(run, n, message):
    assert bad(run("draw", R3, "--round", n)) == f"{R3}: {message}"


def test_draw_error(run, tmp_path):
    d = edited(WORKED, lambda d: (d["players"].append({"start_no": 10, "name": "Zeman Rudolf"}), d.update(rounds=[])))
    path = write(tmp_path, "ten.json", d)
    msg = bad(run("draw", path, "--round", 1))
    assert msg.startswith(f"{path}: round 1: 10 players cannot be seated at tables of 3")


def test_nomination_error(run, tmp_path):
    d = edited(POPRAD, lambda d: [p.update(nominated=p["start_no"] <= 5) for p in d["players"]])
    path = write(tmp_path, "nominated5.json", d)
    msg = bad(run("standings", path))
    assert msg == (f"{path}: club 'MK Poprad' has 13 players present and nominated 5: "
                   "it must nominate exactly 10")
    assert "nominated 5" in bad(run("season", path, ZILINA))


def test_season_of_an_unfinished_tournament(run):
    assert bad(run("season", POPRAD, R3)) == (
        f"{R3}: tournament 'SEM 1 - Poprad' is not finished (results for 3 of 6 rounds)")
    assert "is not finished" in bad(run("rating", R3))


def test_same_player_twice_in_a_tournament(run, tmp_path):
    d = edited(POPRAD, lambda d: [p.pop("id") for p in d["players"]] and d["players"][1].update(name="Kučera Miloš"))
    path = write(tmp_path, "twins.json", d)
    assert "player 'Kučera Miloš' is listed twice" in bad(run("rating", path))


@pytest.mark.parametrize("args, expected", [
    (["draw", WORKED], "Missing option '--round'"),
    (["draw", WORKED, "--round", "four"], "'four' is not a valid integer"),
    (["standings"], "Missing argument 'FILE'"),
    (["standings", WORKED, "--after-round", "x"], "'x' is not a valid integer"),
    (["season"], "Missing argument 'FILE...'"),
    (["season", POPRAD, "--best", "0"], "0 is not in the range x>=1"),
    (["rating", POPRAD, "--window", "0"], "0 is not in the range x>=1"),
    (["ratings", POPRAD], "No such command 'ratings'"),
    (["standings", WORKED, "--bogus"], "No such option '--bogus'"),
])
def test_usage_errors_are_one_line_too(run, args, expected):
    assert expected in bad(run(*args))


def test_unexpected_failure_is_one_line_with_exit_1(run, monkeypatch):
    import webapp.rules.report as report

    def boom(t, n):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(report, "draw_report", boom)
    msg = bad(run("draw", WORKED, "--round", 2), exit_code=1)
    assert msg == "internal error: RuntimeError: boom second line (set LISTOK_DEBUG=1 for the traceback)"
    result = run("draw", WORKED, "--round", 2, env={"LISTOK_DEBUG": "1"})
    assert result.exit_code == 1 and isinstance(result.exception, RuntimeError)


def test_importing_the_cli_does_not_import_the_rules_engine():
    code = "import sys, webapp.cli; print(sorted(m for m in sys.modules if m.startswith('webapp.rules')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the installed console script -------------------------------------------------


def _console_script() -> str:
    here = Path(sysconfig.get_path("scripts")) / "listok"
    if here.exists():
        return str(here)
    found = shutil.which("listok")
    assert found is not None, "the listok console script is not installed (pip install -e .)"
    return found


def test_installed_console_script():
    script = _console_script()
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}  # output is UTF-8 regardless
    done = subprocess.run([script, "draw", R3, "--round", "4"], capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.decode("utf-8"))["round"] == 4
    done = subprocess.run([script, "standings", WORKED], capture_output=True, env=env, timeout=60)
    assert "Kučera Miloš" in done.stdout.decode("utf-8")
    done = subprocess.run([script, "draw", R3, "--round", "9"], capture_output=True, env=env, timeout=60)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode("utf-8").splitlines() == [
        f"listok: {R3}: round 9 does not exist: the rule set 'sem' has rounds 1..6"]
