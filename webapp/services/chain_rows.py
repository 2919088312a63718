"""Everything besides the sheets that decides a result, in the tournament's chain (docs/SECURITY.md).

Every transaction that creates, changes or deletes a row of a tracked table (the
tournament's settings, its players, rounds, tables as drawn, events, corrections and
cases) ends with one `rows` entry per tournament: each such row's values as the
database holds them at commit (or `null`: deleted). Replaying the `rows` entries gives
every tracked row as the server wrote it, so `verify` can name any row the database no
longer matches, and rebuild the standings from the chain alone (`chain_tournament`).

No service has to remember it: a session listener notes the rows a flush wrote; the few
table-level UPDATEs of tracked columns call `touch`. A tournament whose chain has no
`rows` entry yet (it was stored before the chain covered rows) gets all its tracked rows
in its first one.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from types import SimpleNamespace

from flask_babel import gettext as _
from sqlalchemy import JSON, Boolean, Date, DateTime, Integer, Numeric, event, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import get_history

from ..extensions import db
from ..models import Case, Correction, Event, Player, Round, RoundTable, Tournament

KIND = "rows"

# per tracked model: the columns NOT recorded, and why. Everything else is recorded, so a new
# column is in the chain unless it is added here (tests/web/test_chain_rows.py edits every column).
UNRECORDED = {
    Tournament: {
        "version": "a counter for stale forms, bumped by every change",
        "public_version": "a cache key of public pages",
        "created_at": "bookkeeping",
        "chain_seq": "the chain's head: MAC'd on its own",
        "chain_head": "the chain's head: MAC'd on its own",
        "chain_mac": "the chain's head: MAC'd on its own",
        "pin_salt": "the PIN verifiers' key (services/pins.py)",
    },
    Player: {
        "pin_hash": "PIN verifiers are keyed (services/pins.py)",
        "pin_failures": "PIN throttling state",
        "pin_locked_until": "PIN throttling state",
        "pin_issued_at": "PIN bookkeeping",
        "pin_issued_by": "PIN bookkeeping",
    },
    Round: {"version": "a counter for stale forms"},
    RoundTable: {},
    Event: {},
    Correction: {},
    Case: {},
}
MODELS = tuple(UNRECORDED)
BY_TABLE = {m.__tablename__: m for m in MODELS}
ORDER = {m.__tablename__: i for i, m in enumerate(MODELS)}


def recorded_columns(model) -> list:
    return [c for c in model.__table__.columns if c.name not in UNRECORDED[model]]


def value(column, v):
    """A column's value as the chain keeps it: JSON, the same whichever database it came from."""
    if v is None:
        return None
    t = column.type
    if isinstance(t, Boolean):
        return bool(v)
    if isinstance(t, Numeric):
        scale = t.scale or 0
        return str(Decimal(str(v)).quantize(Decimal(1).scaleb(-scale)))
    if isinstance(t, Integer):
        return int(v)
    if isinstance(t, DateTime):
        return v.isoformat(timespec="microseconds") if isinstance(v, datetime) else str(v)
    if isinstance(t, Date):
        return v.isoformat() if isinstance(v, date) else str(v)
    if isinstance(t, JSON):
        from .chain import plain
        return plain({"v": v})["v"]
    return str(v)


def row_values(model, row) -> dict:
    return {c.name: value(c, row[c.name]) for c in recorded_columns(model)}


# --------------------------------------------------------------------------- noting what a flush wrote

TOUCHED = "chain_rows_touched"  # session.info: {(table, id): tournament id or None}
_KNOWN = "chain_rows_known"  # (database url, tid) whose chain has a `rows` entry already
_known: set = set()


def _tid_of(session, obj) -> int | None:
    if isinstance(obj, Tournament):
        return obj.id
    if isinstance(obj, RoundTable):
        r = obj.__dict__.get("round")
        if r is None and obj.round_id is not None:
            r = session.identity_map.get(session.identity_key(Round, obj.round_id))
        return r.tournament_id if r is not None else None
    return obj.tournament_id


def touch(session, model, row_id: int, tid: int | None) -> None:
    """A row a table-level statement changed: recorded at commit like one the ORM wrote."""
    session.info.setdefault(TOUCHED, {})[(model.__tablename__, row_id)] = tid


@event.listens_for(Session, "after_flush")
def _note_rows(session, _ctx):
    touched = None
    for group, dirty in ((session.new, False), (session.dirty, True), (session.deleted, False)):
        for obj in group:
            model = type(obj)
            if model not in UNRECORDED:
                continue
            if dirty and not any(get_history(obj, c.key).has_changes()
                                 for c in recorded_columns(model) if c.key in obj.__dict__):
                continue
            if touched is None:
                touched = session.info.setdefault(TOUCHED, {})
            touched[(model.__tablename__, obj.id)] = _tid_of(session, obj)


@event.listens_for(Session, "after_transaction_end")
def _forget_rows(session, transaction):
    if transaction.parent is None:
        session.info.pop(TOUCHED, None)


# --------------------------------------------------------------------------- writing them at commit


def _read(session, model, ids) -> dict[int, tuple[int, dict]]:
    """{id: (tournament id, values)} of the rows that exist."""
    table = model.__table__
    if model is RoundTable:
        q = select(table, Round.tournament_id.label("_tid")).join(Round, Round.id == table.c.round_id)
    elif model is Tournament:
        q = select(table, table.c.id.label("_tid"))
    else:
        q = select(table, table.c.tournament_id.label("_tid"))
    q = q.where(table.c.id.in_(list(ids)))
    return {m["id"]: (m["_tid"], row_values(model, m)) for m in session.execute(q).mappings()}


def _all_rows(session, tid: int) -> list[dict]:
    out = []
    for model in MODELS:
        table = model.__table__
        if model is RoundTable:
            q = select(table).join(Round, Round.id == table.c.round_id).where(Round.tournament_id == tid)
        elif model is Tournament:
            q = select(table).where(table.c.id == tid)
        else:
            q = select(table).where(table.c.tournament_id == tid)
        out += [{"table": table.name, "id": m["id"], "values": row_values(model, m)}
                for m in session.execute(q.order_by(table.c.id)).mappings()]
    return out


def _has_rows(session, tid: int) -> bool:
    from ..models import AuditEntry

    key = (str(session.get_bind().url), tid)
    if key in _known:
        return True
    found = session.scalar(select(AuditEntry.id).where(AuditEntry.tournament_id == tid,
                                                       AuditEntry.action == KIND).limit(1)) is not None
    if found:
        _known.add(key)
    return found


def write_rows(session, actor: str | None = None) -> None:
    """One `rows` entry per tournament whose tracked rows this transaction wrote (before commit)."""
    if session.new or session.dirty or session.deleted:
        session.flush()  # the commit would flush them next anyway
    touched = session.info.pop(TOUCHED, None) or {}
    if not touched:
        return
    from . import chain

    by_table: dict[str, set] = {}
    for (name, row_id) in touched:
        by_table.setdefault(name, set()).add(row_id)
    per_tid: dict[int, list] = {}
    for name in sorted(by_table, key=ORDER.get):
        found = _read(session, BY_TABLE[name], by_table[name])
        for row_id in sorted(by_table[name]):
            tid, values = found.get(row_id, (touched[(name, row_id)], None))
            if tid is not None:
                per_tid.setdefault(tid, []).append({"table": name, "id": row_id, "values": values})
    actor = actor or session.info.get(chain.LAST_ACTOR, "")
    for tid in sorted(per_tid):
        if session.get(Tournament, tid) is None:
            continue  # the tournament itself was deleted: its chain goes with it
        rows = per_tid[tid] if _has_rows(session, tid) else _all_rows(session, tid)
        chain.append(tid, KIND, actor, {"rows": rows}, now=True)
        _known.add((str(session.get_bind().url), tid))


# --------------------------------------------------------------------------- replaying the chain


def replay(payloads) -> dict[tuple[str, int], dict]:
    """{(table, id): values} of every tracked row as the `rows` entries (in chain order) leave it."""
    state: dict[tuple[str, int], dict] = {}
    for payload in payloads:
        for r in (payload or {}).get("rows") or ():
            if not isinstance(r, dict):
                continue
            key = (r.get("table"), r.get("id"))
            if r.get("values") is None:
                state.pop(key, None)
            else:
                state[key] = r["values"]
    return state


def database_rows(tid: int) -> dict[tuple[str, int], dict]:
    return {(r["table"], r["id"]): r["values"] for r in _all_rows(db.session, tid)}


def _date(v):
    return date.fromisoformat(v) if isinstance(v, str) else v


def counting_records(sheet_records) -> dict[tuple[int, int], dict]:
    """The counting sheet of every table as the chain recorded them: (round, table) -> record of the
    newest accepted version (RoundTable.sheet's rule)."""
    versions: dict[tuple, dict] = {}
    for rec in sheet_records:
        if isinstance(rec, dict):
            versions[(rec.get("round"), rec.get("table"), rec.get("version"))] = rec
    counting: dict[tuple, dict] = {}
    for (r, tab, v), rec in sorted(versions.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1] or 0, kv[0][2] or 0)):
        if rec.get("status") == "accepted":
            counting[(r, tab)] = rec
    return counting


def _sheet(rec: dict | None):
    if rec is None:
        return None
    return SimpleNamespace(sums=rec.get("sums") or [], points=rec.get("points"),
                           disqualified=rec.get("disqualified") or [], early=bool(rec.get("early")),
                           scores=rec.get("scores"), ended=rec.get("ended"), frozen=rec.get("frozen"),
                           premium_games=rec.get("premium_games"))


def chain_tournament(state: dict, counting: dict, tid: int | None = None):
    """The tournament as the chain alone records it, in the shape services/engine.rules_tournament
    reads (None when the chain records no tournament row)."""
    rows = {}
    for (name, _id), values in state.items():
        rows.setdefault(name, []).append(values)
    tours = rows.get("tournament") or []
    if tid is not None:
        tours = [x for x in tours if x.get("id") == tid]
    if not tours:
        return None
    t = dict(tours[0])
    tid = t["id"]

    def mine(name):
        return sorted((x for x in rows.get(name, []) if x.get("tournament_id") == tid), key=lambda x: x["id"])

    rounds = []
    round_ids = {}
    for r in sorted(mine("round"), key=lambda x: x["number"]):
        ns = SimpleNamespace(**r, tables=[])
        round_ids[r["id"]] = ns
        rounds.append(ns)
    for tab in sorted(rows.get("round_table", []), key=lambda x: x["number"]):
        r = round_ids.get(tab.get("round_id"))
        if r is not None:
            r.tables.append(SimpleNamespace(**tab, sheet=_sheet(counting.get((r.number, tab["number"])))))
    players = []
    for p in sorted(mine("player"), key=lambda x: x["start_no"]):
        p = dict(p)
        p["rating"] = Decimal(p["rating"]) if p.get("rating") is not None else None
        players.append(SimpleNamespace(**p))
    t.update(date=_date(t.get("date")), rounds=rounds, players=players,
             events=[SimpleNamespace(**e) for e in mine("event")],
             corrections=[SimpleNamespace(**c) for c in mine("correction")])
    return SimpleNamespace(**t)


# --------------------------------------------------------------------------- comparing


def _show(v) -> str:
    import json
    return json.dumps(v, ensure_ascii=False)


def _label(name: str, values: dict, rounds: dict) -> tuple[int | None, int | None, str]:
    """(round, table, what) naming a row the way the operator knows it."""
    v = values or {}
    if name == "tournament":
        return None, None, _("the tournament")
    if name == "player":
        return None, None, _("player start no %(s)s (%(name)s)", s=v.get("start_no"), name=v.get("name"))
    if name == "round":
        return v.get("number"), None, _("the round")
    if name == "round_table":
        return rounds.get(v.get("round_id")), v.get("number"), _("the table")
    if name == "event":
        return v.get("round") or v.get("after_round"), None, \
            _("event #%(id)s (%(type)s %(colour)s, start no %(s)s)", id=v.get("id"), type=v.get("type"),
              colour=v.get("colour") or "", s=v.get("start_no"))
    if name == "correction":
        rec = v.get("record") or {}
        return rec.get("round"), rec.get("table"), _("correction #%(id)s", id=v.get("id"))
    if name == "case":
        return v.get("round"), v.get("table"), _("case #%(id)s (%(kind)s)", id=v.get("id"), kind=v.get("kind"))
    return None, None, f"{name} #{v.get('id')}"


def row_differences(chained: dict, stored: dict) -> list[tuple[int | None, int | None, str]]:
    """Every tracked row the database holds otherwise than the chain recorded it."""
    rounds = {}
    for source in (chained, stored):
        for (name, _id), v in source.items():
            if name == "round":
                rounds.setdefault(v["id"], v.get("number"))
    out = []
    for key in sorted(set(chained) | set(stored), key=lambda k: (ORDER.get(k[0], 99), k[1])):
        name = key[0]
        c, s = chained.get(key), stored.get(key)
        r, tab, what = _label(name, s or c, rounds)
        name = {"tournament": _("tournament"), "player": _("player"), "round": _("round"), "round_table": _("table"),
                "event": _("event"), "correction": _("correction"), "case": _("case")}.get(key[0], key[0])
        if c is None:
            out.append((r, tab, _("%(what)s is in the database (%(name)s id %(id)s) but not in the chain: it was "
                                  "added behind the server's back", what=what, name=name, id=key[1])))
        elif s is None:
            out.append((r, tab, _("%(what)s is in the chain (%(name)s id %(id)s) but was deleted from the database",
                                  what=what, name=name, id=key[1])))
        else:
            for col in sorted(set(c) | set(s)):
                if c.get(col) != s.get(col):
                    out.append((r, tab, _("%(what)s: %(column)s is %(db)s in the database, %(chain)s in the chain",
                                          what=what, column=column_name(key[0], col), db=_show(s.get(col)),
                                          chain=_show(c.get(col)))))
    return out


def standing_rows(rt) -> dict[int, dict[int, tuple]]:
    """{after round: {start no: (place, name, club, points, money, stage)}} of a rules-engine tournament."""
    from ..rules.standings import standings

    out = {}
    for rnd in rt.rounds:
        out[rnd.number] = {s.player.start_no: (s.place, s.player.name, s.player.club or "", str(s.stats.points),
                                               str(s.stats.money), s.stage)
                           for s in standings(rt, rnd.number)}
    return out


FIELDS = ("place", "name", "club", "points", "money", "stage")


def standings_differences(chained, stored, left="the chain", right="the database") -> list[tuple]:
    """(round, None, message) for every standings row `stored` shows otherwise than `chained` (both
    rules-engine tournaments), after every round either has."""
    left, right = source_name(left), source_name(right)
    try:
        a = standing_rows(chained)
    except Exception as e:  # noqa: BLE001 - a chain no engine can read is a finding, not a crash
        return [(None, None, _("the standings cannot be computed from %(source)s: %(why)s", source=left, why=e))]
    try:
        b = standing_rows(stored)
    except Exception as e:  # noqa: BLE001
        return [(None, None, _("the standings cannot be computed from %(source)s: %(why)s", source=right, why=e))]
    out = []
    for rnd in sorted(set(a) | set(b)):
        if rnd not in a or rnd not in b:
            missing = left if rnd not in a else right
            out.append((rnd, None, _("standings after round %(r)d: %(source)s has none (its round is incomplete)",
                                     r=rnd, source=missing)))
            continue
        for no in sorted(set(a[rnd]) | set(b[rnd])):
            x, y = a[rnd].get(no), b[rnd].get(no)
            if x is None or y is None:
                out.append((rnd, None, _("standings after round %(r)d, start no %(s)d: ranked in %(source)s only",
                                         r=rnd, s=no, source=left if x else right)))
                continue
            for f, vx, vy in zip(FIELDS, x, y):
                if vx != vy:
                    out.append((rnd, None, _("standings after round %(r)d, start no %(s)d: %(field)s is %(right)s "
                                             "in %(b)s, %(left)s in %(a)s", r=rnd, s=no, field=standing_field(f),
                                             right=vy, b=right, left=vx, a=left)))
    return out


def source_name(source: str) -> str:
    """"the chain", "the database", "the file" in the language of the messages."""
    return {"the chain": _("the chain"), "the database": _("the database"), "the file": _("the file")}.get(source,
                                                                                                           source)


def column_name(table: str, column: str) -> str:
    """A recorded column (`recorded_columns`) as a finding names it, in words."""
    own = {("tournament", "name"): _("tournament name"), ("round", "number"): _("round number"),
           ("round_table", "number"): _("table number"), ("round_table", "players"): _("players")}
    if (table, column) in own:
        return own[(table, column)]
    names = {
        "id": _("row id"), "tournament_id": _("tournament row"), "round_id": _("round row"),
        "ruleset": _("rule set"), "name": _("name"), "date": _("date"), "venue": _("venue"), "status": _("status"),
        "nominations_published_at": _("nominations published at"), "nomination_duty": _("nomination duty"),
        "uid": _("stable id"), "replaced_by_id": _("replaced by"), "venue_id": _("venue row"),
        "seed": _("seed of the lot"), "paper_language": _("language of the paper sheets"),
        "start_no": _("start number"), "reg_id": _("registration id"), "club": _("club"), "rating": _("rating"),
        "nominated": _("nominated"), "present": _("present"), "checked_in_at": _("checked in at"),
        "substitute_for": _("substitute for"), "from_round": _("plays from round"),
        "advancing": _("advancing players"), "eliminated": _("eliminated players"), "drawn_at": _("drawn at"),
        "published_at": _("published at"), "started_at": _("started at"), "closed_at": _("closed at"),
        "standings_published_at": _("standings published at"), "seeding": _("seeding"),
        "flags": _("table flags"), "pending_dq": _("pending disqualification"), "type": _("event type"),
        "after_round": _("after round"), "colour": _("card colour"), "round": _("round"),
        "referees": _("referees"), "reason": _("reason"), "created_by": _("created by"),
        "created_at": _("created at"), "order": _("order of the lot"), "record": _("correction record"),
        "table": _("table"), "kind": _("kind of case"), "sheet_id": _("sheet row"),
        "other_sheet_id": _("other sheet row"), "payload": _("case data"), "resolved_by": _("resolved by"),
        "resolved_at": _("resolved at"), "resolution_note": _("resolution note"),
    }
    return names.get(column, column)


def standing_field(f: str) -> str:
    return {"place": _("place"), "name": _("name"), "club": _("club"), "points": _("points"),
            "money": _("money"), "stage": _("stage")}.get(f, f)


def check(t, entries) -> tuple[list[tuple], bool]:
    """verify's part for the rows: (problems as (round, table, message), whether the chain records rows)."""
    from .engine import rules_tournament

    payloads = [e.payload for e in entries if e.action == KIND]
    if not payloads:
        return [], False
    chained = replay(payloads)
    stored = database_rows(t.id)
    problems = row_differences(chained, stored)
    counting = counting_records(e.payload.get("sheet") for e in entries
                                if e.action in ("sheet.store", "sheet.update"))
    ct = chain_tournament(chained, counting, t.id)
    if ct is None:
        return problems + [(None, None, _("the chain records no tournament row"))], True
    try:
        from_chain = rules_tournament(ct)
    except Exception as e:  # noqa: BLE001
        return problems + [(None, None, _("the tournament cannot be rebuilt from the chain: %(why)s", why=e))], True
    try:
        from_database = rules_tournament(t)
    except Exception as e:  # noqa: BLE001
        return problems + [(None, None, _("the tournament cannot be read from the database: %(why)s", why=e))], True
    problems += standings_differences(from_chain, from_database)
    return problems, True
