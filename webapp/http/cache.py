"""A small in-process cache for pages that hundreds of phones poll (standings) and for
the federation's season reports: pure Python (threading only), below the services and
the views that both use it.

Keys include the tournament's version, which every change bumps, so an entry
is never stale: a new version simply misses and the old entry ages out.
"""
from __future__ import annotations

import threading
from collections import OrderedDict


class VersionedCache:
    """`max_bytes`: also bound the entries' total size (values whose [1] is bytes, as
    webapp/http/caching.py keeps them: (status, body, mimetype))."""

    def __init__(self, size: int = 32, max_bytes: int | None = None):
        self.size = size
        self.max_bytes = max_bytes
        self._bytes = 0
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict = {}

    def _weight(self, value) -> int:
        return len(value[1]) if self.max_bytes is not None else 0

    def get(self, key):
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= self._weight(old)
            self._data[key] = value
            self._bytes += self._weight(value)
            while len(self._data) > self.size or (self.max_bytes is not None and self._bytes > self.max_bytes
                                                  and len(self._data) > 1):
                _k, dropped = self._data.popitem(last=False)
                self._bytes -= self._weight(dropped)

    def get_or_make(self, key, make):
        """The cached value, else make() once: requests that miss the same key
        meanwhile (every phone polling right after a round is closed) wait for
        that one instead of each computing it alongside."""
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        try:
            with making:
                value = self.get(key)
                if value is None:
                    value = make()
                    self.put(key, value)
                return value
        finally:
            with self._lock:
                if self._making.get(key) is making:
                    del self._making[key]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0
