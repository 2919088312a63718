"""The `listok` command (docs/EXCHANGE.md), on top of everything else: main.py the group and
the computing commands, server.py the server's, https_config.py and proxy_config.py the
reverse proxies' files, base.py what they share. Only click at import time."""
from .main import listok, main

__all__ = ["listok", "main"]
