"""HTTPS and client addresses behind a reverse proxy, and Secure cookies.

X-Forwarded-For/-Proto/-Host are honoured only when the connection comes from
a configured proxy (LISTOK_TRUSTED_PROXIES: addresses or networks, comma
separated); from anybody else they are ignored, so a client can neither fake
its address (the login throttle counts per address) nor claim HTTPS.
Every cookie the app sets (session, remember-me, language, any other) gets
`Secure` whenever the request came over HTTPS."""
from __future__ import annotations

import ipaddress

from werkzeug.middleware.proxy_fix import ProxyFix


def parse_networks(value: str) -> tuple:
    nets = []
    for part in (value or "").replace(";", ",").split(","):
        part = part.strip()
        if part:
            nets.append(ipaddress.ip_network(part, strict=False))
    return tuple(nets)


class TrustedProxyFix:
    def __init__(self, app, trusted: str):
        self.app = app
        self.networks = parse_networks(trusted)
        self.fixed = ProxyFix(app, x_for=1, x_proto=1, x_host=1)

    def trusted(self, addr: str | None) -> bool:
        try:
            ip = ipaddress.ip_address((addr or "").split("%")[0])
        except ValueError:
            return False
        if ip.version == 6 and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        return any(ip in net for net in self.networks)

    def __call__(self, environ, start_response):
        if self.networks and self.trusted(environ.get("REMOTE_ADDR")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)


class SecureCookies:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("wsgi.url_scheme") != "https":
            return self.app(environ, start_response)

        def secure_start_response(status, headers, exc_info=None):
            headers = [(name, _secure(value) if name.lower() == "set-cookie" else value) for name, value in headers]
            return start_response(status, headers, exc_info)

        return self.app(environ, secure_start_response)


def _secure(cookie: str) -> str:
    attrs = {part.strip().lower() for part in cookie.split(";")[1:]}
    return cookie if "secure" in attrs else cookie + "; Secure"
