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
