"""HTTP caching of the public pages and the static files.

Public pages (standings, projector, seating, a player's page) are answered with
a strong ETag made from what the page shows: the tournament's public version
(services/common.bump: the running round's phone sheets do not move it), the
language, the query and whatever else the caller names. The ETag is compared
*before* anything is rendered, so a revalidation costs one small query, and the
rendered body is kept per ETag (no lock: a VersionedCache): an anonymous visitor
without the page gets it from that same query. Anonymous visitors
get `Cache-Control: public`, no cookie, no session and no CSRF token, so a
reverse proxy or a CDN may keep the page for everybody; a request carrying a
session or a language cookie is answered `private` (it may differ for them).

Static files get a content-hash query (`?v=…`, added by url_for), a year's
max-age when it matches, and an ETag from their content, the same on every
machine.
"""
from __future__ import annotations

import hashlib
import os
import time
from functools import lru_cache

from flask import Flask, current_app, g, has_request_context, request
from flask.sessions import SecureCookieSessionInterface
from flask_babel import get_locale
from sqlalchemy import bindparam, select

from .. import i18n
from ..db.connections import read_row
from ..models import Tournament
from .cache import VersionedCache

YEAR = 365 * 24 * 3600
BODIES = VersionedCache(256, max_bytes=24 * 1024 * 1024)  # a 420-player standings page is 300 KB
RENDERS: dict[str, int] = {}  # page name -> bodies rendered by this process (tests count them)


def anonymous() -> bool:
    """No session, remember or language cookie: the page is the same for every such visitor."""
    cookies = request.cookies
    return not (cookies.get(current_app.config.get("SESSION_COOKIE_NAME", "session"))
                or cookies.get(current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token"))
                or cookies.get(i18n.COOKIE))


def etag_for(name: str, key: tuple) -> str:
    raw = repr((name, current_app.config["SQLALCHEMY_DATABASE_URI"], str(get_locale()), request.full_path,
                request.headers.get("HX-Request", ""), key))
    return hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()


def cache_control(max_age: int, stale: int) -> str:
    """`public` with a max-age a shared cache (docs/DEPLOY.md's nginx) may keep the page for,
    for an anonymous visitor; `private` for one with a cookie or choosing a language."""
    if anonymous() and "lang" not in request.args:
        return f"public, max-age={max_age}, stale-while-revalidate={stale}"
    return "private, max-age=0, must-revalidate"


def _headers(tag: str, max_age: int, stale: int) -> dict:
    return {"ETag": f'"{tag}"', "Vary": "Accept-Language, HX-Request", "Cache-Control": cache_control(max_age, stale)}


# --------------------------------------------------------------------------- a revalidation without the ORM

_STAMP = select(Tournament.version, Tournament.public_version, Tournament.chain_seq).where(
    Tournament.id == bindparam("tid"))
MEMO_SECONDS = 1.0
_memo: dict = {}  # (database, page, tid, locale, path, HX) -> (stamp, ETag, headers' max-age and stale, when)


def _memo_key(name: str, tid: int) -> tuple:
    return (current_app.config["SQLALCHEMY_DATABASE_URI"], name, tid, str(get_locale()), request.full_path,
            request.headers.get("HX-Request", ""))


def not_modified(name: str, tid: int):
    """A 304 for a client that has the page, or the body kept for an anonymous visitor
    who has not, from one indexed SELECT on a connection of its own (no ORM, no
    tournament object), or None: then the view computes its key as usual and
    `public_page` remembers the ETag it made under this stamp.

    Safe because the ETag answered is the one the page itself made under the same
    (version, public_version, chain_seq): every change of the tournament bumps its
    version, every sheet or record that counts moves the chain. What a key adds
    from the clock (the SEM-C9 window's minutes, the projector's 5 s step) is
    reused for at most MEMO_SECONDS, well inside the max-age a proxy may keep the
    page for anyway."""
    row = read_row(_STAMP, {"tid": tid})
    if row is None:
        return None
    stamp = tuple(row)
    g.listok_stamp = (name, tid, stamp)
    memo = _memo.get(_memo_key(name, tid))
    if memo is None or memo[0] != stamp or time.monotonic() - memo[3] > MEMO_SECONDS:
        return None
    if memo[1] in request.if_none_match:
        response = current_app.response_class(status=304)
    else:
        # a visitor without the page: the body made under this ETag, if kept (anonymous ones only)
        kept = BODIES.get(memo[1]) if anonymous() else None
        if kept is None or kept[0] != 200:
            return None
        response = current_app.response_class(kept[1], status=200, mimetype=kept[2])
    response.headers.update(_headers(memo[1], *memo[2]))
    return response


def published_here(tid: int, seq: int) -> None:
    """This request's page published head `seq` as entry seq + 1: the page made under the stamp it
    read stands under the stamp the publication left (it adds no result)."""
    seen = g.get("listok_stamp") if has_request_context() else None
    if seen is not None and seen[1] == tid and seen[2][2] == seq:
        g.listok_stamp = (seen[0], tid, (*seen[2][:2], seq + 1))


def _remember(name: str, tag: str, max_age: int, stale: int) -> None:
    seen = g.get("listok_stamp")
    if seen is None or seen[0] != name:
        return
    if len(_memo) > 4096:
        _memo.clear()
    _memo[_memo_key(name, seen[1])] = (seen[2], tag, (max_age, stale), time.monotonic())


def public_page(name: str, key: tuple, render, *, max_age: int = 10, stale: int = 30):
    """The page `render()` makes, as a cacheable response with a strong ETag from
    `key` (which must change whenever the page would); 304 when the client has it."""
    tag = etag_for(name, key)
    headers = _headers(tag, max_age, stale)
    _remember(name, tag, max_age, stale)
    if tag in request.if_none_match:
        response = current_app.response_class(status=304)
        response.headers.update(headers)
        return response

    def make():
        RENDERS[name] = RENDERS.get(name, 0) + 1
        made = current_app.make_response(render())
        return made.status_code, made.get_data(), made.mimetype

    status, data, mimetype = make() if not anonymous() else BODIES.get_or_make(tag, make)
    _remember(name, tag, max_age, stale)  # again: rendering may have published the head (chain.published_here)
    response = current_app.response_class(data, status=status, mimetype=mimetype)
    response.headers.update(headers)
    if status != 200:
        response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- static files


@lru_cache(maxsize=512)
def _file_hash(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as f:
        return hashlib.blake2b(f.read(), digest_size=8).hexdigest()


def static_hash(filename: str) -> str | None:
    folder = current_app.static_folder
    path = os.path.join(folder, filename)
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _file_hash(path, st.st_mtime_ns, st.st_size)


class CookielessSession(SecureCookieSessionInterface):
    """No `Vary: Cookie` on an answer to a visitor who sent no session cookie and got
    none: reading an empty session (is anyone signed in? any flashed message?)
    made every public page vary by cookie."""

    def open_session(self, app, request):
        # no cookie, nothing to verify: the signing serializer (built per call) is not built for the
        # phones' API calls and the spectators' pages, which send none
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app, session, response):
        if not session and not request.cookies.get(self.get_cookie_name(app)):
            session.accessed = False
        return super().save_session(app, session, response)


def init_app(app: Flask) -> None:
    app.session_interface = CookielessSession()

    @app.url_defaults
    def hashed_static(endpoint, values):
        if endpoint == "static" and "filename" in values and "v" not in values:
            h = static_hash(values["filename"])
            if h:
                values["v"] = h

    def max_age(filename):
        # a hashed URL never changes its content; a plain one is revalidated (its ETag is the content's)
        return YEAR if request.args.get("v") else None

    app.get_send_file_max_age = max_age

    @app.before_request
    def static_not_modified():
        if request.endpoint != "static" or not request.if_none_match:
            return None
        h = static_hash(request.view_args.get("filename", ""))
        if h and h in request.if_none_match:
            response = app.response_class(status=304)
            _static_headers(response, h)
            return response
        return None

    @app.after_request
    def static_headers(response):
        if request.endpoint == "static" and response.status_code in (200, 304):
            h = static_hash(request.view_args.get("filename", ""))
            if h:
                _static_headers(response, h)
        return response


def _static_headers(response, h: str) -> None:
    response.set_etag(h)
    response.headers.pop("Last-Modified", None)  # the content decides, not the file's time on this machine
    if request.args.get("v") == h:
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    else:
        response.headers["Cache-Control"] = "public, no-cache"
