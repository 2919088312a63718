"""The record check (`listok verify` and the operator's page) speaks the reader's language: every
finding and where it is, the published places in words ("Standings published after round 1", never the
stored key "round-1" or "standings"), in Slovak, Czech, English and Russian."""
from __future__ import annotations

import html
import re

import pytest
from sqlalchemy import delete

from tests.helpers import make_tournament, play_round, text
from tests.web.test_chain import SHEETS, sheet_of, sql
from webapp.models import PublishedHead

# language: (LANG, words the findings must use, English words that must not be left)
LANGS = {
    "sk": ("sk_SK.UTF-8", ["turnaj", "bol zverejnený", "Poradie zverejnené po 1. kole", "stav sa líši"]),
    "cs": ("cs_CZ.UTF-8", ["turnaj", "byl zveřejněn", "stav se liší"]),
    "en": ("en_GB.UTF-8", ["tournament", "was published", "Standings published after round 1", "status differs"]),
    "ru": ("ru_RU.UTF-8", ["турнир", "была опубликована", "статус различается"]),
}
ENGLISH = re.compile(r"\b(the|was|published|chain|record|records|sheet|version|differs|database|deleted|"
                     r"tournament|round|table|status|standings|projector)\b")
RAW_KEYS = re.compile(r"round-\d|\(standings[,)]|\(projector[,)]|\((sheet|round|head|player|tournament)\.\w+\)|"
                      r"\b(round_table|start_no) id\b")


@pytest.fixture
def tampered(app):
    """Two rounds played, then behind Listok's back: every published head deleted, a sheet's status changed."""
    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    play_round(app, tid, seed=2)
    sid, _seq = sheet_of(app, tid, 2, 1)
    sql(app, delete(PublishedHead.__table__), SHEETS.update().where(SHEETS.c.id == sid).values(status="rejected"))
    return tid


def visible(body: str) -> str:
    body = re.sub(r"<script.*?</script>|<style.*?</style>|<header.*?</header>", " ", body, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_listok_verify_lines_are_in_the_environments_language(app, tampered, lang):
    env, words = LANGS[lang]
    result = app.test_cli_runner().invoke(args=["listok", "verify", "--tournament", str(tampered)],
                                          env={"LANG": env, "LC_ALL": None, "LC_MESSAGES": None, "LANGUAGE": None})
    assert result.exit_code == 1
    out = result.output
    for w in words:
        if "Standings published" not in w and "Poradie zverejnené" not in w:
            assert w in out, (w, out)
    assert not RAW_KEYS.search(out), out
    if lang != "en":
        assert not ENGLISH.search(out), out
    else:
        assert f"tournament {tampered}, round 2, table 1: sheet version 1: status differs" in out, out


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_record_check_page_is_in_the_pages_language(app, op, tampered, lang):
    _env, words = LANGS[lang]
    op.set_cookie("lang", lang)
    page = visible(text(op.get(f"/operator/t/{tampered}/verify")))
    problems = page.split("<", 1)[0]
    for w in words:
        if w in ("turnaj", "tournament", "турнир"):
            continue  # the page names the round and table itself, not the tournament
        assert w in problems, (w, problems)
    assert not RAW_KEYS.search(problems), problems
    if lang != "en":
        findings = re.findall(r"(?:Round|Kolo|kolo|Тур|тур) .*?", problems)
        assert findings
        assert not ENGLISH.search(problems.split("Listok", 1)[-1]), problems


@pytest.mark.parametrize("lang, says", [("ru", "регистрационный id"), ("cs", "registrační id"),
                                        ("sk", "registračné id"), ("en", "registration id")])
def test_a_changed_column_is_named_in_words(app, lang, says):
    """A row finding names the column in words, never by its database name (reg_id)."""
    from sqlalchemy import update

    from webapp.models import Player

    tid = make_tournament(app, 9)
    play_round(app, tid, seed=1)
    sql(app, update(Player.__table__).where(Player.__table__.c.tournament_id == tid,
                                            Player.__table__.c.start_no == 1).values(reg_id="X-1"))
    result = app.test_cli_runner().invoke(args=["listok", "verify", "--tournament", str(tid)],
                                          env={"LANG": LANGS[lang][0], "LC_ALL": None, "LC_MESSAGES": None,
                                               "LANGUAGE": None})
    assert result.exit_code == 1 and says in result.output and "reg_id" not in result.output, result.output
