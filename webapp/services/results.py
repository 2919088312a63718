"""Results: the desk's paper-sheet entry, the standings and player pages, and
corrections after publication (SEM-C5, C8, C9, C10, B12, A3, B3).

Like every service, these change the caller's session and leave the commit to
the caller; a refused action raises ServiceError and changes nothing.

One file because the desk, the standings, the player page and the corrections read
one loaded tournament the same way (not yet split); its sections: the desk,
standings, the player page, SEM-C10 corrections, TH-4 the recorded lot, the final report.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from types import SimpleNamespace

from flask_babel import gettext as _
from sqlalchemy import JSON, Text, bindparam, cast, select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..i18n import figure, in_unit
from ..models import (Case, Correction as CorrectionRow, Event as EventRow, Player, Round, RoundTable, Sheet,
                      Tournament, counting_sheet, utcnow)
from ..rules import model as rules
from ..rules.corrections import KINDS, CorrectionError, audit_entry, correct_published_sheet
from ..rules.points import administrative_correction, sheet_hints, table_outcome, tied_winners
from ..rules.report import ReportError, standings_report
from ..rules.ruleset import RuleSet, get_ruleset
from ..rules.seating import Draw, DrawError, SeatedTable, draw
from ..rules.standings import card_disqualifications, collect_stats, field_status, standings
from . import rounds as round_service, rule_texts
from .rounds import publication
from .common import NotFoundError, ServiceError, StaleError, audit, bump, check_version
from .engine import (premium_games as engine_premium_games, points_json, rules_player, rules_table, rules_tournament,
                     score_text)



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


# --------------------------------------------------------------------------- the desk


@dataclass
class SheetPreview:
    """What the desk shows next to a table while the operator types."""

    values: list[str]
    sums: list[Decimal] | None = None
    error: str | None = None
    error_field: str | None = None
    total: Decimal | None = None
    expected: Decimal | None = None
    points: tuple | None = None  # per seat; None for a disqualified seat
    money: tuple | None = None  # per seat, as it counts (SEM-D1 adds 1 EUR per DQ)
    wrong_total: bool = False
    corrected: tuple[Decimal, ...] | None = None  # SEM-C5
    corrected_points: tuple | None = None
    negative: list[int] = field(default_factory=list)  # SEM-C8
    impossible: list[tuple[str, int, Decimal]] = field(default_factory=list)  # SEM-C11 (code, seat, sum)
    disqualified: list[int] = field(default_factory=list)
    early: bool = False
    running: Decimal | None = None  # the total of the sums typed so far, while one is still missing
    tied_winners: bool = False  # SEM-C5 interpretation: equal highest sums share the difference

    @property
    def complete(self) -> bool:
        return self.sums is not None


def table_dq(tab: RoundTable) -> tuple[list[int], bool]:
    """The table's disqualifications: from its sheet, else those noted before it came in."""
    sheet = tab.sheet
    if sheet is not None and sheet.disqualified:
        return list(sheet.disqualified), bool(sheet.early)
    pending = tab.pending_dq or {}
    return list(pending.get("players") or ()), bool(pending.get("early"))


def dq_case(tab: RoundTable, dq) -> str | None:
    """The SEM-D1 paragraph that applies to a table with these disqualifications."""
    if not dq:
        return None
    remaining = len(tab.players) - len(set(dq))
    if remaining == 0:
        return "D1a"
    if remaining == 1:
        return "D1b"
    return "D1c"


def _parse_one(value, i: int, rs: RuleSet | None = None) -> Decimal:
    try:
        return round_service.parse_sums([value], 1)[0]
    except ServiceError:
        raise ServiceError(not_a_result(rs, i), field=f"sum{i}") from None


def not_a_result(rs: RuleSet | None, i: int) -> str:
    """What a typed result at position i + 1 should have been, in the rule set's unit (CSM-2, TH-3, SMU-2)."""
    if rs is not None and rs.result_kind == "zb+pb":
        return _("ZB of position %(i)d is not a whole number.", i=i + 1)
    if rs is not None and rs.result_kind == "score":
        return _("The score of position %(i)d is not a whole number.", i=i + 1)
    if rs is not None and rs.currency == "Kč":
        return _("Sum %(i)d is not an amount in crowns.", i=i + 1)
    return _("Sum %(i)d is not an amount in euros and cents.", i=i + 1)


def parse_table_sums(rs: RuleSet, tab: RoundTable, values, dq, early: bool) -> list[Decimal]:
    """The three sums typed at the desk. With a disqualification some sums do not
    matter (SEM-D1: two or three disqualified, or one within the first three
    games) and may be left empty; an empty sum of a disqualified player makes
    the sheet total the table total when it can."""
    n = len(tab.players)
    values = [str(v or "").strip() for v in (list(values) + [""] * n)[:n]]
    case = dq_case(tab, dq)
    optional = set()
    if case is not None:
        optional = {i for i, s in enumerate(tab.players) if s in dq}
        if case in ("D1a", "D1b") or early:
            optional = set(range(n))
    sums: list[Decimal | None] = []
    for i, v in enumerate(values):
        if not v:
            if i not in optional:
                raise ServiceError(_("Enter the sum of position %(i)d.", i=i + 1), field=f"sum{i}")
            sums.append(None)
        else:
            sums.append(_parse_one(v, i, rs))
    blanks = [i for i, s in enumerate(sums) if s is None]
    for i in blanks:
        if tab.players[i] not in dq:
            sums[i] = rs.stake
    dq_blanks = [i for i in blanks if tab.players[i] in dq]
    expected = rs.expected_total(n)
    if len(dq_blanks) == 1 and expected is not None:
        i = dq_blanks[0]
        sums[i] = expected - sum(s for j, s in enumerate(sums) if j != i)
    for i in dq_blanks:
        if sums[i] is None:
            sums[i] = rs.stake
    return sums  # type: ignore[return-value]


PREMIUM_LINES = 4  # blank ČSM premium-game lines the desk offers (CSM-3)


def desk_extra(rs: RuleSet, tab: RoundTable, form, *, strict: bool = True) -> dict:
    """The rule set's own fields of a desk entry (RULES.md §2): ČSM's PB per player (`score0`…) and
    premium-game lines (`pg_start0`, `pg_game0`, `pg_pb0`, `pg_signed0` …, CSM-3); Thousand's ending
    (`ended`, TH-3; its scores are the sums). Keyword arguments for record_sheet; with `strict` an
    empty or wrong field raises ServiceError naming it, else what can be read is returned."""
    n = len(tab.players)
    out: dict = {}
    if frozen_table(rs, tab):
        return {"frozen": True, "ended": None}  # TH-5: the game stopped at the withdrawal
    if rs.result_kind == "score":
        ended = (form.get("ended") or "").strip()
        if ended not in ("win", "time"):
            if strict:
                raise ServiceError(_("Say how the game ended: a player reached %(win)s, or time ran out (TH-3).", win=figure(1000, None)),
                                   field="ended")
            ended = None
        out["ended"] = ended
    if rs.result_kind == "zb+pb":
        scores = []
        for i in range(n):
            v = str(form.get(f"score{i}", "") or "").strip()
            try:
                scores.append(int(v))
            except ValueError:
                if strict:
                    raise ServiceError(_("PB of position %(i)d: enter a whole number, 0 or more.", i=i + 1),
                                       field=f"score{i}") from None
                return out
        out["scores"] = scores
        games = []
        for k in range(PREMIUM_LINES):
            start, game = form.get(f"pg_start{k}", "").strip(), form.get(f"pg_game{k}", "").strip()
            pb, signed = form.get(f"pg_pb{k}", "").strip(), form.get(f"pg_signed{k}", "").strip()
            if not (start or game or pb):
                continue
            try:
                by = [int(x) for x in signed.replace(";", ",").replace(" ", ",").split(",") if x]
                games.append({"start_no": int(start), "game": game[:60], "pb": int(pb), "signed_by": by})
            except ValueError:
                if strict:
                    raise ServiceError(_("Premium game %(k)d: the start number, the PB and the signatures are "
                                         "whole numbers (CSM-3).", k=k + 1), field=f"pg{k}") from None
        out["premium_games"] = games
    out.update(table_facts(rs, tab, form, strict=strict))
    return out


def table_facts(rs: RuleSet, tab: RoundTable, form, *, strict: bool = True) -> dict:
    """What a table records besides its results: BB-1's late players (`late0`… check boxes by
    position) and CSM-3's scorekeeper chosen by lot (`keeper_lot`: a start number, empty when no lot)."""
    out: dict = {}
    if rs.late_fee is not None:
        out["late"] = [s for i, s in enumerate(tab.players) if form.get(f"late{i}")] or None
    if rs.keeper_by_lot:
        v = str(form.get("keeper_lot", "") or "").strip()
        keeper = int(v) if v.isdigit() else None
        if v and (keeper is None or keeper not in tab.players):
            if strict:
                raise ServiceError(_("The scorekeeper chosen by lot must be a player of table %(t)d (CSM-3).",
                                     t=tab.number), field="keeper_lot")
            keeper = None
        out["keeper_by_lot"] = keeper
    return out


def frozen_table(rs: RuleSet, tab: RoundTable) -> bool:
    """TH-5: a withdrawal during the round left a table of two, whose scores froze then."""
    n = len(tab.players)
    return n not in rs.table_sizes and rs.allows_sheet_size(n, {"frozen": True})


def extra_table(rs: RuleSet, tab: RoundTable, sums, extra: dict, dq=(), early=False) -> rules.TableResult:
    scores = extra.get("scores")
    if rs.result_kind == "score":
        scores = list(sums)
    return rules.TableResult(tab.number, tuple(tab.players), tuple(sums), disqualified=tuple(dq), early=early,
                             scores=tuple(Decimal(x) for x in scores) if scores is not None else None,
                             ended=extra.get("ended"), frozen=bool(extra.get("frozen")),
                             premium_games=engine_premium_games(extra.get("premium_games")),
                             late=tuple(extra.get("late") or ()), keeper_by_lot=extra.get("keeper_by_lot"))


def preview_sheet(t: Tournament, tab: RoundTable, values, early: bool | None = None, form=None) -> SheetPreview:
    rs = get_ruleset(t.ruleset)
    extra = desk_extra(rs, tab, form or {}, strict=False)
    dq, dq_early = table_dq(tab)
    early = dq_early if early is None else (early or dq_early)
    n = len(tab.players)
    shown = [str(v or "").strip() for v in (list(values) + [""] * n)[:n]]
    p = SheetPreview(values=shown, expected=rs.expected_total(n), disqualified=dq, early=bool(dq) and early)
    if not any(shown) and not (dq and (p.early or dq_case(tab, dq) != "D1c")):
        return p
    typed = []
    for i, v in enumerate(shown):
        if v:
            try:
                typed.append(_parse_one(v, i, rs))
            except ServiceError as e:
                p.error, p.error_field = str(e), e.field
                return p
    try:
        sums = parse_table_sums(rs, tab, shown, dq, p.early)
    except ServiceError:
        # still typing: a sum that is needed is empty
        p.running = sum(typed, Decimal(0))
        return p
    p.sums, p.total = sums, sum(sums, Decimal(0))
    table = extra_table(rs, tab, sums, extra, dq, p.early)
    outcome = table_outcome(rs, table)
    p.points, p.money = outcome.points, outcome.money
    if not dq and (rs.result_kind != "money") and (rs.result_kind != "zb+pb" or "scores" in extra):
        problem = rs.check_table(table)
        p.error = rule_texts.problem_text(problem) if problem else None
    if dq:
        return p
    for h in sheet_hints(rs, sums):
        if h.code == "total":
            p.wrong_total = True
        elif h.code == "negative":
            p.negative.append(h.position)
        else:
            p.impossible.append((h.code, h.position, sums[h.position]))
    if p.wrong_total:
        p.corrected = administrative_correction(rs, sums)
        p.corrected_points = rs.table_points(p.corrected)
        p.tied_winners = tied_winners(sums)
        # SEM-C11 also holds for the corrected sums (record_sheet refuses them too)
        seen = {pos for _c, pos, _s in p.impossible}
        for h in sheet_hints(rs, p.corrected):
            if h.rule == "SEM-C11" and h.position not in seen:
                p.impossible.append((h.code, h.position, p.corrected[h.position]))
    return p


def sheet_outcome(t: Tournament, tab: RoundTable):
    """Money and points of the table's counted sheet, as the engine computes them."""
    sheet = tab.sheet
    if sheet is None:
        return None
    return table_outcome(get_ruleset(t.ruleset), rules_table(tab.number, tab.players, sheet))


def check_sheet_version(tab: RoundTable, seen) -> None:
    """The desk's stale-edit guard is per table: other tables may be entered in
    parallel (a second operator, phones), only this table's sheet must be as shown."""
    current = tab.sheet.version if tab.sheet is not None else 0
    try:
        seen = int(seen)
    except (TypeError, ValueError):
        seen = -1
    if seen != current:
        raise StaleError(_("Table %(t)d changed since you opened the page. Nothing was saved: "
                           "check the table and enter it again.", t=tab.number))


class SheetCounts(ServiceError):
    """A desk entry for a table whose sheet already counts: never a replacement,
    only a correction the referee decides (SEM-C4). `sheet` is the counted one."""

    def __init__(self, message: str, sheet: Sheet):
        super().__init__(message)
        self.sheet = sheet


def source_label(sheet: Sheet) -> str:
    return {"phone": _("the table's phone"), "paper": _("the results desk"), "import": _("the imported file"),
            "correction": _("a correction (SEM-C10)")}.get(sheet.source, sheet.source)


def _counts_message(tab: RoundTable, sheet: Sheet) -> str:
    sums = " / ".join(f"{Decimal(x):.2f}" for x in sheet.sums)
    if sheet.receipt:
        return _("Table %(t)d already has a sheet that counts: version %(v)d from %(source)s, receipt "
                 "%(receipt)s, sums %(sums)s. Nothing was saved: a different entry is a correction the "
                 "referee decides.", t=tab.number, v=sheet.version, source=source_label(sheet),
                 receipt=sheet.receipt, sums=sums)
    return _("Table %(t)d already has a sheet that counts: version %(v)d from %(source)s (%(who)s), sums "
             "%(sums)s. Nothing was saved: a different entry is a correction the referee decides.",
             t=tab.number, v=sheet.version, source=source_label(sheet), who=sheet.created_by or "?", sums=sums)


def record_desk_sheet(t: Tournament, tab: RoundTable, values, actor: str, *, sheet_version,
                      correct_total: bool = False, note: str = "", early: bool = False, form=None) -> Sheet:
    """A paper sheet typed at the desk (SEM-B5): SEM-C5 needs the operator's
    explicit correction, a negative sum needs the last-game note (SEM-C8), and
    disqualifications noted earlier are recorded with the sheet (SEM-D1).
    Only a table without a counted sheet: anything else is refused (SheetCounts)
    and can only be proposed to the referee (propose_desk_correction)."""
    r = tab.round
    if r.status != "published":
        raise ServiceError(_("Round %(n)d is not open for results.", n=r.number))
    if tab.sheet is not None:
        raise SheetCounts(_counts_message(tab, tab.sheet), tab.sheet)
    check_sheet_version(tab, sheet_version)
    sums, dq, early, note = _desk_entry(t, tab, values, note, early)
    rs = get_ruleset(t.ruleset)
    extra = desk_extra(rs, tab, form or {})
    if rs.result_kind == "score":
        extra["scores"] = sums
    sheet = round_service.record_sheet(
        t, tab, sums, actor, source="paper", correct_total=correct_total, disqualified=dq, early=early,
        note=note, **extra)
    tab.pending_dq = None
    return sheet


def _desk_entry(t: Tournament, tab: RoundTable, values, note: str, early: bool):
    rs = get_ruleset(t.ruleset)
    dq, dq_early = table_dq(tab)
    early = bool(dq) and (early or dq_early)
    sums = parse_table_sums(rs, tab, values, dq, early)
    note = (note or "").strip()
    if not dq and rs.negative_sum_note and any(s < 0 for s in sums) and not note:
        raise ServiceError(_("A negative sum needs the note of the last game (SEM-C8): "
                             "its type and payment, as written on the back of the sheet."), field="note")
    return sums, dq, early, note


def open_correction(tab: RoundTable, kinds=("correction",)):
    """The open case that proposes a new version of this table's sheet, if any."""
    r = tab.round
    return db.session.scalar(select(Case).where(
        Case.tournament_id == r.tournament_id, Case.round == r.number, Case.table == tab.number,
        Case.status == "open", Case.kind.in_(kinds)).order_by(Case.id.desc()).limit(1))


def open_corrections(r: Round) -> dict[int, Case]:
    """Table number → the open SEM-C4 correction of round r, in one query."""
    rows = db.session.scalars(select(Case).where(
        Case.tournament_id == r.tournament_id, Case.round == r.number, Case.status == "open",
        Case.kind == "correction").order_by(Case.id))
    return {c.table: c for c in rows}


def propose_desk_correction(t: Tournament, tab: RoundTable, values, actor: str, *, base_version,
                            correct_total: bool = False, note: str = "", early: bool = False,
                            reason: str = "", form=None):
    """SEM-C4 from the desk: sums typed for a table whose sheet counts become a
    pending version that names the counted one (`base_version`) and a case the
    referee approves or rejects; until then the counted sheet keeps counting.
    A proposal made against an older version is refused, saying what counts now.
    The rule set's own fields (ČSM PB and premium lines, Thousand's ending, from
    `form` as at the desk) go with the proposal and are checked by the rule set."""
    r = tab.round
    if r.status != "published":
        raise ServiceError(_("Round %(n)d is not open for results: a change now is a correction after "
                             "publication (SEM-C10).", n=r.number))
    current = tab.sheet
    if current is None:
        raise StaleError(_("Table %(t)d has no sheet that counts any more: nothing was sent. Enter the sheet "
                           "at the desk.", t=tab.number))
    try:
        seen = int(base_version)
    except (TypeError, ValueError):
        seen = -1
    if seen != current.version:
        raise SheetCounts(_("Table %(t)d changed since you typed these sums: they were for version %(old)d, "
                            "the sheet that counts is now version %(v)d from %(source)s, sums %(sums)s. "
                            "Nothing was sent to the referee: compare and send again if it is still wrong.",
                            t=tab.number, old=max(seen, 0), v=current.version, source=source_label(current),
                            sums=" / ".join(f"{Decimal(x):.2f}" for x in current.sums)), current)
    waiting = open_correction(tab)
    if waiting is not None:
        raise ServiceError(_("A correction of table %(t)d is already waiting for the referee (case %(id)d). "
                             "Nothing was sent: wait for the decision.", t=tab.number, id=waiting.id))
    reason = (reason or "").strip()[:500]
    if not reason:
        raise ServiceError(_("Say why the sheet that counts is wrong: the referee reads it."), field="reason")
    sums, dq, early, note = _desk_entry(t, tab, values, note, early)
    rs = get_ruleset(t.ruleset)
    extra = desk_extra(rs, tab, form or {})
    if rs.result_kind == "score":
        extra["scores"] = sums
    if not dq:
        problem = rs.check_table(extra_table(rs, tab, sums, extra, dq, early))
        if problem:
            raise ServiceError(rule_texts.table_problem_text(tab.number, problem))
    fields = {"scores": [score_text(v) for v in extra["scores"]] if extra.get("scores") is not None
              else None, "ended": extra.get("ended"), "premium_games": extra.get("premium_games") or None,
              "frozen": True if extra.get("frozen") else None, "late": extra.get("late") or None,
              "keeper_by_lot": extra.get("keeper_by_lot")}
    entered = None
    if not dq:
        sums, entered = round_service.counted_sums(rs, tab, sums, correct_total)
    new_sums = [f"{s:.2f}" for s in sums]
    same_fields = all(fields[k] == (getattr(current, k) or None) for k in fields)
    if new_sums == list(current.sums) and dq == list(current.disqualified or ()) and same_fields:
        raise ServiceError(_("These are the sums that count already: there is nothing to correct."), field="sum0")
    sheet = Sheet(table=tab, version=max(s.version for s in tab.sheets) + 1, status="pending",
                  sums=new_sums, entered_sums=entered, disqualified=dq, early=early, source="paper",
                  note=note, created_by=actor, base_version=current.version, **fields)
    db.session.add(sheet)
    db.session.flush()
    case = Case(tournament_id=t.id, round=r.number, table=tab.number, kind="correction", status="open",
                sheet_id=sheet.id, other_sheet_id=current.id, created_by=actor,
                payload={"source": "desk", "reason": reason, "version": sheet.version,
                         "base_version": current.version, "old_sums": list(current.sums), "sums": new_sums,
                         "entered": entered, "note": note,
                         **{k: v for k, v in fields.items() if v is not None},
                         **{f"old_{k}": getattr(current, k) for k in fields if getattr(current, k) is not None}})
    db.session.add(case)
    db.session.flush()
    bump(t)
    audit("sheet.desk_correction", actor, {
        "round": r.number, "table": tab.number, "case": case.id, "version": sheet.version,
        "base_version": current.version, "old_sums": list(current.sums), "new_sums": new_sums,
        "entered": entered, "disqualified": dq, "reason": reason, "note": note}, t.id)
    return case


# --------------------------------------------------------------------------- standings


@dataclass
class RoundCell:
    round: int
    table: int | None
    sum: Decimal | None
    points: Fraction | None
    corrected: str | None = None  # "C10" (published correction) | "C5" (wrong total) | "C4" (referee) | None
    disqualified: bool = False
    old_sum: Decimal | None = None  # SEM-C4: the sum before the referee-approved correction
    values: dict | None = None  # the rule set's own parts of the result (RuleSet.round_results)


def c4_replaced(tab: RoundTable) -> Sheet | None:
    """The accepted version that the table's counted sheet replaced through a
    referee-approved correction before hand-in (SEM-C4), else None. Such a
    sheet names the version it corrects (`base_version`); the sync service
    stores it only on the referee's approval."""
    sheet = tab.sheet
    if sheet is None or not sheet.base_version:
        return None
    return next((s for s in tab.sheets if s.version == sheet.base_version and s.status == "superseded"), None)


def c4_old_by_seat(tab: RoundTable) -> list[Decimal | None] | None:
    """Per seat, the sum before an SEM-C4 correction changed it (None where it did
    not change); None when the counted sheet is no such correction."""
    prev = c4_replaced(tab)
    if prev is None:
        return None
    return [Decimal(before) if Decimal(before) != Decimal(after) else None
            for before, after in zip(prev.sums, tab.sheet.sums)]


def c4_old_sums(t: Tournament) -> dict[tuple[int, int], Decimal]:
    """(round, start no) → the sum before an SEM-C4 correction changed it."""
    old: dict[tuple[int, int], Decimal] = {}
    for r in t.rounds:
        for tab in r.tables:
            for s, before in zip(tab.players, c4_old_by_seat(tab) or ()):
                if before is not None:
                    old[(r.number, s)] = before
    return old


def correction_marks(t: Tournament) -> dict[tuple[int, int], str]:
    """(round, start no) whose values were corrected: SEM-C10 corrections (old ≠ new),
    SEM-C5 administrative corrections (entered ≠ counted sum) and SEM-C4
    corrections the referee approved before hand-in (old ≠ new version)."""
    marks: dict[tuple[int, int], str] = {}
    for r in t.rounds:
        for tab in r.tables:
            sheet = tab.sheet
            if sheet is not None and sheet.entered_sums:
                for s, entered, counted in zip(tab.players, sheet.entered_sums, sheet.sums):
                    if Decimal(entered) != Decimal(counted):
                        marks[(r.number, s)] = "C5"
    for key in c4_old_sums(t):
        marks[key] = "C4"
    for c in t.corrections:
        rec = c.record or {}
        old, new = rec.get("old") or {}, rec.get("new") or {}
        for s, values in new.items():
            if old.get(s) != values:
                marks[(int(rec.get("round", 0)), int(s))] = "C10"
    return marks


def table_numbers(t: Tournament) -> dict[tuple[int, int], int]:
    return {(r.number, s): tab.number for r in t.rounds for tab in r.tables for s in tab.players}


def _cut_info(t: Tournament, rt: rules.Tournament, rs: RuleSet, k: int, final: bool) -> dict | None:
    """Who advances from round k into the cut round k+1 (SEM-B9..B11): the
    stored draw when round k+1 is drawn, otherwise the engine's draw as a preview."""
    n = k + 1
    if final or n > rs.rounds or rs.round_kind(n) != "cut":
        return None
    stored = next((r for r in t.rounds if r.number == n), None)
    if stored is not None and stored.advancing is not None:
        return {"round": n, "advancing": list(stored.advancing), "eliminated": list(stored.eliminated or ()),
                "preview": False, "threshold": rs.cuts.get(n), "error": None}
    try:
        d = draw(rt if k >= rt.last_round else replace(rt, rounds=rt.rounds_upto(k)), n, rs)
    except DrawError as e:
        return {"round": n, "advancing": [], "eliminated": [], "preview": True, "threshold": rs.cuts.get(n),
                "error": str(e)}
    return {"round": n, "advancing": list(d.advancing or ()), "eliminated": list(d.eliminated or ()),
            "preview": True, "threshold": rs.cuts.get(n), "error": None}


def standings_page(t: Tournament, after: int | None = None) -> dict:
    """Everything the standings pages show after round `after` (default: the last
    closed round), computed by the same engine function as `listok standings`."""
    rs = get_ruleset(t.ruleset)
    k_max = last_closed(t)
    if k_max == 0:
        raise ServiceError(_("No round is closed yet: there are no standings."))
    k = k_max if after is None else after
    rt = rules_tournament(t, closed_only=True)
    try:
        report = standings_report(rt, after_round=k)
    except ReportError:
        raise ServiceError(_("There are no standings after round %(n)d.", n=k)) from None
    stats = collect_stats(rs, rt, k)
    tables = table_numbers(t)
    marks = correction_marks(t)
    c4_old = c4_old_sums(t)
    status = field_status(rt, k)
    floor = min(k, rs.qualification_rounds)
    rows = []
    prev_stage = None
    for row in report["standings"]:
        s = row["start_no"]
        st = stats.get(s)
        cells = {}
        if st is not None:
            for rnd, m, pts in zip(st.rounds, st.sums, st.round_points):
                cells[rnd] = RoundCell(rnd, tables.get((rnd, s)), m, pts, marks.get((rnd, s)),
                                       old_sum=c4_old.get((rnd, s)) if marks.get((rnd, s)) == "C4" else None)
        if st is not None:  # a rule set's own report rows (ČSM, Thousand) get the shared columns too
            row = {"points": st.points, "money": st.money, "last_round": st.last_round,
                   "records": {str(p): st.records.get(p, 0) for p in rs.record_points},
                   "tournament_points": None, **row}
        stage = max(row["last_round"], floor)
        rows.append({**row, "stage": stage, "new_stage": stage != prev_stage,
                     "cells": [cells.get(n) for n in range(1, k + 1)],
                     "withdrawn": s in status.withdrawn})
        prev_stage = stage
    cut = _cut_info(t, rt, rs, k, report["final"])
    if cut is not None:
        adv, elim = set(cut["advancing"]), set(cut["eliminated"])
        last_adv = max((i for i, row in enumerate(rows) if row["start_no"] in adv), default=None)
        for i, row in enumerate(rows):
            row["cut"] = "advances" if row["start_no"] in adv else "eliminated" if row["start_no"] in elim else None
            row["cut_line"] = last_adv is not None and i == last_adv + 1 and bool(elim)
    names = {p.start_no: p.name for p in t.players}
    clubs = report.get("clubs")
    if clubs:
        for c in clubs:
            c["counted_players"] = [(s, names.get(s, "")) for s in c["counted"]]
    r = next((x for x in t.rounds if x.number == k), None)
    return {
        "card_dq": card_dq_tables(rt, k),
        "after": k, "last_closed": k_max, "rounds": list(range(1, k + 1)), "final": report["final"],
        "rows": rows, "clubs": clubs, "cut": cut, "publication": publication(r, rs=rs),
        "qualification_rounds": rs.qualification_rounds, "ruleset": rs,
        "any_tie": any(row["tie"] for row in rows),
        "must_nominate": _must_nominate(t, rt) if clubs else [],
        "unranked": sorted(set(status.disqualified) | set(status.unranked_substitutes)),
        "disqualified": sorted(status.disqualified), "unranked_substitutes": sorted(status.unranked_substitutes),
    }


def card_dq_tables(rt: rules.Tournament, upto: int) -> list[dict]:
    """The tables where a card that disqualifies (SEM-E6, E8) disqualified the player
    (SEM-D1), for the standings footnote: round, table, start number, the D1 case."""
    cards = card_disqualifications(rt)
    out = []
    for rnd in rt.rounds_upto(upto):
        for tr in rnd.tables:
            for s in tr.disqualified:
                if cards.get(s) == rnd.number:
                    remaining = len(tr.players) - len(tr.disqualified)
                    out.append({"round": rnd.number, "table": tr.table, "start_no": s,
                                "rule": "D1a" if remaining == 0 else "D1b" if remaining == 1 else "D1c"})
    return out


def _must_nominate(t: Tournament, rt: rules.Tournament) -> list[str]:
    """SEM-B3a: the clubs whose duty to nominate was fixed at round 1."""
    from ..rules.season import NOMINATE_ABOVE, nomination_duty

    return sorted(c for c, k in nomination_duty(rt).items() if k > NOMINATE_ABOVE)


def public_standings_round(t: Tournament) -> int | None:
    """The last closed round whose standings the public sees: from the rule set's
    `public_from_round` on (SEM-C9: round 2), the same for every public page."""
    k = last_closed(t)
    return k if k >= public_from_round(t) else None


def public_from_round(t: Tournament) -> int:
    return get_ruleset(t.ruleset).public_from_round


# --------------------------------------------------------------------------- the player page


@dataclass(frozen=True)
class ClosedRounds:
    """What every player's page reads of the closed rounds: the same for all of them
    as long as the public version is (the running round's phone sheets leave it)."""

    after: int
    status: object  # rules.standings.FieldStatus
    stats: dict
    rankings: dict  # after round n (from the rule set's public_from_round on): {start no: its standings row}
    sizes: dict  # after round n: how many are ranked


def closed_rounds(t: Tournament) -> ClosedRounds:
    rs = get_ruleset(t.ruleset)
    k = last_closed(t)
    rt = rules_tournament(t, closed_only=True)
    rankings, sizes = {}, {}
    if k >= rs.public_from_round:
        for n in range(1, k + 1):
            ranking = standings(rt, n, rs)
            rankings[n] = {s.player.start_no: s for s in ranking}
            sizes[n] = len(ranking)
    return ClosedRounds(k, field_status(rt, k), collect_stats(rs, rt, k), rankings, sizes)


def player_page(t: Tournament, start_no: int, closed: ClosedRounds | None = None) -> dict:
    """`closed`: closed_rounds(t), which every player's page of this public version shares."""
    p = next((x for x in t.players if x.start_no == start_no), None)
    if p is None:
        raise NotFoundError(f"start number {start_no}")
    rs = get_ruleset(t.ruleset)
    closed = closed or closed_rounds(t)
    k, status = closed.after, closed.status
    marks = correction_marks(t)
    c4_old = c4_old_sums(t)

    # where they play now or next: the newest published round that seats them
    seat = None
    latest = t.rounds[-1] if t.rounds else None
    for r in reversed(t.rounds):
        if r.status == "draft":
            continue
        found = round_service.seat_of(r, start_no)
        if found is not None and r.status == "published":
            tab, i = found
            seat = {"round": r.number, "table": tab.number, "position": i + 1,
                    "players": [x for x in tab.players], "cards": rs.cards_position(r.number),
                    "sheet_in": tab.sheet is not None}
        break

    results = []
    stats = closed.stats.get(start_no)
    by_round = rs.round_results(stats) if stats is not None else {}
    for r in t.rounds:
        if r.status != "closed":
            continue
        found = round_service.seat_of(r, start_no)
        if found is None:
            continue
        tab, i = found
        values = by_round.get(r.number, {})
        dq = start_no in (tab.sheet.disqualified if tab.sheet is not None else ())
        mark = marks.get((r.number, start_no))
        results.append(RoundCell(r.number, tab.number, values.get("sum"), values.get(rs.points_field), mark, dq,
                                 old_sum=c4_old.get((r.number, start_no)) if mark == "C4" else None,
                                 values=values))

    place = None
    history: list[tuple[int, int]] = []
    total = None
    field_size = 0
    visible = k >= rs.public_from_round
    if visible:
        for n in range(1, k + 1):
            field_size = closed.sizes[n]
            s = closed.rankings[n].get(start_no)
            if s is not None:
                history.append((n, s.place))
                if n == k:
                    place, total = s.place, s
    cut_out = next((r.number for r in t.rounds if r.status != "draft" and start_no in (r.eliminated or ())), None)
    players = {x.start_no: x for x in t.players}
    return {
        "player": p, "seat": seat, "results": results, "place": place, "history": history,
        "points": total.stats.points if total else (stats.points if stats else None),
        "money": total.stats.money if total else (stats.money if stats else None),
        "totals": rs.total_results(total.stats if total else stats) if (total or stats) else None,
        "ruleset": rs,
        "visible": visible, "after": k, "field_size": field_size, "players": players,
        "disqualified": start_no in status.disqualified, "withdrawn": status.withdrawn.get(start_no),
        "unranked_substitute": start_no in status.unranked_substitutes,
        "finished": t.status == "finished", "latest": latest, "eliminated_before": cut_out,
        "chart": place_chart(history, max(field_size, 1)) if len(history) >= 1 else None,
    }


def place_chart(history: list[tuple[int, int]], field_size: int, width: int = 320, height: int = 140) -> dict:
    """Coordinates of the place-after-each-round chart (server-rendered SVG):
    place 1 at the top, the last place at the bottom."""
    pad_l, pad_r, pad_t, pad_b = 36, 16, 14, 24
    rounds = [n for n, _ in history]
    first, last = (min(rounds), max(rounds)) if rounds else (1, 1)
    span = max(last - first, 1)
    inner_w, inner_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(n):
        return round(pad_l + (n - first) * inner_w / span, 1) if last > first else pad_l + inner_w / 2

    def y(place):
        return round(pad_t + (place - 1) * inner_h / max(field_size - 1, 1), 1)

    points = [{"round": n, "place": pl, "x": x(n), "y": y(pl)} for n, pl in history]
    return {"width": width, "height": height, "points": points,
            "polyline": " ".join(f"{pt['x']},{pt['y']}" for pt in points),
            "top": y(1), "bottom": y(field_size), "left": pad_l, "right": width - pad_r,
            "field_size": field_size, "baseline": height - 6}


# --------------------------------------------------------------------------- SEM-C10 corrections


@dataclass
class CorrectionPreview:
    round: Round
    table: RoundTable
    correction: object  # rules.corrections.Correction
    next_round: Round | None
    seat_changes: list[dict]  # per changed table of the next round: number, before, after
    advancing_changes: list[tuple[int, str]]  # (start no, "gains a seat" | "loses the seat")
    warnings: list[str]
    players: dict


def _stored_draw(r: Round) -> Draw:
    return Draw(r.number, tuple(SeatedTable(tab.number, tuple(tab.players), tuple(tab.flags or ()))
                                for tab in r.tables),
                tuple(r.advancing) if r.advancing is not None else None,
                tuple(r.eliminated) if r.eliminated is not None else None)


def no_published_corrections(t: Tournament) -> str | None:
    """Why this tournament has no SEM-C10 corrections (its rule set has no such rule), or None."""
    if get_ruleset(t.ruleset).published_corrections:
        return None
    return _("These rules have no correction after publication (SEM-C10 is a rule of SEM): the sheets of a "
             "closed round count as signed. A wrong sheet is corrected before its round is closed: at the "
             "results desk, through the referee.")


def preview_correction(t: Tournament, round_no, table_no, values, kind: str) -> CorrectionPreview:
    rs = get_ruleset(t.ruleset)
    refusal = no_published_corrections(t)
    if refusal:
        raise ServiceError(refusal)
    try:
        round_no, table_no = int(round_no), int(table_no)
    except (TypeError, ValueError):
        raise ServiceError(_("Choose a round and a table."), field="table") from None
    r = next((x for x in t.rounds if x.number == round_no), None)
    if r is None or r.status != "closed":
        raise ServiceError(_("Round %(n)d is not closed: enter or edit its sheets at the results desk.",
                             n=round_no), field="round")
    tab = next((x for x in r.tables if x.number == table_no), None)
    if tab is None:
        raise ServiceError(_("Round %(r)d has no table %(t)d.", r=round_no, t=table_no), field="table")
    if kind not in KINDS:
        raise ServiceError(_("Choose the kind of correction."), field="kind")
    n = len(tab.players)
    values = (list(values) + [""] * n)[:n]
    rt = rules_tournament(t, closed_only=True)
    recorded = next(x for x in next(x for x in rt.rounds if x.number == round_no).tables if x.table == table_no)
    sums = []
    for i, v in enumerate(values):
        if not str(v or "").strip():
            if tab.players[i] in recorded.disqualified:
                # SEM-D1: a disqualified player's sum counts for nobody; keep it as recorded
                sums.append(recorded.sums[i])
                continue
            raise ServiceError(_("Enter the sum of position %(i)d.", i=i + 1), field=f"sum{i}")
        sums.append(_parse_one(v, i, rs))
    expected = rs.expected_total(n)
    # with a disqualification the sums are those at that moment (SEM-D1c): no table total
    if expected is not None and sum(sums) != expected and not recorded.disqualified:
        raise ServiceError(_("The real sums total %(total)s, the table total must be %(exp)s.",
                             total=in_unit(sum(sums), rs.currency), exp=in_unit(expected, rs.currency)),
                           field="total")
    if tuple(sums) == tuple(recorded.sums) and recorded.points is None:
        raise ServiceError(_("These are the recorded sums: there is nothing to correct."), field="sum0")
    nxt = next((x for x in t.rounds if x.number == round_no + 1), None)
    next_draw = _stored_draw(nxt) if nxt is not None and nxt.status in ("draft", "published") else None
    clubs = {p.start_no: rules_player(p).club_key for p in t.players}
    try:
        c = correct_published_sheet(rs, round_no, recorded, sums, kind, next_draw, clubs)
    except CorrectionError as e:
        raise ServiceError(rule_texts.engine_text(e)) from e

    seat_changes, adv_changes, warnings = [], [], []
    if c.swapped_draw is not None and next_draw is not None:
        for old, new in zip(next_draw.tables, c.swapped_draw.tables):
            if old.players != new.players:
                seat_changes.append({"table": old.table, "before": list(old.players), "after": list(new.players),
                                     "same_club": "same-club" in new.flags and "same-club" not in old.flags})
        if next_draw.advancing is not None:
            before, after = set(next_draw.advancing), set(c.swapped_draw.advancing or ())
            adv_changes = [(s, "gains") for s in sorted(after - before)] + \
                          [(s, "loses") for s in sorted(before - after)]
        busy = [x["table"] for x in seat_changes
                if any(tb.sheets for tb in nxt.tables if tb.number == x["table"])]
        if busy:
            raise ServiceError(_("Round %(n)d already has sheets at tables %(tables)s: the draw can no longer "
                                 "be changed by this correction.", n=nxt.number,
                                 tables=", ".join(str(b) for b in busy)))
    elif nxt is not None and nxt.status == "closed":
        warnings.append(_("Round %(n)d is already played: its draw was made from the recorded values.",
                          n=nxt.number))
    pub = publication(r)
    if pub is not None and not pub.get("open"):
        warnings.append(_("The 10 minutes for reporting a discrepancy after the standings of round %(n)d "
                          "were published have passed (SEM-C9).", n=round_no))
    players = {p.start_no: p for p in t.players}
    return CorrectionPreview(r, tab, c, nxt, seat_changes, adv_changes, warnings, players)


def consequences(pv: CorrectionPreview) -> dict:
    """What a SEM-C10 correction changes besides the sheet, as stored with its
    proposal: approving it later must change exactly this."""
    c = pv.correction
    return {"seat_changes": [{"table": x["table"], "before": x["before"], "after": x["after"]}
                             for x in pv.seat_changes],
            "advancing_changes": [[s, what] for s, what in pv.advancing_changes],
            "sums": [f"{x:.2f}" for x in c.table.sums], "points": points_json(c.table.points),
            "harmed": list(c.harmed), "advantaged": list(c.advantaged), "fee": f"{c.fee:.2f}"}


def propose_correction(t: Tournament, round_no, table_no, values, kind: str, asked_by: str, actor: str,
                       version) -> Case:
    """SEM-C10 from the operator's desk: a proposal (a case of kind "c10") with the
    real sums and what the preview says they change. Nothing changes until a
    referee approves it (approve_c10)."""
    check_version(t, version)
    asked_by = (asked_by or "").strip()[:200]
    if not asked_by:
        raise ServiceError(_("Say who asked for the correction."), field="asked_by")
    pv = preview_correction(t, round_no, table_no, values, kind)
    r, tab = pv.round, pv.table
    waiting = open_correction(tab, ("c10",))
    if waiting is not None:
        raise ServiceError(_("A correction of round %(r)d, table %(t)d is already waiting for the referee "
                             "(case %(id)d). Nothing was sent: wait for the decision.",
                             r=r.number, t=tab.number, id=waiting.id))
    values = (list(values) + [""] * 3)[:len(tab.players)]
    # SEM-D1: a disqualified player's sum may be left empty, it stays as recorded (preview_correction)
    values = [v if str(v or "").strip() or s not in (tab.sheet.disqualified or ()) else tab.sheet.sums[i]
              for i, (v, s) in enumerate(zip(values, tab.players))]
    typed = [f"{x:.2f}" for x in round_service.parse_sums(values, len(tab.players))]
    payload = {"kind": kind, "asked_by": asked_by, "real_sums": typed, "base_version": tab.sheet.version,
               "old_sums": list(tab.sheet.sums), "old_points": tab.sheet.points,
               "consequences": consequences(pv), "warnings": [str(w) for w in pv.warnings]}
    # no sheet_id: the counted sheet is not waiting for anything, the proposal is the payload
    case = Case(tournament_id=t.id, round=r.number, table=tab.number, kind="c10", status="open",
                created_by=actor, payload=payload)
    db.session.add(case)
    db.session.flush()
    bump(t)
    audit("sheet.correction_proposed", actor, {"case": case.id, "round": r.number, "table": tab.number,
                                               **payload}, t.id)
    return case


def c10_proposals(t: Tournament) -> list[Case]:
    """SEM-C10 proposals of the tournament waiting for a referee, oldest first."""
    return list(db.session.scalars(select(Case).where(Case.tournament_id == t.id, Case.kind == "c10",
                                                      Case.status == "open").order_by(Case.id)))


def case_table(c: Case, t: Tournament) -> tuple[Round | None, RoundTable | None, Sheet | None]:
    """The round, table and counted sheet a referee case is about (None where they are gone)."""
    r = next((x for x in t.rounds if x.number == c.round), None)
    tab = next((x for x in r.tables if x.number == c.table), None) if r is not None else None
    return r, tab, tab.sheet if tab is not None else None


def c10_preview(c: Case, t: Tournament) -> CorrectionPreview:
    """The proposal of case c as the correction would be applied now; refused
    (ServiceError, saying what changed) when the table's counted sheet or the
    correction's consequences differ from what was proposed."""
    p = c.payload or {}
    _r, _tab, current = case_table(c, t)
    if current is None or current.version != p.get("base_version"):
        raise StaleError(_("The sheet of round %(r)d, table %(t)d changed since this correction was proposed "
                           "(it corrects version %(v)d, version %(cur)d counts now). Reject it: the operator "
                           "proposes it again.", r=c.round, t=c.table or 0, v=p.get("base_version") or 0,
                           cur=current.version if current else 0))
    pv = preview_correction(t, c.round, c.table, p.get("real_sums") or (), p.get("kind"))
    if consequences(pv) != p.get("consequences"):
        raise StaleError(_("What this correction changes is no longer what was proposed (the draw or the "
                           "results changed meanwhile). Reject it: the operator proposes it again."))
    return pv


def approve_c10(c: Case, t: Tournament, approved_by: str) -> CorrectionRow:
    """A referee approves a SEM-C10 proposal: it is applied as proposed."""
    p = c.payload or {}
    pv = c10_preview(c, t)
    return _apply_c10(t, pv, p.get("kind"), p.get("asked_by") or "", approved_by, approved_by, case=c.id,
                      proposed_by=c.created_by)


def _apply_c10(t: Tournament, pv: CorrectionPreview, kind: str, asked_by: str, approved_by: str, actor: str,
               **extra) -> CorrectionRow:
    """SEM-C10 once a referee approved it: a new accepted sheet version (source
    "correction"), the swapped seats of a published cut-round draw, the
    `corrections[]` record and an audit entry with old and new values."""
    c, tab = pv.correction, pv.table
    old = tab.sheet
    old.status = "superseded"
    sheet = Sheet(table=tab, version=max(s.version for s in tab.sheets) + 1, status="accepted",
                  sums=[f"{s:.2f}" for s in c.table.sums],
                  points=points_json(c.table.points), disqualified=list(c.table.disqualified),
                  early=bool(c.table.early), source="correction", note=f"SEM-C10 {kind}", created_by=actor)
    db.session.add(sheet)
    swapped = []
    if pv.seat_changes or pv.advancing_changes:
        nxt = pv.next_round
        by_no = {x.table: x for x in c.swapped_draw.tables}
        for ntab in nxt.tables:
            new = by_no[ntab.number]
            if list(ntab.players) != list(new.players):
                swapped.append({"table": ntab.number, "before": list(ntab.players), "after": list(new.players)})
                ntab.players = list(new.players)
                ntab.flags = list(new.flags)
        if c.swapped_draw.advancing is not None:
            nxt.advancing = list(c.swapped_draw.advancing)
            nxt.eliminated = list(c.swapped_draw.eliminated or ())
    record = audit_entry(c, asked_by, approved_by, utcnow().isoformat(timespec="seconds") + "Z")
    row = CorrectionRow(tournament=t, record=record, created_by=actor)
    db.session.add(row)
    bump(t)
    db.session.flush()
    audit("sheet.correction", actor, {**record, **extra, "sheet_version": sheet.version,
                                      "old_version": old.version, "old_sums": old.sums, "old_points": old.points,
                                      "new_sums": sheet.sums, "new_points": sheet.points,
                                      "draw_swapped": swapped}, t.id)
    return row


# --------------------------------------------------------------------------- TH-4: the recorded lot


def tie_groups(t: Tournament, after: int) -> list[dict]:
    """Players equal on every ranking key after round `after`, where the rule set settles
    such ties by a recorded lot (TH-4): [{"players": [(start_no, name), …], "by": "lot" |
    "start number"}], in standings order. Empty for other rule sets."""
    rs = get_ruleset(t.ruleset)
    if not rs.lot_ties:
        return []
    rows = standings(rules_tournament(t, closed_only=True), after, rs)
    groups = []
    for i, j in rs.equal_runs(rows):
        group = rows[i:j + 1]
        groups.append({"players": [(r.player.start_no, r.player.name) for r in group],
                       "places": (group[0].place, group[-1].place),
                       "by": "lot" if all(r.tie == "lot" for r in group) else "start number"})
    return groups


def record_lot(t: Tournament, after, order_text: str, actor: str, version) -> EventRow:
    """TH-4: the order a lot drawn by the judge put tied players in, best first, as a `lot`
    event of the tournament file. It must name exactly the players of one tie after round `after`."""
    check_version(t, version)
    rs = get_ruleset(t.ruleset)
    if not rs.lot_ties:
        raise ServiceError(_("Under these rules a tie is not decided by a lot."))
    try:
        k = int(after)
    except (TypeError, ValueError):
        k = -1
    if not 1 <= k <= last_closed(t):
        raise ServiceError(_("There are no standings after round %(n)d.", n=max(k, 0)))
    try:
        order = [int(x) for x in str(order_text or "").replace(",", " ").replace(";", " ").split()]
    except ValueError:
        raise ServiceError(_("Write the start numbers in the order the lot gave, best first, separated by "
                             "spaces or commas."), field="order") from None
    groups = [{s for s, _name in g["players"]} for g in tie_groups(t, k)]
    if len(set(order)) != len(order) or set(order) not in groups:
        raise ServiceError(_("The lot orders the players of one tie, each once: %(groups)s.",
                             groups="; ".join(", ".join(str(s) for s in sorted(g)) for g in groups)
                             or _("there is no tie")), field="order")
    ev = EventRow(tournament=t, type="lot", start_no=0, round=k, order=order, created_by=actor)
    db.session.add(ev)
    bump(t)
    db.session.flush()
    audit("standings.lot", actor, {"after_round": k, "order": order, "rule": "TH-4"}, t.id)
    return ev


# --------------------------------------------------------------------------- the final report

# a rule set's result columns (EXCHANGE.md "Rule sets other than SEM"): key in its standings
# report, label, and how the value is written
REPORT_COLUMNS = {
    "money": (("points", "points"), ("money", "money")),
    "zb+pb": (("bp", "int"), ("sb", "int"), ("zb", "int"), ("pb", "int")),
    "score": (("points", "points"), ("score", "int"), ("final_score", "int")),
}


def report_labels() -> dict[str, str]:
    return {"points": _("Points"), "money": _("Money"), "bp": _("BP"), "sb": _("SB"), "zb": _("ZB"),
            "pb": _("PB"), "score": _("Score"), "final_score": _("Final score")}


def final_report(t: Tournament) -> dict:
    """The final results as the rule set reports them (`standings_report`, the same answer as
    `listok standings`): its own columns by `result_kind`, money in its `currency`, SEM-A3
    tournament points and the SEM-B3 clubs where the report has them, and a final at one
    table (TH-2) as its own block of places."""
    rs = get_ruleset(t.ruleset)
    k = last_closed(t)
    if k == 0:
        raise ServiceError(_("No round is closed yet: there are no standings."))
    rt = rules_tournament(t, closed_only=True)
    report = standings_report(rt, after_round=k)
    labels = report_labels()
    columns = [{"key": key, "label": labels[key], "format": fmt} for key, fmt in REPORT_COLUMNS[rs.result_kind]]
    rows = report["standings"]
    with_tp = bool(rows) and rows[0].get("tournament_points") is not None
    finalists = [r for r in rows if r.get("final_score") is not None]
    final_round = next((r for r in t.rounds if r.number == k), None) if finalists else None
    final_table = final_round.tables[0] if final_round is not None and len(final_round.tables) == 1 else None
    names = {p.start_no: p.name for p in t.players}
    clubs = report.get("clubs") or []
    for c in clubs:
        c["counted_players"] = [(s, names.get(s, "")) for s in c["counted"]]
    return {
        "ruleset": rs, "currency": rs.currency, "after": k, "final": report["final"], "columns": columns,
        "rows": [{**r, "values": [r.get(c["key"]) for c in columns]} for r in rows],
        "tournament_points": with_tp, "clubs": clubs if report["final"] else [],
        "finalists": finalists, "final_round": final_round.number if final_round is not None else None,
        "final_ended": final_table.sheet.ended if final_table is not None and final_table.sheet else None,
        "players": len(t.players), "rounds": k,
        "lots": [list(e.order or ()) for e in t.events if e.type == "lot"],
    }


def sheet_shape(rs: RuleSet, tab: RoundTable, sheet: Sheet) -> dict:
    """A stored sheet as the rule set's result shape (RuleSet.result_fields): each seat's parts and
    points, how the game ended (TH-3) and the premium-game lines (CSM-3), for the receipt page."""
    table = rules_table(tab.number, tab.players, sheet)
    rows = rs.table_results(table)
    fields = rs.result_fields
    if rs.place_points or rs.result_kind == "score":
        fields += ("points",)
        for row, p in zip(rows, table_outcome(rs, table).points):
            row["points"] = p
    return {"fields": fields, "rows": rows, "ended": table.ended, "premium_games": table.premium_games}
