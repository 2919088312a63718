// Scan a table inside the app (templates/public/scan.html): the camera through
// BarcodeDetector where the browser has it, else the vendored jsQR decoder on
// the camera's frames; a photo (file input) the same way. Only this server's
// own table links (/s/<token>) are opened, in this window.
(function () {
  "use strict";
  var root = document.getElementById("scan");
  if (!root) return;
  var S = JSON.parse(document.getElementById("scan-strings").textContent);
  var status = document.getElementById("scan-status"), video = document.getElementById("scan-video");
  var jsqrLoading = null, stream = null;

  function say(text) { status.textContent = text; status.hidden = !text; }

  // the table's own link: this origin (or the public address the sheets print), path /s/<token>
  function tableLink(text) {
    var url;
    try { url = new URL(String(text).trim()); } catch (e) { return null; }
    var base = root.getAttribute("data-public-base");
    var baseOrigin = null;
    try { baseOrigin = base ? new URL(base).origin : null; } catch (e) { baseOrigin = null; }
    var known = url.origin === location.origin || url.origin === baseOrigin;
    if (!known || !/^\/s\/[\w.\-]+$/.test(url.pathname)) return null;
    return url.pathname;
  }

  function found(text) {
    var path = tableLink(text);
    if (!path) { say(S.foreign); return false; }
    stop();
    say(S.opening);
    location.assign(path);
    return true;
  }

  function loadJsQR() {
    if (window.jsQR) return Promise.resolve(window.jsQR);
    if (!jsqrLoading) {
      jsqrLoading = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = root.getAttribute("data-jsqr");
        s.onload = function () { resolve(window.jsQR); };
        s.onerror = reject;
        document.head.appendChild(s);
      });
    }
    return jsqrLoading;
  }

  function detector() {
    if (!("BarcodeDetector" in window)) return Promise.resolve(null);
    return window.BarcodeDetector.getSupportedFormats().then(function (f) {
      return f.indexOf("qr_code") >= 0 ? new window.BarcodeDetector({ formats: ["qr_code"] }) : null;
    }, function () { return null; });
  }

  // one picture (a video frame or a photo) → the QR code's text, or null
  function decode(source, width, height) {
    return detector().then(function (d) {
      if (d) return d.detect(source).then(function (codes) { return codes.length ? codes[0].rawValue : null; });
      return loadJsQR().then(function (jsQR) {
        var canvas = document.createElement("canvas");
        canvas.width = width; canvas.height = height;
        var ctx = canvas.getContext("2d");
        ctx.drawImage(source, 0, 0, width, height);
        var code = jsQR(ctx.getImageData(0, 0, width, height).data, width, height);
        return code ? code.data : null;
      });
    });
  }

  function stop() {
    if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    stream = null;
    video.hidden = true;
  }

  document.getElementById("scan-camera").addEventListener("click", function () {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) { say(S.no_camera); return; }
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false }).then(function (s) {
      stream = s;
      video.srcObject = s;
      video.hidden = false;
      say(S.looking);
      return video.play();
    }).then(function frame() {
      if (!stream) return;
      if (!video.videoWidth) { setTimeout(frame, 200); return; }
      decode(video, video.videoWidth, video.videoHeight).then(function (text) {
        if (text && found(text)) return;
        setTimeout(frame, 250);
      }, function () { setTimeout(frame, 500); });
    }).catch(function () { stop(); say(S.no_camera); });
  });

  document.getElementById("scan-file").addEventListener("change", function (ev) {
    var file = ev.target.files && ev.target.files[0];
    if (!file) return;
    createImageBitmap(file).then(function (bitmap) {
      // a phone photo is large: a QR code needs no more than about 1000 px
      var scale = Math.min(1, 1000 / Math.max(bitmap.width, bitmap.height));
      return decode(bitmap, Math.round(bitmap.width * scale), Math.round(bitmap.height * scale));
    }).then(function (text) {
      if (!text) say(S.none); else found(text);
    }, function () { say(S.none); });
    ev.target.value = "";
  });
})();
