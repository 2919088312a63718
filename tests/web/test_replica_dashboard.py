"""The operator's dashboard says where the replica stands (webapp/serve/replica.py, operator/_replica.html):
the last copied moment, a warning when it falls behind or stops, nothing without a replica."""
from __future__ import annotations

import json
import time

import pytest

from tests.helpers import make_tournament, text


@pytest.fixture
def instance(app, tmp_path):
    app.instance_path = str(tmp_path)
    return tmp_path


def _state(instance, **values):
    now = time.time()
    data = {"dest": "/media/usb/listok", "running": True, "last": now - 1, "lag": 0.0, "error": "", "written": now}
    data.update(values)
    (instance / "replica.json").write_text(json.dumps(data))


def test_no_replica_configured_shows_nothing(app, op, instance):
    tid = make_tournament(app, 9)
    for url in ("/operator/", f"/operator/t/{tid}"):
        page = text(op.get(url))
        assert 'id="replica"' not in page and "replica" not in page.lower()
    assert op.get("/operator/replica").get_data(as_text=True).strip() == ""


def test_a_replica_that_keeps_up_shows_its_last_copy(app, op, instance):
    _state(instance)
    tid = make_tournament(app, 9)
    page = text(op.get(f"/operator/t/{tid}"))
    assert "Replica: the database was last copied at" in page and "/media/usb/listok" in page
    assert 'hx-get="/operator/replica"' in page and "flash-success" in page


@pytest.mark.parametrize("values, words, kind", [
    ({"lag": 14.6}, "The replica is 14 s behind.", "flash-warning"),
    ({"running": False}, "The replica has stopped.", "flash-error"),
    ({"written": 0}, "The replica has stopped.", "flash-error"),  # nobody supervises it any more
    ({"last": None, "lag": None}, "has no copy yet", "flash-warning"),
])
def test_a_replica_behind_or_stopped_is_a_warning(op, instance, values, words, kind):
    _state(instance, **values)
    part = op.get("/operator/replica").get_data(as_text=True)
    assert words in part and kind in part


def test_the_warning_speaks_slovak(op, instance):
    _state(instance, running=False)
    op.set_cookie("lang", "sk")
    part = op.get("/operator/replica").get_data(as_text=True)
    assert "Replika sa zastavila." in part


def test_the_state_needs_an_operator(client, instance):
    _state(instance)
    r = client.get("/operator/replica")
    assert r.status_code in (302, 401, 403) and "/media/usb" not in r.get_data(as_text=True)
