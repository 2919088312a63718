"""The hall screen: the current round's seating, the last standings, the clock.

It refreshes itself every 15 s and shows the next page each time, so 140
tables and 420 standings rows pass by in large type.
"""
from __future__ import annotations

import time

from flask import current_app, render_template, request, url_for
from flask_babel import get_locale
from sqlalchemy import func, select

from ...http import caching
from ...extensions import db
from ...models import RoundTable, Sheet

from ...extensions import htmx
from ...rules.report import standings_report
from ...rules.ruleset import get_ruleset
from ...services import chain_heads
from ...http.cache import VersionedCache
from ...services.common import get_tournament
from ...services.engine import rules_tournament
from ...services.rounds import current_round
from ..shared import clock_context, players_by_no, public_view, seats
from . import bp

TABLES_PER_PAGE = 36
ROWS_PER_PAGE = 40


def _pages(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


SLIDES = VersionedCache(32)
CLOCK_STEP = 5  # seconds: the clock's "now" in a kept page is at most this old (max-age the same)


def slides_of(t, live) -> tuple[list, int | None, dict | None]:
    """(slides, after_round, chain head) for the tournament's public version: the
    seating of the published round and the standings of the closed ones, computed
    once per version and process (no request renders 420 rows' standings again)."""
    key = (current_app.config["SQLALCHEMY_DATABASE_URI"], t.id, t.public_version, str(get_locale()))

    def make():
        full = public_view(t)  # six SELECTs, no ORM objects, shared with the other public pages
        slides = []
        if live is not None:
            live_tables = next(r for r in full.rounds if r.id == live.id).tables
            by_no = players_by_no(full)
            tables = [{"number": tab.number, "seats": seats(tab, by_no)} for tab in live_tables]
            slides += [("seating", page) for page in _pages(tables, TABLES_PER_PAGE)]
        after_round = None
        closed = rules_tournament(full, closed_only=True)
        head = None
        # the standings the public standings page shows, from the same round on (the rule set's publication rule)
        if closed.rounds and closed.rounds[-1].number >= get_ruleset(full.ruleset).public_from_round:
            report = standings_report(closed, brief=True)  # what the slides show, no more
            after_round = report["after_round"]
            slides += [("standings", page) for page in _pages(report["standings"], ROWS_PER_PAGE)]
            head = chain_heads.publish_head(t.id, "projector")
        return slides, after_round, head

    return SLIDES.get_or_make(key, make)


@bp.get("/t/<int:tid>/projector")
def projector(tid: int):
    early = caching.not_modified("projector", tid)
    if early is not None:
        return early
    t = get_tournament(tid)
    r = current_round(t)
    live = r if r is not None and r.status == "published" else None  # a draft is never shown
    progress = tables_in_count(live) if live is not None else None
    bucket = int(time.time() // CLOCK_STEP) if live is not None and live.started_at else 0
    return caching.public_page("projector", (t.id, t.public_version, progress, bucket),
                               lambda: _projector(t, r, live, progress), max_age=CLOCK_STEP, stale=15)


def tables_in_count(r) -> tuple[int, int]:
    """(tables whose sheet counts, tables) of a round, counted in the database."""
    total = db.session.scalar(select(func.count(RoundTable.id)).where(RoundTable.round_id == r.id))
    done = db.session.scalar(select(func.count(func.distinct(Sheet.table_id))).join(RoundTable)
                             .where(RoundTable.round_id == r.id, Sheet.status == "accepted"))
    return done or 0, total or 0


def _projector(t, r, live, progress):
    slides, after_round, head = slides_of(t, live)
    slide = request.args.get("slide", 0, type=int) % len(slides) if slides else 0
    kinds = [k for k, _page in slides]
    kind, page = slides[slide] if slides else (None, [])
    ctx = dict(t=t, r=r, live=live, kind=kind, page=page, after_round=after_round,
               head=head if kind == "standings" else None,
               page_no=slide - kinds.index(kind) + 1 if kind else 0, page_count=kinds.count(kind),
               next_url=url_for("public.projector", tid=t.id, slide=(slide + 1) % len(slides) if slides else 0),
               progress=progress, clock=clock_context(live))
    if htmx:
        return render_template("public/_projector_body.html", **ctx)
    return render_template("public/projector.html", **ctx)


@bp.get("/t/<int:tid>/seating")
def seating(tid: int):
    """The published round's seating on one page (the start page's "Seating" link):
    rendered once per public version, like the projector's slides."""
    early = caching.not_modified("seating", tid)
    if early is not None:
        return early
    t = get_tournament(tid)
    r = current_round(t)
    live = r if r is not None and r.status == "published" else None
    return caching.public_page("seating", (t.id, t.public_version), lambda: _seating(t, live), max_age=30,
                               stale=60)


def _seating(t, live):
    tables = []
    if live is not None:
        by_no = players_by_no(t)
        tables = [{"number": tab.number, "seats": seats(tab, by_no)} for tab in live.tables]
    return render_template("public/seating.html", t=t, live=live, tables=tables)
