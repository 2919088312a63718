"""The tournament file (EXCHANGE.md) into and out of the database, and the results as CSV."""
from __future__ import annotations

import io
import uuid
from datetime import date
from decimal import Decimal
from pathlib import PurePath

from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import Correction, Event, Player, Round, RoundTable, Sheet, Tournament, utcnow
from ..rules import exchange
from ..rules.report import is_final, standings_report
from ..rules.ruleset import get_ruleset
from . import csvsafe, rule_texts
from .common import ServiceError, audit
from .engine import MAX_CLUB, MAX_ID, MAX_NAME, MAX_RATING, points_json, rules_tournament, score_text


def _check_fits(t, source: str) -> None:
    """What the file format allows but the database cannot store: refused, never cut short."""
    def fail(detail):
        raise ServiceError(f"{source}: {detail}", field="file")

    if len(t.name) > 200:
        fail(_("the name is longer than %(most)d characters", most=200))
    for p in t.players:
        where = _("start number %(s)d", s=p.start_no)
        if len(p.name) > MAX_NAME:
            fail(f"{where}: " + _("the name is longer than %(most)d characters", most=MAX_NAME))
        if p.club and len(p.club) > MAX_CLUB:
            fail(f"{where}: " + _("the club is longer than %(most)d characters", most=MAX_CLUB))
        if p.id and len(p.id) > MAX_ID:
            fail(f"{where}: " + _("the id is longer than %(most)d characters", most=MAX_ID))
        if p.rating is not None and (abs(p.rating) > MAX_RATING or p.rating != p.rating.quantize(Decimal("0.01"))):
            fail(f"{where}: " + _("the rating %(rating)s does not fit (at most 2 decimals)", rating=p.rating))


class DuplicateTournament(ServiceError):
    """The file's tournament is here already (its stable id): nothing was imported."""

    def __init__(self, message: str, existing: Tournament):
        super().__init__(message, field="file")
        self.existing = existing


def file_uid(rt, source_name: str = "") -> str:
    """The tournament's stable id: the file's top-level `id`, else one derived from the
    file's content, so two copies of a file without an id are one tournament too."""
    uid = rt.extra.get("id")
    if uid is None:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, "listok-tournament:" + exchange.dump(rt)))
    if not isinstance(uid, str) or not uid.strip() or len(uid) > 64:
        raise ServiceError(f"{source_name}: the tournament id must be a text of 1 to 64 characters", field="file")
    return uid


SEED_LIMIT = 2 ** 63  # what the database keeps (BigInteger)


def file_seed(rt, source_name: str = "") -> int | None:
    """The file's top-level `seed` (TH-2: the lot of round 1), a whole number, or None."""
    seed = rt.extra.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not -SEED_LIMIT <= seed < SEED_LIMIT:
        raise ServiceError(f"{source_name}: the \"seed\" must be a whole number below 2^63, not {seed!r}",
                           field="file")
    return seed


def present_copy(uid: str) -> Tournament | None:
    """The tournament with this stable id that counts (not one replaced by a later import)."""
    return db.session.scalar(select(Tournament).where(Tournament.uid == uid, Tournament.replaced_by_id.is_(None))
                             .order_by(Tournament.id.desc()).limit(1))


def import_tournament(data_text: str | bytes, source_name: str, actor: str, replace: bool = False) -> Tournament:
    """A whole tournament from a tournament file: players, and the rounds with their
    sheets (closed), events and corrections when the file has results.

    A tournament already here (same stable id) is refused (DuplicateTournament);
    with `replace` the new copy is imported and the old one is kept, marked as
    replaced, with a chain entry in both tournaments saying so.
    The file's own error message (ExchangeError) is passed on as it is."""
    try:
        rt = exchange.loads(data_text, source_name)
    except exchange.ExchangeError as e:
        raise ServiceError(rule_texts.engine_text(e), field="file") from e
    _check_fits(rt, source_name)
    uid = file_uid(rt, source_name)
    old = present_copy(uid)
    if old is not None and not replace:
        raise DuplicateTournament(
            _("%(file)s: the tournament '%(name)s' (id %(uid)s) is here already as tournament %(id)d; nothing was "
              "imported (to replace it: listok import --replace)", file=PurePath(source_name).name, name=old.name,
              uid=uid, id=old.id), old)
    venue = rt.extra.get("venue")
    name = rt.name.strip() or PurePath(source_name).stem or _("Imported tournament")
    t = Tournament(name=name[:200], ruleset=rt.ruleset, date=date.fromisoformat(rt.date) if rt.date else None,
                   venue=venue[:200] if isinstance(venue, str) else "", uid=uid,
                   seed=file_seed(rt, source_name))
    for p in rt.players:
        t.players.append(Player(start_no=p.start_no, reg_id=p.id, name=p.name, club=p.club, status=p.status,
                                rating=p.rating, nominated=p.nominated, present=p.present,
                                substitute_for=p.substitute_for, from_round=p.from_round))
    now = utcnow()
    rs = get_ruleset(rt.ruleset)
    for r in rt.rounds:
        row = Round(number=r.number, status="closed", drawn_at=now, published_at=now, closed_at=now,
                    standings_published_at=now)
        if rs.round_kind(r.number) == "cut":
            row.advancing, row.eliminated = _cut(rt, r.number, rs)
        for tr in r.tables:
            tab = RoundTable(number=tr.table, players=list(tr.players), flags=[])
            tab.sheets.append(Sheet(version=1, status="accepted", sums=[exchange.money_text(s) for s in tr.sums],
                                    points=points_json(tr.points), disqualified=list(tr.disqualified),
                                    early=tr.early, source="import", created_by=actor,
                                    scores=[score_text(v) for v in tr.scores] if tr.scores is not None else None,
                                    ended=tr.ended, frozen=True if tr.frozen else None,
                                    premium_games=[{"start_no": g.start_no, "game": g.game, "pb": g.pb,
                                                    "signed_by": list(g.signed_by)}
                                                   for g in tr.premium_games] or None,
                                    late=list(tr.late) or None, keeper_by_lot=tr.keeper_by_lot))
            row.tables.append(tab)
        t.rounds.append(row)
    for e in rt.events:
        t.events.append(Event(type=e.type, start_no=e.start_no, after_round=e.after_round, colour=e.colour,
                              round=e.round, referees=list(e.referees), created_by=actor,
                              order=list(e.order) if e.type == "lot" else None))
    for c in exchange.to_dict(rt).get("corrections", []):
        t.corrections.append(Correction(record=c, created_by=actor))
    if rt.rounds:
        t.status = "finished" if is_final(rt, rs=rs) else "running"
        # round 1 was played: its nominations are history, published with it (SEM-B3b),
        # and the duty to nominate was fixed when it started (SEM-B3a)
        t.nominations_published_at = now
        if get_ruleset(rt.ruleset).club_championship:
            from ..rules.season import nomination_duty

            t.nomination_duty = nomination_duty(rt)
    db.session.add(t)
    db.session.flush()
    record = {"source": PurePath(source_name).name, "players": len(rt.players), "rounds": len(rt.rounds),
              "uid": uid}
    if old is not None:
        record["replaces"] = old.id
        old.replaced_by_id = t.id
        audit("tournament.replaced", actor, {"by": t.id, "source": record["source"], "uid": uid}, old.id)
    audit("tournament.import", actor, record, t.id)
    return t


def _cut(rt, n: int, rs) -> tuple[list | None, list | None]:
    """Who advanced into cut round n, as the draw would say (kept for the round pages)."""
    from dataclasses import replace

    from ..rules.seating import DrawError, draw

    try:
        d = draw(replace(rt, rounds=rt.rounds_upto(n - 1)), n, rs)
    except DrawError:
        return None, None
    return (list(d.advancing) if d.advancing is not None else None,
            list(d.eliminated) if d.eliminated is not None else None)


def export_tournament(t: Tournament) -> str:
    """The tournament file: players, every round with all its sheets in, events, corrections."""
    rt = rules_tournament(t)
    rt.extra["id"] = t.uid
    if t.venue:
        rt.extra["venue"] = t.venue
    return exchange.dump(rt)


def export_results_csv(t: Tournament) -> str:
    """The published standings (closed rounds) for a spreadsheet: `;`-separated with
    the language's decimal sign (a comma in Slovak, Czech and Russian), as its spreadsheets open it."""
    rt = rules_tournament(t, closed_only=True)
    report = standings_report(rt)
    k = report["after_round"]
    # by round, not in the order played: a substitute's first sum belongs to their first round
    sums = {(r.number, s): m for r in rt.rounds for tr in r.tables for s, m in zip(tr.players, tr.sums)}
    final = report["final"]

    from ..i18n import csv_number as num

    out = io.StringIO()
    w = csvsafe.writer(out, delimiter=";", lineterminator="\r\n")  # names and clubs come from registrations and imports
    rows = report["standings"]
    # the rule set's own columns (EXCHANGE.md: points and money, or BP SB ZB PB, or points, score, final score)
    labels = {"points": _("Points"), "money": _("Money"), "bp": "BP", "sb": "SB", "zb": "ZB", "pb": "PB",
              "score": _("Score"), "final_score": _("Final score")}
    columns = {"money": ["points", "money"], "zb+pb": ["bp", "sb", "zb", "pb"],
               "score": ["points", "score", "final_score"]}[get_ruleset(t.ruleset).result_kind]
    tournament_points = final and bool(rows) and rows[0].get("tournament_points") is not None
    header = [_("Place"), _("Start number"), _("Name"), _("Club")] + [labels[key] for key in columns]
    header += [_("Round %(n)d", n=r) for r in range(1, k + 1)]
    if tournament_points:
        header += [_("Placement points"), _("Bonus points"), _("Tournament points")]
    w.writerow(header)
    for row in rows:
        played = [sums.get((r, row["start_no"])) for r in range(1, k + 1)]
        line = [row["place"], row["start_no"], row["name"], row.get("club") or ""]
        line += ["" if row[key] is None else num(row[key]) for key in columns]
        line += ["" if m is None else num(exchange.money_text(m)) for m in played]
        if tournament_points:
            tp = row["tournament_points"]
            line += [tp["placement"], tp["bonus"], tp["total"]]
        w.writerow(line)
    return out.getvalue()
