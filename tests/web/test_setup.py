"""Preparing a tournament: players by hand and from CSV, tournament files,
check-in, SEM-B3 nominations, exports (views/operator/setup.py)."""
from __future__ import annotations

import json
import re
from decimal import Decimal
from io import BytesIO
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.helpers import HX, login, make_tournament, make_user, play_round, text
from webapp.extensions import db
from webapp.models import AuditEntry, Player, Tournament
from webapp.rules import exchange
from webapp.services import players as svc
from webapp.services import rounds
from webapp.services.common import ServiceError, StaleError

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(autouse=True)
def english(app):
    """The assertions read the English source strings, whatever catalogs exist (the default is Slovak)."""
    app.config["BABEL_DEFAULT_LOCALE"] = "en"


def empty_tournament(app, name="SEM 6 - Nitra") -> int:
    with app.app_context():
        t = Tournament(name=name, ruleset="sem")
        db.session.add(t)
        db.session.commit()
        return t.id


def club_tournament(app, big=13, small=5, present=True) -> int:
    """`big` players of MK Poprad (rated 1000, 990, …, the last two unrated), `small` of MK Nitra."""
    with app.app_context():
        t = Tournament(name="SEM 7 - Poprad", ruleset="sem")
        for i in range(1, big + 1):
            rating = None if i > big - 2 else Decimal(1010 - 10 * i)
            t.players.append(Player(start_no=i, name=f"Poprad {i}", club="MK Poprad", rating=rating, present=present))
        for i in range(big + 1, big + small + 1):
            t.players.append(Player(start_no=i, name=f"Nitra {i}", club="MK Nitra", rating=Decimal(500),
                                    present=present))
        db.session.add(t)
        db.session.commit()
        return t.id


def tournament(app, tid) -> Tournament:
    return db.session.get(Tournament, tid)


def version(app, tid) -> int:
    with app.app_context():
        return tournament(app, tid).version


def count_players(app, tid) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(Player.id)).where(Player.tournament_id == tid))


# --------------------------------------------------------------------------- players by hand

def test_setup_pages_need_an_operator(app, client):
    tid = empty_tournament(app)
    for url in (f"/operator/t/{tid}/players", f"/operator/t/{tid}/checkin", f"/operator/t/{tid}/nominations",
                "/operator/import", f"/operator/t/{tid}/export.json"):
        assert client.get(url).status_code == 302
    make_user(app, "ref", role="referee")
    login(client, "ref")
    assert client.get(f"/operator/t/{tid}/players").status_code == 403


def test_add_player_by_hand(app, op):
    tid = empty_tournament(app)
    page = op.get(f"/operator/t/{tid}/players")
    assert page.status_code == 200 and 'name="start_no"' in text(page) and 'value="1"' in text(page)
    r = op.post(f"/operator/t/{tid}/players", data={
        "start_no": "7", "name": " Kučera  Miloš ", "club": "MK Poprad", "status": "registered",
        "rating": "812,5", "reg_id": "SK-0001", "version": version(app, tid)})
    assert r.status_code == 302
    with app.app_context():
        (p,) = tournament(app, tid).players
        assert (p.start_no, p.name, p.club, p.rating, p.reg_id, p.present) == (
            7, "Kučera Miloš", "MK Poprad", Decimal("812.50"), "SK-0001", False)
        assert db.session.scalar(select(AuditEntry.action).order_by(AuditEntry.id.desc())) == "player.add"
    page = text(op.get(f"/operator/t/{tid}/players"))
    assert "Kučera Miloš" in page and 'value="8"' in page


def test_add_player_with_surname_and_first_name_fields(app, op):
    """The form asks for the surname and the first name apart: "Jan Novák" typed in Czech order
    can no longer become surname "Jan" on the sheet; focus comes back to the surname after adding."""
    tid = empty_tournament(app)
    page = text(op.get(f"/operator/t/{tid}/players"))
    assert 'name="surname"' in page and 'name="first_name"' in page and 'name="name"' not in page
    assert page.index('name="surname"') < page.index('name="first_name"')
    r = op.post(f"/operator/t/{tid}/players", data={
        "start_no": "1", "surname": " Novák ", "first_name": "Jan", "club": "", "status": "registered",
        "rating": "", "reg_id": "", "version": version(app, tid)})
    assert r.status_code == 302 and "added=1" in r.headers["Location"]
    with app.app_context():
        (p,) = tournament(app, tid).players
        assert p.name == "Novák Jan"
    from webapp.views.shared import split_name

    assert split_name("Novák Jan") == ("Novák", "Jan")
    again = text(op.get(r.headers["Location"]))
    assert re.search(r'<input[^>]*autofocus[^>]*name="surname"|<input[^>]*name="surname"[^>]*autofocus', again)
    with app.app_context():
        pid = tournament(app, tid).players[0].id
    edit = text(op.get(f"/operator/t/{tid}/players/{pid}"))
    assert re.search(r'name="surname"[^>]*value="Novák"|value="Novák"[^>]*name="surname"', edit)
    assert re.search(r'name="first_name"[^>]*value="Jan"|value="Jan"[^>]*name="first_name"', edit)
    r = op.post(f"/operator/t/{tid}/players", data={
        "start_no": "2", "surname": "", "first_name": "", "status": "registered", "version": version(app, tid)})
    assert r.status_code == 422 and "Enter the player" in text(r)


FIELD_ERRORS = [
    ({"start_no": "x"}, "start_no", "is not a whole number"),
    ({"start_no": "0"}, "start_no", "is not a whole number"),
    ({"start_no": "1"}, "start_no", "already taken by Kráľ Dušan"),
    ({"name": "  "}, "surname", "Enter the player"),  # the name's message sits at the surname
    ({"rating": "abc"}, "rating", "is not a number"),
    ({"rating": "-5"}, "rating", "is not a number"),
    ({"status": "guest", "club": "MK Nitra"}, "club", "A guest plays without a club"),
    ({"status": "licensed", "club": "MK Nitra"}, "club", "A licensed player plays without a club"),
    ({"reg_id": "SK-0008"}, "reg_id", "already entered as start number 1"),
    ({"status": "boss"}, "status", "Unknown status"),
]


def test_add_player_refused_with_message_next_to_field(app, op):
    tid = empty_tournament(app)
    with app.app_context():
        t = tournament(app, tid)
        t.players.append(Player(start_no=1, name="Kráľ Dušan", club="MK Nitra", reg_id="SK-0008"))
        db.session.commit()
    for values, field, message in FIELD_ERRORS:
        data = {"start_no": "2", "name": "Nováková Eva", "club": "", "status": "registered", "rating": "",
                "reg_id": "", "version": version(app, tid)} | values
        r = op.post(f"/operator/t/{tid}/players", data=data)
        assert r.status_code == 422, values
        # the message sits in the same .field block as its input
        block = re.search(r'<div class="field[^"]*has-error">(.*?)</div>', text(r), re.S).group(1)
        assert f'name="{field}"' in block and message in block, values
    assert count_players(app, tid) == 1


def test_add_player_from_a_stale_page_is_refused(app, op):
    tid = empty_tournament(app)
    old = version(app, tid)
    op.post(f"/operator/t/{tid}/players", data={"start_no": "1", "name": "A", "status": "registered", "version": old})
    r = op.post(f"/operator/t/{tid}/players", data={"start_no": "2", "name": "B", "status": "registered",
                                                    "version": old})
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    assert count_players(app, tid) == 1


def test_edit_player_and_start_number_frozen_after_draw(app, op):
    tid = make_tournament(app, 9)
    with app.app_context():
        p = tournament(app, tid).players[0]
        pid, name = p.id, p.name
    page = op.get(f"/operator/t/{tid}/players/{pid}")
    assert page.status_code == 200 and name in text(page)
    data = {"start_no": "50", "name": "Nové Meno", "club": "MK Levice", "status": "registered", "rating": "",
            "reg_id": "", "version": version(app, tid)}
    assert op.post(f"/operator/t/{tid}/players/{pid}", data=data).status_code == 302
    with app.app_context():
        p = db.session.get(Player, pid)
        assert (p.start_no, p.name, p.club, p.rating, p.reg_id) == (50, "Nové Meno", "MK Levice", None, None)
        rounds.draw_round(tournament(app, tid), "test")
        db.session.commit()
    r = op.post(f"/operator/t/{tid}/players/{pid}", data=data | {"start_no": "51", "version": version(app, tid)})
    assert r.status_code == 422 and "start number can no longer change" in text(r)
    r = op.post(f"/operator/t/{tid}/players/{pid}", data=data | {"name": "Opravené", "version": version(app, tid)})
    assert r.status_code == 302
    with app.app_context():
        assert db.session.get(Player, pid).name == "Opravené"


def test_player_of_another_tournament_is_404(app, op):
    a, b = make_tournament(app, 3), empty_tournament(app)
    with app.app_context():
        pid = tournament(app, a).players[0].id
    assert op.get(f"/operator/t/{b}/players/{pid}").status_code == 404
    assert op.get("/operator/t/999/players").status_code == 404


def test_remove_player_until_round_1(app, op):
    tid = make_tournament(app, 10)
    with app.app_context():
        pid = tournament(app, tid).players[-1].id
    r = op.post(f"/operator/t/{tid}/players/{pid}/delete", data={"version": version(app, tid)})
    assert r.status_code == 302 and count_players(app, tid) == 9
    with app.app_context():
        rounds.draw_round(tournament(app, tid), "test")
        db.session.commit()
        pid = tournament(app, tid).players[0].id
    r = op.post(f"/operator/t/{tid}/players/{pid}/delete", data={"version": version(app, tid)})
    assert r.status_code == 422 and "can no longer be removed" in text(r) and count_players(app, tid) == 9
    r = op.post(f"/operator/t/{tid}/players", data={"start_no": "90", "name": "Late", "status": "registered",
                                                    "version": version(app, tid)})
    assert r.status_code == 422 and "no more players" in text(r) and count_players(app, tid) == 9


# --------------------------------------------------------------------------- CSV import

SLOVAK_CSV = ("štartové číslo;id;meno;klub;status;rating\n"
              "1;SK-0001;Kučera Miloš;MK Poprad;registered;812\n"
              "2;;Nováková Eva;;hosť;\n"
              "3;SK-0003;Ďurica Štefan;MK Nitra;;505,5\n")


def upload(op, tid, content: bytes, name="players.csv"):
    return op.post(f"/operator/t/{tid}/players/import",
                   data={"file": (BytesIO(content), name), "version": version(op.application, tid)},
                   content_type="multipart/form-data")


def confirm_fields(html: str) -> dict:
    form = html[html.index("/players/import/confirm"):]
    return {name: value for name, value in re.findall(r'name="(payload|version)"[^>]*value="([^"]*)"', form)}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1250"])
def test_csv_preview_then_import(app, op, encoding):
    tid = empty_tournament(app)
    r = upload(op, tid, SLOVAK_CSV.encode(encoding))
    html = text(r)
    assert r.status_code == 200 and "Kučera Miloš" in html and "Ďurica Štefan" in html
    assert "Import 3 players" in html
    assert count_players(app, tid) == 0  # the preview stores nothing
    r = op.post(f"/operator/t/{tid}/players/import/confirm", data=confirm_fields(html))
    assert r.status_code == 302
    with app.app_context():
        ps = tournament(app, tid).players
        assert [(p.start_no, p.reg_id, p.name, p.club, p.status, p.rating) for p in ps] == [
            (1, "SK-0001", "Kučera Miloš", "MK Poprad", "registered", Decimal("812")),
            (2, None, "Nováková Eva", None, "guest", None),
            (3, "SK-0003", "Ďurica Štefan", "MK Nitra", "registered", Decimal("505.5")),
        ]


def test_csv_english_header_with_commas_and_quotes(app):
    tid = empty_tournament(app)
    csv_text = ('start_no,id,name,club,status,rating\n'
                '4,,"Horváth, Ján",MK Žilina,licensed,\n'
                '5,,Tóth Mária,,substitute,300\n')
    with app.app_context():
        pv = svc.preview_csv(tournament(app, tid), csv_text)
    assert pv.ok and pv.delimiter == ","
    assert [(r.data.name, r.data.club, r.data.status) for r in pv.rows] == [
        ("Horváth, Ján", None, "licensed"), ("Tóth Mária", None, "substitute")]
    assert "licensed player plays without a club" in pv.rows[0].warnings[0]


def test_csv_without_header_uses_the_standard_order(app):
    tid = empty_tournament(app)
    with app.app_context():
        pv = svc.preview_csv(tournament(app, tid), "1;X-1;Kučera Miloš;MK Poprad\n2;;Eva;;guest;100\n")
    assert pv.ok and not pv.header
    assert [(r.data.start_no, r.data.reg_id, r.data.status, r.data.rating) for r in pv.rows] == [
        (1, "X-1", "registered", None), (2, None, "guest", Decimal(100))]


def test_csv_preview_lists_every_row_problem_and_nothing_is_imported(app, op):
    tid = empty_tournament(app)
    with app.app_context():
        t = tournament(app, tid)
        t.players.append(Player(start_no=9, name="Already Here", reg_id="SK-9"))
        db.session.commit()
    csv_text = ("start_no;id;name;club;status;rating\n"
                "x;;Bad Number;;;\n"
                "2;;Twice;;;\n"
                "2;;Twice Again;;;\n"
                "9;;Clash;;;\n"
                "3;;;MK Nitra;;\n"
                "4;;Boss;;boss;\n"
                "5;;Rated;;;high\n"
                "6;;Guest With Club;MK Nitra;guest;\n"
                "7;SK-9;Same Id;;;\n"
                "8;;Too Many;;;;extra\n")
    r = upload(op, tid, csv_text.encode())
    html = text(r)
    assert r.status_code == 200
    for message in ("Start number \u201cx\u201d is not a whole number", "Start number 2 also appears on line 3",
                    "Start number 9 is already taken by Already Here", "Enter the player",
                    "Unknown status \u201cboss\u201d", "Rating \u201chigh\u201d is not a number",
                    "A guest plays without a club", "Id SK-9 is already entered as start number 9",
                    "The row has 7 cells"):
        assert message in html, message
    assert "/players/import/confirm" not in html and "Nothing can be imported" in html
    with app.app_context():
        pv = svc.preview_csv(tournament(app, tid), csv_text)
        assert pv.row_errors == 8 and not pv.ok
        assert pv.rows[7].warnings and not pv.rows[7].errors  # the guest: a warning only
        with pytest.raises(ServiceError, match="nothing was imported"):
            svc.import_csv(tournament(app, tid), csv_text, "test", tournament(app, tid).version)
        db.session.rollback()
    assert count_players(app, tid) == 1


def test_csv_file_level_errors(app):
    tid = empty_tournament(app)
    with app.app_context():
        for content, message in [
            (b"", "The file has no rows"),
            (b"start_no;name\n", "has a header but no players"),
            (b"foo;bar\n1;2\n", "The first row is not a header"),
            (b"start_no;club\n1;X\n", "no column for the name"),
            (b"name;name;start_no\nA;B;1\n", "names the column"),
            (b'start_no;name\n1;"unclosed\n', "not readable as CSV at line 2"),
        ]:
            pv = svc.preview_csv(tournament(app, tid), svc.decode_csv(content))
            assert not pv.ok, content
            if message:
                assert any(message in e for e in pv.errors), content


def test_csv_unknown_column_is_a_warning(app):
    tid = empty_tournament(app)
    with app.app_context():
        pv = svc.preview_csv(tournament(app, tid), "č.;meno;poznámka\n1;Eva;hi\n")
    assert pv.ok and "poznámka" in pv.warnings[0] and pv.rows[0].data.name == "Eva"


def test_csv_upload_without_file_or_unreadable(app, op):
    tid = empty_tournament(app)
    r = op.post(f"/operator/t/{tid}/players/import", data={"version": 1}, content_type="multipart/form-data")
    assert r.status_code == 422 and "Choose a CSV file" in text(r)
    r = upload(op, tid, b"\x81\x81\x98")
    assert r.status_code == 422 and "is not UTF-8, Windows-1250 (Czech, Slovak) or Windows-1251" in text(r)


RUSSIAN_CSV = ("стартовый номер;ид;фамилия имя;клуб;статус;рейтинг\n"
               "1;RU-0001;Иванов Пётр;Клуб Тысяча;член клуба;812\n"
               "2;;Смирнова Анна;;гость;\n"
               "3;RU-0003;Кузнецов Сергей;Репино;замена;505,5\n")


@pytest.mark.parametrize("encoding", ["cp1251", "utf-8", "utf-8-sig"])
def test_csv_russian_excel_file_in_windows_1251_is_read_not_garbled(app, op, encoding):
    """TH-6: what Russian Excel writes (Windows-1251) is recognised: the preview shows the Cyrillic
    names and the Russian header and statuses are understood; the import keeps them."""
    tid = empty_tournament(app)
    r = upload(op, tid, RUSSIAN_CSV.encode(encoding))
    html = text(r)
    assert r.status_code == 200 and "Иванов Пётр" in html and "Смирнова Анна" in html
    assert "Ð" not in html and "Čâŕíîâ" not in html and "Import 3 players" in html
    r = op.post(f"/operator/t/{tid}/players/import/confirm", data=confirm_fields(html))
    assert r.status_code == 302
    with app.app_context():
        ps = tournament(app, tid).players
        assert [(p.start_no, p.name, p.club, p.status, p.rating) for p in ps] == [
            (1, "Иванов Пётр", "Клуб Тысяча", "registered", Decimal("812")),
            (2, "Смирнова Анна", None, "guest", None),
            (3, "Кузнецов Сергей", "Репино", "substitute", Decimal("505.5")),
        ]


def test_csv_decoding_tells_windows_1250_from_1251_and_refuses_what_reads_as_neither(app):
    czech = "1;Novák Jan;Kyjov\n2;Dvořáková Eva;Žďár\n"
    russian = "1;Иванов Пётр;Москва\n"
    assert svc.decode_csv(czech.encode("cp1250")) == czech
    assert svc.decode_csv(russian.encode("cp1251")) == russian
    # Latin-1 accents (read as 1250: letters of no Czech or Slovak word; as 1251: Cyrillic inside Latin words)
    with app.test_request_context(), pytest.raises(ServiceError, match="Windows-1251"):
        svc.decode_csv("1;Gonçalves João;Porto\n".encode("latin-1"))


def test_csv_page_explains_the_file_in_the_page_language(app, op):
    """The header example and the statuses are the operator's language, not English."""
    tid = empty_tournament(app)
    op.set_cookie("lang", "ru")
    html = text(op.get(f"/operator/t/{tid}/players/import"))
    assert "стартовый номер;ид;фамилия имя;клуб;статус;рейтинг" in html
    assert "член клуба, с лицензией, гость, замена" in html
    assert "registered, licensed" not in html and "start number;id" not in html


def test_csv_confirm_refuses_a_tampered_or_foreign_payload(app, op):
    tid, other = empty_tournament(app), empty_tournament(app, "Other")
    fields = confirm_fields(text(upload(op, tid, SLOVAK_CSV.encode())))
    r = op.post(f"/operator/t/{tid}/players/import/confirm", data=fields | {"payload": fields["payload"] + "x"})
    assert r.status_code == 422 and "upload it again" in text(r)
    r = op.post(f"/operator/t/{other}/players/import/confirm", data=fields)
    assert r.status_code == 422
    assert count_players(app, tid) == 0 and count_players(app, other) == 0


def test_csv_confirm_from_a_second_tab_after_another_import_is_refused(app, op):
    tid = empty_tournament(app)
    first = confirm_fields(text(upload(op, tid, SLOVAK_CSV.encode())))
    second = confirm_fields(text(upload(op, tid, b"start_no;name\n1;Someone Else\n")))
    assert op.post(f"/operator/t/{tid}/players/import/confirm", data=first).status_code == 302
    r = op.post(f"/operator/t/{tid}/players/import/confirm", data=second)
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    assert "already taken by Kučera Miloš" in text(r)  # the preview shows what changed
    assert count_players(app, tid) == 3


def test_csv_import_after_round_1_is_refused(app):
    tid = make_tournament(app, 9)
    with app.app_context():
        t = tournament(app, tid)
        rounds.draw_round(t, "test")
        pv = svc.preview_csv(t, "start_no;name\n20;Late\n")
        assert not pv.ok and "Round 1 is drawn" in pv.errors[0]


# --------------------------------------------------------------------------- tournament files

def test_import_a_tournament_file_and_export_it_again(app, op):
    assert op.get("/operator/import").status_code == 200
    raw = (DATA / "worked_example.json").read_bytes()
    r = op.post("/operator/import", data={"file": (BytesIO(raw), "worked_example.json")},
                content_type="multipart/form-data")
    assert r.status_code == 302
    tid = int(r.headers["Location"].rstrip("/").split("/")[-1])
    with app.app_context():
        t = tournament(app, tid)
        assert t.name == "RULES.md §3 worked example" and t.status == "running" and len(t.players) == 9
        assert [(r.number, r.status, len(r.tables)) for r in t.rounds] == [(1, "closed", 3)]
        assert t.rounds[0].tables[2].sheet.sums == ["12.00", "12.00", "6.00"]
        assert t.nominations_published_at is not None
        uid = t.uid
    exported = op.get(f"/operator/t/{tid}/export.json")
    assert exported.status_code == 200 and "attachment" in exported.headers["Content-Disposition"]
    back = exchange.loads(exported.data, "export")
    assert back.extra.pop("id") == uid  # the stable id
    assert back == exchange.loads(raw, "export")


def test_import_of_a_bad_file_shows_the_file_error_as_is(app, op):
    bad = json.loads((DATA / "worked_example.json").read_text())
    bad["rounds"][0]["tables"][0]["sums"] = ["14.00", "9.50", "7.50"]
    r = op.post("/operator/import", data={"file": (BytesIO(json.dumps(bad).encode()), "bad.json")},
                content_type="multipart/form-data")
    assert r.status_code == 422
    assert "bad.json: round 1, table 1: the sums total 31.00, the table total must be 30.00" in text(r)
    r = op.post("/operator/import", data={}, content_type="multipart/form-data")
    assert r.status_code == 422 and "Choose a tournament file" in text(r)
    with app.app_context():
        assert db.session.scalar(select(func.count(Tournament.id))) == 0


def test_results_csv(app, op):
    tid = make_tournament(app, 9)
    empty = text(op.get(f"/operator/t/{tid}/results.csv"))
    assert empty.startswith("\ufeffPlace;Start number;Name;Club;Points;Money\r\n") and empty.count("\r\n") == 1
    for k in range(1, 4):
        play_round(app, tid, seed=k)
    r = op.get(f"/operator/t/{tid}/results.csv")
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    lines = text(r).lstrip("\ufeff").split("\r\n")
    assert lines[0].split(";")[6:] == ["Round 1", "Round 2", "Round 3"]
    first = lines[1].split(";")
    assert first[0] == "1" and re.fullmatch(r"-?\d+\.\d\d", first[5]) and len(first) == 9  # English: 14.50
    sk = op.get(f"/operator/t/{tid}/results.csv?lang=sk")
    assert re.fullmatch(r"-?\d+,\d\d", text(sk).lstrip("\ufeff").split("\r\n")[1].split(";")[5])  # Slovak: 14,50
    with app.app_context():
        from webapp.rules.report import standings_report
        from webapp.services.engine import rules_tournament

        report = standings_report(rules_tournament(tournament(app, tid)))
        assert [int(line.split(";")[1]) for line in lines[1:10]] == [s["start_no"] for s in report["standings"]]


def test_results_csv_of_a_final_tournament_has_tournament_points(app):
    from webapp.services.tournament_file import export_results_csv, import_tournament
    from webapp.demo.simulate import make_players, play_tournament

    rt = play_tournament(make_players(27, seed=5, clubs=4), seed=5, name="Final", date="2026-05-01")
    with app.app_context():
        t = import_tournament(exchange.dump(rt), "final.json", "test")
        assert t.status == "finished"
        lines = export_results_csv(t).split("\r\n")
    assert lines[0].endswith("Placement points;Bonus points;Tournament points")
    placement, bonus, total = map(int, lines[1].split(";")[-3:])
    assert placement == 27 and bonus > 0 and total == placement + bonus


# --------------------------------------------------------------------------- check-in

def test_checkin_page_and_live_search(app, op):
    tid = empty_tournament(app)
    with app.app_context():
        t = tournament(app, tid)
        t.players += [Player(start_no=1, name="Kučera Miloš"), Player(start_no=12, name="Kučerová Eva"),
                      Player(start_no=2, name="Tóth Mária", present=True)]
        db.session.commit()
    page = op.get(f"/operator/t/{tid}/checkin")
    assert page.status_code == 200 and "<html" in text(page) and 'id="checkin-summary"' in text(page)
    r = op.get(f"/operator/t/{tid}/checkin?q=kucer", headers=HX)
    assert "<html" not in text(r) and text(r).lstrip().startswith('<div id="checkin-list"')
    assert "Kučera Miloš" in text(r) and "Kučerová Eva" in text(r) and "Tóth" not in text(r)
    assert r.headers["Vary"] and "HX-Request" in r.headers["Vary"]
    r = op.get(f"/operator/t/{tid}/checkin?q=1", headers=HX)
    assert "Kučera Miloš" in text(r) and "Kučerová" not in text(r)
    r = op.get(f"/operator/t/{tid}/checkin?show=present", headers=HX)
    assert "Tóth Mária" in text(r) and "Kučera" not in text(r)
    r = op.get(f"/operator/t/{tid}/checkin?q=nobody", headers=HX)
    assert "No player matches" in text(r)


def test_one_tap_checks_in_and_marks_absent(app, op):
    tid = make_tournament(app, 4, checked_in=False)
    with app.app_context():
        pid = tournament(app, tid).players[0].id
    v0 = version(app, tid)
    r = op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"}, headers=HX)
    html = text(r)
    assert r.status_code == 200 and html.lstrip().startswith(f'<div class="checkin-row is-present" id="checkin-{pid}"')
    assert 'id="checkin-summary"' in html and 'hx-swap-oob="true"' in html
    assert "1 players cannot be seated" in html or "add 2 players or withdraw 1" in html
    with app.app_context():
        p = db.session.get(Player, pid)
        assert p.present and p.checked_in_at is not None and tournament(app, tid).version == v0 + 1
    # the same tap from a second tablet changes nothing
    op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"}, headers=HX)
    assert version(app, tid) == v0 + 1
    r = op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "0", "q": "x"})
    assert r.status_code == 302 and "q=x" in r.headers["Location"]
    with app.app_context():
        p = db.session.get(Player, pid)
        assert not p.present and p.checked_in_at is None


def test_counters_and_what_to_add_or_withdraw(app):
    tid = make_tournament(app, 10, checked_in=False)
    with app.app_context():
        t = tournament(app, tid)
        for p in t.players[:7]:
            svc.set_present(t, p, True, "test")
        s = svc.checkin_summary(t)
        assert (s.total, s.present, s.absent, s.seated) == (10, 7, 3, 7)
        assert not s.divisible and s.seating_message.endswith("add 2 players or withdraw 1.")
        svc.set_present(t, t.players[7], True, "test")
        assert svc.checkin_summary(t).seating_message.endswith("add 1 player or withdraw 2.")
        svc.set_present(t, t.players[8], True, "test")
        assert svc.checkin_summary(t).divisible and svc.checkin_summary(t).seating_message == ""
        # the engine agrees
        with pytest.raises(ServiceError, match="add 2 players or withdraw 1"):
            svc.set_present(t, t.players[9], True, "test")
            rounds.draw_round(t, "test")


def test_check_in_everybody(app, op):
    tid = make_tournament(app, 6, checked_in=False)
    r = op.post(f"/operator/t/{tid}/checkin/all", data={"version": version(app, tid) - 1})
    assert r.status_code == 422 and "Someone changed" in text(r)
    assert op.post(f"/operator/t/{tid}/checkin/all", data={"version": version(app, tid)}).status_code == 302
    with app.app_context():
        assert all(p.present and p.checked_in_at for p in tournament(app, tid).players)
    assert "2 tables" in text(op.get(f"/operator/t/{tid}/checkin"))


def test_checkin_closes_when_round_1_is_drawn(app, op):
    tid = make_tournament(app, 9)
    with app.app_context():
        t = tournament(app, tid)
        t.players.append(Player(start_no=10, name="Late Comer"))
        rounds.draw_round(t, "test")
        db.session.commit()
        pid = t.players[-1].id
    page = text(op.get(f"/operator/t/{tid}/checkin"))
    assert "check-in is closed" in page and "/checkin/all" not in page and "Check in</button>" not in page
    r = op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"}, headers=HX)
    assert r.status_code == 422 and "check-in is closed" in text(r)
    r = op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"})
    assert r.status_code == 422 and "check-in is closed" in text(r)
    r = op.post(f"/operator/t/{tid}/checkin/all", data={"version": version(app, tid)})
    assert r.status_code == 422
    with app.app_context():
        assert not db.session.get(Player, pid).present


# --------------------------------------------------------------------------- SEM-B3 nominations

def test_nominations_page_lists_clubs(app, op):
    tid = club_tournament(app)
    html = text(op.get(f"/operator/t/{tid}/nominations"))
    assert "MK Poprad" in html and "MK Nitra" in html and "All nominated" in html
    assert html.count('name="nominated"') == 13 and "Not nominated yet" in html


def test_nominations_must_be_exactly_ten(app, op):
    tid = club_tournament(app)
    nine = [str(i) for i in range(1, 10)]
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Poprad", "nominated": nine,
                                                        "version": version(app, tid)}, headers=HX)
    html = text(r)
    assert r.status_code == 422 and "must nominate exactly 10; 9 are chosen" in html
    assert "<html" not in html and html.count("checked") == 9  # the ticks are kept
    with app.app_context():
        assert not any(p.nominated for p in tournament(app, tid).players)
    ten = [str(i) for i in range(4, 14)]
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Poprad", "nominated": ten,
                                                        "version": version(app, tid)}, headers=HX)
    assert r.status_code == 200 and "10 nominated" in text(r)
    assert f'value="{version(app, tid)}" hx-swap-oob="outerHTML:input[name=version]"' in text(r)
    with app.app_context():
        assert {p.start_no for p in tournament(app, tid).players if p.nominated} == set(range(4, 14))
    # without htmx: the page again, with the message
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Poprad", "nominated": ["1"] * 11 + ["99"],
                                                        "version": version(app, tid)})
    assert r.status_code == 422 and "not a present player of the club" in text(r) and "<html" in text(r)


def test_nominate_automatically(app, op):
    tid = club_tournament(app)
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Poprad", "action": "auto",
                                                        "version": version(app, tid)})
    assert r.status_code == 302 and r.headers["Location"].endswith("#club-2")
    with app.app_context():
        # the 10 best rated: start numbers 1..10 (rated 1000 down to 910); 12 and 13 are unrated
        assert {p.start_no for p in tournament(app, tid).players if p.nominated} == set(range(1, 11))
        t = tournament(app, tid)
        t.players[0].nominated = False
        t.players[10].nominated = True
        db.session.commit()
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Poprad", "action": "auto",
                                                        "version": version(app, tid)}, headers=HX)
    assert r.status_code == 200 and 'id="club-2"' in text(r) and "10 nominated" in text(r)
    with app.app_context():
        assert {p.start_no for p in tournament(app, tid).players if p.nominated} == set(range(1, 11))


def test_small_clubs_do_not_nominate_and_frozen_after_draw(app, op):
    tid = club_tournament(app, big=13, small=5)
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Nitra", "nominated": ["14"],
                                                        "version": version(app, tid)}, headers=HX)
    assert r.status_code == 422 and "does not nominate" in text(r)
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Nowhere", "nominated": ["1"],
                                                        "version": version(app, tid)}, headers=HX)
    assert r.status_code == 204 and r.headers["HX-Refresh"] == "true"  # a page that is out of date
    with app.app_context():
        t = tournament(app, tid)
        with pytest.raises(StaleError):
            svc.save_nominations(t, "MK Poprad", range(1, 11), "test", t.version - 1)
        with pytest.raises(ServiceError, match="No player of the club"):
            svc.save_nominations(t, "MK Nowhere", [], "test", t.version)
        rounds.draw_round(t, "test")
        db.session.commit()
    html = text(op.get(f"/operator/t/{tid}/nominations"))
    assert "nominations are frozen" in html and "Save nominations" not in html
    r = op.post(f"/operator/t/{tid}/nominations", data={"club": "MK Poprad", "action": "auto",
                                                        "version": version(app, tid)})
    assert r.status_code == 422 and "nominations are frozen" in text(r)


def test_sem_b3_substitutes_from_a_new_club_leave_the_nominations_page_working(app, op, client):
    """SEM-B3: a substitute who joins after the draw is never nominated. A club that only
    substitutes brought in is not listed, and a substitute does not change a club's count;
    the page used to fail on the new club."""
    from webapp.services import discipline
    tid = club_tournament(app, big=13, small=5)
    with app.app_context():
        t = tournament(app, tid)
        r1 = rounds.draw_round(t, "test")
        rounds.publish_round(t, r1, "test", t.version)
        db.session.commit()
        t = tournament(app, tid)
        discipline.add_substitute(t, "Košice 1", "MK Košice", 4, None, "test", t.version)
        discipline.add_substitute(t, "Poprad 14", "MK Poprad", 5, None, "test", t.version)
        db.session.commit()
    r = op.get(f"/operator/t/{tid}/nominations")
    html = text(r)
    assert r.status_code == 200 and "MK Košice" not in html and "Košice 1" not in html
    assert "Poprad 14" not in html and html.count('name="nominated"') == 13
    with app.app_context():
        clubs = {c.club: c for c in svc.club_nominations(tournament(app, tid))}
        assert set(clubs) == {"MK Poprad", "MK Nitra"}
        assert clubs["MK Poprad"].required and len(clubs["MK Poprad"].members) == 13
    r = client.get(f"/t/{tid}/nominations")
    assert r.status_code == 200 and "Poprad 10" in text(r)


def test_public_nominations_published_with_round_1(app, client):
    tid = club_tournament(app, big=13, small=5)
    r = client.get(f"/t/{tid}/nominations")
    assert r.status_code == 200 and "published during round 1" in text(r) and "Poprad 1" not in text(r)
    with app.app_context():
        rounds.draw_round(tournament(app, tid), "test")
        db.session.commit()
    html = text(client.get(f"/t/{tid}/nominations"))
    assert "Nominated automatically" in html and "all of them count as nominated" in html
    assert "Poprad 10" in html and "Poprad 11<" not in html and "Nitra 18" in html
    assert client.get("/t/999/nominations").status_code == 404


def test_forms_after_someone_elses_change_show_the_current_state_then_save(app, op):
    """A check-in on a tablet bumps the version: the laptop's add form is refused once,
    keeps what was typed and shows the current list; the second click saves."""
    tid = make_tournament(app, 3, checked_in=False)
    with app.app_context():
        p0 = tournament(app, tid).players[0]
        pid, stored_name = p0.id, p0.name
    old = version(app, tid)
    op.post(f"/operator/t/{tid}/checkin/{pid}", data={"present": "1"}, headers=HX)
    data = {"start_no": "4", "surname": "Late", "first_name": "Entry", "status": "registered", "version": old}
    r = op.post(f"/operator/t/{tid}/players", data=data)
    assert r.status_code == 422 and "Someone changed this tournament" in text(r)
    assert 'value="Late"' in text(r) and 'value="Entry"' in text(r)
    resubmit = data | {"version": re.search(r'name="version" type="hidden" value="(\d+)"', text(r)).group(1)}
    assert op.post(f"/operator/t/{tid}/players", data=resubmit).status_code == 302
    assert count_players(app, tid) == 4
    r = op.post(f"/operator/t/{tid}/players/{pid}", data={"start_no": "1", "name": "Mine", "status": "registered",
                                                          "version": old})
    assert r.status_code == 422 and "Stored now:" in text(r) and stored_name in text(r)
    with app.app_context():
        assert db.session.get(Player, pid).name == stored_name


def test_demo_players_have_pins_from_before_round_1_so_a_phone_sheet_counts(app):
    """The demo issues its players' PINs (1000 + start number) at creation, before round 1: a
    newcomer signing a demo table on a phone gets a counted sheet, not one for the referee."""
    from tests.helpers import signed_submission
    from webapp.demo.seed import create_demo, demo_notice, demo_pin
    from webapp.services import sheet_submit
    from webapp.sync import protocol

    with app.app_context():
        tid, login_ = create_demo(9)
        db.session.commit()
        t = tournament(app, tid)
        assert all(p.pin_hash for p in t.players)
        assert all(p.pin_issued_at <= t.rounds[0].drawn_at for p in t.players)
        table = next(x.number for x in t.rounds[2].tables if x.sheet is None)
        players = {p.start_no for p in t.players}
    assert f"/operator/t/{tid}/pins" in demo_notice(tid, login_) and demo_pin(7) == "1007"
    body = signed_submission(app, tid, 3, table, [1400, 1000, 600], {s: demo_pin(s) for s in players})
    with app.app_context():
        answer = sheet_submit.submit(protocol.parse_submission(body))
        db.session.commit()
    assert answer.body.get("status") == "accepted", answer.body
