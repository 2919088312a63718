"""The address phones get from the QR codes and what it means for them: offline mode
needs a secure context (docs/DEPLOY.md, "HTTPS at the venue"). The dashboard shows the
verdict; `listok https-config` uses the same idea of a local address."""
from __future__ import annotations

import ipaddress
from urllib.parse import urlparse

LOCAL_NAMES = ("localhost", "localhost.localdomain")


def is_local_host(host: str | None) -> bool:
    host = (host or "").strip("[]").lower()
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def offline_mode(url: str) -> dict:
    """What phones get from QR codes that open `url`: "yes" (https), "no" (plain
    http on a network address: online only) or "local" (an address only this
    machine can open)."""
    parts = urlparse(url)
    host = parts.hostname or ""
    if is_local_host(host):
        verdict = "local"
    elif parts.scheme == "https":
        verdict = "yes"
    else:
        verdict = "no"
    return {"verdict": verdict, "url": url, "scheme": parts.scheme, "host": host}


def qr_base_url() -> str:
    """The address the printed QR codes carry (views/shared.sheet_url): LISTOK_PUBLIC_URL, else this request's."""
    from flask import current_app, request

    return (current_app.config.get("LISTOK_PUBLIC_URL") or request.host_url).rstrip("/") + "/"
