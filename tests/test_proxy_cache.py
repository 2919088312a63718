"""The caching reverse proxy of docs/DEPLOY.md: `listok proxy-config` writes an nginx
site, Debian's nginx runs it with TLS in front of the app, and

- a repeated public page is answered from the cache: the app sees one request, also
  when the spectators arrive at once (proxy_cache_lock);
- a changed page reaches the spectators within its max-age;
- nothing private is kept: a signed-in page, a request with any cookie, an answer that
  sets a cookie, all go to the app every time and leave nothing in the cache.

The app runs in this process behind a counter of the requests it is asked."""
from __future__ import annotations

import http.client
import os
import shutil
import ssl
import subprocess
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.test_https_venue import free_port, self_signed
from webapp.cli import main
from webapp.cli.proxy_config import nginx_main, nginx_site


class Counted:
    """WSGI middleware: the paths the app was asked, with their cookies' presence."""

    def __init__(self, app):
        self.app = app
        self.seen: Counter = Counter()
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        key = environ.get("PATH_INFO", "") + ("?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else "")
        with self.lock:
            self.seen[key] += 1
        return self.app(environ, start_response)


@pytest.fixture
def stack(tmp_path):
    """(https base, the app, its counter, the tournament id, nginx's cache folder)."""
    assert shutil.which("nginx"), "nginx is missing: scripts/test installs it (apt-get install nginx)"
    from tests.helpers import served
    from webapp import create_app
    from webapp.demo.seed import create_demo
    from webapp.extensions import db

    app = create_app({"SECRET_KEY": "proxy-test-secret", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'p.db'}",
                      "WTF_CSRF_ENABLED": False})
    with app.app_context():
        db.create_all()
        tid, _login = create_demo(18)
    counted = Counted(app.wsgi_app)
    app.wsgi_app = counted
    with served(app) as (_url, server):
        cert, key = self_signed(tmp_path)
        port = free_port()
        site, cache = tmp_path / "listok-nginx.conf", tmp_path / "cache"
        result = CliRunner().invoke(main, ["proxy-config", "--hostname", "localhost", "--cert", str(cert),
                                           "--key", str(key), "--port", str(port), "--http-port", "0",
                                           "--cache-dir", str(cache), "--upstream", f"127.0.0.1:{server.server_port}",
                                           "-o", str(site)])
        assert result.exit_code == 0, result.output
        prefix = tmp_path / "nginx"
        prefix.mkdir()
        conf = prefix / "nginx.conf"
        conf.write_text(nginx_main(site, prefix))
        proc = subprocess.Popen(["nginx", "-p", str(prefix), "-c", str(conf)], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        base = f"https://localhost:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    fetch(base, cert, "/healthz")
                    break
                except OSError:
                    assert proc.poll() is None, proc.stdout.read().decode() + (prefix / "error.log").read_text()
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
            yield base, cert, app, counted, tid, cache
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def fetch(base: str, cert: Path, path: str, method: str = "GET", headers: dict | None = None, body=None):
    """(status, headers with lower-case names, body) over HTTPS, trusting only the test's certificate."""
    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=15,
                                       context=ssl.create_default_context(cafile=str(cert)))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        conn.close()


def cached_files_text(cache: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in cache.rglob("*") if p.is_file())


def test_repeated_public_page_answered_from_the_cache_app_sees_one_request(stack):
    base, cert, _app, counted, tid, _cache = stack
    path = f"/t/{tid}/standings"
    answers = [fetch(base, cert, path) for _ in range(20)]
    assert all(status == 200 for status, _h, _b in answers)
    assert [h["x-cache-status"] for _s, h, _b in answers] == ["MISS"] + ["HIT"] * 19
    assert answers[0][1]["cache-control"].startswith("public, max-age=")
    assert len({b for _s, _h, b in answers}) == 1
    assert counted.seen[path] == 1

    # spectators arriving at once on a page nobody asked yet: one of them goes to the app
    path = f"/t/{tid}/projector"
    statuses = []
    threads = [threading.Thread(target=lambda: statuses.append(fetch(base, cert, path)[0])) for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [200] * 30 and counted.seen[path] == 1


def test_a_changed_page_reaches_spectators_within_its_max_age(stack):
    from webapp.extensions import db
    from webapp.models import Tournament
    from webapp.services.common import bump

    base, cert, app, counted, tid, _cache = stack
    path = f"/t/{tid}/standings"
    status, headers, body = fetch(base, cert, path)
    max_age = int(headers["cache-control"].split("max-age=")[1].split(",")[0])
    assert status == 200 and "SEM Demo - Poprad" in body and 0 < max_age <= 10
    with app.app_context():
        t = db.session.get(Tournament, tid)
        t.name = "SEM Demo - Prešov"
        bump(t)
        db.session.commit()
    changed = time.monotonic()
    while True:  # spectators' phones poll the page
        status, headers, body = fetch(base, cert, path)
        if "SEM Demo - Prešov" in body:
            break
        assert time.monotonic() - changed < max_age + 1.5, "the change did not reach the spectators"
        assert "SEM Demo - Poprad" in body and headers["x-cache-status"] in ("HIT", "STALE", "UPDATING")
        time.sleep(0.2)
    assert status == 200
    # the app was asked again only to refresh the page: a handful of requests, not one per poll
    assert counted.seen[path] <= 3


def test_nothing_private_is_kept(stack):
    base, cert, _app, counted, tid, cache = stack
    # sign in through the proxy (the demo operator)
    status, headers, _b = fetch(base, cert, "/login", "POST", {"Content-Type": "application/x-www-form-urlencoded"},
                                "username=demo&password=demo-operator")
    assert status == 302 and "set-cookie" in headers
    cookie = "; ".join(c.split(";", 1)[0] for c in headers["set-cookie"].split(", ") if "=" in c.split(";")[0])
    signed_in = f"/operator/t/{tid}/standings"
    for _ in range(3):
        status, headers, body = fetch(base, cert, signed_in, headers={"Cookie": cookie})
        assert status == 200 and "/logout" in body and headers["x-cache-status"] == "BYPASS"
    assert counted.seen[signed_in] == 3
    status, headers, body = fetch(base, cert, signed_in)  # the same address without the cookie: not the page
    assert status == 302 and "/logout" not in body and counted.seen[signed_in] == 4

    # a public page asked with a cookie: to the app every time, its private answer not kept for others
    public = f"/t/{tid}/standings?after=2"
    for _ in range(3):
        status, headers, _b = fetch(base, cert, public, headers={"Cookie": cookie})
        assert status == 200 and headers["x-cache-status"] == "BYPASS" and "private" in headers["cache-control"]
    assert counted.seen[public] == 3
    status, headers, body = fetch(base, cert, public)
    assert headers["x-cache-status"] == "MISS" and "/logout" not in body and counted.seen[public] == 4

    # an answer that sets a cookie (the language chosen) is not kept
    lang = f"/t/{tid}/standings?lang=ru"
    for _ in range(2):
        status, headers, _b = fetch(base, cert, lang)
        assert status == 200 and "lang=ru" in headers.get("set-cookie", "")
    assert counted.seen[lang] == 2

    text = cached_files_text(cache)
    assert text and "/logout" not in text and "Set-Cookie" not in text and "private" not in text
    assert "session=" not in text


def test_the_site_behind_caddy_listens_plain_and_passes_caddys_forwarded_headers():
    text = nginx_site("listok.example.org", ["10.0.0.5:8000", "10.0.0.6:8000"], cache_dir="/var/cache/nginx/listok",
                      listen="127.0.0.1:8080")
    assert "\tlisten 127.0.0.1:8080;" in text and "ssl" not in text
    assert "\tserver 10.0.0.5:8000;\n\tserver 10.0.0.6:8000;" in text
    assert "X-Forwarded-For $http_x_forwarded_for;" in text and "X-Forwarded-Proto $http_x_forwarded_proto;" in text
    assert "proxy_cache_valid" not in text  # only what the app marks public is kept


def test_proxy_config_refuses_what_nginx_cannot_use(tmp_path):
    cert, key = self_signed(tmp_path)
    out = tmp_path / "site.conf"
    runner = CliRunner()
    r = runner.invoke(main, ["proxy-config", "--hostname", "listok.example.org", "--cert", str(cert), "--key", str(key),
                             "-o", str(out)])
    assert r.exit_code == 2 and "the certificate is not for listok.example.org" in r.output and not out.exists()
    r = runner.invoke(main, ["proxy-config", "--hostname", "listok.example.org", "-o", str(out)])
    assert r.exit_code == 2 and "--plain" in r.output and not out.exists()
    r = runner.invoke(main, ["proxy-config", "--hostname", "listok.example.org", "--plain", "8080", "-o", str(out)])
    assert r.exit_code == 2 and "HOST:PORT" in r.output and not out.exists()
    r = runner.invoke(main, ["proxy-config", "--hostname", "listok.example.org", "--plain", "127.0.0.1:8080",
                             "-o", str(out)])
    assert r.exit_code == 0 and "listok https-config --hostname listok.example.org --upstream 127.0.0.1:8080" in r.output
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    (prefix / "nginx.conf").write_text(nginx_main(out, prefix).replace("/var/cache/nginx/listok", str(prefix)))
    site = out.read_text().replace("/var/cache/nginx/listok", str(tmp_path / "cache"))
    out.write_text(site)
    check = subprocess.run(["nginx", "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf")], capture_output=True,
                           text=True, env={**os.environ})
    assert check.returncode == 0, check.stderr


def test_season_pages_tell_a_shared_cache_how_long_to_keep_them(tmp_path):
    """A federation's season pages: `public` with a max-age for anonymous visitors (the proxy
    keeps them), `private` for anyone with a cookie (staff who just received a tournament)."""
    from tests.helpers import make_season
    from webapp import create_app
    from webapp.extensions import db
    from webapp.views.seasons import SEASON_MAX_AGE

    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'f.db'}",
                      "LISTOK_ROLE": "federation"})
    with app.app_context():
        db.create_all()
    sid, _venue = make_season(app, 1)
    client = app.test_client()
    r = client.get(f"/seasons/{sid}/")
    assert r.status_code == 200 and r.headers["Cache-Control"].startswith(f"public, max-age={SEASON_MAX_AGE},")
    assert "Set-Cookie" not in r.headers
    assert client.get(f"/seasons/{sid}/", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    client.set_cookie("lang", "en")
    assert client.get(f"/seasons/{sid}/").headers["Cache-Control"].startswith("private")
    with app.app_context():
        db.engine.dispose()
