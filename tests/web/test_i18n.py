"""Money and points in the locale's format; the language switch is remembered."""
import re
from pathlib import Path
from decimal import Decimal

import pytest
from babel.numbers import format_currency, format_decimal

from webapp import i18n


@pytest.mark.parametrize("lang", ["sk", "cs", "en", "ru"])
def test_money_and_amount_match_babel(app, lang):
    with app.test_request_context(f"/?lang={lang}"):
        for v in ("14.5", "-3.25", "1234567.5", "0", "-0.01", "30"):
            assert i18n.money(v) == format_currency(Decimal(v), "EUR", locale=lang)
            assert i18n.amount(v) == format_decimal(Decimal(v), format="#,##0.00", locale=lang)


def test_slovak_money_format(app):
    with app.test_request_context("/?lang=sk"):
        assert i18n.money("14.50") == "14,50\xa0€"
        assert i18n.points(Decimal("2.5")) == "2,5" and i18n.points(5) == "5"


def test_language_switch_is_remembered(client):
    r = client.get("/?lang=cs")
    assert "lang=cs" in r.headers.get("Set-Cookie", "")
    assert '<html lang="cs">' in client.get("/").get_data(as_text=True)
    assert '<html lang="sk">' in client.get("/?lang=sk").get_data(as_text=True)


def test_russian_is_offered_with_russian_plural_forms(app, client):
    """Thousand's players and organisers read Russian (TH-6): the switch offers it, the
    catalogue has Russian plural forms (1 игрока, 2 игрока, 5 игроков … 21 игрока, 11 игроков)."""
    from flask_babel import ngettext

    body = client.get("/?lang=ru").get_data(as_text=True)
    assert '<html lang="ru">' in body and 'hreflang="ru"' in body
    with app.test_request_context("/?lang=ru"):
        forms = {k: ngettext("add %(num)d player", "add %(num)d players", k) for k in (1, 2, 5, 11, 21, 22)}
    assert forms[1] == "добавьте 1 игрока" and forms[21] == "добавьте 21 игрока"
    assert forms[2] == "добавьте 2 игрока" and forms[5] == "добавьте 5 игроков" and forms[11] == "добавьте 11 игроков"


def test_slovak_is_the_default(client):
    assert '<html lang="sk">' in client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)


def test_catalogs_cover_every_string(tmp_path):
    """Slovak (the default), Czech and Russian translate every string the code and templates
    use, with the same placeholders."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    from babel.messages.pofile import read_po

    root = Path(__file__).resolve().parents[2]
    pot = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg",
                    "-k", "_l", "-k", "lazy_gettext", "-o", str(pot), "."], cwd=root, check=True, capture_output=True)
    wanted = {m.id for m in read_po(pot.open("rb")) if m.id}
    placeholder = re.compile(r"%\(\w+\)[sd]")
    for lang in ("sk", "cs", "ru"):
        catalog = read_po((root / f"webapp/translations/{lang}/LC_MESSAGES/messages.po").open("rb"))
        have = {m.id: m.string for m in catalog if m.id}
        assert wanted - set(have) == set(), lang
        for mid in wanted:
            ids = mid if isinstance(mid, tuple) else (mid,)
            strings = have[mid] if isinstance(have[mid], tuple) else (have[mid],)
            assert all(strings), (lang, mid)
            expected = set(placeholder.findall(ids[-1]))
            for s in strings:
                assert set(placeholder.findall(s)) <= expected | set(placeholder.findall(ids[0])), (lang, mid, s)


# --------------------------------------------------------------------------- every page, rendered


ENGLISH_WORDS = {"the", "and", "please", "your", "this", "is", "are", "of", "with", "not", "for", "has", "have",
                 "was", "you", "an", "been", "there", "will", "cannot", "must", "from", "which", "what", "when",
                 "into", "than", "then", "should", "would", "here", "it", "its", "they", "their", "we", "our"}
NOT_PAGES = {"static", "table.service_worker", "public.web_manifest", "sync.table", "operator.export_file",
             "operator.export_csv", "public.find_player",
             "calls.call_state", "public.me_call"}  # files, JSON and redirects, not pages


class _Text(__import__("html.parser").parser.HTMLParser):
    """What a reader sees or hears: text, the attributes that are read out or
    shown, and the strings of JSON blocks the page's scripts show."""
    SPOKEN = ("title", "aria-label", "placeholder", "alt", "data-confirm", "data-label")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip, self.json = [], 0, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style"):
            self.skip += 1
            self.json = tag == "script" and attrs.get("type") == "application/json"
        for name in self.SPOKEN:
            if attrs.get(name):
                self.parts.append(attrs[name])
        if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
            self.parts.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
            self.json = False

    def handle_data(self, data):
        if self.json:
            import json

            def strings(v):
                if isinstance(v, str):
                    yield v
                elif isinstance(v, dict):
                    for x in v.values():
                        yield from strings(x)
                elif isinstance(v, list):
                    for x in v:
                        yield from strings(x)
            try:
                self.parts.extend(strings(json.loads(data)))
            except ValueError:
                pass
        elif not self.skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return "\n".join(" ".join(x.split()) for x in p.parts if x.strip())


def english_in(text: str, english_msgids) -> list[str]:
    """Lines of `text` with an English function word or a whole English message."""
    import re

    found = []
    for line in text.split("\n"):
        line = re.sub(r"(https?://|/s/)\S+", " ", line)  # links: a signed token may spell "We"
        # whole words ("Dušan" holds no "an"), codes such as the receipt TVHM-IT47 left out
        words = {w.lower() for w in re.findall(r"[^\W\d_]+", line) if not w.isupper()}
        if words & ENGLISH_WORDS or any(m in line for m in english_msgids):
            found.append(line)
    return found


# identifiers the code passes around, never words for a reader: "round-1", "standings" as a whole cell
RAW_VALUE = re.compile(r"^(?:[a-z]+(?:-[a-z0-9]+)+|standings|projector|seating)$")


def raw_values_in(text: str) -> list[str]:
    """Lines of `text` that are a raw value (a published head's place, a state key) instead of a word."""
    return [line for line in text.split("\n") if RAW_VALUE.match(line.strip())]


@pytest.fixture
def venue(app):
    """A demo venue with a tournament in each state: being prepared, drawn (draft),
    the demo (rounds 1-2 closed just now, round 3 running, a discrepancy report
    and a phone dispute for the referee), and finished."""
    from tests.helpers import issue_pins, make_tournament, play_round, signed_submission
    from webapp.demo.seed import create_demo
    from webapp.extensions import db
    from webapp.models import Tournament
    from webapp.services import calls, cases, rounds

    with app.app_context():
        demo, _login = create_demo(45)
        db.session.commit()
    setup = make_tournament(app, 9, name="SEM 6 - Žilina")
    draft = make_tournament(app, 9, name="SEM 7 - Levice")
    with app.app_context():
        rounds.draw_round(db.session.get(Tournament, draft), "test")
        db.session.commit()
    finished = make_tournament(app, 9, name="SEM 8 - Nitra")
    for seed in range(1, 12):
        with app.app_context():
            if db.session.get(Tournament, finished).status == "finished":
                break
        play_round(app, finished, seed=seed)
    pins = issue_pins(app, demo)
    with app.app_context():
        t = db.session.get(Tournament, demo)
        r2 = t.rounds[1]
        tab = r2.tables[0]
        cases.report_discrepancy(t, tab.players[0], tab.number, 2, "Moja suma je 12,50.", referee="Rozhodca")
        r3 = t.rounds[2]
        missing = [x.number for x in r3.tables if x.sheet is None]
        calls.place_call(t, 3, missing[-1], "Karty")  # a table calling a referee: the queue and the call page
        db.session.commit()
    client = app.test_client()
    for sums in ([1000, 1200, 800], [1100, 1100, 800]):  # two phones, two different sheets: a dispute
        client.post("/api/v1/sheets", json=signed_submission(app, demo, 3, missing[0], sums, pins))
    return {"demo": demo, "setup": setup, "draft": draft, "finished": finished}


def _urls(app, tids) -> list[str]:
    """Every GET page of the app, filled in for each tournament."""
    from webapp.extensions import db
    from webapp.models import Case, RefereeCall, Tournament, User
    from webapp.services.rounds import next_round_number
    from webapp.services.tokens import table_token

    urls = []
    with app.app_context(), app.test_request_context():
        from flask import url_for

        users = db.session.scalars(db.select(User.id)).all()
        case_ids = db.session.scalars(db.select(Case.id)).all()
        for rule in app.url_map.iter_rules():
            if "GET" not in rule.methods or rule.endpoint in NOT_PAGES:
                continue
            args = set(rule.arguments)
            if not args & {"tid", "token"}:
                choices = [{}]
                if "uid" in args:
                    choices = [{"uid": u} for u in users]
                elif "cid" in args:
                    choices = [{"cid": c} for c in case_ids]
                elif "call_id" in args:
                    choices = [{"call_id": c} for c in db.session.scalars(db.select(RefereeCall.id))]
                elif args:
                    raise AssertionError(f"{rule.rule}: the page sweep does not know how to fill {args}")
                urls += [url_for(rule.endpoint, **c) for c in choices]
                continue
            for tid in tids:
                t = db.session.get(Tournament, tid)
                numbers = [r.number for r in t.rounds] + [next_round_number(t)]
                p = t.players[0]
                known = {"tid": tid, "pid": p.id, "start_no": p.start_no, "table": 1}
                unknown = args - set(known) - {"n", "token"}
                assert not unknown, f"{rule.rule}: the page sweep does not know how to fill {unknown}"
                if "token" in args:
                    urls += [url_for(rule.endpoint, token=table_token(tid, r.number, 1))
                             for r in t.rounds if r.status != "draft"]
                elif "n" in args:
                    urls += [url_for(rule.endpoint, n=n, **{k: v for k, v in known.items() if k in args})
                             for n in numbers]
                else:
                    urls.append(url_for(rule.endpoint, **{k: v for k, v in known.items() if k in args}))
    return sorted(set(urls))


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the words do not depend on the database
@pytest.mark.parametrize("lang", ["sk", "cs", "ru"])
def test_every_page_renders_without_english_in_slovak_czech_and_russian(app, venue, lang):
    """In every language (Russian too, TH-6): every page of the app (operator, referee, public, the table page,
    sign-in, with a tournament in each state), the extensions' messages (Flask-Login,
    WTForms) and the objection-window step render with no English word and no raw value
    ("round-1", "standings": where a published head was shown, on the record check)."""
    from babel.messages.pofile import read_po

    from tests.helpers import login
    from webapp.demo.seed import DEMO_ADMIN, DEMO_REFEREE

    root = Path(__file__).resolve().parents[2]
    catalog = read_po((root / f"webapp/translations/{lang}/LC_MESSAGES/messages.po").open("rb"))
    english = {m.id for m in catalog if isinstance(m.id, str) and m.string != m.id and len(m.id.split()) >= 3
               and "%" not in m.id}
    urls = _urls(app, venue.values())
    problems = {}

    def check(label, response):
        assert response.status_code < 500, (label, response.status_code)
        if response.mimetype == "text/html":
            shown = visible_text(response.get_data(as_text=True))
            found = english_in(shown, english) + raw_values_in(shown)
            if found:
                problems[label] = found[:3]

    anon, staff, referee = app.test_client(), app.test_client(), app.test_client()
    for c in (anon, staff, referee):
        c.set_cookie("lang", lang)
    check("GET /operator/ (signed out)", anon.get("/operator/", follow_redirects=True))
    check("POST /login (empty)", anon.post("/login", data={}))
    check("POST /login (wrong)", anon.post("/login", data={"username": "admin", "password": "wrong-one"}))
    for url in urls:
        check(f"GET {url} (visitor)", anon.get(url, follow_redirects=True))
    login(staff, *DEMO_ADMIN)
    login(referee, *DEMO_REFEREE)
    for url in urls:
        check(f"GET {url} (admin)", staff.get(url, follow_redirects=True))
        if url.startswith("/referee"):
            check(f"GET {url} (referee)", referee.get(url, follow_redirects=True))
    from webapp.extensions import db
    from webapp.models import Tournament

    with app.app_context():
        v = db.session.get(Tournament, venue["setup"]).version
    check("POST draw, no players in", staff.post(f"/operator/t/{venue['setup']}/round/1/draw", data={"version": "0"}))
    check("POST player, empty form", staff.post(f"/operator/t/{venue['setup']}/players", data={"version": str(v)}))
    with app.app_context():
        v = db.session.get(Tournament, venue["draft"]).version
    r = staff.post(f"/operator/t/{venue['draft']}/round/1/swap", data={"a": "x", "b": "", "version": str(v)})
    assert r.status_code == 422 and 'class="error"' in r.get_data(as_text=True)  # WTForms' own messages
    check("POST swap, bad numbers", r)
    tid = venue["finished"]
    import tests.helpers as h

    closed = h.make_tournament(app, 9, name="SEM 9 - Senica")
    h.play_round(app, closed)
    with app.app_context():
        v = db.session.get(Tournament, closed).version
    r = staff.post(f"/operator/t/{closed}/round/2/draw", data={"version": str(v)})
    assert 'id="objection-window"' in r.get_data(as_text=True)
    check("POST draw in the objection window", r)
    assert len(urls) > 40 and tid
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


# --------------------------------------------------------------------------- the federation's pages, 500, CSV

@pytest.fixture
def federation_app(tmp_path):
    """A federation server: a SEM season with a roster of every status and two tournaments
    received (one pushed by a venue, one imported by hand), and a staff account."""
    from tests.helpers import make_season
    from webapp import create_app
    from webapp.extensions import db
    from webapp.models import RosterEntry, Season, SeasonTournament, User

    app = create_app({"TESTING": True, "SECRET_KEY": "fed-i18n", "WTF_CSRF_ENABLED": False,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'fed.db'}", "LISTOK_ROLE": "federation"})
    with app.app_context():
        db.create_all()
    sid, _venue = make_season(app, 2)
    with app.app_context():
        for k, status in enumerate(("registered", "licensed", "guest", "rejected")):
            db.session.add(RosterEntry(season_id=sid, reg_id=f"R{k}", name=f"Hráč {k}", status=status))
        received = db.session.scalars(db.select(SeasonTournament).order_by(SeasonTournament.id)).all()
        received[0].source = "push"  # as a venue's `listok push` stores it
        staff = User(username="staff", role="federation", federation_id=db.session.get(Season, sid).federation_id,
                     display_name="Staff")
        staff.set_password("secret-pass")
        db.session.add(staff)
        db.session.commit()
    yield app, sid
    with app.app_context():
        db.engine.dispose()


@pytest.mark.parametrize("lang", ["sk", "cs", "ru"])
def test_federation_pages_show_rule_sets_statuses_and_sources_in_the_language(federation_app, lang):
    """The rule-set picker and the seasons name rule sets in the reader's language (not
    BBLIGA, CSM, SEM …), the roster's statuses and a tournament's source are translated,
    and no English is left on the federation's and the public season pages."""
    from flask_babel import gettext, lazy_gettext

    from tests.helpers import login
    from webapp.rules.ruleset import REGISTRY

    app, sid = federation_app
    client = app.test_client()
    assert login(client, "staff").status_code == 302
    pages = {url: visible_text(client.get(f"{url}?lang={lang}").get_data(as_text=True))
             for url in ("/federation/", f"/federation/seasons/{sid}", "/seasons/", f"/seasons/{sid}/")}
    for url, text in pages.items():
        assert english_in(text, ()) == [], (lang, url)
    with app.test_request_context(f"/?lang={lang}"):
        titles = [gettext(rs.title_en) for rs in REGISTRY.values()]
        statuses = [str(lazy_gettext(w)) for w in ("registered", "licensed", "guest", "rejected")]
        sources = [gettext("sent by the venue"), gettext("imported by hand")]
    picker = pages["/federation/"]
    assert all(title in picker for title in titles)
    assert not any(line.strip() in {code.upper() for code in REGISTRY} for line in picker.split("\n"))
    season = pages[f"/federation/seasons/{sid}"]
    assert all(w in season for w in statuses + sources) and "· push" not in season
    assert "registered" not in season.split() and "guest" not in season.split()


def test_rule_set_title_on_english_and_russian_pages(app):
    from tests.helpers import login, make_tournament, make_user

    tid = make_tournament(app, 9)
    make_user(app, "op", role="operator")
    client = app.test_client()
    login(client, "op")
    en = client.get(f"/operator/t/{tid}?lang=en").get_data(as_text=True)
    ru = client.get(f"/operator/t/{tid}?lang=ru").get_data(as_text=True)
    assert "Slovak Mariáš Extraliga" in en and "Slovenská extraliga" not in en
    assert "Словацкая экстралига по марьяжу" in ru and "Slovenská extraliga" not in ru


@pytest.mark.parametrize("lang, title", [("sk", "Niečo sa pokazilo"), ("cs", "Něco se pokazilo"),
                                         ("en", "Something went wrong"), ("ru", "Что-то пошло не так")])
@pytest.mark.own_app
def test_the_500_page_is_in_the_visitors_language(app, lang, title):
    app.config["PROPAGATE_EXCEPTIONS"] = False

    def boom():
        raise RuntimeError("a bug")

    app.add_url_rule("/boom", "boom", boom)
    r = app.test_client().get("/boom", headers={"Accept-Language": lang})
    html = r.get_data(as_text=True)
    assert r.status_code == 500 and f'lang="{lang}"' in html and title in html
    if lang != "en":
        assert english_in(visible_text(html), ("Internal Server Error",)) == []


@pytest.mark.parametrize("lang, sign, header", [("sk", ",", "Body"), ("cs", ",", "Body"), ("en", ".", "Points"),
                                                ("ru", ",", "Очки")])
def test_season_csv_headers_and_numbers_in_the_language(federation_app, lang, sign, header):
    """The English CSV writes 144.00 as the English page does; Slovak, Czech and Russian 144,00."""
    import csv
    import io

    app, sid = federation_app
    r = app.test_client().get(f"/seasons/{sid}/players.csv", headers={"Accept-Language": lang})
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert header in rows[0]
    numbers = [cell for row in rows[1:] for cell in row if any(ch.isdigit() for ch in cell)
               and ("." in cell or "," in cell)]
    assert numbers and all(sign in cell and ({".", ","} - {sign}).isdisjoint(cell) for cell in numbers)


@pytest.mark.parametrize("lang, title", [("sk", "Tisíc (Тысяча)"), ("cs", "Tisíc (Тысяча)"),
                                         ("en", "Thousand (Тысяча)"), ("ru", "Тысяча")])
def test_th_the_thousand_is_named_by_the_games_own_name_in_every_language(app, lang, title):
    from flask_babel import force_locale

    from webapp.i18n import ruleset_title

    with app.test_request_context(), force_locale(lang):
        assert ruleset_title("thousand") == title


# --------------------------------------------------------------------------- the engine's refusals


def _inconsistent_file() -> bytes:
    """A SEM file whose round 1 table 2 totals one euro too much."""
    import json

    d = json.loads((Path(__file__).resolve().parents[1] / "data/sem27_poprad_r3.json").read_text("utf-8"))
    sums = d["rounds"][0]["tables"][1]["sums"]
    sums[0] = str(Decimal(str(sums[0])) + 1)
    return json.dumps(d).encode()


@pytest.mark.parametrize("lang, says", [
    ("ru", "тур 1, стол 2: суммы дают в итоге"), ("cs", "kolo 1, stůl 2: součty dávají dohromady"),
    ("sk", "kolo 1, stôl 2: sumy dávajú spolu"),
    ("en", "round 1, table 2: the sums total"),
])
def test_an_inconsistent_file_is_refused_in_the_pages_language(op, lang, says):
    from html import unescape
    from io import BytesIO

    op.set_cookie("lang", lang)
    r = op.post("/operator/import", data={"file": (BytesIO(_inconsistent_file()), "poprad.json")},
                content_type="multipart/form-data")
    assert r.status_code == 422
    page = unescape(r.get_data(as_text=True))
    assert says in page, page
    if lang != "en":
        assert "the sums total" not in page and "the table total" not in page
        assert re.search(r"\d,00", page)  # the locale's decimal sign in the amounts


def test_engine_texts_keep_the_english_line(app):
    """str() of an engine error stays the English line other tools read (EXCHANGE.md)."""
    from webapp.rules.exchange import ExchangeError, loads
    from webapp.services.rule_texts import engine_text

    with pytest.raises(ExchangeError) as e:
        loads(_inconsistent_file(), "poprad.json")
    assert str(e.value).startswith("poprad.json: round 1, table 2: the sums total ")
    with app.test_request_context("/?lang=en"):
        assert engine_text(e.value) == str(e.value)


def _edited_file(change, source: str = "sem27_poprad_r3.json") -> bytes:
    import json

    d = json.loads((Path(__file__).resolve().parents[1] / "data" / source).read_text("utf-8"))
    change(d)
    return json.dumps(d).encode()


@pytest.mark.parametrize("change, source, english, says", [
    (lambda d: d["players"][2].pop("start_no"), "sem27_poprad_r3.json", 'player 3 in the list: missing "start_no"',
     {"ru": 'игрок 3 в списке: нет "start_no"', "cs": 'hráč 3 v seznamu: chybí "start_no"'}),
    (lambda d: d["rounds"][0]["tables"][0].update(players="1"), "sem27_poprad_r3.json", "must be a list",
     {"ru": '"players": ожидается список, а не строка', "cs": '"players" musí být seznam, ne text'}),
    (lambda d: d["players"][0].update(from_round=3), "thousand13.json", "a late entry is accepted",
     {"ru": "опоздавший принимается только после 1-го тура", "cs": "pozdní vstup se přijímá jen po 1. kole"}),
])
@pytest.mark.parametrize("lang", ["ru", "cs"])
def test_a_malformed_file_is_refused_in_the_pages_language(op, change, source, english, says, lang):
    from html import unescape
    from io import BytesIO

    op.set_cookie("lang", lang)
    r = op.post("/operator/import", data={"file": (BytesIO(_edited_file(change, source)), "bad.json")},
                content_type="multipart/form-data")
    assert r.status_code == 422
    page = unescape(r.get_data(as_text=True))
    assert says[lang] in page and english not in page, page


@pytest.mark.parametrize("lang, says", [("ru", "тур 3: нет результатов туров 1, 2"),
                                        ("cs", "kolo 3: chybí výsledky kol 1, 2"),
                                        ("en", "round 3: the results of rounds 1, 2 are missing")])
def test_a_draw_refusal_without_a_code_in_the_pages_language(app, lang, says):
    from flask_babel import force_locale

    from webapp.rules.exchange import loads
    from webapp.rules.field import DrawError
    from webapp.rules.seating import draw
    from webapp.services.rounds import draw_error_text

    t = loads(_edited_file(lambda d: d.update(rounds=[])), "r.json")
    with pytest.raises(DrawError) as e:
        draw(t, 3)
    assert e.value.code is None
    with app.test_request_context(), force_locale(lang):
        assert draw_error_text(e.value) == says


@pytest.mark.parametrize("lang, says", [("ru", "уже есть здесь как турнир"), ("cs", "tu už je jako turnaj"),
                                        ("sk", "tu už je ako turnaj")])
def test_a_tournament_imported_twice_is_refused_in_the_pages_language(op, lang, says):
    from html import unescape
    from io import BytesIO

    op.set_cookie("lang", lang)
    data = (Path(__file__).resolve().parents[1] / "data/sem27_poprad_r3.json").read_bytes()
    first = op.post("/operator/import", data={"file": (BytesIO(data), "poprad.json")},
                    content_type="multipart/form-data")
    assert first.status_code in (302, 303), first.status_code
    again = op.post("/operator/import", data={"file": (BytesIO(data), "poprad.json")},
                    content_type="multipart/form-data")
    page = unescape(again.get_data(as_text=True))
    assert again.status_code == 422 and says in page and "is here already" not in page, page


@pytest.mark.parametrize("lang, win", [("ru", "1\u00a0000"), ("cs", "1\u00a0000"), ("sk", "1\u00a0000"),
                                       ("en", "1,000")])
def test_th3_the_win_is_grouped_by_locale_in_the_refusals(app, lang, win):
    """The Thousand's 1000 reads as the page writes numbers, on the page and in the listok command."""
    from flask_babel import force_locale

    from webapp.cli.base import cli_catalog
    from webapp.rules.ruleset import Problem
    from webapp.services.rule_texts import engine_text, problem_text

    problem = Problem("the table ended by a win but nobody reached 1000 (TH-3)", "win-without-winner", win=1000)
    with app.test_request_context(), force_locale(lang):
        assert f" {win} " in problem_text(problem)
    if lang != "en":  # one line for a terminal: the no-break space becomes a space
        assert f" {win.replace(chr(0xa0), ' ')} " in engine_text(problem, cli_catalog(lang), lang)


def test_th3_the_paper_sheets_say_the_win_grouped_in_their_language(app, op):
    from tests.helpers import text
    from tests.web.test_thousand_server import open_next, unrated

    tid = unrated(app, "thousand", 9)
    open_next(app, tid)
    page = text(op.get(f"/operator/t/{tid}/round/1/sheets"))
    assert "Победитель (набрал 1\u00a0000)" in page and "1000" not in page, page
