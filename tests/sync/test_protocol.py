"""The sheet protocol's message shapes and canonical hash (docs/SYNC.md): pure, no app."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings, strategies as st

from webapp.sync.protocol import (
    MAX_DRAWING, MAX_NOTE, PROTOCOL, Content, ProtocolError, Submission, canonical, check_hashes, check_signed_by,
    content_hash, parse_pin_check, parse_submission)

EXAMPLE = {"protocol": "listok-sheet/1", "tournament": 7, "round": 3, "table": 12, "players": [41, 7, 103],
           "sums_cents": [1450, 1000, 550], "note": "", "base_version": 0}
# computed independently with Node: JSON.stringify of the key-sorted object, SHA-256 of its UTF-8 bytes
EXAMPLE_HASH = "09b53dcf23fc78021c4c61cc5991ffe185bde070b1b4802e2d49ebc793e5ed53"
TRICKY = {**EXAMPLE, "sums_cents": [-150, 2000, 1150], "base_version": 2,
          "note": 'Betl za 7 €, "zlý"\nkoniec\t\x01\u2028\\/ 😀'}
TRICKY_HASH = "efa4d366526f861cbd730c192f0da3da2c0951eb78497adb5321dea67bdf3e60"


def body(content=None, **over) -> dict:
    c = copy.deepcopy(content or EXAMPLE)
    h = content_hash(c)
    data = {"token": "tok.en", "idempotency_key": "3f1c2a9e-5b7d-4c1e-9a2b-0d4e6f8a1b2c", "content": c,
            "content_hash": h,
            "signatures": [{"start_no": s, "pin": "4821", "hash": h, "drawing": "M 1 2 L 3.5,4e1 c-1 -2 3 4 z",
                            "signed_at": "2026-03-14T10:51:02Z"} for s in c["players"]]}
    data.update(over)
    return data


def error(data) -> ProtocolError:
    with pytest.raises(ProtocolError) as e:
        parse_submission(data)
    return e.value


# --------------------------------------------------------------------------- canonical form


def test_canonical_form_is_sorted_compact_utf8():
    assert canonical(EXAMPLE) == (b'{"base_version":0,"note":"","players":[41,7,103],"protocol":"listok-sheet/1",'
                                  b'"round":3,"sums_cents":[1450,1000,550],"table":12,"tournament":7}')
    assert content_hash(EXAMPLE) == EXAMPLE_HASH


def test_canonical_form_keeps_non_ascii_and_escapes_like_javascript():
    raw = canonical(TRICKY)
    assert "7 €".encode() in raw and "zlý".encode() in raw and "😀".encode() in raw
    assert b'\\"zl' in raw and b"\\n" in raw and b"\\t" in raw and b"\\u0001" in raw
    assert "\u2028".encode() in raw  # not escaped, as JSON.stringify does not either
    assert content_hash(TRICKY) == TRICKY_HASH


def test_key_order_of_the_input_does_not_matter():
    assert content_hash(dict(reversed(list(EXAMPLE.items())))) == EXAMPLE_HASH


def test_content_dataclass_round_trips_to_the_same_hash():
    sub = parse_submission(body(TRICKY))
    assert sub.content.as_dict() == TRICKY
    assert sub.content.hash == TRICKY_HASH == sub.content_hash
    assert sub.content.negative and not parse_submission(body()).content.negative


# --------------------------------------------------------------------------- parsing


def test_a_good_submission_parses():
    data = body(extra_top_level="later phones may send more")
    sub = parse_submission(data)
    assert isinstance(sub, Submission)
    assert sub.content == Content(tournament=7, round=3, table=12, players=(41, 7, 103),
                                  sums_cents=(1450, 1000, 550), note="", base_version=0, protocol=PROTOCOL)
    assert [s.start_no for s in sub.signatures] == [41, 7, 103]
    assert sub.signature_of(7).pin == "4821" and sub.signature_of(8) is None
    assert "pin" not in sub.signatures[0].stored()
    assert sub.idempotency_key == data["idempotency_key"]


def test_limits_are_inclusive():
    c = {**EXAMPLE, "note": "x" * MAX_NOTE, "sums_cents": [-999, 3000, 999]}
    data = body(c)
    data["signatures"][0]["drawing"] = "M" + " 1" * ((MAX_DRAWING - 1) // 2)
    assert len(data["signatures"][0]["drawing"]) <= MAX_DRAWING
    assert parse_submission(data).content.note == "x" * MAX_NOTE


def test_javascript_iso_times_with_milliseconds_are_accepted():
    data = body()
    data["signatures"][0]["signed_at"] = "2026-03-14T10:51:02.123Z"
    assert parse_submission(data).signatures[0].signed_at == "2026-03-14T10:51:02.123Z"


def _set(path, value):
    """A body with one value replaced (or deleted, value=KeyError) at a dotted path."""
    def make():
        data = body()
        target = data
        keys = path.split(".")
        for k in keys[:-1]:
            target = target[int(k)] if isinstance(target, list) else target[k]
        last = keys[-1]
        if value is KeyError:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
        return data
    return make


BAD = {
    # top level
    "token missing": (_set("token", KeyError), "token"),
    "token not a string": (_set("token", 5), "token"),
    "token empty": (_set("token", ""), "token"),
    "token too long": (_set("token", "t" * 1001), "token"),
    "key missing": (_set("idempotency_key", KeyError), "idempotency_key"),
    "key too short": (_set("idempotency_key", "abc"), "idempotency_key"),
    "key too long": (_set("idempotency_key", "a" * 81), "idempotency_key"),
    "key with spaces": (_set("idempotency_key", "not a uuid at all"), "idempotency_key"),
    "key a number": (_set("idempotency_key", 12345678), "idempotency_key"),
    "content missing": (_set("content", KeyError), "content"),
    "content a list": (_set("content", [1, 2]), "content"),
    "hash missing": (_set("content_hash", KeyError), "content_hash"),
    "hash upper case": (_set("content_hash", EXAMPLE_HASH.upper()), "content_hash"),
    "hash short": (_set("content_hash", "abc"), "content_hash"),
    "signatures missing": (_set("signatures", KeyError), "signatures"),
    "signatures an object": (_set("signatures", {}), "signatures"),
    "signatures empty": (_set("signatures", []), "signatures"),
    # content
    "content key missing": (_set("content.note", KeyError), "content.note"),
    "content key unknown": (_set("content.points", [5, 3, 1]), "content.points"),
    "protocol wrong": (_set("content.protocol", "listok-sheet/2"), "content.protocol"),
    "tournament a string": (_set("content.tournament", "7"), "content.tournament"),
    "tournament zero": (_set("content.tournament", 0), "content.tournament"),
    "round a float": (_set("content.round", 3.0), "content.round"),
    "table true": (_set("content.table", True), "content.table"),
    "table huge": (_set("content.table", 2**40), "content.table"),
    "players not a list": (_set("content.players", "41,7,103"), "content.players"),
    "players empty": (_set("content.players", []), "content.players"),
    "players too many": (_set("content.players", list(range(1, 10))), "content.players"),
    "player a string": (_set("content.players.1", "7"), "content.players[1]"),
    "player a bool": (_set("content.players.1", False), "content.players[1]"),
    "player negative": (_set("content.players.1", -7), "content.players[1]"),
    "player twice": (_set("content.players.1", 41), "content.players"),
    "sums not a list": (_set("content.sums_cents", None), "content.sums_cents"),
    "sum a float": (_set("content.sums_cents.0", 14.5), "content.sums_cents[0]"),
    "sum a string": (_set("content.sums_cents.0", "14,50"), "content.sums_cents[0]"),
    "sum a bool": (_set("content.sums_cents.0", True), "content.sums_cents[0]"),
    "sum enormous": (_set("content.sums_cents.0", 10**12), "content.sums_cents[0]"),
    "sums fewer than players": (_set("content.sums_cents", [1450, 1550]), "content.sums_cents"),
    "note not a string": (_set("content.note", None), "content.note"),
    "note too long": (_set("content.note", "x" * (MAX_NOTE + 1)), "content.note"),
    "note lone surrogate": (_set("content.note", "\ud800"), "content.note"),
    "base version negative": (_set("content.base_version", -1), "content.base_version"),
    "base version a string": (_set("content.base_version", "1"), "content.base_version"),
    "base version null": (_set("content.base_version", None), "content.base_version"),
    # signatures
    "signature a string": (_set("signatures.0", "41:4821"), "signatures[0]"),
    "signature start_no missing": (_set("signatures.0.start_no", KeyError), "signatures[0].start_no"),
    "signature start_no a string": (_set("signatures.0.start_no", "41"), "signatures[0].start_no"),
    "signature pin missing": (_set("signatures.0.pin", KeyError), "signatures[0].pin"),
    "signature pin a number": (_set("signatures.0.pin", 4821), "signatures[0].pin"),
    "signature pin absurd": (_set("signatures.0.pin", "1" * 33), "signatures[0].pin"),
    "signature hash missing": (_set("signatures.0.hash", KeyError), "signatures[0].hash"),
    "signature hash not hex": (_set("signatures.0.hash", "z" * 64), "signatures[0].hash"),
    "drawing missing": (_set("signatures.0.drawing", KeyError), "signatures[0].drawing"),
    "drawing empty": (_set("signatures.0.drawing", "  "), "signatures[0].drawing"),
    "drawing markup": (_set("signatures.0.drawing", 'M 1 1"/><script>alert(1)</script>'), "signatures[0].drawing"),
    "drawing not path data": (_set("signatures.0.drawing", "L 1 1 M 2 2"), "signatures[0].drawing"),
    "drawing too large": (_set("signatures.0.drawing", "M" + " 1" * MAX_DRAWING), "signatures[0].drawing"),
    "signed_at missing": (_set("signatures.0.signed_at", KeyError), "signatures[0].signed_at"),
    "signed_at not a time": (_set("signatures.0.signed_at", "yesterday"), "signatures[0].signed_at"),
    "signed_at a number": (_set("signatures.0.signed_at", 1773485462), "signatures[0].signed_at"),
    "signed twice": (_set("signatures.1.start_no", 41), "signatures[1].start_no"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_malformed_shapes_are_bad_requests_naming_the_field(case):
    make, field = BAD[case]
    e = error(make())
    assert e.code == "bad-request"
    assert e.field == field
    assert e.message


@pytest.mark.parametrize("data", [None, [], "sheet", 3, True])
def test_a_body_that_is_not_an_object_is_a_bad_request(data):
    e = error(data)
    assert e.code == "bad-request" and e.field is None


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                    lambda children: st.lists(children, max_size=4)
                    | st.dictionaries(st.text(max_size=12), children, max_size=5), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_any_json_value_parses_or_is_a_protocol_error(value):
    try:
        parse_submission(value)
    except ProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["token", "idempotency_key", "content", "content_hash", "signatures", "content.players",
                        "content.sums_cents", "content.note", "content.base_version", "signatures.0",
                        "signatures.0.pin", "signatures.0.drawing", "signatures.0.signed_at"]), JSON)
def test_any_value_in_any_field_parses_or_is_a_protocol_error(path, value):
    try:
        sub = parse_submission(_set(path, value)())
    except ProtocolError as e:
        assert e.code == "bad-request"
    else:
        json.dumps(sub.content.as_dict())
        canonical(sub.content.as_dict())


# --------------------------------------------------------------------------- hashes and signers


def test_content_changed_after_signing_is_a_hash_mismatch():
    data = body()
    data["content"]["sums_cents"] = [1550, 900, 550]
    e = pytest.raises(ProtocolError, check_hashes, parse_submission(data)).value
    assert (e.code, e.field) == ("hash-mismatch", "content_hash")


def test_a_signature_over_other_content_is_named():
    data = body()
    data["signatures"][1]["hash"] = content_hash({**EXAMPLE, "sums_cents": [1550, 900, 550]})
    e = pytest.raises(ProtocolError, check_hashes, parse_submission(data)).value
    assert (e.code, e.start_no) == ("signature-hash", 7)


def test_hashes_that_match_pass():
    check_hashes(parse_submission(body(TRICKY)))


def test_every_seated_player_signs_and_nobody_else():
    sub = parse_submission(body())
    check_signed_by(sub, [41, 7, 103])
    e = pytest.raises(ProtocolError, check_signed_by, sub, [41, 7, 104]).value
    assert (e.code, e.start_no) == ("not-at-table", 103)
    data = body()
    del data["signatures"][2]
    e = pytest.raises(ProtocolError, check_signed_by, parse_submission(data), [41, 7, 103]).value
    assert (e.code, e.start_no) == ("signature-missing", 103)


def test_pin_check_body():
    assert parse_pin_check({"token": "t", "start_no": 41, "pin": "4821"}) == ("t", 41, "4821", None)
    h = "a" * 64
    assert parse_pin_check({"token": "t", "start_no": 41, "pin": "4821", "content_hash": h}) == ("t", 41, "4821", h)
    for bad in ({"token": "t", "start_no": "41", "pin": "4821"}, {"token": "t", "pin": "4821"},
                {"token": "t", "start_no": 41, "pin": 4821}, [], {"token": "", "start_no": 41, "pin": "1"}):
        with pytest.raises(ProtocolError) as e:
            parse_pin_check(bad)
        assert e.value.code == "bad-request"
