"""A caching reverse proxy in front of the app (docs/DEPLOY.md, "A caching proxy").

`listok proxy-config` writes an nginx site (Debian's nginx 1.22: /etc/nginx/sites-enabled/)
that keeps the public pages the app marks `public` (standings, projector, a player's
page, the federation's season pages, static files) for as long as their Cache-Control
says, so a thousand spectators cost the app one request per page and max-age:

- `proxy_cache_lock`: the spectators who miss at once wait for one upstream request;
- `proxy_cache_use_stale updating` with `proxy_cache_background_update`: after max-age
  the page kept is answered (the app's stale-while-revalidate) while one request fetches
  the new one, revalidated by ETag (`proxy_cache_revalidate`: a 304 costs the app one
  small query);
- nothing private is kept: no `proxy_cache_valid`, so only answers that say `public`
  with a max-age are stored; answers with `private`, `no-store` or a Set-Cookie are not
  (nginx's defaults), and a request carrying any cookie or an Authorization header is
  never answered from the cache nor stored (a signed-in visitor's page differs);
- the app's `Vary` (Accept-Language, HX-Request) is honoured: nginx keeps a copy per value.

TLS either in nginx itself (the certificate files of DEPLOY.md, `--cert`/`--key`) or in
Caddy in front (`--plain`: nginx listens on a local port, `listok https-config
--upstream` points Caddy at it).
"""
from __future__ import annotations

import re
from pathlib import Path

import click

from .base import BadInput

from .https_config import HOSTNAME, check_certificate, public_url, tls_options, upstream_option

ZONE = "listok"


def nginx_site(hostname: str, upstreams: list[str], *, cache_dir: str, port: int = 443,
               cert: str | None = None, key: str | None = None, http_port: int | None = 80,
               listen: str | None = None, cache_size: str = "1g") -> str:
    """The nginx site: http-level cache zone and upstream, and the server(s).
    With `listen` (HOST:PORT) plain http there (TLS done by a proxy in front)."""
    if listen:
        head = f"# Phones and spectators reach it through the TLS proxy in front (Caddy); nginx listens on {listen}."
    else:
        head = f"# Phones and spectators open {public_url(hostname, port)}/"
    lines = [
        "# Listok behind nginx with a cache, written by `listok proxy-config` (docs/DEPLOY.md).",
        head,
        f"# The app: gunicorn or `listok serve` on {', '.join(upstreams)}.",
        "",
        f"proxy_cache_path {cache_dir} levels=1:2 keys_zone={ZONE}:10m max_size={cache_size} inactive=10m "
        "use_temp_path=off;",
        "",
        "upstream listok_app {",
        *(f"\tserver {u};" for u in upstreams),
        "\tkeepalive 16;",
        "}",
        "",
        "server {",
    ]
    if listen:
        lines.append(f"\tlisten {listen};")
    else:
        lines += [f"\tlisten {port} ssl;", f"\tlisten [::]:{port} ssl;", f"\tssl_certificate {cert};",
                  f"\tssl_certificate_key {key};", "\tssl_protocols TLSv1.2 TLSv1.3;",
                  "\tssl_session_cache shared:listok_tls:10m;"]
    lines += [
        f"\tserver_name {hostname};",
        "\tclient_max_body_size 8m;  # the app's MAX_CONTENT_LENGTH",
        "",
        "\tlocation / {",
        "\t\tproxy_pass http://listok_app;",
        "\t\tproxy_http_version 1.1;",
        '\t\tproxy_set_header Connection "";',
        "\t\tproxy_set_header Host $http_host;",
        # behind Caddy, Caddy's X-Forwarded-For/-Proto pass unchanged (the app trusts one hop: the client's
        # address stays the last entry); with nginx's own TLS, nginx says them
        "\t\tproxy_set_header X-Forwarded-For " + ("$http_x_forwarded_for" if listen
                                                     else "$proxy_add_x_forwarded_for") + ";",
        "\t\tproxy_set_header X-Forwarded-Proto " + ("$http_x_forwarded_proto" if listen else "$scheme") + ";",
        "\t\tproxy_set_header X-Forwarded-Host $http_host;",
        "",
        f"\t\tproxy_cache {ZONE};",
        "\t\tproxy_cache_key $scheme$host$request_uri;",
        "\t\tproxy_cache_lock on;  # spectators missing at once wait for one upstream request",
        "\t\tproxy_cache_lock_timeout 10s;",
        "\t\tproxy_cache_use_stale updating error timeout http_502 http_503;",
        "\t\tproxy_cache_background_update on;",
        "\t\tproxy_cache_revalidate on;  # an expired page comes back with If-None-Match: a 304",
        "\t\t# signed-in visitors and anyone with a cookie: never from the cache, never into it",
        "\t\tproxy_cache_bypass $http_cookie $http_authorization;",
        "\t\tproxy_no_cache $http_cookie $http_authorization;",
        "\t\tadd_header X-Cache-Status $upstream_cache_status always;",
        "\t}",
        "}",
    ]
    if not listen and http_port:
        lines += ["", "server {", f"\tlisten {http_port};", f"\tlisten [::]:{http_port};",
                  f"\tserver_name {hostname};", f"\treturn 301 {public_url(hostname, port)}$request_uri;", "}"]
    return "\n".join(lines) + "\n"


def nginx_main(site: Path, prefix: Path) -> str:
    """A whole nginx.conf around the site for running nginx as a user, out of `prefix`
    (tests and benchmarks: `nginx -p PREFIX -c nginx.conf`)."""
    return "\n".join([
        "user root;  # ignored unless started as root: then the workers may open the cache folder",
        "worker_processes 1;",
        f"pid {prefix}/nginx.pid;",
        f"error_log {prefix}/error.log warn;",
        "daemon off;",
        "events { worker_connections 4096; }",
        "http {",
        "\tlog_format listok '$request_uri $status $upstream_cache_status $upstream_addr';",
        f"\taccess_log {prefix}/access.log listok;",
        f"\tclient_body_temp_path {prefix}/body;",
        f"\tproxy_temp_path {prefix}/proxy;",
        f"\tfastcgi_temp_path {prefix}/fastcgi;",
        f"\tuwsgi_temp_path {prefix}/uwsgi;",
        f"\tscgi_temp_path {prefix}/scgi;",
        f"\tinclude {site};",
        "}",
    ]) + "\n"


_SIZE = re.compile(r"^[1-9][0-9]*[kmg]$")


@click.command("proxy-config")
@tls_options("The name phones and spectators open, e.g. listok.example.org.",
             "Certificate chain (PEM): nginx does TLS.", "Its private key (PEM).")
@click.option("--plain", "listen", metavar="HOST:PORT", default=None,
              help="No TLS in nginx: listen here, behind Caddy (`listok https-config --upstream HOST:PORT`).")
@click.option("--upstream", "upstreams", multiple=True, default=["127.0.0.1:8000"], show_default=True,
              help="Where gunicorn or `listok serve` listens (repeat for several machines).")
@click.option("--cache-dir", default="/var/cache/nginx/listok", show_default=True,
              help="The cache's folder (nginx's workers must be able to write it).")
@click.option("--cache-size", default="1g", show_default=True, help="Largest size of the cache (e.g. 512m, 2g).")
@click.option("-o", "--output", default="listok-nginx.conf", show_default=True, type=click.Path(dir_okay=False),
              help="The site file to write (e.g. /etc/nginx/sites-enabled/listok).")
def proxy_config(hostname: str, cert: str | None, key: str | None, port: int, http_port: int, listen: str | None,
                 upstreams: tuple[str, ...], cache_dir: str, cache_size: str, output: str) -> None:
    """Write an nginx site that caches the public pages in front of Listok's workers,
    with TLS from the given certificate files or behind Caddy (--plain)."""
    hostname = hostname.strip().lower().rstrip(".")
    if not HOSTNAME.match(hostname):
        raise click.BadParameter(f"'{hostname}' is not a host name (give the name alone, e.g. listok.example.org)",
                                 param_hint="--hostname")
    ups = [upstream_option(u) for u in upstreams]
    if not _SIZE.match(cache_size.lower()):
        raise click.BadParameter("give a size such as 512m or 2g", param_hint="--cache-size")
    if listen:
        try:
            upstream_option(listen)
        except click.BadParameter:
            raise click.BadParameter("give HOST:PORT, e.g. 127.0.0.1:8080", param_hint="--plain") from None
        if cert or key:
            raise click.UsageError("--plain leaves TLS to the proxy in front: drop --cert and --key")
    elif not (cert and key):
        raise click.UsageError("give --cert and --key (nginx does TLS), or --plain HOST:PORT behind Caddy")
    else:
        cert_path, key_path = Path(cert).resolve(), Path(key).resolve()
        problems = check_certificate(cert_path, key_path, hostname)
        if problems:
            raise BadInput("; ".join(problems))
        cert, key = str(cert_path), str(key_path)
    out = Path(output).resolve()
    text = nginx_site(hostname, ups, cache_dir=cache_dir, port=port, cert=cert, key=key, http_port=http_port,
                      listen=listen, cache_size=cache_size.lower())
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{out}: cannot write the nginx site ({e.strerror or e})") from None
    click.echo(f"Wrote {out}")
    click.echo("")
    if listen:
        click.echo("1. Caddy does TLS in front of nginx:")
        click.echo(f"     listok https-config --hostname {hostname} --upstream {listen} -o /etc/caddy/Caddyfile")
    else:
        click.echo(f"LISTOK_PUBLIC_URL={public_url(hostname, port)}")
        click.echo("")
        click.echo("1. The app (docs/DEPLOY.md, \"Many workers\"):")
        click.echo(f"     listok db upgrade && LISTOK_BIND={ups[0]} gunicorn -c python:webapp.serve.gunicorn_conf "
                   "'webapp:create_app()'")
    click.echo("2. nginx (Debian: sudo apt-get install nginx):")
    click.echo(f"     sudo mkdir -p {cache_dir} && sudo chown www-data {cache_dir}")
    click.echo(f"     sudo ln -sf {out} /etc/nginx/sites-enabled/listok   # unless written there")
    click.echo("     sudo nginx -t && sudo systemctl reload nginx")
    click.echo("3. Check: a public page (standings) asked twice says X-Cache-Status: HIT the second time.")
