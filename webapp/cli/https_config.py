"""HTTPS at the venue (docs/DEPLOY.md): phones get offline mode only in a secure
context, so the QR codes must carry an https:// address the phones trust.

`listok https-config` writes a Caddyfile for Debian's caddy (2.6) in front of
`listok serve`: with a certificate obtained beforehand (a venue laptop, the
certificate by DNS challenge while it still has internet), or with Caddy's own
automatic certificates (a hosted server the phones reach over mobile data).
What the phones will get from a QR address (the dashboard's verdict) is webapp/http/venue.py.
"""
from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from pathlib import Path

import click

from ..http.venue import is_local_host
from .base import BadInput

HOSTNAME = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")


def public_url(hostname: str, port: int) -> str:
    return f"https://{hostname}" + ("" if port == 443 else f":{port}")


def caddyfile(hostname: str, upstream: str, port: int = 443, cert: str | None = None, key: str | None = None,
              http_port: int | None = 80, email: str | None = None) -> str:
    """The Caddyfile: TLS from the given files (nothing is fetched at the venue),
    or Caddy's automatic certificates when no files are given."""
    url = public_url(hostname, port)
    options = ["\tadmin off"]  # no control port: nothing else listens on the laptop
    if cert:
        options.append("\tauto_https disable_redirects")  # the redirect below, on the port chosen
    elif email:
        options.append(f"\temail {email}")
    lines = [
        "# Listok behind Caddy, written by `listok https-config` (docs/DEPLOY.md).",
        f"# Phones open {url}/ ; Listok itself runs on {upstream}:",
        f"#   LISTOK_PUBLIC_URL={url} listok serve --host {upstream.rsplit(':', 1)[0]} --port {upstream.rsplit(':', 1)[1]}",
        "{", *options, "}", "",
        f"https://{hostname}:{port} {{",
    ]
    if cert:
        lines.append(f"\ttls {cert} {key}")
    # Caddy sends X-Forwarded-For/-Proto/-Host; Listok trusts them from LISTOK_TRUSTED_PROXIES (default: this machine)
    lines += [f"\treverse_proxy {upstream}", "}"]
    if cert and http_port:
        lines += ["", f"http://{hostname}:{http_port} {{", f"\tredir {url}{{uri}} permanent", "}"]
    return "\n".join(lines) + "\n"


def check_certificate(cert: Path, key: Path, hostname: str) -> list[str]:
    """Problems with the certificate files, in words; the openssl CLI checks the
    name and the dates where it is installed."""
    problems = []
    for path, marker, what in ((cert, "BEGIN CERTIFICATE", "certificate"), (key, "PRIVATE KEY", "private key")):
        try:
            text = path.read_text(errors="replace")
        except OSError as e:
            problems.append(f"{path}: cannot read the {what} ({e.strerror or e})")
            continue
        if marker not in text:
            problems.append(f"{path}: this is not a PEM {what} (no '{marker}' line)")
    if problems or not shutil.which("openssl"):
        return problems
    name = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-checkhost", hostname],
                          capture_output=True, text=True)
    if "does match" not in name.stdout:
        problems.append(f"{cert}: the certificate is not for {hostname}")
    for seconds, message in ((0, "has expired"), (7 * 24 * 3600, "expires within 7 days: renew it before the event")):
        if subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-checkend", str(seconds)],
                          capture_output=True).returncode != 0:
            problems.append(f"{cert}: the certificate {message}")
            break
    return problems


def upstream_option(value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter("give HOST:PORT, e.g. 127.0.0.1:8000", param_hint="--upstream")
    return value


def tls_options(hostname_help: str, cert_help: str, key_help: str):
    """The options a TLS front end's configuration needs: the name, the certificate, the ports
    (https-config for Caddy, proxy-config for nginx)."""
    options = [
        click.option("--hostname", required=True, help=hostname_help),
        click.option("--cert", type=click.Path(dir_okay=False), help=cert_help),
        click.option("--key", type=click.Path(dir_okay=False), help=key_help),
        click.option("--port", default=443, show_default=True, type=click.IntRange(1, 65535), help="HTTPS port."),
        click.option("--http-port", default=80, show_default=True, type=click.IntRange(0, 65535),
                     help="Port that redirects plain http to https (0: none)."),
    ]

    def apply(command):
        for option in reversed(options):
            command = option(command)
        return command

    return apply


@click.command("https-config")
@tls_options("The name phones open, e.g. listok.example.org.", "Certificate chain (PEM), e.g. fullchain.pem.",
             "Its private key (PEM), e.g. privkey.pem.")
@click.option("--upstream", default="127.0.0.1:8000", show_default=True, help="Where `listok serve` listens.")
@click.option("--email", help="Without --cert: the address Let's Encrypt writes to about the certificate.")
@click.option("-o", "--output", default="Caddyfile", show_default=True, type=click.Path(dir_okay=False),
              help="The Caddyfile to write.")
def https_config(hostname: str, cert: str | None, key: str | None, port: int, http_port: int, upstream: str,
                 email: str | None, output: str) -> None:
    """Write a Caddyfile that serves Listok over HTTPS (phones get offline mode),
    and print how to run it and the LISTOK_PUBLIC_URL to use."""
    hostname = hostname.strip().lower().rstrip(".")
    if "://" in hostname or "/" in hostname or ":" in hostname:
        raise click.BadParameter("give the name alone, e.g. listok.example.org (no https://, port or path)",
                                 param_hint="--hostname")
    try:
        ipaddress.ip_address(hostname)
        raise click.BadParameter("phones trust certificates for names, not for an IP address: give the name",
                                 param_hint="--hostname")
    except ValueError:
        pass
    if not HOSTNAME.match(hostname):
        raise click.BadParameter(f"'{hostname}' is not a host name", param_hint="--hostname")
    upstream = upstream_option(upstream)
    if bool(cert) != bool(key):
        raise click.UsageError("give both --cert and --key, or neither (Caddy then gets a certificate itself)")
    if cert:
        cert_path, key_path = Path(cert).resolve(), Path(key).resolve()
        problems = check_certificate(cert_path, key_path, hostname)
        if problems:
            raise BadInput("; ".join(problems))
        cert, key = str(cert_path), str(key_path)
    elif port != 443:
        raise click.UsageError("automatic certificates need the standard ports 443 and 80 open to the internet: "
                               "drop --port, or give --cert and --key")
    out = Path(output).resolve()
    try:
        out.write_text(caddyfile(hostname, upstream, port, cert, key, http_port, email), encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{out}: cannot write the Caddyfile ({e.strerror or e})") from None
    url = public_url(hostname, port)
    up_host, up_port = upstream.rsplit(":", 1)
    click.echo(f"Wrote {out}")
    click.echo("")
    click.echo(f"LISTOK_PUBLIC_URL={url}")
    click.echo("")
    click.echo("1. Start Listok (the QR codes on the sheets will carry the address above):")
    click.echo(f"     export LISTOK_PUBLIC_URL={url}")
    click.echo(f"     listok serve --host {up_host} --port {up_port}")
    click.echo("2. Start Caddy in another terminal (ports below 1024 need root):")
    click.echo(f"     sudo caddy run --config {out} --adapter caddyfile")
    if cert:
        click.echo(f"3. Make {hostname} point to this laptop's address on the venue network (a DNS A record,")
        click.echo("   or the venue router's local DNS), then open the address on a phone on the Wi-Fi:")
    else:
        click.echo(f"3. {hostname} must point to this server and ports 443 and 80 must be open: Caddy gets")
        click.echo("   the certificate itself on its first start. Then open the address on a phone:")
    click.echo(f"     {url}/   (the operator's dashboard says whether phones get offline mode)")
    if not is_local_host(up_host):
        click.echo("Listok runs on another machine: set LISTOK_TRUSTED_PROXIES to this Caddy's address there.")

