"""The render cache behind the standings pages."""
from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

from tests.helpers import make_tournament, play_round, text
from webapp.http.cache import VersionedCache


def test_concurrent_misses_make_the_value_once():
    cache = VersionedCache(4)
    calls = []

    def make():
        calls.append(1)
        time.sleep(0.05)
        return "value"

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get_or_make("k", make))) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == ["value"] * 6 and len(calls) == 1
    assert cache.get_or_make("k", lambda: "other") == "value"


def test_a_failed_make_is_not_cached():
    cache = VersionedCache(4)

    def fail():
        raise ValueError("no")

    for _ in range(2):
        try:
            cache.get_or_make("k", fail)
        except ValueError:
            pass
    assert cache.get("k") is None and cache.get_or_make("k", lambda: 1) == 1


def standings_table(page: str) -> str:
    return page[page.index('<div class="scroll">'):page.index("</aside>")]


def test_a_version_bump_alone_reuses_the_rendered_table(app, op):
    """Every sheet accepted bumps the version; standings that did not change are not rendered again."""
    from webapp.extensions import db
    from webapp.models import Tournament
    from webapp.services.common import bump
    from webapp.views.shared import TABLES

    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    TABLES.clear()
    first = standings_table(text(op.get(f"/t/{tid}/standings")))
    assert len(TABLES._data) == 1
    with app.app_context():
        bump(db.session.get(Tournament, tid))
        db.session.commit()
    assert standings_table(text(op.get(f"/t/{tid}/standings"))) == first and len(TABLES._data) == 1
    # the operator's page shows the same table
    assert standings_table(text(op.get(f"/operator/t/{tid}/standings"))) == first and len(TABLES._data) == 1
    with app.app_context():
        t = db.session.get(Tournament, tid)
        t.players[0].name = "Renamed Player"
        bump(t)
        db.session.commit()
    assert "Renamed Player" in text(op.get(f"/t/{tid}/standings")) and len(TABLES._data) == 2
    TABLES.clear()


def test_services_import_nothing_from_the_views():
    """DESIGN.md's layers: views call services, never the other way (the cache class lives below both, in http/cache.py)."""
    services = Path(__file__).resolve().parents[2] / "webapp" / "services"
    upward = []
    for path in sorted(services.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                name = "." * node.level + (node.module or "")
                if name.startswith("..views") or name.startswith("webapp.views"):
                    upward.append(f"{path.name}: from {name}")
            elif isinstance(node, ast.Import):
                upward += [f"{path.name}: import {a.name}" for a in node.names if a.name.startswith("webapp.views")]
    assert upward == []
