"""The server's `listok` commands speak the environment's language (LANGUAGE, LC_ALL,
LC_MESSAGES, LANG: sk, cs, en, ru; English otherwise), with each command's own wording,
and the federation's reasons come back in that language too."""
from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from webapp.cli import main
from webapp.cli.base import cli_locale

KEY = "cli-i18n-test-secret-0123456789abcdef"


def _env(tmp_path, lang: str, **extra) -> dict:
    return {"LANG": lang, "LC_ALL": None, "LC_MESSAGES": None, "LANGUAGE": None, "LISTOK_ENV": None,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'venue.db'}", "LISTOK_SECRET_KEY": KEY, **extra}


@pytest.mark.parametrize("env, expected", [
    ({"LANG": "sk_SK.UTF-8"}, "sk"),
    ({"LANG": "cs_CZ.UTF-8"}, "cs"),
    ({"LANG": "ru_RU.UTF-8"}, "ru"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({}, "en"),
    ({"LANG": "sk_SK.UTF-8", "LC_ALL": "ru_RU.UTF-8"}, "ru"),  # LC_ALL before LANG
    ({"LANG": "sk_SK.UTF-8", "LC_MESSAGES": "cs_CZ.UTF-8"}, "cs"),
    ({"LANG": "de_DE.UTF-8", "LANGUAGE": "de:cs:en"}, "cs"),  # GNU's list: the first Listok speaks
    ({"LANG": "C", "LANGUAGE": "sk"}, "en"),  # the C locale turns LANGUAGE off, as in gettext
])
def test_language_from_the_environment(monkeypatch, env, expected):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli_locale() == expected


DOWNLOAD_UNREACHABLE = {
    "sk_SK.UTF-8": "nič sa nestiahlo",
    "cs_CZ.UTF-8": "nic se nestáhlo",
    "en_US.UTF-8": "nothing was downloaded",
    "ru_RU.UTF-8": "ничего не загружено",
    "de_DE.UTF-8": "nothing was downloaded",
}


@pytest.mark.parametrize("lang", DOWNLOAD_UNREACHABLE)
def test_season_download_unreachable_in_the_environments_language_with_its_own_wording(tmp_path, lang):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = CliRunner().invoke(main, ["season-download", "--from", f"http://127.0.0.1:{port}", "--season", "1",
                                  "--token", "t"], env=_env(tmp_path, lang, LISTOK_FEDERATION_INSECURE="1"))
    assert r.exit_code == 2
    warning, line = r.stderr.strip().splitlines()  # --insecure warns first
    assert "--insecure" in warning and (lang.startswith(("en", "de")) or "warning" not in warning)
    assert line.startswith("listok: ") and DOWNLOAD_UNREACHABLE[lang] in line
    # not the push's advice ("nothing was sent … export the file")
    assert all(w not in line for w in ("nothing was sent", "nič sa neodoslalo", "exportujte", "export the file"))


@pytest.fixture
def federation(tmp_path):
    from tests.helpers import served
    from webapp import create_app
    from webapp.extensions import db

    app = create_app({"SECRET_KEY": "fed", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'fed.db'}",
                      "LISTOK_ROLE": "federation"})
    with app.app_context():
        db.create_all()
    with served(app) as (url, _server):
        yield url
    with app.app_context():
        db.engine.dispose()


@pytest.mark.parametrize("lang, says", [
    ("ru_RU.UTF-8", "этот токен не принадлежит ни одной площадке"),
    ("sk_SK.UTF-8", "tento token nepatrí žiadnemu miestu konania"),
    ("cs_CZ.UTF-8", "tento token nepatří žádnému místu konání"),
    ("en_US.UTF-8", "no venue has this token"),
])
def test_federation_refusal_reason_in_the_same_language(tmp_path, federation, lang, says):
    r = CliRunner().invoke(main, ["season-download", "--from", federation, "--season", "1", "--token", "wrong"],
                           env=_env(tmp_path, lang, LISTOK_FEDERATION_INSECURE="1"))
    assert r.exit_code == 2 and "401" in r.stderr and says in r.stderr, r.stderr
    if not lang.startswith("en"):
        assert "no venue has this token" not in r.stderr and "refused" not in r.stderr


@pytest.mark.parametrize("lang, says", [
    ("sk_SK.UTF-8", "je obsadený"), ("cs_CZ.UTF-8", "je obsazený"), ("en_US.UTF-8", "is in use"),
    ("ru_RU.UTF-8", "занят"),
])
def test_busy_port_and_demo_refusal_in_four_languages(tmp_path, lang, says):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = CliRunner().invoke(main, ["serve", "--port", str(port)], env=_env(tmp_path, lang))
    assert r.exit_code == 2 and says in r.stderr and str(port) in r.stderr and len(r.stderr.splitlines()) == 1
    demo = CliRunner().invoke(main, ["demo"], env=_env(tmp_path, lang))
    refusal = {"sk": "demo odmietnuté", "cs": "demo odmítnuto", "en": "refusing the demo", "ru": "демо отклонено"}
    assert demo.exit_code == 2 and refusal[lang[:2]] in demo.stderr and "--force venue.db" in demo.stderr


ENGINE_REFUSAL = {
    "sk_SK.UTF-8": "kolo 1, stôl 2: sumy dávajú spolu 31,00, stôl musí dať 30,00",
    "cs_CZ.UTF-8": "kolo 1, stůl 2: součty dávají dohromady 31,00, stůl musí dát 30,00",
    "ru_RU.UTF-8": "тур 1, стол 2: суммы дают в итоге 31,00, итог стола должен быть 30,00",
    "de_DE.UTF-8": "round 1, table 2: the sums total 31.00, the table total must be 30.00",
    "": "round 1, table 2: the sums total 31.00, the table total must be 30.00",
}


@pytest.mark.parametrize("lang", ENGINE_REFUSAL)
def test_engine_refusals_in_the_environments_language_english_without_lang(tmp_path, lang):
    import json
    from decimal import Decimal
    from pathlib import Path

    d = json.loads((Path(__file__).parent / "data/sem27_poprad_r3.json").read_text("utf-8"))
    sums = d["rounds"][0]["tables"][1]["sums"]
    sums[0] = str(Decimal(str(sums[0])) + 1)
    path = tmp_path / "poprad.json"
    path.write_text(json.dumps(d), "utf-8")
    r = CliRunner().invoke(main, ["standings", str(path)], env=_env(tmp_path, lang or None))
    assert r.exit_code == 2
    assert r.stderr == f"listok: {path}: {ENGINE_REFUSAL[lang]}\n", r.stderr


def _file(tmp_path, name: str, change=None, source: str = "sem27_poprad.json") -> str:
    import json
    from pathlib import Path

    d = json.loads((Path(__file__).parent / "data" / source).read_text("utf-8"))
    if change is not None:
        change(d)
    path = tmp_path / name
    path.write_text(json.dumps(d, ensure_ascii=False), "utf-8")
    return str(path)


def _refusal(tmp_path, lang: str, *args) -> str:
    r = CliRunner().invoke(main, [str(a) for a in args], env=_env(tmp_path, lang))
    assert r.exit_code == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r.output
    return r.stderr


def _same_tournament(tmp_path):
    a = _file(tmp_path, "a.json")
    return a, _file(tmp_path, "b.json")


FILE_REFUSALS = [
    # the reader's shape messages and the place "player N in the list"
    (lambda p: ("standings", _file(p, "x.json", lambda d: d["players"][2].pop("start_no"))),
     {"ru": 'игрок 3 в списке: нет "start_no"', "cs": 'hráč 3 v seznamu: chybí "start_no"',
      "sk": 'hráč 3 v zozname: chýba "start_no"'}, 'player 3 in the list: missing "start_no"'),
    (lambda p: ("rating", _file(p, "x.json", lambda d: d["players"].__setitem__(0, "A"))),
     {"ru": "игрок 1 в списке: игрок: ожидается объект, а не строка", "cs": "hráč 1 v seznamu: hráč musí být objekt",
      "sk": "hráč 1 v zozname: hráč musí byť objekt, nie text"}, "a player must be an object"),
    (lambda p: ("standings", str(p / "nope.json")),
     {"ru": "nope.json: нет такого файла", "cs": "nope.json: soubor neexistuje", "sk": "nope.json: súbor neexistuje"},
     "no such file"),
    # season files (check_season_files), the report's refusals and the nominations (season.py)
    (lambda p: ("season", *_same_tournament(p)),
     {"ru": "один и тот же турнир ('SEM 1 - Poprad' от 2026-01-17): каждый турнир считается один раз",
      "cs": "jsou tentýž turnaj ('SEM 1 - Poprad' z 2026-01-17): každý turnaj se počítá jednou",
      "sk": "sú ten istý turnaj ('SEM 1 - Poprad' z 2026-01-17): každý turnaj sa počíta raz"}, "are the same tournament"),
    (lambda p: ("draw", _file(p, "r.json"), "--round", 7),
     {"ru": "тура 7 нет: в правилах 'sem' туры 1..6", "cs": "kolo 7 neexistuje: pravidla 'sem' mají kola 1..6",
      "sk": "kolo 7 neexistuje: pravidlá 'sem' majú kolá 1..6"}, "does not exist"),
    (lambda p: ("standings", _file(p, "r.json"), "--after-round", 9),
     {"ru": "нельзя дать таблицу после тура 9: в файле туры 1..6", "cs": "pořadí po 9. kole nelze dát: soubor má kola 1..6",
      "sk": "poradie po 9. kole sa nedá dať: súbor má kolá 1..6"}, "cannot give standings"),
    (lambda p: ("standings", _file(p, "n.json", lambda d: [x.update(nominated=x["start_no"] <= 5)
                                                            for x in d["players"]])),
     {"ru": "в клубе 'MK Poprad' присутствуют 13 игроков, номинировано 5: нужно номинировать ровно 10",
      "cs": "klub 'MK Poprad' má přítomných 13 hráčů a nominoval 5: musí nominovat přesně 10",
      "sk": "klub 'MK Poprad' má prítomných 13 hráčov a nominoval 5: musí nominovať presne 10"}, "must nominate"),
    (lambda p: ("rating", _file(p, "t.json", lambda d: [x.pop("id") for x in d["players"]]
                                and d["players"][1].update(name=d["players"][0]["name"]))),
     {"ru": "указан дважды; дайте игрокам разные id", "cs": "je uveden dvakrát; dejte hráčům různá id",
      "sk": "je uvedený dvakrát; dajte hráčom rôzne id"}, "is listed twice"),
    # a draw refusal without a code
    (lambda p: ("draw", _file(p, "w.json", lambda d: (d["players"].append({"start_no": 10, "name": "Zeman Rudolf"}),
                                                      d.update(rounds=[])), "worked_example.json"), "--round", 1),
     {"ru": "тур 1: 10 игроков нельзя рассадить за столы по 3: добавьте 2 игрока или снимите 1",
      "cs": "kolo 1: 10 hráčů nelze rozsadit ke stolům po 3: přidejte 2 hráče nebo odhlaste 1",
      "sk": "kolo 1: 10 hráčov sa nedá rozsadiť za stoly po 3: pridajte 2 hráčov alebo odhláste 1"},
     "cannot be seated"),
    # the Thousand's whole-file check (TH-2, TH-5)
    (lambda p: ("standings", _file(p, "th.json", lambda d: d["players"][0].update(from_round=3),
                                   "thousand13.json")),
     {"ru": "опоздавший принимается только после 1-го тура, а не с тура 3 (TH-5)",
      "cs": "pozdní vstup se přijímá jen po 1. kole, ne od kola 3 (TH-5)",
      "sk": "neskorý vstup sa prijíma len po 1. kole, nie od kola 3 (TH-5)"}, "a late entry is accepted"),
]


@pytest.mark.parametrize("case", range(len(FILE_REFUSALS)))
@pytest.mark.parametrize("lang", ["ru_RU.UTF-8", "cs_CZ.UTF-8", "sk_SK.UTF-8", ""])
def test_file_and_season_refusals_in_the_environments_language(tmp_path, case, lang):
    args, says, english = FILE_REFUSALS[case]
    line = _refusal(tmp_path, lang or None, *args(tmp_path))
    if lang:
        assert says[lang[:2]] in line and english not in line, line
    else:
        assert english in line, line
