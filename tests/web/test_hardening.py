"""Browser hardening headers, hostile request bodies and forms, and CSV cells
that a spreadsheet would run as formulas (docs/SECURITY.md, "Browser hardening")."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from flask import url_for
from sqlalchemy import select

from tests.helpers import make_tournament, play_round, text
from webapp.http import jsonbody
from webapp.extensions import db
from webapp.models import Player, Tournament
from webapp.services import csvsafe

# --------------------------------------------------------------------------- headers


def test_html_pages_carry_a_strict_content_security_policy(app, anon):
    tid = make_tournament(app, 9)
    for path in ("/", f"/t/{tid}/standings", "/login"):
        r = anon.get(path)
        assert r.status_code == 200 and r.mimetype == "text/html", path
        csp = r.headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["default-src"] == "'self'" and directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'" and directives["frame-ancestors"] == "'none'"
        assert directives["object-src"] == "'none'" and directives["worker-src"] == "'self'"
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert r.headers["X-Frame-Options"] == "DENY"
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "same-origin"
        assert "Strict-Transport-Security" not in r.headers  # plain HTTP: HSTS would be ignored or wrong


def test_every_response_says_nosniff_and_the_worker_has_the_policy(app, anon):
    for path in ("/static/css/listok.css", "/static/js/page.js", "/api/v1/table?token=x", "/sw.js", "/nowhere"):
        r = anon.get(path)
        assert r.headers["X-Content-Type-Options"] == "nosniff", path
        assert r.headers["X-Frame-Options"] == "DENY", path
    assert "default-src 'self'" in anon.get("/sw.js").headers["Content-Security-Policy"]
    assert "Content-Security-Policy" not in anon.get("/static/css/listok.css").headers


def test_hsts_only_over_https(app, anon):
    r = anon.get("/", base_url="https://localhost")
    assert r.headers["Strict-Transport-Security"].startswith("max-age=")
    assert "Strict-Transport-Security" not in anon.get("/").headers


def test_templates_have_no_inline_script_style_or_handler(app):
    """What the policy would refuse: the pages must not need it."""
    from pathlib import Path

    root = Path(app.root_path) / "templates"
    bad = []
    for f in root.rglob("*.html"):
        src = f.read_text()
        for m in re.finditer(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>|\sstyle=|\son[a-z]+=|"
                             r"hx-on|<style", src):
            bad.append(f"{f.relative_to(root)}: {m.group(0).strip()}")
    assert bad == []


# --------------------------------------------------------------------------- hostile JSON bodies


def api_post_routes(app) -> list[str]:
    routes = sorted(r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/api/v1/") and "POST" in r.methods)
    assert len(routes) >= 4  # sheets, pin, drafts, signatures
    return routes


def test_nested_json_answers_400_on_every_api_post(app, anon):
    deep = "[" * 1000 + "]" * 1000
    in_object = '{"token": ' + "[" * 100_000 + "]" * 100_000 + "}"
    just_over = json.dumps({"token": [[[]]]}).replace("[[[]]]", "[" * (jsonbody.MAX_DEPTH + 1) + "]" *
                                                    (jsonbody.MAX_DEPTH + 1))
    for path in api_post_routes(app):
        for body in (deep, in_object, just_over):
            r = anon.post(path, data=body, content_type="application/json")
            assert r.status_code == 400, (path, len(body), r.status_code)
            assert r.is_json and r.json["status"] == "bad-request", path
        assert "levels deep" in r.json["message"]


def test_oversized_and_garbage_bodies_answer_413_or_400_on_every_api_post(app, anon):
    big = json.dumps({"token": "x" * (2 * 1024 * 1024)})
    for path in api_post_routes(app):
        r = anon.post(path, data=big, content_type="application/json")
        assert r.status_code == 413 and r.is_json and r.json["status"] == "bad-request", path
        # the same body without a length (chunked): read, and refused for its size
        r = anon.post(path, input_stream=io.BytesIO(big.encode()), content_type="application/json",
                      environ_overrides={"wsgi.input_terminated": True})
        assert r.status_code == 413 and r.is_json and r.json["status"] == "bad-request", path
        for garbage in (b"\xff\xfe\x00", b"{", b"[]", b"null", b'"x"'):
            r = anon.post(path, data=garbage, content_type="application/json")
            assert r.status_code == 400 and r.json["status"] == "bad-request", (path, garbage)


def test_a_body_over_the_server_limit_is_refused_with_a_page_not_a_traceback(app, op):
    app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024
    huge = "x" * (2 * 1024 * 1024)
    r = op.post("/operator/tournaments", data={"name": huge})
    assert r.status_code == 413 and r.mimetype == "text/html"
    assert "too large (at most 1 MB): nothing was saved" in text(r)
    r = op.post("/api/v1/sheets", data=huge, content_type="application/json")
    assert r.status_code == 413 and r.json["status"] == "bad-request"


def test_depth_is_counted_without_recursion():
    assert jsonbody.depth(1, 16) == 0 and jsonbody.depth({"a": [1, {"b": []}]}, 16) == 4
    deep: list = []
    for _i in range(100_000):
        deep = [deep]
    assert jsonbody.depth(deep, 16) == 17  # stops counting past the limit


# --------------------------------------------------------------------------- absurd form input

FORM_FIELDS = ("name", "club", "venue", "reg_id", "date", "rating", "text", "reason", "note", "username",
               "password", "pin", "start_no", "table", "round", "sum0", "sum1", "sum2", "kind", "colour",
               "status", "from_round", "after_round", "substitute_for", "payload", "a", "b", "nominated")


def test_huge_form_fields_never_answer_500(app, op):
    """Every form route, each field 20 KB long in turn: a refusal, never a
    500 (on PostgreSQL a too-long value would reach a VARCHAR otherwise). 20 KB is
    80 times the longest column and 7 times PostgreSQL's largest index entry; a
    form over the size limit is tested above. (400 KB took this test 76 s.)"""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        pid, version = t.players[0].id, t.version
    huge = "9" * 20_000
    values = {"tid": tid, "pid": pid, "n": 1, "table": 1, "cid": 1, "action": "card"}
    failures = []
    with app.test_request_context():
        paths = [url_for(r.endpoint, **{k: values.get(k, 1) for k in r.arguments}) for r in app.url_map.iter_rules()
                 if "POST" in r.methods and not r.rule.startswith("/api/") and r.endpoint != "auth.logout"]
    assert len(paths) > 20
    for path in paths:
        for f in FORM_FIELDS:
            r = op.post(path, data={"version": str(version), f: huge})
            if r.status_code >= 500:
                failures.append((path, f, r.status_code))
    assert failures == []


# --------------------------------------------------------------------------- CSV formulas


@pytest.mark.parametrize("value, safe", [
    ("=1+1", "'=1+1"), ("@SUM(A1)", "'@SUM(A1)"), ("+x", "'+x"), ("-x", "'-x"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-5,00", "-5,00"), ("-12.50", "-12.50"), ("+3", "+3"), ("Novák Ján", "Novák Ján"), ("", ""), (-5, -5),
])
def test_csv_cells_that_look_like_formulas_are_text(value, safe):
    assert csvsafe.cell(value) == safe


def test_results_csv_neutralises_formula_names_and_keeps_negative_money(app, op):
    tid = make_tournament(app, 9)
    names = ["=1+1", "@SUM(A1)", "+x", "-x"]
    with app.app_context():
        players = db.session.scalars(select(Player).where(Player.tournament_id == tid)
                                     .order_by(Player.start_no)).all()
        for p, name in zip(players, names):
            p.name = name
        players[4].club = "=HYPERLINK(\"http://evil\")"
        db.session.commit()
    play_round(app, tid, seed=1)
    rows = list(csv.reader(io.StringIO(text(op.get(f"/operator/t/{tid}/results.csv")).lstrip("\ufeff")),
                           delimiter=";"))
    by_no = {int(r[1]): r for r in rows[1:]}
    assert [by_no[n][2] for n in (1, 2, 3, 4)] == ["'=1+1", "'@SUM(A1)", "'+x", "'-x"]
    assert by_no[5][3] == "'=HYPERLINK(\"http://evil\")"
    # money and sums stay numbers (a negative one is covered by test_csv_cells_that_look_like_formulas_are_text)
    # (the operator reads English: a decimal point, as the English page shows money)
    assert all(re.fullmatch(r"-?\d+\.\d\d", r[5]) and re.fullmatch(r"-?\d+\.\d\d", r[6]) for r in rows[1:])
