"""Public season pages of the federation server: the individual table (SEM-A4),
clubs (SEM-A5, B3), the rating list (SEM-B1), historical tables of players and clubs (SEM-A6), each tournament's
results, and the ČSM league tables (CSM-6); every one as a page, a printable page and CSV.

Anonymous GETs set no cookie and carry an ETag made of the season's version (bumped by every
tournament received, roster change and card fine), and a short max-age, so a caching proxy answers
a season's spectators with one request to the app per page and max-age, and revalidates cheaply;
rendered pages are kept per version as well."""
from __future__ import annotations

import io
from fractions import Fraction

from flask import Blueprint, Response, abort, current_app, render_template, request
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from sqlalchemy import select

from ..http import caching
from ..extensions import db
from ..i18n import csv_number
from ..models import Federation, Season, SeasonTournament
from ..rules.ruleset import get_ruleset
from ..services import csvsafe, federation as svc
from ..http.cache import VersionedCache

bp = Blueprint("seasons", __name__, url_prefix="/seasons")
PAGES = VersionedCache(64)
SEASON_MAX_AGE = 10
KINDS = ("players", "clubs", "rating", "historical")
CSV_KINDS = KINDS + ("historical-clubs",)  # the historical page's second table (SEM-A6 clubs)
TITLES = {"players": _l("Season table"), "clubs": _l("Clubs"), "rating": _l("Rating list"),
          "historical": _l("Historical table"), "tournaments": _l("Tournaments")}


def _season(sid: int) -> Season:
    s = db.session.get(Season, sid)
    if s is None:
        abort(404)
    return s


def _etag(s: Season, kind: str) -> str:
    version = str(s.version)
    if kind.startswith("historical"):  # SEM-A6 reads every earlier season of the federation and rule set
        version = ".".join(f"{i}:{v}" for i, v in db.session.execute(
            select(Season.id, Season.version).where(Season.federation_id == s.federation_id,
                                                    Season.ruleset == s.ruleset).order_by(Season.id)))
    return f"s{s.id}-v{version}-{kind}-{get_locale()}"


def _cacheable(response: Response, etag: str) -> Response:
    response.set_etag(etag)
    # a pushed tournament reaches the public within SEASON_MAX_AGE; staff (a session cookie) see it at once
    response.headers["Cache-Control"] = caching.cache_control(SEASON_MAX_AGE, 60)
    response.vary.add("Cookie")
    response.vary.add("Accept-Language")
    return response.make_conditional(request)


def _not_modified(etag: str) -> Response | None:
    if request.if_none_match.contains(etag):
        return _cacheable(Response(status=304), etag)
    return None


def _frac(v) -> Fraction:
    return Fraction(str(v))


def table(s: Season, kind: str) -> dict:
    """Columns and rows of one season table, shared by the page, the print view and the CSV."""
    rs = get_ruleset(s.ruleset)
    csm = rs.result_kind == "zb+pb"  # the ČSM league table (CSM-6)
    if kind == "players":
        report = svc.season_tables(s)
        if csm:
            cols = [("place", _l("Place"), "num"), ("name", _l("Name"), ""), ("club", _l("Club"), "hide-narrow"),
                    ("zb", "ZB", "num hide-narrow"), ("pb", "PB", "num hide-narrow"), ("sb", "SB", "num hide-narrow"),
                    ("b", "B", "num strong")]
        else:
            cols = [("place", _l("Place"), "num"), ("name", _l("Name"), ""), ("club", _l("Club"), "hide-narrow"),
                    ("points", _l("Points"), "num strong"), ("game_points", _l("Game points"), "num hide-narrow"),
                    ("money" if any("money" in p for p in report["players"]) or not report["players"] else "score",
                     _l("Money") if rs.currency else _l("Score"), "num hide-narrow"),
                    ("counted", _l("Counted"), "num hide-narrow")]
        rows = [{**p, "counted": len(p.get("counted", [])), "dropped": len(p.get("dropped", []))}
                for p in report["players"]]
    elif kind == "clubs":
        report = svc.season_tables(s)
        if csm:
            cols = [("place", _l("Place"), "num"), ("team", _l("Team"), ""), ("zb", "ZB", "num hide-narrow"),
                    ("pb", "PB", "num hide-narrow"), ("sb", "SB", "num hide-narrow"), ("b", "B", "num strong")]
            rows = report.get("teams", [])
        else:
            cols = [("place", _l("Place"), "num"), ("club", _l("Club"), ""), ("points", _l("Points"), "num strong"),
                    ("game_points", _l("Game points"), "num hide-narrow")]
            rows = report.get("clubs", [])
    elif kind == "rating":
        cols = [("place", _l("Place"), "num"), ("name", _l("Name"), ""), ("rating", _l("Rating"), "num strong"),
                ("tournaments", _l("Tournaments"), "num hide-narrow")]
        rows = [{"place": i + 1, **r} for i, r in enumerate(svc.rating_list(s)["ratings"])]
    elif kind == "historical":
        hist = svc.historical_table(s)
        cols = [("place", _l("Place"), "num"), ("name", _l("Name"), ""), ("points", _l("Points"), "num strong"),
                ("seasons", _l("Seasons"), "num hide-narrow")]
        rows = [{**p, "points": f"{float(p['points']):.2f}"} for p in hist["players"]]
    elif kind == "historical-clubs":
        cols = [("place", _l("Place"), "num"), ("club", _l("Club"), ""), ("points", _l("Points"), "num strong")]
        rows = [{**c, "points": f"{float(c['points']):.2f}"} for c in svc.historical_table(s)["clubs"]]
    else:
        abort(404)
    return {"columns": cols, "rows": rows}


def _tournament_table(st: SeasonTournament) -> dict:
    report = svc.tournament_results(st)
    cols = [("place", _l("Place"), "num"), ("name", _l("Name"), ""), ("club", _l("Club"), "hide-narrow"),
            ("points", _l("Points"), "num strong"), ("money", _l("Money"), "num hide-narrow"),
            ("total", _l("Tournament points"), "num hide-narrow")]
    rows = [{**r, "total": (r.get("tournament_points") or {}).get("total")} for r in report["standings"]]
    return {"columns": cols, "rows": rows}


TEXT_COLUMNS = ("name", "club", "team")


def _cell(key: str, value) -> str:
    """Numbers with the language's decimal sign, as its spreadsheets read them; names stay as they are."""
    if value is None:
        return ""
    return str(value) if key in TEXT_COLUMNS else csv_number(value)


def _csv(data: dict, filename: str) -> Response:
    out = io.StringIO()
    w = csvsafe.writer(out, delimiter=";", lineterminator="\r\n")
    w.writerow([str(label) for _k, label, _c in data["columns"]])
    for row in data["rows"]:
        w.writerow([_cell(k, row.get(k)) for k, _label, _cls in data["columns"]])
    return Response("\ufeff" + out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/")
def index():
    seasons = db.session.scalars(select(Season).order_by(Season.starts.desc(), Season.name)).all()
    feds = {f.id: f for f in db.session.scalars(select(Federation))}
    counts = {s.id: svc.count_received(s.id) for s in seasons}
    response = Response(render_template("seasons/index.html", seasons=seasons, feds=feds, counts=counts))
    response.headers["Cache-Control"] = "public, no-cache"
    return response


def _page(s: Season, kind: str, printable: bool, extra: dict | None = None, make_table=None):
    etag = _etag(s, kind + (":print" if printable else ""))
    hit = _not_modified(etag)
    if hit is not None:
        return hit
    key = (current_app.config["SQLALCHEMY_DATABASE_URI"], etag)

    def make():
        data = make_table() if make_table else table(s, kind)
        more = [(_l("Clubs"), table(s, "historical-clubs"), "historical-clubs")] if kind == "historical" else []
        fed = db.session.get(Federation, s.federation_id)
        return render_template("seasons/table.html", s=s, fed=fed, kind=kind, data=data, printable=printable,
                               title=extra.get("title") if extra else TITLES[kind], kinds=KINDS, titles=TITLES,
                               extra=extra or {}, more=more)
    return _cacheable(Response(PAGES.get_or_make(key, make)), etag)


@bp.get("/<int:sid>/")
def season(sid: int):
    return _page(_season(sid), "players", False)


@bp.get("/<int:sid>/<kind>")
def season_table(sid: int, kind: str):
    if kind not in KINDS:
        abort(404)
    return _page(_season(sid), kind, False)


@bp.get("/<int:sid>/<kind>/print")
def season_print(sid: int, kind: str):
    if kind not in KINDS:
        abort(404)
    return _page(_season(sid), kind, True)


@bp.get("/<int:sid>/<kind>.csv")
def season_csv(sid: int, kind: str):
    if kind not in CSV_KINDS:
        abort(404)
    s = _season(sid)
    etag = _etag(s, kind + ":csv")
    return _not_modified(etag) or _cacheable(_csv(table(s, kind), f"season-{s.id}-{kind}.csv"), etag)


@bp.get("/<int:sid>/tournaments")
def tournaments(sid: int):
    s = _season(sid)
    etag = _etag(s, "tournaments")
    hit = _not_modified(etag)
    if hit is not None:
        return hit
    sts = svc.received(s)
    fed = db.session.get(Federation, s.federation_id)
    return _cacheable(Response(render_template("seasons/tournaments.html", s=s, fed=fed, sts=sts, kinds=KINDS,
                                               titles=TITLES, kind="tournaments")), etag)


def _received(s: Season, stid: int) -> SeasonTournament:
    st = db.session.get(SeasonTournament, stid)
    if st is None or st.season_id != s.id or st.replaced_by_id is not None:
        abort(404)
    return st


@bp.get("/<int:sid>/t/<int:stid>")
def tournament(sid: int, stid: int):
    s = _season(sid)
    st = _received(s, stid)
    return _page(s, f"t{st.id}", request.args.get("print") == "1",
                 extra={"title": st.name, "tournament": st}, make_table=lambda: _tournament_table(st))


@bp.get("/<int:sid>/t/<int:stid>.csv")
def tournament_csv(sid: int, stid: int):
    s = _season(sid)
    st = _received(s, stid)
    etag = _etag(s, f"t{st.id}:csv")
    return _not_modified(etag) or _cacheable(_csv(_tournament_table(st), f"tournament-{st.id}.csv"), etag)
