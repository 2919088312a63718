/* The phone's outbox for signed sheets (docs/SYNC.md), in IndexedDB.

   A signed sheet is stored here before the page says "signed", and leaves only
   when the server has confirmed exactly that content (same content_hash).
   Runs in the page and in the service worker (Background Sync, where it
   exists, is only one more trigger: the page retries on its own).

   A confirmed sheet stays in "kept" with the server's acknowledgement (its
   content, drawings and answer; never a PIN) until its round is closed: when
   the venue laptop died and the standby's copy lacks it, `resend` sends it
   again with the ack (docs/SYNC.md, "When the server lost a sheet"). */
(function (root) {
  "use strict";
  var DB_NAME = "listok", DB_VERSION = 2;
  var KEEP_MS = 2 * 24 * 3600 * 1000;  // a kept sheet whose round was never seen closed: gone after two days
  var ENDPOINT = "/api/v1/sheets";
  var CONFIRMED = { "accepted": 1, "needs-referee": 1, "dispute": 1 };
  var SEND_TIMEOUT = 20000, FIRST_DELAY = 500, MAX_DELAY = 60000;
  var dbPromise = null, flushing = null, listeners = [], timer = null;
  var channel = typeof BroadcastChannel !== "undefined" ? new BroadcastChannel("listok-outbox") : null;

  function openDb() {
    if (dbPromise) return dbPromise;
    dbPromise = new Promise(function (resolve, reject) {
      var req = indexedDB.open(DB_NAME, DB_VERSION);
      req.onupgradeneeded = function () {
        var db = req.result;
        if (!db.objectStoreNames.contains("outbox")) db.createObjectStore("outbox", { keyPath: "idempotency_key" });
        if (!db.objectStoreNames.contains("results")) db.createObjectStore("results", { keyPath: "token" });
        if (!db.objectStoreNames.contains("drafts")) db.createObjectStore("drafts", { keyPath: "token" });
        if (!db.objectStoreNames.contains("kept")) db.createObjectStore("kept", { keyPath: "idempotency_key" });
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { dbPromise = null; reject(req.error); };
    });
    return dbPromise;
  }

  /* run `work(stores)` in one transaction; resolves when it has committed */
  function tx(names, mode, work) {
    return openDb().then(function (db) {
      return new Promise(function (resolve, reject) {
        var t = db.transaction(names, mode), out;
        var stores = {};
        names.forEach(function (n) { stores[n] = t.objectStore(n); });
        out = work(stores);
        t.oncomplete = function () { resolve(out instanceof IDBRequest ? out.result : out); };
        t.onerror = function () { reject(t.error); };
        t.onabort = function () { reject(t.error || new Error("aborted")); };
      });
    });
  }

  function getAll(store) {
    return tx([store], "readonly", function (s) { return s[store].getAll(); });
  }
  function getOne(store, key) {
    return tx([store], "readonly", function (s) { return s[store].get(key); });
  }

  function uuid() {
    var c = root.crypto;
    if (c && typeof c.randomUUID === "function") return c.randomUUID();  // secure contexts only
    var b = new Uint8Array(16);
    c.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function notify(what) {
    listeners.forEach(function (fn) { try { fn(what); } catch (e) { /* a listener's bug must not stop sending */ } });
    if (channel && what && !what.remote) channel.postMessage({ type: what.type, token: what.token });
  }
  if (channel) channel.onmessage = function (ev) { notify({ type: ev.data.type, token: ev.data.token, remote: true }); };

  /* A lost answer is retried after about half a second, then 1, 2, 4 … 60 s (the retry of a
     stored sheet is a cheap replay, and with 1 s a table that lost two answers waited 3 s). A busy
     server's ticket (`retry_after_ms` in its answer: the moment its turn comes, already spread by the
     server over the round's phones) is waited out with a little jitter; a bare Retry-After (seconds, a proxy's) is spread by up to half of it
     so that a round's phones do not come back all at once. */
  function delay(attempts, retryAfter, ticketMs) {
    if (ticketMs > 0) return Math.round(Math.min(MAX_DELAY, ticketMs) * (1 + Math.random() * 0.1));
    if (retryAfter > 0) return Math.round(Math.min(MAX_DELAY, retryAfter * 1000) * (1 + Math.random() * 0.5));
    var base = Math.min(MAX_DELAY, FIRST_DELAY * Math.pow(2, Math.max(0, attempts - 1)));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  function retryAfterSeconds(res) {
    var v = res.headers && res.headers.get("Retry-After");
    var n = v ? parseInt(v, 10) : NaN;
    return isNaN(n) ? 0 : n;
  }

  function ticketMs(http, data) {
    var n = http === 503 && data && typeof data.retry_after_ms === "number" ? data.retry_after_ms : 0;
    return n > 0 ? n : 0;
  }

  /* Put a signed sheet (and drop the draft it came from) in one transaction. */
  function add(token, body, meta) {
    var item = {
      idempotency_key: body.idempotency_key, token: token, body: body, state: "waiting",
      attempts: 0, next_at: 0, created_at: Date.now(), problem: null, base_sums: (meta && meta.base_sums) || null
    };
    return tx(["outbox", "drafts"], "readwrite", function (s) {
      s.outbox.put(item);
      s.drafts.delete(token);
    }).then(function () {
      notify({ type: "added", token: token });
      registerSync();
      return item;
    });
  }

  function registerSync() {
    if (!root.navigator || !navigator.serviceWorker || !root.isSecureContext) return;
    navigator.serviceWorker.ready.then(function (reg) {
      if (reg.sync) return reg.sync.register("listok-outbox");
    }).catch(function () { /* Background Sync is a bonus, never relied on */ });
  }

  function post(body) {
    var ctrl = typeof AbortController !== "undefined" ? new AbortController() : null;
    var t = ctrl ? setTimeout(function () { ctrl.abort(); }, SEND_TIMEOUT) : null;
    return fetch(ENDPOINT, {
      method: "POST", headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body), credentials: "same-origin", cache: "no-store",
      signal: ctrl ? ctrl.signal : undefined
    }).then(function (res) {
      var after = res.status === 503 || res.status === 429 ? retryAfterSeconds(res) : 0;
      return res.json().then(function (data) {
        return { http: res.status, data: data, retryAfter: after, ticketMs: ticketMs(res.status, data) };
      }, function () { return { http: res.status, data: null, retryAfter: after, ticketMs: 0 }; });
    }).finally(function () { if (t) clearTimeout(t); });
  }

  /* Send one item; resolves to what happened, having stored it. */
  function sendOne(item) {
    return post(item.body).then(function (answer) {
      var d = answer.data;
      // the key is bound to the content on the server (another content under it is refused), so an
      // answer that does not echo the hash still confirms this content; one that echoes another does not
      if (d && CONFIRMED[d.status] && (d.content_hash === undefined || d.content_hash === item.body.content_hash)) {
        var result = {
          token: item.token, status: d.status, receipt: d.receipt || "", reason: d.reason || "",
          "case": d["case"] || null, version: d.version || null, replay: !!d.replay, pin_failed: d.pin_failed || null,
          content_hash: item.body.content_hash, sums_cents: item.body.content.sums_cents,
          base_version: item.body.content.base_version, at: Date.now(),
          ack: d.ack || "", key: item.idempotency_key, retaken: !!d.retaken
        };
        forgetPins(item, null);
        return tx(["outbox", "results", "kept"], "readwrite", function (s) {
          s.results.put(result);
          s.outbox.delete(item.idempotency_key);
          if (d.ack) {
            s.kept.put({ idempotency_key: item.idempotency_key, token: item.token, body: item.body, ack: d.ack,
                         answer: d, kept_at: Date.now() });
          }
        }).then(function () { notify({ type: "sent", token: item.token }); return "sent"; });
      }
      if (answer.http >= 500 || answer.http === 429 || !d || !d.status || CONFIRMED[d.status]) {
        // a server error or a busy server, a proxy's page, or an answer about other content: try again later
        return retryLater(item, { http: answer.http, status: d && d.status }, answer.retryAfter, answer.ticketMs);
      }
      item.state = "blocked";
      item.problem = d;
      item.problem.http = answer.http;
      forgetPins(item, d.pin_proofs);
      return save(item).then(function () { notify({ type: "blocked", token: item.token }); return "blocked"; });
    }, function (err) {
      return retryLater(item, { network: true, message: String(err && err.message || err) });
    });
  }

  /* The server has answered: the PINs it was sent are gone from the outbox; those it found right are
     kept as its proofs (docs/SYNC.md, "What a phone keeps"). */
  function forgetPins(item, proofs) {
    item.body.signatures.forEach(function (s) {
      if (s.own_phone) return;
      var proof = proofs && proofs[String(s.start_no)];
      if (proof) s.pin_proof = proof;
      s.pin = "";
    });
    if (item.problem) delete item.problem.pin_proofs;
  }

  function retryLater(item, why, retryAfter, ticket) {
    item.attempts += 1;
    item.state = "waiting";
    item.next_at = Date.now() + delay(item.attempts, retryAfter, ticket);
    item.last_try = why;
    return save(item).then(function () { notify({ type: "waiting", token: item.token }); return "waiting"; });
  }

  function save(item) {
    // the item may have left meanwhile (sent by the service worker or another tab): do not bring it back
    return tx(["outbox"], "readwrite", function (s) {
      var req = s.outbox.get(item.idempotency_key);
      req.onsuccess = function () { if (req.result) s.outbox.put(item); };
    });
  }

  /* Send every waiting item that is due (all of them when `force`). */
  function flush(force) {
    if (flushing) return flushing;
    var run = function () {
      return getAll("outbox").then(function (items) {
        var now = Date.now();
        var due = items.filter(function (it) {
          return it.state === "waiting" && (force || !it.next_at || it.next_at <= now);
        });
        return due.reduce(function (p, it) {
          return p.then(function () { return sendOne(it); });
        }, Promise.resolve());
      });
    };
    var locked = root.navigator && navigator.locks && navigator.locks.request
      ? navigator.locks.request("listok-outbox", run) : run();
    flushing = Promise.resolve(locked).catch(function () { /* kept in the outbox: the next trigger retries */ })
      .then(function () { flushing = null; return schedule(); });
    return flushing;
  }

  /* Set the timer for the next due retry (page only). */
  function schedule() {
    if (typeof document === "undefined") return Promise.resolve();
    return getAll("outbox").then(function (items) {
      if (timer) { clearTimeout(timer); timer = null; }
      var waiting = items.filter(function (it) { return it.state === "waiting"; });
      if (!waiting.length) return;
      var next = Math.min.apply(null, waiting.map(function (it) { return it.next_at || 0; }));
      timer = setTimeout(function () { timer = null; flush(false); }, Math.max(100, next - Date.now()));
    });
  }

  /* The page's triggers: load, back online, visible again, timer, "send now". */
  function start() {
    root.addEventListener("online", function () { flush(true); });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") flush(true);
    });
    return flush(true);
  }

  /* Let a blocked item go again (e.g. after a PIN was typed anew). */
  function retry(key, change) {
    return getOne("outbox", key).then(function (item) {
      if (!item) return null;
      if (change) change(item);
      item.state = "waiting";
      item.problem = null;
      item.next_at = 0;
      return tx(["outbox"], "readwrite", function (s) { s.outbox.put(item); })
        .then(function () { return flush(true); });
    });
  }

  /* Change a waiting or blocked item without sending it (a PIN typed while another is still missing). */
  function update(key, change) {
    return tx(["outbox"], "readwrite", function (s) {
      var req = s.outbox.get(key);
      req.onsuccess = function () { if (req.result) { change(req.result); s.outbox.put(req.result); } };
    });
  }

  /* Give up a sheet the server refused for good (a stale version, a closed round). */
  function discard(key) {
    return tx(["outbox"], "readwrite", function (s) { s.outbox.delete(key); })
      .then(function () { notify({ type: "discarded" }); });
  }

  /* The server answered for this table but does not know the sheet this phone holds an ack for
     (restored from a copy a few seconds older): the kept sheet goes again, same key, with the ack
     and without PINs; the server takes it in as the same signed sheet. Resolves to how many went. */
  function resend(token) {
    return getAll("kept").then(function (kept) {
      var mine = kept.filter(function (k) { return k.token === token; });
      if (!mine.length) return 0;
      return tx(["outbox"], "readwrite", function (s) {
        mine.forEach(function (k) {
          var body = JSON.parse(JSON.stringify(k.body));
          body.ack = k.ack;
          body.signatures.forEach(function (sig) { sig.pin = ""; });
          s.outbox.put({ idempotency_key: k.idempotency_key, token: token, body: body, state: "waiting", attempts: 0,
                         next_at: 0, created_at: k.kept_at, problem: null, base_sums: null, resent: true });
        });
      }).then(function () { notify({ type: "resent", token: token }); return flush(true); })
        .then(function () { return mine.length; });
    });
  }

  /* The round is closed (or the table is gone): its kept sheets are no longer needed. Old ones go too. */
  function forget(token) {
    var old = Date.now() - KEEP_MS;
    return tx(["kept"], "readwrite", function (s) {
      var req = s.kept.getAll();
      req.onsuccess = function () {
        req.result.forEach(function (k) {
          if (k.token === token || k.kept_at < old) s.kept.delete(k.idempotency_key);
        });
      };
    });
  }

  function forToken(token) {
    return getAll("outbox").then(function (items) {
      return items.filter(function (it) { return it.token === token; })
        .sort(function (a, b) { return a.created_at - b.created_at; });
    });
  }

  root.ListokOutbox = {
    uuid: uuid, add: add, flush: flush, start: start, retry: retry, update: update, discard: discard,
    forToken: forToken, delay: delay, resend: resend, forget: forget,
    kept: function () { return getAll("kept"); },
    all: function () { return getAll("outbox"); },
    result: function (token) { return getOne("results", token); },
    saveResult: function (result) { return tx(["results"], "readwrite", function (s) { s.results.put(result); }); },
    draft: function (token) { return getOne("drafts", token); },
    saveDraft: function (draft) { return tx(["drafts"], "readwrite", function (s) { s.drafts.put(draft); }); },
    dropDraft: function (token) { return tx(["drafts"], "readwrite", function (s) { s.drafts.delete(token); }); },
    onChange: function (fn) { listeners.push(fn); }
  };
})(typeof self !== "undefined" ? self : this);
