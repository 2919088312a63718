"""The federation server: venues and their tokens, seasons, clubs and
rosters, tournaments received from venues (pushed or imported) with the check of
their hash chain, the card register, the season document venues download, and
the season tables computed from the received files by the rules engine, exactly
as `listok season` and `listok rating` compute them from the same files."""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import secrets
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from flask import current_app
from flask_babel import force_locale, lazy_gettext as _l
from sqlalchemy import func, select, update

from ..extensions import db
from ..models import (ROSTER_STATUSES, Card, Club, Federation, RosterEntry, Season, SeasonTournament, Venue,
                      utcnow)
from ..rules import exchange
from ..rules.report import rating_report, season_report, standings_report
from ..rules.season import GUEST_LIMIT, chronological, historical_points
from ..http.cache import VersionedCache
from . import rule_texts
from .common import ServiceError, audit

PUSH_FORMAT = "listok-push/1"
SEASON_FORMAT = "listok-season/1"
CHAIN_FORMAT = "listok-chain/1"
MAX_PUSH_BYTES = 32 * 1024 * 1024
REPORTS = VersionedCache(64)


class Duplicate(ServiceError):
    def __init__(self, message: str, existing: SeasonTournament):
        super().__init__(message, field="file")
        self.existing = existing


# --------------------------------------------------------------------------- venues and tokens


def token_hash(token: str) -> str:
    return hashlib.sha256(("listok-venue-token:" + token).encode()).hexdigest()


def new_venue_token(venue: Venue) -> str:
    """A new token for the venue (shown once; only its hash is kept): the old one stops working."""
    token = "lv_" + secrets.token_urlsafe(24)
    venue.token_hash = token_hash(token)
    return token


def venue_for_token(token: str | None) -> Venue | None:
    if not token:
        return None
    return db.session.scalar(select(Venue).where(Venue.token_hash == token_hash(token.strip())))


def bearer(headers) -> str | None:
    value = headers.get("Authorization", "")
    return value[7:].strip() if value[:7].lower() == "bearer " else None


def bump_season(season: Season) -> None:
    db.session.execute(update(Season).where(Season.id == season.id).values(version=Season.version + 1)
                       .execution_options(synchronize_session=False))
    db.session.refresh(season)


# --------------------------------------------------------------------------- the chain a venue sent


@dataclass
class ChainCheck:
    ok: bool
    problems: list  # lazy strings: each in the language of whoever reads it
    entries: int
    head: str

    def as_dict(self) -> dict:
        """What the federation keeps: the problems in English, its record's language."""
        with force_locale("en"):
            problems = [str(p) for p in self.problems]
        return {"ok": self.ok, "checked": True, "problems": problems, "entries": self.entries,
                "head": self.head}


def _entry_hash(e: dict) -> str:
    body = {"chain": CHAIN_FORMAT, "tournament": e.get("tournament"), "seq": e.get("seq"), "prev": e.get("prev"),
            "kind": e.get("kind"), "actor": e.get("actor"), "at": e.get("at"), "payload": e.get("payload")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode("utf-8")).hexdigest()


def _num(v):
    return None if v is None else Fraction(str(v))


def check_chain(rt, entries: list, heads: list, head: dict | None) -> ChainCheck:
    """What the federation can check without the venue's MAC key: every entry's hash from its
    content, the links (seq without gaps, prev = the previous hash), the head and every
    published head, and that the file's results are the chain's counting sheets."""
    problems: list[str] = []
    prev, by_seq = "", {}
    for i, e in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(e, dict):
            problems.append(_l("chain record %(n)s is not an object", n=i + 1))
            break
        seq = e.get("seq")
        if seq != i + 1:
            problems.append(_l("chain record #%(seq)s is where #%(n)s should be: records are missing or reordered",
                                seq=seq, n=i + 1))
            break
        if _entry_hash(e) != e.get("hash"):
            problems.append(_l("chain record #%(seq)s (%(kind)s): its content does not give its hash", seq=seq,
                                kind=e.get("kind")))
        if e.get("prev") != prev:
            problems.append(_l("chain record #%(seq)s does not follow record #%(before)s", seq=seq,
                                before=seq - 1 if isinstance(seq, int) else "?"))
        prev = e.get("hash") or ""
        by_seq[seq] = e
    last = max(by_seq, default=0)
    if not isinstance(entries, list) or not entries:
        problems.append(_l("the chain is missing"))
    if head is None or head.get("seq") != last or head.get("hash") != prev:
        problems.append(_l("the head sent (#%(seq)s) is not the chain's last record (#%(last)s)",
                            seq=(head or {}).get("seq"), last=last))
    for h in heads if isinstance(heads, list) else []:
        e = by_seq.get(h.get("seq")) if isinstance(h, dict) else None
        if e is None or e.get("hash") != h.get("hash"):
            problems.append(_l("the head #%(seq)s published (%(place)s) is not in the chain: it was cut or "
                               "rewritten", seq=(h or {}).get("seq"), place=(h or {}).get("place")))
    # every head the chain says was published was sent, as the chain has it
    sent = {(h.get("seq"), h.get("hash")): h for h in heads if isinstance(h, dict)} if isinstance(heads, list) else {}
    for e in by_seq.values():
        p = e.get("payload") or {}
        if e.get("kind") == "head.publish":
            h = sent.get((p.get("seq"), p.get("hash")))
            if h is None:
                problems.append(_l("the head #%(seq)s published (%(place)s, chain record #%(record)s) was not "
                                   "sent: it was deleted", seq=p.get("seq"), place=p.get("place"),
                                   record=e.get("seq")))
            elif h.get("place") != p.get("place") or h.get("published_at") != e.get("at"):
                problems.append(_l("the head #%(seq)s published: the venue says %(place)s at %(at)s, the "
                                   "chain %(chain_place)s at %(chain_at)s", seq=p.get("seq"), place=h.get("place"),
                                   at=h.get("published_at"), chain_place=p.get("place"), chain_at=e.get("at")))
    # the counting sheet of every table as the chain recorded it
    from .chain_rows import counting_records

    counting = counting_records((e.get("payload") or {}).get("sheet") for e in by_seq.values()
                                if e.get("kind") in ("sheet.store", "sheet.update"))
    in_file = set()
    for rnd in rt.rounds:
        for tr in rnd.tables:
            key = (rnd.number, tr.table)
            in_file.add(key)
            rec = counting.get(key)
            where = {"round": rnd.number, "table": tr.table}
            if rec is None:
                problems.append(_l("round %(round)s, table %(table)s: the file has results the chain has no "
                                   "sheet for", **where))
                continue
            sums = [exchange.money_text(s) for s in tr.sums]
            if list(rec.get("sums") or []) != sums:
                problems.append(_l("round %(round)s, table %(table)s: the file's sums %(sums)s are not the "
                                   "chain's %(chain)s", sums=", ".join(sums),
                                   chain=", ".join(map(str, rec.get("sums") or [])), **where))
            if sorted(rec.get("disqualified") or []) != sorted(tr.disqualified):
                problems.append(_l("round %(round)s, table %(table)s: the file's disqualifications are not "
                                   "the chain's", **where))
            if rec.get("points") is not None and tr.points is not None and \
                    [_num(x) for x in rec["points"]] != [_num(x) for x in tr.points]:
                problems.append(_l("round %(round)s, table %(table)s: the file's points are not the chain's",
                                   **where))
    for key in sorted(set(counting) - in_file):
        problems.append(_l("round %(round)s, table %(table)s: the chain has a sheet the file does not",
                           round=key[0], table=key[1]))
    problems += _replayed(rt, list(by_seq.values()), counting)
    return ChainCheck(not problems, problems, len(by_seq), prev)


def _replayed(rt, entries: list, counting: dict) -> list:
    """The file against the tournament the chain alone records (services/chain_rows.py): each
    table's seating, and the standings after every round."""
    from . import chain_rows
    from .engine import rules_table, rules_tournament

    payloads = [e.get("payload") for e in entries if e.get("kind") == chain_rows.KIND]
    if not payloads:
        return [_l("the chain does not record the players, the draw and the events: the file's standings "
                   "cannot be checked against it")]
    tid = entries[0].get("tournament") if entries else None
    ct = chain_rows.chain_tournament(chain_rows.replay(payloads), counting, tid)
    if ct is None:
        return [_l("the chain records no tournament")]
    try:
        from_chain = rules_tournament(ct)
    except Exception as e:  # noqa: BLE001 - a chain no engine can read is the finding
        return [_l("the tournament cannot be rebuilt from the chain: %(why)s", why=str(e))]
    problems = []
    tables = {(r.number, tab.number): tab for r in ct.rounds for tab in r.tables}
    for rnd in rt.rounds:
        for tr in rnd.tables:
            tab = tables.get((rnd.number, tr.table))
            if tab is None:
                continue
            if list(tab.players) != list(tr.players):
                problems.append(_l("round %(round)s, table %(table)s: the file seats %(file)s, the chain %(chain)s",
                                   round=rnd.number, table=tr.table, file=list(tr.players),
                                   chain=list(tab.players)))
            elif tab.sheet is not None:
                chained = rules_table(tr.table, tab.players, tab.sheet)
                for f in dataclasses.fields(tr):
                    if f.name not in ("sums", "disqualified", "points") and \
                            getattr(tr, f.name) != getattr(chained, f.name):
                        problems.append(_l("round %(round)s, table %(table)s: the file's %(field)s is %(file)s, "
                                           "the chain's %(chain)s", round=rnd.number, table=tr.table,
                                           field=f.name, file=repr(getattr(tr, f.name)),
                                           chain=repr(getattr(chained, f.name))))
    for r, _tab, message in chain_rows.standings_differences(from_chain, rt, right="the file"):
        problems.append(message)  # each names its round itself ("standings after round 3 …"), translated
    return problems


# --------------------------------------------------------------------------- receiving a tournament


def season_for(federation_id: int, ruleset: str, when: str | None) -> Season:
    seasons = db.session.scalars(select(Season).where(Season.federation_id == federation_id,
                                                      Season.ruleset == ruleset)).all()
    day = date.fromisoformat(when) if when else None
    fits = [s for s in seasons if day is None or ((s.starts is None or s.starts <= day)
                                                  and (s.ends is None or day <= s.ends))]
    if len(fits) != 1:
        raise ServiceError(_l("no single season of rule set %(ruleset)s for a tournament of %(when)s (%(n)s "
                              "match): the federation must set the seasons' dates", ruleset=ruleset,
                              when=when or "–", n=len(fits)), field="season")
    return fits[0]


def present_copy(season_id: int | None, uid: str) -> SeasonTournament | None:
    q = select(SeasonTournament).where(SeasonTournament.uid == uid, SeasonTournament.replaced_by_id.is_(None))
    return db.session.scalar(q.order_by(SeasonTournament.id.desc()).limit(1))


def receive(file_text: str, *, season: Season | None, venue: Venue | None, source: str, actor: str,
            chain: dict | None = None, replace: bool = False, name: str = "tournament.json") -> SeasonTournament:
    """Store a finished tournament in its season. A second copy (the same stable id, in any
    season) is refused; with `replace` (federation staff only) the old one is kept, marked replaced."""
    from .tournament_file import file_uid

    try:
        rt = exchange.loads(file_text, name)
    except exchange.ExchangeError as e:
        raise ServiceError(rule_texts.engine_text(e), field="file") from e
    try:
        season_report([rt])  # finished, consistent: what the season tables need
    except ValueError as e:
        raise ServiceError(f"{name}: {rule_texts.engine_text(e)}", field="file") from e
    if season is None:
        if venue is None or venue.federation_id is None:
            raise ServiceError(_l("the venue belongs to no federation"), field="venue")
        season = season_for(venue.federation_id, rt.ruleset, rt.date)
    if rt.ruleset != season.ruleset:
        raise ServiceError(_l("%(file)s: the rule set is %(ruleset)s, the season's is %(season)s", file=name,
                              ruleset=rt.ruleset, season=season.ruleset), field="file")
    uid = file_uid(rt, name)
    old = present_copy(season.id, uid)
    if old is not None and not replace:
        raise Duplicate(_l("the tournament '%(name)s' (id %(uid)s) is here already, received %(when)s "
                           "(%(source)s): this copy was refused", name=old.name, uid=uid,
                           when=f"{old.received_at:%Y-%m-%d %H:%M}", source=old.source), old)
    if chain is None:
        verdict = {"ok": None, "checked": False, "problems": [], "entries": 0, "head": ""}
    else:
        check = check_chain(rt, chain.get("entries"), chain.get("heads"), chain.get("head"))
        verdict = check.as_dict()
    st = SeasonTournament(season_id=season.id, uid=uid, venue_id=venue.id if venue else None, name=rt.name[:200],
                          date=date.fromisoformat(rt.date) if rt.date else None, file=exchange.dump(rt),
                          chain=(chain or {}).get("entries"), heads=(chain or {}).get("heads"), verdict=verdict,
                          source=source, received_by=actor)
    st.problems_shown = check.problems if chain is not None else []  # not stored: for the answer, in its language
    db.session.add(st)
    db.session.flush()
    if old is not None:
        old.replaced_by_id = st.id
        db.session.execute(Card.__table__.delete().where(Card.season_tournament_id == old.id))
    for e in rt.events:
        if e.type == "card":
            p = next((p for p in rt.players if p.start_no == e.start_no), None)
            if p is not None:
                db.session.add(Card(season_id=season.id, season_tournament_id=st.id, reg_id=p.key[:64],
                                    name=p.name[:200], colour=e.colour, round=e.round))
    bump_season(season)
    audit("federation.receive", actor, {"season": season.id, "uid": uid, "name": st.name, "source": source,
                                        "venue": venue.name if venue else None, "verdict_ok": verdict["ok"],
                                        "replaces": old.id if old else None})
    return st


# --------------------------------------------------------------------------- the season tables


def received(season: Season) -> list[SeasonTournament]:
    rows = db.session.scalars(select(SeasonTournament).where(SeasonTournament.season_id == season.id,
                                                             SeasonTournament.replaced_by_id.is_(None))).all()
    return sorted(rows, key=lambda st: (st.date or date.min, st.name, st.id))


def _files(season: Season) -> list:
    return chronological([exchange.loads(st.file, st.name) for st in received(season)])


def _cached(season: Season, kind: str, make):
    key = (current_app.config["SQLALCHEMY_DATABASE_URI"], season.id, season.version, kind)
    return REPORTS.get_or_make(key, make)


def season_tables(season: Season) -> dict:
    """`listok season` on the season's files (SEM-A4, A5; CSM-6 with the season's strike …)."""
    def make():
        files = _files(season)
        if not files:
            return {"players": [], "clubs": []}
        return season_report(files, season.best, season.strike)
    return _cached(season, "season", make)


def rating_list(season: Season) -> dict:
    """`listok rating --window N` on the season's files (SEM-B1)."""
    return _cached(season, "rating", lambda: rating_report(_files(season), season.rating_window)
                   if received(season) else {"ratings": []})


def tournament_results(st: SeasonTournament) -> dict:
    return standings_report(exchange.loads(st.file, st.name))


def historical_table(season: Season) -> dict:
    """SEM-A6: every season of the federation and rule set up to this one, its final totals
    times (highest total ever so far / highest this season), summed per player and club."""
    seasons = db.session.scalars(select(Season).where(Season.federation_id == season.federation_id,
                                                      Season.ruleset == season.ruleset)).all()
    seasons = sorted(seasons, key=lambda s: (s.starts or date.min, s.name, s.id))
    seasons = seasons[:seasons.index(season) + 1]

    def make():
        players: dict[str, dict] = {}
        clubs: dict[str, Fraction] = {}
        best_players = best_clubs = 0
        for s in seasons:
            table = season_tables(s)
            totals = {p["id"]: Fraction(str(p["points"])) for p in table.get("players", [])}
            club_totals = {c["club"]: Fraction(str(c["points"])) for c in table.get("clubs", [])}
            if totals and max(totals.values()) > 0:
                for key, v in historical_points(totals, best_players).items():
                    row = players.setdefault(key, {"points": Fraction(0), "seasons": 0})
                    row["points"] += v
                    row["seasons"] += 1
                    row["name"] = next(p["name"] for p in table["players"] if p["id"] == key)
                best_players = max(best_players, max(totals.values()))
            if club_totals and max(club_totals.values()) > 0:
                for key, v in historical_points(club_totals, best_clubs).items():
                    clubs[key] = clubs.get(key, Fraction(0)) + v
                best_clubs = max(best_clubs, max(club_totals.values()))
        order = sorted(players, key=lambda k: (-players[k]["points"], k))
        return {"players": [{"place": i + 1, "id": k, **players[k]} for i, k in enumerate(order)],
                "clubs": [{"place": i + 1, "club": c, "points": clubs[c]}
                          for i, c in enumerate(sorted(clubs, key=lambda c: (-clubs[c], c)))]}
    return _cached(season, "historical:" + ",".join(f"{s.id}.{s.version}" for s in seasons), make)


# --------------------------------------------------------------------------- rosters


def import_roster_csv(season: Season, text: str, actor: str) -> int:
    """Rows `id;name;club;status` (comma or semicolon; a header line is allowed). All rows or none:
    every bad row is named. An id already on the roster is updated."""
    sample = text[:2000]
    delimiter = ";" if sample.count(";") >= sample.count(",") else ","
    rows, errors = [], []
    for n, cells in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter), start=1):
        cells = [c.strip() for c in cells]
        if not any(cells):
            continue
        if n == 1 and cells[0].lower() in ("id", "reg_id", "registration"):
            continue
        cells += [""] * (4 - len(cells))
        reg_id, name, club, status = cells[:4]
        status = (status or "registered").lower()
        if not reg_id or not name:
            errors.append(f"line {n}: an id and a name are needed")
        elif len(reg_id) > 40 or len(name) > 200 or len(club) > 120:
            errors.append(f"line {n}: the id (40), name (200) or club (120 characters) is too long")
        elif status not in ROSTER_STATUSES:
            errors.append(f"line {n}: the status '{status}' is not one of {', '.join(ROSTER_STATUSES)}")
        elif status in ("registered", "rejected") and not club:
            errors.append(f"line {n}: a {status} player needs the club that listed them")
        else:
            rows.append((reg_id, name, club or None, status))
    if errors:
        raise ServiceError("; ".join(errors[:10]) + ("; …" if len(errors) > 10 else "") + ": nothing was imported",
                           field="file")
    for reg_id, name, club, status in rows:
        set_roster_entry(season, reg_id, name, club, status)
    bump_season(season)
    audit("federation.roster_import", actor, {"season": season.id, "rows": len(rows)})
    return len(rows)


def club_named(federation_id: int, name: str | None) -> Club | None:
    if not name:
        return None
    club = db.session.scalar(select(Club).where(Club.federation_id == federation_id, Club.name == name))
    if club is None:
        club = Club(federation_id=federation_id, name=name)
        db.session.add(club)
        db.session.flush()
    return club


def set_roster_entry(season: Season, reg_id: str, name: str, club: str | None, status: str) -> RosterEntry:
    c = club_named(season.federation_id, club)
    entry = db.session.scalar(select(RosterEntry).where(RosterEntry.season_id == season.id,
                                                        RosterEntry.reg_id == reg_id))
    if entry is None:
        entry = RosterEntry(season_id=season.id, reg_id=reg_id)
        db.session.add(entry)
    entry.name, entry.status, entry.club_id, entry.updated_at = name, status, c.id if c else None, utcnow()
    db.session.flush()
    return entry


# --------------------------------------------------------------------------- what a venue downloads


def guest_counts(season: Season) -> dict[str, int]:
    """SEM-A2: in how many of the season's tournaments each player played as a guest."""
    counts: dict[str, int] = {}
    for t in _files(season):
        for p in t.players:
            if p.status == "guest" and p.present:
                counts[p.key] = counts.get(p.key, 0) + 1
    return counts


def season_document(season: Season) -> dict:
    fed = db.session.get(Federation, season.federation_id)
    entries = db.session.scalars(select(RosterEntry).where(RosterEntry.season_id == season.id)
                                 .order_by(RosterEntry.reg_id)).all()
    sts = {st.id: st for st in received(season)}
    cards = db.session.scalars(select(Card).where(Card.season_id == season.id).order_by(Card.id)).all()
    return {
        "format": SEASON_FORMAT,
        "federation": {"code": fed.code, "name": fed.name},
        "season": {"id": season.id, "name": season.name, "ruleset": season.ruleset, "version": season.version,
                   "starts": season.starts.isoformat() if season.starts else None,
                   "ends": season.ends.isoformat() if season.ends else None},
        "guest_limit": GUEST_LIMIT,
        "players": [{"id": e.reg_id, "name": e.name, "club": e.club.name if e.club else None, "status": e.status}
                    for e in entries],
        "guests": guest_counts(season),
        # the season table as it stands (CSM-5: a venue seeds round 1 by it): player id and place
        "standings": [{"id": p["id"], "place": p["place"]} for p in season_tables(season).get("players", [])
                      if p.get("id") is not None],
        "tournaments": [{"id": st.uid, "name": st.name, "date": st.date.isoformat() if st.date else None}
                        for st in sts.values()],
        "cards": [{"id": c.reg_id, "name": c.name, "colour": c.colour, "round": c.round, "fine_paid": c.fine_paid,
                   "tournament": sts[c.season_tournament_id].uid, "tournament_name": sts[c.season_tournament_id].name,
                   "date": sts[c.season_tournament_id].date.isoformat() if sts[c.season_tournament_id].date
                   else None}
                  for c in cards if c.season_tournament_id in sts],
    }


def count_received(season_id: int) -> int:
    return db.session.scalar(select(func.count()).select_from(SeasonTournament).where(
        SeasonTournament.season_id == season_id, SeasonTournament.replaced_by_id.is_(None)))
