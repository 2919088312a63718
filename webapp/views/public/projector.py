"""The hall screen: the current round's seating, the last standings, the clock.

It refreshes itself every 15 s and shows the next page each time, so 140
tables and 420 standings rows pass by in large type.
"""
from __future__ import annotations

from flask import render_template, request, url_for

from ...extensions import htmx
from ...rules.report import standings_report
from ...services import chain
from ...services.common import get_tournament
from ...services.engine import rules_tournament
from ...services.rounds import current_round, tables_in
from ..table import clock_context, players_by_no, seats
from . import bp

TABLES_PER_PAGE = 36
ROWS_PER_PAGE = 40


def _pages(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


@bp.get("/t/<int:tid>/projector")
def projector(tid: int):
    t = get_tournament(tid)
    r = current_round(t)
    live = r if r is not None and r.status == "published" else None  # a draft is never shown
    slides = []
    if live is not None:
        by_no = players_by_no(t)
        tables = [{"number": tab.number, "seats": seats(tab, by_no)} for tab in live.tables]
        slides += [("seating", page) for page in _pages(tables, TABLES_PER_PAGE)]
    after_round = None
    closed = rules_tournament(t, closed_only=True)
    if closed.rounds:
        report = standings_report(closed)
        after_round = report["after_round"]
        slides += [("standings", page) for page in _pages(report["standings"], ROWS_PER_PAGE)]
    slide = request.args.get("slide", 0, type=int) % len(slides) if slides else 0
    kinds = [k for k, _page in slides]
    kind, page = slides[slide] if slides else (None, [])
    ctx = dict(t=t, r=r, live=live, kind=kind, page=page, after_round=after_round,
               head=chain.publish_head(t.id, "projector") if kind == "standings" else None,
               page_no=slide - kinds.index(kind) + 1 if kind else 0, page_count=kinds.count(kind),
               next_url=url_for("public.projector", tid=t.id, slide=(slide + 1) % len(slides) if slides else 0),
               progress=tables_in(live) if live is not None else None, clock=clock_context(live))
    if htmx:
        return render_template("public/_projector_body.html", **ctx)
    return render_template("public/projector.html", **ctx)
