"""Money and points in the locale's format; the language switch is remembered."""
from decimal import Decimal

import pytest
from babel.numbers import format_currency, format_decimal

from webapp import i18n


@pytest.mark.parametrize("lang", ["sk", "cs", "en"])
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


def test_slovak_is_the_default(client):
    assert '<html lang="sk">' in client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)


def test_catalogs_cover_every_string(tmp_path):
    """Slovak (the default) and Czech translate every string the code and templates use,
    with the same placeholders."""
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
    for lang in ("sk", "cs"):
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
