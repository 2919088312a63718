"""Everything that decides a result is in the chain (services/chain_rows.py, docs/SECURITY.md):
a dishonest operator or a thief of the database edits rows behind the server's back, and
`listok verify`, the operator's record check and the federation's check on push name what
differs whenever the standings, a receipt or a case's outcome changed.

The tamper test is generated from the models: every column of every table that holds a row of
the tournament (and the server's other tables) is edited, one at a time, with SQL on the
table, then put back. Edits that change nothing a player, the referee or the federation sees
may pass; every other one must be caught by all three checks."""
from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import JSON, Boolean, Date, DateTime, Integer, Numeric, String, Text, delete, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, StatementError

from tests.helpers import issue_pins, make_tournament, open_round, play_round, \
    signed_submission, text
from webapp.extensions import db
from webapp.models import AuditEntry, Case, Event, Player, PublishedHead, RoundTable, Sheet, Tournament
from webapp.services import chain, chain_rows, chain_verify, corrections, receipts as receipts_service
from webapp.services.engine import rules_tournament

# values a status-like column can take (the models' comments): an edit tries another one first
DOMAIN = {
    "status": ["accepted", "superseded", "rejected", "closed", "published", "draft", "withdrawn", "disqualified",
               "approved", "open", "finished", "running", "pending", "dispute", "registered"],
    "ruleset": ["bbliga", "smu", "csm", "thousand", "sem"],
    "colour": ["red", "yellow"],
    "type": ["withdrawn", "card", "lot"],
    "kind": ["correction", "dispute", "negative-sum", "discrepancy"],
    "source": ["correction", "phone", "paper", "import"],
    "ended": ["time", "win"],
    "action": ["rows", "sheet.update"],
    "role": ["admin", "referee"],
}


# tables that decide who may act or hold the federation's copies, not what a tournament's result is
NOT_RESULTS = {
    "user": "accounts (who may sign in; password hashes are the accounts' own keyed check)",
    "login_attempt": "the sign-in throttle",
    "assignment": "who works at which tournament",
    "federation": "the federation server's own", "venue": "the federation server's own",
    "season": "the federation server's own", "club": "the federation server's own",
    "roster_entry": "the federation server's own", "season_tournament": "the federation server's own",
    "card": "the federation server's own", "season_copy": "the season as downloaded (registration checks)",
}


def build(app, client) -> int:
    """9 players; round 1 with table 1 signed on a phone, round 2 played, a yellow card, an SEM-C10
    correction approved by the referee, rounds 3-6 played and the standings page shown
    (a published head)."""
    from webapp.services import discipline, rounds
    from webapp.demo.simulate import table_sums
    import random

    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    answer = client.post("/api/v1/sheets", json=signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins=pins))
    assert answer.status_code == 200, answer.json
    rng = random.Random(5)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        r = t.rounds[0]
        for tab in r.tables[1:]:
            rounds.record_sheet(t, tab, list(table_sums(rng)), "test")
        rounds.close_round(t, r, "test", t.version)
        db.session.commit()
    play_round(app, tid, seed=2)
    with app.app_context():
        t = db.session.get(Tournament, tid)
        discipline.add_card(t, t.rounds[1].tables[1].players[0], "yellow", 2, ["Rozhodca A", "Rozhodca B"],
                            "test", t.version)
        db.session.commit()
        tab = t.rounds[1].tables[0]
        sums = list(tab.sheet.sums)
        case = corrections.propose_correction(t, 2, tab.number, [sums[1], sums[0], sums[2]], "operator-error",
                                          "Horváth", "test", t.version)
        corrections.approve_c10(case, t, "Novák")
        db.session.commit()
    for k in range(3, 7):  # SEM with 9 players: 6 rounds, so the federation takes the file
        play_round(app, tid, seed=k)
    assert client.get(f"/t/{tid}/standings").status_code == 200
    return tid


def visible(app, tid) -> dict:
    """What players, the referee and the federation see: the standings after every round, what the
    receipt page says of every receipt (services/receipts.check_receipt, as the page shows it), the
    cases and their outcome."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        try:
            standings = chain_rows.standing_rows(rules_tournament(t))
        except Exception as e:  # noqa: BLE001 - a database the engine cannot read is a visible change
            standings = f"error: {e}"
        names = {p.start_no: p.name for p in t.players}
        receipts = {}
        for code in sorted(db.session.scalars(select(Sheet.receipt).where(Sheet.receipt.is_not(None)))):
            c = receipts_service.check_receipt(t, code)
            if not c.found:
                receipts[code] = None
                continue
            shown = [c.sheet]
            if c.counting is not None:
                shown.append(c.counting)
            receipts[code] = (c.round, c.table.number, c.intact, c.sheet.status, c.sheet.version,
                              c.head and (c.head.seq, c.head.hash, str(c.head.published_at)),
                              [(v.players, [names.get(n) for n in v.players], v.sums, v.points)
                               for v in map(chain.signed_view, shown)])
        cases = [(c.kind, c.status, c.round, c.table, c.sheet_id, c.other_sheet_id, json.dumps(c.payload,
                                                                                                sort_keys=True))
                 for c in db.session.scalars(select(Case).order_by(Case.id))]
    return {"standings": standings, "receipts": receipts, "cases": cases}


def checks(app, runner, op, tid) -> dict:
    """What each check says: `listok verify`, the record check page, a push (the venue's record
    check before sending, then the federation's check of what it received) and the federation's
    check alone, with the file it was given."""
    from webapp.rules import exchange
    from webapp.rules.report import season_report
    from webapp.services.federation import check_chain
    from webapp.services.venue_season import push_body

    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    cli = [] if result.exit_code == 0 else result.output.strip().splitlines() or [repr(result.exception)]
    page = text(op.get(f"/operator/t/{tid}/verify"))
    page_bad = "verify-bad" in page or "verify-ok" not in page
    with app.app_context():
        t = db.session.get(Tournament, tid)
        venue = chain_verify.verify(t)
        file = None
        try:
            body = push_body(t)
            file = body["file"]
            rt = exchange.loads(file, "tournament.json")
            season_report([rt])
            fed = check_chain(rt, body["chain"]["entries"], body["chain"]["heads"], body["chain"]["head"]).problems
        except Exception as e:  # noqa: BLE001 - the push is refused: caught
            fed = [f"refused: {e}"]
    push = ([] if venue.ok else ["the venue's record check refuses to send"]) + fed
    return {"verify": cli, "page": page_bad, "push": push, "federation": fed, "file": file}


def mutations(column, value, others: list) -> list:
    """Values to try for an edit of `column` (first one the database takes wins)."""
    t = column.type
    out = []
    if isinstance(t, Boolean):
        return [not value]
    if isinstance(t, JSON):
        if isinstance(value, list):
            if len(value) >= 2:
                out.append([value[1], value[0], *value[2:]])
            if value:
                out.append([mutate_item(value[0]), *value[1:]])
            else:
                out.append([1])
        elif isinstance(value, dict):
            if value:
                k = sorted(value)[0]
                out.append({**value, k: mutate_item(value[k])})
            else:
                out.append({"x": 1})
        else:
            out.append([1])
        return out
    if isinstance(t, (String, Text)):
        out += [v for v in DOMAIN.get(column.name, []) if v != value]
        out += [v for v in others if v != value and v is not None][:2]
        out.append((value or "") + "x")
        return [v[: t.length] if getattr(t, "length", None) else v for v in out]
    if isinstance(t, Numeric):
        return [Decimal(value or 0) + 1]
    if isinstance(t, Integer):
        base = value or 0
        out += [v for v in others if v != value and v is not None][:2]
        return out + [base + 1, base - 1, base + 1000]
    if isinstance(t, DateTime):
        return [(value or datetime(2026, 3, 14, 9)) - timedelta(days=1)]
    if isinstance(t, Date):
        return [(value or date(2026, 3, 14)) + timedelta(days=1)]
    return []


def mutate_item(item):
    if isinstance(item, bool):
        return not item
    if isinstance(item, int):
        return item + 1
    if isinstance(item, str):
        try:
            return str(Decimal(item) + 1)
        except ArithmeticError:
            return item + "x"
    if isinstance(item, dict) and item:
        k = sorted(item)[0]
        return {**item, k: mutate_item(item[k])}
    if isinstance(item, list):
        return list(reversed(item)) if len(item) > 1 else [mutate_item(x) for x in item]
    return item


def run(app, statements) -> bool:
    with app.app_context():
        try:
            for st in statements:
                db.session.execute(st)
            db.session.commit()
            return True
        except (IntegrityError, DBAPIError, StatementError):
            db.session.rollback()
            return False


def generated_edits(app):
    """(label, do, undo) for every column of one row of every table that has a row, and the
    row's deletion: statements only, generated from the models' tables."""
    with app.app_context():
        tables = [t for t in db.metadata.sorted_tables if t.name not in NOT_RESULTS]
        for table in tables:
            pk = list(table.primary_key.columns)
            row = db.session.execute(select(table).order_by(*pk).limit(1)).mappings().first()
            if row is None:
                continue
            row = dict(row)
            key = {c.name: row[c.name] for c in pk}
            for column in table.columns:
                others = [] if isinstance(column.type, JSON) else \
                    list(db.session.scalars(select(column).distinct().limit(20)))
                yield table, column, row, key, mutations(column, row[column.name], others)
            yield table, None, row, key, None


def where(table, key):
    return [table.c[k] == v for k, v in key.items()]


def scenario_edits(app, tid):
    """The edits a white-box tester made by hand that span rows: seats swapped across tables, a red
    card or a withdrawal inserted, every published head deleted."""
    with app.app_context():
        t = db.session.get(Tournament, tid)
        a, b = t.rounds[1].tables[0], t.rounds[1].tables[1]
        pa, pb = list(a.players), list(b.players)
        top = chain_rows.standing_rows(rules_tournament(t))
        winner = min(top[2].items(), key=lambda kv: kv[1][0])[0]
        heads = [dict(r) for r in db.session.execute(select(PublishedHead.__table__)).mappings()]
    rt = RoundTable.__table__
    ev = Event.__table__
    yield ("round_table.players: seats swapped across tables of round 2",
           [update(rt).where(rt.c.id == a.id).values(players=[pb[0], *pa[1:]]),
            update(rt).where(rt.c.id == b.id).values(players=[pa[0], *pb[1:]])],
           [update(rt).where(rt.c.id == a.id).values(players=pa),
            update(rt).where(rt.c.id == b.id).values(players=pb)])
    for label, values in (("a red card inserted for the winner", {"type": "card", "colour": "red", "round": 2}),
                          ("a withdrawal inserted for the winner", {"type": "withdrawn", "after_round": 1})):
        yield (f"event: {label}",
               [insert(ev).values(id=9000, tournament_id=tid, start_no=winner, referees=["Rozhodca X", "Rozhodca Y"], reason="",
                                  created_by="", created_at=datetime(2026, 3, 14, 12), **values)],
               [delete(ev).where(ev.c.id == 9000)])
    ph = PublishedHead.__table__
    yield ("published_head: every published head deleted", [delete(ph)], [insert(ph).values(heads)])


@pytest.fixture
def tampered(app, client, op, runner):
    """The tournament, what is visible of it, and a function that applies an edit, reports it and
    puts it back."""
    tid = build(app, client)
    base = visible(app, tid)
    clean = checks(app, runner, op, tid)
    assert {k: v for k, v in clean.items() if k != "file"} == {"verify": [], "page": False, "push": [],
                                                              "federation": []}
    outcome = {"tried": 0, "refused": 0, "harmless": 0, "caught": 0, "file_changed": 0, "undetected": []}

    def attempt(label, do, undo):
        if not run(app, do):
            outcome["refused"] += 1
            return
        outcome["tried"] += 1
        seen = visible(app, tid)
        said = checks(app, runner, op, tid) if seen != base else None
        assert run(app, undo), label
        if seen == base:
            outcome["harmless"] += 1
            return
        # what the federation receives changed: its own check must see it, not only the venue's
        file_changed = said["file"] != clean["file"]
        outcome["file_changed"] += file_changed
        needed = ("verify", "page", "push") + (("federation",) if file_changed else ())
        missed = [k for k in needed if not said[k]]
        if not missed:
            outcome["caught"] += 1
        else:
            what = [k for k in ("standings", "receipts", "cases") if seen[k] != base[k]]
            outcome["undetected"].append(f"{label}: changes {what}, missed by {missed}")
        assert visible(app, tid) == base, f"{label} was not put back"

    return tid, attempt, outcome


def test_every_result_changing_edit_of_any_column_is_caught_by_all_three_checks(app, tampered, capsys):
    """The first promise: a signed result counts exactly as signed, and anyone can prove nothing was
    altered. Every column of every table (one row each), and each row's deletion."""
    tid, attempt, outcome = tampered
    columns, unchangeable = 0, []
    for table, column, row, key, values in list(generated_edits(app)):
        if column is None:
            attempt(f"{table.name}: row {key} deleted", [delete(table).where(*where(table, key))],
                    [insert(table).values(row)])
            continue
        columns += 1
        for value in values:
            label = f"{table.name}.{column.name}: {row[column.name]!r} -> {value!r}"
            new_key = {**key, column.name: value} if column.name in key else key
            before = outcome["refused"]
            attempt(label, [update(table).where(*where(table, key)).values({column.name: value})],
                    [update(table).where(*where(table, new_key)).values({column.name: row[column.name]})])
            if outcome["refused"] == before:
                break
        else:
            unchangeable.append(f"{table.name}.{column.name}")
    for label, do, undo in scenario_edits(app, tid):
        attempt(label, do, undo)
    with capsys.disabled():
        print(f"\n[{app.config['SQLALCHEMY_DATABASE_URI'].split(':')[0]}] tamper test: {columns} columns, "
              f"{outcome['tried']} edits tried, {outcome['caught']} caught ({outcome['file_changed']} of them "
              f"changing the file pushed, caught by the federation itself), {outcome['harmless']} harmless, "
              f"{len(outcome['undetected'])} undetected; {outcome['refused']} values refused by the database, "
              f"no value taken for {len(unchangeable)} columns ({', '.join(unchangeable)})")
    assert outcome["undetected"] == [], "\n".join(outcome["undetected"])
    assert outcome["tried"] > columns // 2
    assert outcome["caught"] > 20


# --------------------------------------------------------------------------- what the checks name


@pytest.fixture
def finished(app, client):
    return build(app, client)


def test_a_seat_swap_is_named_with_its_table_and_the_standings_it_changes(app, runner, client, finished):
    """The winner swapped with a table mate in round 6 (the final table): the table's seating and
    every standings row it changed are named, and the receipt page keeps what was signed."""
    tid = finished
    with app.app_context():
        t = db.session.get(Tournament, tid)
        tab = t.rounds[-1].tables[0]
        before, sums, receipt = list(tab.players), list(tab.sheet.sums), tab.sheet.receipt
    swapped = [before[1], before[0], *before[2:]]
    run(app, [update(RoundTable.__table__).where(RoundTable.__table__.c.id == tab.id).values(players=swapped)])
    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    lines = result.output.splitlines()
    assert result.exit_code == 1
    assert f"tournament {tid}, round 6, table {tab.number}: the table: players is {swapped} in the database, " \
           f"{before} in the chain" in lines, lines
    assert any(line.startswith(f"tournament {tid}, round 6: standings after round 6, start no {before[0]}: place is")
               for line in lines), lines
    page = text(client.get(f"/t/{tid}/receipt?code={receipt}"))
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td>[^<]*</td>\s*<td class="num">([^<]+)</td>', page)
    shown = [(no, Decimal(re.sub(r"[^\d,-]", "", s).replace(",", "."))) for no, s in rows]
    assert shown == [(str(no), Decimal(s)) for no, s in zip(before, sums)]  # what was signed, not the new seating
    assert "verify-bad" in page and "verify-ok" not in page


def test_deleting_every_published_head_is_caught_and_the_receipt_does_not_fall_back(app, runner, client, finished):
    tid = finished
    with app.app_context():
        receipt = db.session.scalar(select(Sheet.receipt).where(Sheet.receipt.is_not(None)).order_by(Sheet.id))
    assert "verify-ok" in text(client.get(f"/t/{tid}/receipt?code={receipt}"))
    run(app, [delete(PublishedHead.__table__)])
    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    assert result.exit_code == 1
    assert any("was published (Standings published after round 1, record #" in line
               and "deleted from the published heads" in line for line in result.output.splitlines()), result.output
    page = text(client.get(f"/t/{tid}/receipt?code={receipt}"))
    assert "verify-bad" in page and "verify-ok" not in page


def test_sem_e6_an_inserted_red_card_is_named_by_verify_and_the_federation(app, runner, finished):
    """A red card disqualifies (SEM-E6): inserted in SQL for the winner, it is named as an event the
    chain does not have, the standings it changes are named, and the federation's check of the
    file sent says the file's standings are not the chain's."""
    from webapp.rules import exchange
    from webapp.services.federation import check_chain
    from webapp.services.venue_season import push_body

    tid = finished
    label, do, undo = next(e for e in scenario_edits(app, tid) if "red card" in e[0])
    winner = do[0].compile().params["start_no"]
    assert run(app, do)
    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    assert result.exit_code == 1
    assert any("event #9000 (card red, start no" in line and "not in the chain" in line
               for line in result.output.splitlines()), result.output
    assert any("standings after round 2" in line for line in result.output.splitlines())
    with app.app_context():
        body = push_body(db.session.get(Tournament, tid))
    # the file sent is refused for itself (the card's table does not list the disqualification) …
    with pytest.raises(exchange.ExchangeError, match=f"start number {winner} (has a card that disqualifies|was disqualified in round 2)"):
        exchange.loads(body["file"])
    # … and were it read anyway, its standings are not the chain's
    problems = check_chain(exchange.loads(body["file"], consistent=False), body["chain"]["entries"],
                           body["chain"]["heads"], body["chain"]["head"]).problems
    assert any("standings after round 2, start no" in p and "in the file" in p for p in problems), problems


def test_push_sends_nothing_while_the_record_check_fails(app, finished):
    from webapp.services.common import ServiceError
    from webapp.services.venue_season import push

    tid = finished
    run(app, [update(Player.__table__).where(Player.__table__.c.start_no == 1).values(club="MK Elsewhere")])
    with app.app_context():
        t = db.session.get(Tournament, tid)
        t.status = "finished"
        with pytest.raises(ServiceError, match="hráč so štartovým číslom 1 .*: klub je \"MK Elsewhere\" v databáze"):
            push(t, "http://127.0.0.1:9/", "token", "test")


def test_a_tournament_stored_before_the_chain_covered_rows_is_noted_then_recorded_whole(app, runner, monkeypatch):
    """Its chain has no `rows` entry: verify says only its sheets are checked; its first write then
    records every tracked row, and from there on the rows are checked."""
    with monkeypatch.context() as older_server:  # a server that chained only the sheets
        older_server.setattr(chain_rows, "write_rows",
                            lambda session, actor=None: session.info.pop(chain_rows.TOUCHED, None))
        tid = make_tournament(app, 9)
        play_round(app, tid, seed=1)
    with app.app_context():
        assert db.session.scalar(select(AuditEntry.id).where(AuditEntry.action == "rows")) is None
    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    assert result.exit_code == 0
    assert f"tournament {tid}: note: the chain holds no record of the players" in result.output
    with app.app_context():
        p = db.session.scalar(select(Player).where(Player.tournament_id == tid, Player.start_no == 2))
        p.name = "Nové Meno"
        db.session.commit()
        rows = db.session.scalar(select(AuditEntry.payload).where(AuditEntry.action == "rows"))
    assert {r["table"] for r in rows["rows"]} >= {"tournament", "player", "round", "round_table"}
    assert len([r for r in rows["rows"] if r["table"] == "player"]) == 9
    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    assert result.exit_code == 0 and "note:" not in result.output
    run(app, [update(Player.__table__).where(Player.__table__.c.start_no == 2).values(present=False)])
    result = runner.invoke(args=["listok", "verify", "--tournament", str(tid)])
    assert result.exit_code == 1 and "present is false in the database, true in the chain" in result.output
