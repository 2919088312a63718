"""HTTPS at the venue (docs/DEPLOY.md, setup a): `listok https-config` writes a
Caddyfile for Debian's caddy with a certificate obtained beforehand; caddy in
front of `listok serve` answers over HTTPS and the app knows the request is
secure (Caddy's X-Forwarded-Proto from a trusted proxy: HSTS is sent)."""
from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp.cli import main
from webapp.http.venue import offline_mode
from webapp.cli.https_config import caddyfile

LISTOK = Path(sys.executable).with_name("listok")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def self_signed(folder: Path, days: int = 30) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", str(days), "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


def wait_for(fetch, processes, seconds=60.0):
    """fetch() once the servers answer (a 502 while the app starts); a server that died fails at once."""
    end = time.monotonic() + seconds
    while True:
        try:
            return fetch()
        except OSError:
            dead = [p for p in processes if p.poll() is not None]
            assert not dead, "; ".join(f"{p.args[0]} stopped: {Path(p.log).read_text()[-2000:]}" for p in dead)
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


def start(processes: list, log: Path, args: list[str], env: dict) -> None:
    with log.open("wb") as out:
        p = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
    p.log = log
    processes.append(p)


@pytest.fixture
def processes():
    started = []
    yield started
    for p in started:
        p.terminate()
    for p in started:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_https_config_caddy_in_front_of_listok_serve(tmp_path, processes):
    assert shutil.which("caddy"), "caddy is missing: scripts/test installs it (apt-get install caddy)"
    cert, key = self_signed(tmp_path)
    https_port, app_port = free_port(), free_port()
    conf = tmp_path / "Caddyfile"
    result = CliRunner().invoke(main, ["https-config", "--hostname", "localhost", "--cert", str(cert), "--key", str(key),
                                       "--port", str(https_port), "--http-port", "0",
                                       "--upstream", f"127.0.0.1:{app_port}", "-o", str(conf)])
    assert result.exit_code == 0, result.output
    url = f"https://localhost:{https_port}"
    assert f"LISTOK_PUBLIC_URL={url}\n" in result.output
    assert f"caddy run --config {conf} --adapter caddyfile" in result.output
    assert f"tls {cert} {key}" in conf.read_text()

    # the default LISTOK_TRUSTED_PROXIES trusts this machine, where Caddy runs
    env = {k: v for k, v in os.environ.items() if not k.startswith("LISTOK_") and k != "DATABASE_URL"}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'venue.db'}", LISTOK_SECRET_KEY="venue-test-" + "k" * 32,
               LISTOK_PUBLIC_URL=url)
    start(processes, tmp_path / "serve.log", [str(LISTOK), "serve", "--host", "127.0.0.1", "--port", str(app_port)],
          env)
    start(processes, tmp_path / "caddy.log", ["caddy", "run", "--config", str(conf), "--adapter", "caddyfile"],
          {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")})

    trusted = ssl.create_default_context(cafile=str(cert))

    def fetch(path="/"):
        with urllib.request.urlopen(url + path, context=trusted, timeout=5) as r:
            return r.status, dict(r.headers), r.read().decode()

    status, headers, body = wait_for(fetch, processes)
    assert status == 200 and "<title>Listok</title>" in body
    # the app saw https (X-Forwarded-Proto from Caddy, a trusted proxy): it asks browsers to stay on https
    assert headers.get("Strict-Transport-Security", "").startswith("max-age=")
    status, headers, manifest = fetch("/manifest.webmanifest")
    assert headers["Content-Type"] == "application/manifest+json" and '"display": "standalone"' in manifest
    # a client without the venue's CA is refused: the certificate is what the phones must trust
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/", context=ssl.create_default_context(), timeout=5)


def test_https_config_refuses_a_certificate_for_another_name_and_writes_nothing(tmp_path):
    cert, key = self_signed(tmp_path)
    conf = tmp_path / "Caddyfile"
    result = CliRunner().invoke(main, ["https-config", "--hostname", "listok.example.org", "--cert", str(cert),
                                       "--key", str(key), "-o", str(conf)])
    assert result.exit_code == 2 and "the certificate is not for listok.example.org" in result.output
    assert not conf.exists()
    result = CliRunner().invoke(main, ["https-config", "--hostname", "listok.example.org", "--cert", str(cert),
                                       "-o", str(conf)])
    assert result.exit_code == 2 and "give both --cert and --key" in result.output
    result = CliRunner().invoke(main, ["https-config", "--hostname", "192.168.1.10", "-o", str(conf)])
    assert result.exit_code == 2 and "not for an IP address" in result.output and not conf.exists()


def test_https_config_for_a_hosted_server_uses_caddys_automatic_certificates(tmp_path):
    conf = tmp_path / "Caddyfile"
    result = CliRunner().invoke(main, ["https-config", "--hostname", "listok.example.org",
                                       "--email", "op@example.org", "-o", str(conf)])
    assert result.exit_code == 0, result.output
    text = conf.read_text()
    assert "tls " not in text and "email op@example.org" in text and "https://listok.example.org:443 {" in text
    assert "LISTOK_PUBLIC_URL=https://listok.example.org\n" in result.output
    check = subprocess.run(["caddy", "adapt", "--config", str(conf), "--adapter", "caddyfile"], capture_output=True,
                           text=True, env={**os.environ, "HOME": str(tmp_path)})
    assert check.returncode == 0, check.stderr


def test_caddyfile_with_files_redirects_plain_http():
    text = caddyfile("listok.example.org", "127.0.0.1:8000", cert="/c.pem", key="/k.pem")
    assert "http://listok.example.org:80 {\n\tredir https://listok.example.org{uri} permanent\n}" in text
    assert "auto_https disable_redirects" in text and "\treverse_proxy 127.0.0.1:8000\n" in text


@pytest.mark.parametrize("url, verdict", [
    ("https://listok.example.org/", "yes"),
    ("http://192.168.1.10:8000/", "no"),
    ("http://listok.example.org/", "no"),
    ("http://localhost:8000/", "local"),
    ("https://127.0.0.1:8443/", "local"),
    ("http://[::1]:8000/", "local"),
])
def test_offline_mode_verdict_for_the_qr_address(url, verdict):
    assert offline_mode(url)["verdict"] == verdict
