/* Listok's service worker, served at /sw.js (scope /) with its version and
   precache list filled in by the server (views/table.py).

   - the table page's assets: precached, then cache-first (the cache name
     carries the version, so a deploy brings a new worker and fresh copies);
   - a table page (/s/<token>): network-first, its copy kept for when the
     venue Wi-Fi drops (and after a reload);
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

importScripts("__OUTBOX__");

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

/* The page asks for its own copy: its first load came before this worker controlled it. */
self.addEventListener("message", function (event) {
  var data = event.data || {}, port = event.ports && event.ports[0];
  if (data.type !== "cache-page") return;
  var url = new URL(data.url, self.location.origin);
  if (url.origin !== self.location.origin || !isPage(url)) return;
  event.waitUntil(caches.open(PAGE_CACHE).then(function (cache) {
    return cache.match(url.href).then(function (hit) {
      return hit || fetch(url.href, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return keepPage(url.href, response);
      });
    });
  }).then(function () { if (port) port.postMessage({ ok: true }); },
    function () { if (port) port.postMessage({ ok: false }); }));
});

self.addEventListener("sync", function (event) {
  if (event.tag === "listok-outbox") event.waitUntil(self.ListokOutbox.flush(true));
});
