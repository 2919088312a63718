"""What more than one blueprint's pages show: a table's seats and its QR link, the round's
clock, a player's receipts, the standings table the public and the operator's pages share
(rendered once per tournament version) and the C10 correction kinds. Views import these
from here, never from each other's modules."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from flask import current_app, render_template, url_for
from flask_babel import format_time, get_locale, gettext as _, lazy_gettext as _l
from markupsafe import Markup

from ..i18n import round_rule_text
from ..models import Player, Round, RoundTable, Tournament, utcnow
from ..rules.ruleset import get_ruleset
from ..services import chain_heads, companion, loaders, receipts, standings
from ..http.cache import VersionedCache
from ..services.rounds import round_ends_at, round_minutes
from ..services.tokens import table_token

KIND_LABELS = {
    "operator-error": _l("operator error (free of charge, SEM-C10a)"),
    "no-fee": _l("no fee: only the advantaged players get their real values (SEM-C10b)"),
    "fee": _l("20 € fee paid: real values for everyone (SEM-C10c)"),
}


@dataclass(frozen=True)
class Seat:
    position: int
    start_no: int
    name: str
    surname: str
    first_name: str
    club: str


def split_name(name: str) -> tuple[str, str]:
    """Names are stored "Surname Firstname": split at the first space."""
    surname, _sep, first = (name or "").strip().partition(" ")
    return surname, first.strip()


def players_by_no(t: Tournament) -> dict[int, Player]:
    return {p.start_no: p for p in t.players}


def seats(tab: RoundTable, by_no: dict[int, Player]) -> list[Seat]:
    out = []
    for i, s in enumerate(tab.players, start=1):
        p = by_no.get(s)
        name = p.name if p else "?"
        surname, first = split_name(name)
        out.append(Seat(i, s, name, surname, first, (p.club or "") if p else ""))
    return out


def cards_seat(t: Tournament, r: Round, table_seats: list[Seat]) -> Seat | None:
    """Whose cards are played at this table (SEM-C3), if the rule set says."""
    pos = get_ruleset(t.ruleset).cards_position(r.number)
    return table_seats[pos - 1] if pos and pos <= len(table_seats) else None


def sheet_url(tid: int, round_no: int, table_no: int) -> str:
    """The absolute link printed as the table's QR code; LISTOK_PUBLIC_URL, when
    set, is the address phones reach the server at (a proxy, a real hostname)."""
    token = table_token(tid, round_no, table_no)
    base = current_app.config.get("LISTOK_PUBLIC_URL")
    if base:
        return base.rstrip("/") + url_for("table.sheet", token=token)
    return url_for("table.sheet", token=token, _external=True)


def personal_link(t: Tournament, player: Player) -> str:
    """The address printed as the PIN slip's personal QR code: "my tournament", already
    identified. The key rides in the fragment, which no browser sends, so it stays out
    of every server's and proxy's log."""
    base = current_app.config.get("LISTOK_PUBLIC_URL")
    path = url_for("public.me", tid=t.id)
    page = base.rstrip("/") + path if base else url_for("public.me", tid=t.id, _external=True)
    return f"{page}#n={player.start_no}&k={companion.player_key(t.id, player.start_no, player)}"


def clock_context(r: Round | None) -> dict:
    """The server's start time and its clock now (ISO UTC), so the browser's
    countdown does not depend on the client's clock being right; the round's
    length and its rule come from the rule set (None minutes: an untimed round)."""
    started = r.started_at if r is not None else None
    now = utcnow()
    rs = get_ruleset(r.tournament.ruleset) if r is not None else None
    return {"started_at": started, "ends_at": round_ends_at(r) if r is not None else None,
            "started_iso": iso_utc(started), "now_iso": iso_utc(now),
            "minutes": round_minutes(r) if r is not None else None,
            "rule": round_rule_text(rs) if rs is not None else "", "over_text": time_over_text(rs)}


def time_over_text(rs) -> str:
    """What the clock shows once time is called, as the rule set says (SEM-C2, TH-3)."""
    if rs is not None and rs.time_called_rule == "SEM-C2":
        return _("Time — play until player 3 has dealt")
    if rs is not None and rs.time_called_rule == "TH-3":
        return _("Time — the game ends (TH-3)")
    return _("Time called")


def iso_utc(dt: datetime | None) -> str:
    """Stored times are naive UTC."""
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ") if dt else ""


def player_receipts(t: Tournament, start_no: int) -> list[dict]:
    """The phone sheets of every table the player sat at: round, table, receipt,
    what became of the sheet and whether the record holds it as stored
    (chain.receipts_in_record), for the player's own pages."""
    out = []
    for r in t.rounds:
        for tab in r.tables:
            if start_no not in tab.players:
                continue
            out.extend({"round": r.number, "table": tab.number, "version": s.version, "receipt": s.receipt,
                        "status": s.status} for s in tab.sheets if s.receipt)
    held = receipts.receipts_in_record(t.id, [x["receipt"] for x in out]) if out else {}
    for x in out:
        x["in_record"] = held.get(x["receipt"], False)
    return out


def hhmm(dt) -> str:
    return format_time(dt, "HH:mm") if dt else ""


STANDINGS = VersionedCache(32)
TABLES = VersionedCache(32)
VIEWS = VersionedCache(4)  # services.loaders.engine_view per stamp (read-only), for every public page
# what the pages around the table read: the cache keeps no rows (fewer objects for the GC to walk)
SUMMARY = ("after", "last_closed", "final", "unranked", "disqualified", "unranked_substitutes")


def standings_table(t: Tournament, after: int) -> tuple[dict, Markup]:
    """(page summary, rendered table) of the standings after round `after`,
    computed once per tournament version and shared by the public and the
    operator's pages; ServiceError as standings_page raises it. The page's
    `publication` moves with the clock: callers add it per request."""
    # the database URL keeps apps of one process apart (tests: a fresh database per test, ids repeat)
    db_url, locale = current_app.config["SQLALCHEMY_DATABASE_URI"], str(get_locale())
    # standings of closed rounds move only with the public version (a running round's phone sheets do not
    # bump it, services/common.bump); anything later with every change
    basis = t.public_version if after <= (loaders.last_closed(t) or 0) else ("all", t.version)
    key = (db_url, t.id, basis, after, locale)

    def make():
        full = public_view(t)
        page = standings.standings_page(full, after)
        # most changes (every sheet of the round being played) leave these standings as
        # they were: the table is rendered again only when what it shows has changed
        shown = repr({k: v for k, v in page.items() if k != "publication"})
        table_key = (db_url, t.id, after, locale, hashlib.blake2b(shown.encode()).digest())
        table = TABLES.get_or_make(
            table_key, lambda: Markup(render_template("public/_standings_table.html", t=full, page=page)))
        # the chain head these standings were computed under, kept as published (services/chain_heads.py)
        return {**{k: page[k] for k in SUMMARY}, "head": chain_heads.publish_head(t.id, "standings")}, table

    return STANDINGS.get_or_make(key, make)


def public_view(t: Tournament):
    """services.loaders.engine_view of `t`, read once per (version, chain_seq), the stamp a 304
    trusts (every change moves the version, every sheet or record that counts the chain: a referee's
    rejection, the running round's phone sheets): after a round closed, the standings, the projector
    and every player's page of this process share one read."""
    return VIEWS.get_or_make((current_app.config["SQLALCHEMY_DATABASE_URI"], t.id, t.version, t.chain_seq),
                             lambda: loaders.engine_view(t.id))
