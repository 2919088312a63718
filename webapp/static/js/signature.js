/* A finger signature on a canvas (signature_pad 5), kept as SVG path data:
   one "M x y L x y …" run per stroke, in CSS pixels of the pad. */
(function (root) {
  "use strict";
  var MAX_BYTES = 64 * 1024;  // docs/SYNC.md

  function round1(v) { return Math.round(v * 10) / 10; }

  function pathData(groups, step) {
    return groups.map(function (g) {
      var pts = (g.points || []).filter(function (p, i, all) {
        return i === 0 || i === all.length - 1 || i % step === 0;
      }).map(function (p) { return round1(p.x) + " " + round1(p.y); });
      if (!pts.length) return "";
      // a dot is a zero-length line, which a round line cap draws
      return "M " + pts[0] + (pts.length > 1 ? " L " + pts.slice(1).join(" ") : " l 0 0");
    }).filter(Boolean).join(" ");
  }

  function create(canvas) {
    var pad = new root.SignaturePad(canvas, {
      minWidth: 1.2, maxWidth: 3.2, penColor: "#102a43", backgroundColor: "rgba(0,0,0,0)"
    });

    function fit() {
      // the canvas bitmap must match its CSS size times the pixel ratio, or strokes land off the finger
      var ratio = Math.max(root.devicePixelRatio || 1, 1);
      var w = canvas.offsetWidth * ratio, h = canvas.offsetHeight * ratio;
      // unchanged: leave it, or a redraw while the finger is down would drop the stroke being drawn
      if (!w || (canvas.width === w && canvas.height === h)) return;
      var data = pad.toData();
      canvas.width = w;
      canvas.height = h;
      canvas.getContext("2d").scale(ratio, ratio);
      pad.clear();
      if (data.length) pad.fromData(data);
    }
    root.addEventListener("resize", fit);
    fit();

    return {
      pad: pad,
      fit: fit,
      clear: function () { pad.clear(); },
      isEmpty: function () { return pad.isEmpty(); },
      onChange: function (fn) { pad.addEventListener("endStroke", fn); },
      /* the drawing as SVG path data, thinned until it fits the protocol's limit */
      path: function () {
        var groups = pad.toData(), step = 1, d = pathData(groups, step);
        while (d.length > MAX_BYTES && step < 64) { step *= 2; d = pathData(groups, step); }
        return d;
      }
    };
  }

  root.ListokSignature = { create: create, pathData: pathData };
})(window);
