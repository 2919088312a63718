"""The results desk: the operator types a table's paper sheet, sees it checked as it is typed
(SEM-C5, C8, C11, the rule sets' own parts of a result) and records it, or proposes a
correction of an accepted sheet (SEM-C4, SEM-C9) for the referee to approve. Like every
service it changes the caller's session and leaves the commit to the caller; a refused action
raises ServiceError and changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import Case, Round, RoundTable, Sheet, Tournament
from ..i18n import figure
from ..rules import model as rules
from ..rules.points import administrative_correction, sheet_hints, table_outcome, tied_winners
from ..rules.ruleset import RuleSet, get_ruleset
from . import rounds as round_service, rule_texts
from .common import ServiceError, StaleError, audit, bump, seen_version
from .engine import premium_games as engine_premium_games, rules_table, score_text


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


def parse_amount(value, i: int, rs: RuleSet | None = None) -> Decimal:
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
            sums.append(parse_amount(v, i, rs))
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
                typed.append(parse_amount(v, i, rs))
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
    if seen_version(seen) != current:
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
    seen = seen_version(base_version)
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
