// gozie console: the workflow graph viewer. The page shows the REST API's
// SVG as an image; this puts the drawing itself in the page so that it
// fits its box, zooms (buttons, + and -, the mouse wheel), moves (drag,
// arrow keys), opens full screen, and centres the node that failed or
// runs. Without it the image stays, in a box that scrolls.
"use strict";
(function () {
  var box = document.getElementById("graph-box");
  if (!box) return;
  var view = document.getElementById("graph-view");
  var tools = document.getElementById("graph-tools");
  var img = document.getElementById("graph");
  var src = img.getAttribute("src");
  var label = img.getAttribute("alt");
  var g = null; // { svg, w, h, scale }
  var bad = /^(ERROR|FAILED|START_MANUAL|END_MANUAL)$/;
  var running = /^(RUNNING|PREP|START_RETRY|END_RETRY|USER_RETRY)$/;

  // room is the most the box may show: 60% of the window, or all of it
  // below the tools when full screen.
  function room() {
    var h = view.classList.contains("full") ? window.innerHeight - box.getBoundingClientRect().top - 12 : window.innerHeight * 0.6;
    return { w: box.clientWidth, h: Math.max(200, Math.floor(h)) };
  }
  function fitScale() {
    var r = room();
    return Math.min(1, r.w / g.w, r.h / g.h);
  }
  // zoom sets the scale, keeping the drawing's point under (cx, cy) (box
  // coordinates; the box's centre by default) where it is.
  function zoom(s, cx, cy) {
    s = Math.min(4, Math.max(0.05, s));
    if (cx === undefined) { cx = box.clientWidth / 2; cy = box.clientHeight / 2; }
    var px = (box.scrollLeft + cx) / g.scale, py = (box.scrollTop + cy) / g.scale;
    g.scale = s;
    g.svg.setAttribute("width", Math.floor(g.w * s));
    g.svg.setAttribute("height", Math.floor(g.h * s));
    box.style.height = (Math.min(Math.floor(g.h * s), room().h) + 2) + "px";
    box.scrollLeft = px * s - cx;
    box.scrollTop = py * s - cy;
    box.dataset.scale = s.toFixed(3);
  }
  // focusNode is the node to show first: one that failed, else one that
  // runs.
  function focusNode() {
    var nodes = g.svg.querySelectorAll("g.node[data-status]");
    var run = null;
    for (var i = 0; i < nodes.length; i++) {
      var st = nodes[i].getAttribute("data-status");
      if (bad.test(st) || nodes[i].getAttribute("data-failed") === "true") return nodes[i];
      if (!run && running.test(st)) run = nodes[i];
    }
    return run;
  }
  function centre(node) {
    var b = node.getBBox();
    box.scrollLeft = (b.x + b.width / 2) * g.scale - box.clientWidth / 2;
    box.scrollTop = (b.y + b.height / 2) * g.scale - box.clientHeight / 2;
  }
  // first view: the whole drawing when it reads at half size or more;
  // else a readable size centred on the node that failed or runs.
  function initial() {
    var f = fitScale(), node = focusNode();
    zoom(f >= 0.5 || !node ? f : 0.8, 0, 0);
    if (node) {
      node.classList.add("focus");
      centre(node);
    }
  }
  // load fetches the drawing and puts it in place; again keeps the
  // scale and position of the one it replaces (a live refresh).
  function load(again) {
    var url = src + (again ? "&t=" + Date.now() : "");
    return fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "image/svg+xml");
        var svg = doc.documentElement;
        if (!svg || svg.nodeName !== "svg") return;
        svg = document.importNode(svg, true);
        svg.setAttribute("id", "graph-svg");
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", label);
        var keep = g && { scale: g.scale, left: box.scrollLeft, top: box.scrollTop };
        box.replaceChild(svg, box.firstElementChild);
        g = { svg: svg, w: parseFloat(svg.getAttribute("width")), h: parseFloat(svg.getAttribute("height")), scale: 1 };
        box.dataset.ready = "1";
        tools.hidden = false;
        if (!keep) { initial(); return; }
        zoom(keep.scale, 0, 0);
        var node = focusNode();
        if (node) node.classList.add("focus");
        box.scrollLeft = keep.left;
        box.scrollTop = keep.top;
      })
      .catch(function () {});
  }
  function full(on) {
    view.classList.toggle("full", on);
    document.getElementById("graph-full").setAttribute("aria-pressed", String(on));
    document.getElementById("graph-full").textContent = on ? "Close full screen" : "Full screen";
    if (g) zoom(fitScale());
    box.focus();
  }

  tools.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-zoom]");
    if (!b || !g) return;
    switch (b.dataset.zoom) {
      case "in": zoom(g.scale * 1.25); break;
      case "out": zoom(g.scale / 1.25); break;
      case "fit": zoom(fitScale(), 0, 0); break;
      case "1": zoom(1); break;
      case "full": full(!view.classList.contains("full")); break;
    }
  });
  box.addEventListener("wheel", function (ev) {
    if (!g) return;
    ev.preventDefault();
    var r = box.getBoundingClientRect();
    zoom(g.scale * (ev.deltaY < 0 ? 1.15 : 1 / 1.15), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  box.addEventListener("keydown", function (ev) {
    if (!g) return;
    if (ev.key === "+" || ev.key === "=") zoom(g.scale * 1.25);
    else if (ev.key === "-") zoom(g.scale / 1.25);
    else if (ev.key === "0") zoom(fitScale(), 0, 0);
    else return;
    ev.preventDefault();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && view.classList.contains("full")) full(false);
  });
  // Drag to move.
  var drag = null;
  box.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0 || !g) return;
    drag = { x: ev.clientX, y: ev.clientY, left: box.scrollLeft, top: box.scrollTop };
    box.classList.add("dragging");
    if (box.setPointerCapture && ev.pointerId !== undefined) {
      try { box.setPointerCapture(ev.pointerId); } catch (e) {}
    }
  });
  box.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    box.scrollLeft = drag.left - (ev.clientX - drag.x);
    box.scrollTop = drag.top - (ev.clientY - drag.y);
  });
  function endDrag() { drag = null; box.classList.remove("dragging"); }
  box.addEventListener("pointerup", endDrag);
  box.addEventListener("pointercancel", endDrag);
  // A live page's graph follows the job (console.js says when it
  // refreshed).
  document.addEventListener("gozie:refreshed", function () { if (g) load(true); });
  window.addEventListener("resize", function () { if (g && view.classList.contains("full")) zoom(fitScale()); });
  load(false);
})();
