"""Loading a tournament for the results services and the public pages: `load_tournament` (the
ORM objects, in a fixed number of queries), `engine_view` (plain read-only objects for the public
pages) and the look-ups by round and table number they share.
"""
from __future__ import annotations

import json
from types import SimpleNamespace

from sqlalchemy import JSON, Text, bindparam, cast, select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..models import (Correction as CorrectionRow, Event as EventRow, Player, Round, RoundTable, Sheet, Tournament,
                      counting_sheet)
from .common import NotFoundError


def load_tournament(tid: int) -> Tournament:
    """The tournament with everything the engine needs, in a fixed number of
    queries however many rounds, tables and sheets it has."""
    t = db.session.scalar(
        select(Tournament).where(Tournament.id == tid).options(
            selectinload(Tournament.players),
            selectinload(Tournament.events),
            selectinload(Tournament.corrections),
            selectinload(Tournament.rounds).selectinload(Round.tables).selectinload(RoundTable.sheets),
        ))
    if t is None:
        raise NotFoundError(f"tournament {tid}")
    return t


# what no public page shows, not read for them: what players signed (each sheet's content and its
# signatures with their drawings), who typed a sheet and when, and the players' PINs and check-in
# (converting the dates and the decimals among them is work the projector's render can skip)
_NOT_SHOWN = {"sheet": ("content", "signatures", "note", "created_by", "created_at", "content_hash", "chain_seq"),
              "player": ("checked_in_at", "pin_hash", "pin_failures", "pin_locked_until", "pin_issued_at",
                         "pin_issued_by")}


def _shown(table) -> list:
    return [c for c in table.c if c.name not in _NOT_SHOWN[table.name]]


def _as_text(column):
    """A JSON column read as its text, decoded by decode_all."""
    return cast(column, Text).label(column.name) if isinstance(column.type, JSON) else column


def decode_all(texts: list) -> list:
    """JSON texts (None for SQL NULL) decoded in one call: a public page reads some 2,000 of them
    (each table's players, each sheet's sums …), and one json.loads each was a large part of the
    projector's render."""
    present = [text for text in texts if text is not None]
    decoded = iter(json.loads("[" + ",".join(present) + "]") if present else ())
    return [None if text is None else next(decoded) for text in texts]


def _view_statements() -> dict:
    """engine_view's SELECTs, built once: (statement, its columns' names, which are JSON) by name."""
    T, P, E, C = (m.__table__ for m in (Tournament, Player, EventRow, CorrectionRow))
    R, RT, S = Round.__table__, RoundTable.__table__, Sheet.__table__
    tid = bindparam("tid")
    in_tournament = RT.c.round_id.in_(select(R.c.id).where(R.c.tournament_id == tid))

    def of(table, where, order=(), columns=None):
        columns = columns or list(table.c)
        return (select(*map(_as_text, columns)).where(where).order_by(*order), [c.name for c in columns],
                [i for i, c in enumerate(columns) if isinstance(c.type, JSON)])

    return {"tournament": of(T, T.c.id == tid),
            "players": of(P, P.c.tournament_id == tid, (P.c.start_no,), _shown(P)),
            "events": of(E, E.c.tournament_id == tid, (E.c.id,)),
            "corrections": of(C, C.c.tournament_id == tid, (C.c.id,)),
            "rounds": of(R, R.c.tournament_id == tid, (R.c.number,)),
            "tables": of(RT, in_tournament, (RT.c.round_id, RT.c.number),
                         [RT.c.id, RT.c.round_id, RT.c.number, RT.c.players]),
            "sheets": of(S, S.c.table_id.in_(select(RT.c.id).where(in_tournament)), (S.c.table_id, S.c.version),
                         _shown(S))}


_VIEW = _view_statements()


class ViewTable(SimpleNamespace):
    """A round table as engine_view reads it, with its `sheets`: its `sheet` as RoundTable.sheet."""

    @property
    def sheet(self):
        return counting_sheet(self.sheets)


def engine_view(tid: int) -> SimpleNamespace:
    """The tournament as the public pages read it (standings, projector, seating, a
    player's page), from seven table-level SELECTs into plain objects with the models'
    attribute names (ViewTable for a table): no ORM
    object is made (for 420 players and 3 rounds about half the cost of
    load_tournament), and nothing no public page shows is read (_NOT_SHOWN: what
    players signed, their PINs …). Read-only: nothing here can be changed or saved."""
    found = {name: db.session.execute(statement, {"tid": tid}).all() for name, (statement, _k, _j) in _VIEW.items()}

    def rows(name, make=SimpleNamespace):
        _statement, keys, json_at = _VIEW[name]
        if not json_at:
            return [make(**dict(zip(keys, row))) for row in found[name]]
        values = [list(row) for row in found[name]]
        for i in json_at:
            for row, value in zip(values, decode_all([row[i] for row in values])):
                row[i] = value
        return [make(**dict(zip(keys, row))) for row in values]

    if not found["tournament"]:
        raise NotFoundError(f"tournament {tid}")
    t = rows("tournament")[0]
    t.players, t.events, t.corrections, t.rounds = rows("players"), rows("events"), rows("corrections"), rows("rounds")
    tables: dict[int, ViewTable] = {}
    by_round = {r.id: r for r in t.rounds}
    for r in t.rounds:
        r.tables = []
    for tab in rows("tables", make=ViewTable):
        tab.sheets = []
        tables[tab.id] = tab
        by_round[tab.round_id].tables.append(tab)
    for sheet in rows("sheets"):
        tables[sheet.table_id].sheets.append(sheet)
    return t


def get_round(t: Tournament, n: int) -> Round:
    for r in t.rounds:
        if r.number == n:
            return r
    raise NotFoundError(f"round {n}")


def get_table(r: Round, number: int) -> RoundTable:
    for tab in r.tables:
        if tab.number == number:
            return tab
    raise NotFoundError(f"table {number}")


def last_closed(t: Tournament) -> int:
    """The last round whose results count: rules_tournament(closed_only) stops at the first open round."""
    k = 0
    for r in t.rounds:
        if r.status != "closed":
            break
        k = r.number
    return k
