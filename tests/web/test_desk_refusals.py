"""The results desk refuses a sheet in the page's language and the rule set's unit: SMU-2's Kč
total, CSM-2's whole ZB, TH-3's whole scores, SEM-C5's euros with the locale's decimal sign."""
from __future__ import annotations

import pytest

from tests.helpers import text
from tests.web.test_rulesets_web import make
from tests.web.test_thousand_server import open_next


def refuse(op, tid, rnd, table, form) -> str:
    r = op.post(f"/operator/t/{tid}/round/{rnd}/results/{table}", data={"sheet_version": "0", **form})
    assert r.status_code == 422, r.status_code
    return text(r).replace("\xa0", " ").replace("\u202f", " ")


@pytest.mark.parametrize("code,n,lang,form,says,never", [
    ("smu", 9, "cs", {"sum0": "1", "sum1": "0", "sum2": "0"},
     "Součet částek je 1,00 Kč, ne 0,00 Kč (SMU-2)", "€"),
    ("sem", 9, "sk", {"sum0": "11", "sum1": "10", "sum2": "10"}, "31,00 €", "31.00"),
    ("csm", 8, "cs", {"sum0": "abc", "sum1": "0", "sum2": "0", "sum3": "0",
                      "score0": "0", "score1": "0", "score2": "0", "score3": "0"},
     "ZB na pozici 1 není celé číslo.", "eurech"),
    ("thousand", 7, "ru", {"sum0": "x", "sum1": "0", "sum2": "0", "sum3": "0", "ended": "time"},
     "Очки партии на позиции 1 — не целое число.", "евро"),
])
def test_smu_2_csm_2_th_3_sem_c5_desk_refusals_in_the_locale_and_unit(app, op, code, n, lang, form, says, never):
    tid = make(app, code, n)
    rnd, _tabs = open_next(app, tid)
    op.set_cookie("lang", lang)
    body = refuse(op, tid, rnd, 1, form)
    assert says in body and never not in body
