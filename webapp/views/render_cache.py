"""A small in-process cache for pages that hundreds of phones poll (standings).

Keys include the tournament's version, which every change bumps, so an entry
is never stale: a new version simply misses and the old entry ages out.
"""
from __future__ import annotations

import threading
from collections import OrderedDict


class VersionedCache:
    def __init__(self, size: int = 32):
        self.size = size
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
