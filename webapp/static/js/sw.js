/* Listok's service worker, served at /sw.js (scope /) with its version and
   precache list filled in by the server (views/table.py).

   - the table page's assets: precached, then cache-first (the cache name
     carries the version, so a deploy brings a new worker and fresh copies);
   - a table page (/s/<token>): cache-first — a kept copy is answered at once
     with nothing from the network; with no copy, from the network (a copy
     is kept; lie-fi and 5xx as below). The page's script then asks the API
     for the table's state, and asks this worker to renew the copy
     ("refresh-page") when its fixed data is out of date, or to drop it
     ("drop-page") when the server no longer knows the table's link;
   - everything else, the API included: not touched.
   The outbox (IndexedDB) is shared with the page: Background Sync, where the
   browser has it, is one more chance to send; the page never relies on it. */
"use strict";
var VERSION = "__VERSION__";
var PRECACHE = "__PRECACHE__";
var STATIC_CACHE = "listok-static-" + VERSION;
var PAGE_CACHE = "listok-pages-" + VERSION;
var MAX_PAGES = 40;
var NETWORK_WAIT = 6000;  // a page that does not come by then is shown from the copy

/*__OUTBOX__*/  // static/js/outbox.js, inlined by the server: one file to check for updates

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(STATIC_CACHE).then(function (cache) {
    // static files are served with no-cache + ETag: the browser revalidates each, so nothing stale is stored
    return cache.addAll(PRECACHE);
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) {
      return n.indexOf("listok-") === 0 && n !== STATIC_CACHE && n !== PAGE_CACHE;
    }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

function isPage(url) { return url.pathname.indexOf("/s/") === 0; }
function isStatic(url) { return url.pathname.indexOf("/static/") === 0; }
// a player's "my tournament" page and the scan page: from the network, its last copy when there is none
function isMyPage(url) { return /^\/t\/\d+\/me$/.test(url.pathname) || url.pathname === "/scan"; }

function keepPage(request, response) {
  return caches.open(PAGE_CACHE).then(function (cache) {
    return cache.put(request, response).then(function () { return cache.keys(); }).then(function (keys) {
      // oldest first: drop the pages of rounds long gone
      return Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map(function (k) {
        return cache.delete(k);
      }));
    });
  });
}

function pageCacheFirst(request) {
  return caches.open(PAGE_CACHE).then(function (cache) { return cache.match(request.url); })
    .then(function (hit) { return hit || pageNetworkFirst(request); });
}

/* no copy yet: the network, with the copy as a fallback should one appear meanwhile */
function pageNetworkFirst(request) {
  var key = request.url;
  function copy() { return caches.open(PAGE_CACHE).then(function (c) { return c.match(key); }); }
  return new Promise(function (resolve, reject) {
    var settled = false;
    function settle(response) { if (!settled) { settled = true; resolve(response); } }
    // lie-fi: joined to a Wi-Fi that does not answer
    var timer = setTimeout(function () { copy().then(function (hit) { if (hit) settle(hit); }); }, NETWORK_WAIT);
    fetch(request).then(function (response) {
      clearTimeout(timer);
      if (response.status >= 500) return copy().then(function (hit) { settle(hit || response); });
      if (response.ok) keepPage(key, response.clone());
      settle(response);
    }, function (err) {
      clearTimeout(timer);
      copy().then(function (hit) {
        if (hit) settle(hit);
        else if (!settled) { settled = true; reject(err); }
      });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (isPage(url) && request.mode === "navigate") {
    event.respondWith(pageCacheFirst(request));
  } else if (isMyPage(url) && request.mode === "navigate") {
    event.respondWith(pageNetworkFirst(request));
  } else if (isStatic(url)) {
    event.respondWith(caches.open(STATIC_CACHE).then(function (cache) {
      return cache.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) {
          if (response.ok) cache.put(request, response.clone());
          return response;
        });
      });
    }));
  }
});

/* The page asks about its own copy:
   - "cache-page": keep one (its first load came before this worker controlled it);
   - "refresh-page": its fixed data (players, total, whose cards) is out of date:
     fetch it again and keep the new copy (one the server refuses is dropped);
   - "drop-page": the server no longer knows this link: forget the copy. */
function fetchPage(href) {
  return fetch(href, { credentials: "same-origin", cache: "no-store" });
}

self.addEventListener("message", function (event) {
  var data = event.data || {}, port = event.ports && event.ports[0];
  if (["cache-page", "refresh-page", "drop-page"].indexOf(data.type) < 0) return;
  var url = new URL(data.url, self.location.origin);
  if (url.origin !== self.location.origin || !isPage(url)) return;
  var work = caches.open(PAGE_CACHE).then(function (cache) {
    if (data.type === "drop-page") return cache.delete(url.href);
    return cache.match(url.href).then(function (hit) {
      if (hit && data.type === "cache-page") return hit;
      return fetchPage(url.href).then(function (response) {
        if (response.ok) return keepPage(url.href, response).then(function () { return { ok: true }; });
        // 4xx: the link is refused (bad token, round over): its old copy must not stand in for it
        if (response.status < 500) return cache.delete(url.href).then(function () { return { ok: false, dropped: true }; });
        return { ok: false };
      });
    });
  });
  event.waitUntil(work.then(function (answer) {
    if (port) port.postMessage(answer && answer.ok === false ? answer : { ok: true });
  }, function () { if (port) port.postMessage({ ok: false }); }));
});

self.addEventListener("sync", function (event) {
  if (event.tag === "listok-outbox") event.waitUntil(self.ListokOutbox.flush(true));
});
