// gozie console: live refresh, job controls and forms (rerun, change,
// ignore) with a confirmation step,
// action output viewer. Pages are complete without it.
"use strict";
(function () {
  var body = document.body;
  var live = body.hasAttribute("data-live");
  var busy = false;

  // refresh fetches the page again and swaps its live parts in place.
  function refresh() {
    if (busy || document.getElementById("confirm").open) return Promise.resolve();
    busy = true;
    return fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll("[data-live-part]").forEach(function (el) {
          var fresh = doc.getElementById(el.id);
          if (fresh) el.replaceWith(document.importNode(fresh, true));
        });
        var g = document.getElementById("graph");
        if (g) g.src = g.src.replace(/&t=\d+$/, "") + "&t=" + Date.now();
        document.dispatchEvent(new Event("gozie:refreshed")); // graph.js redraws
        live = doc.body.hasAttribute("data-live");
        body.dataset.refreshed = String(Date.now());
      })
      .catch(function () {})
      .finally(function () { busy = false; });
  }
  setInterval(function () {
    var box = document.getElementById("live");
    if (live && (!box || box.checked)) refresh();
  }, 5000);

  // Job controls: confirm, then PUT through the console to the REST API.
  var dlg = document.getElementById("confirm");
  var pending = null;
  function errorText(r) {
    var m = r.headers.get("oozie-error-message");
    var code = r.headers.get("oozie-error-code");
    if (m) return Promise.resolve(code && m.indexOf(code) !== 0 ? code + ": " + m : m);
    return r.text().then(function (t) {
      try { return JSON.parse(t).errorMessage || t; } catch (e) { return t || ("HTTP " + r.status); }
    });
  }
  // ask opens the confirmation dialog for a change; params are the
  // form's fields (skip list, scope, ...), shown so the user sees them.
  function ask(job, action, label, params) {
    pending = { job: job, action: action, params: params || "" };
    document.getElementById("confirm-title").textContent = label + "?";
    var text = label + ": job " + job;
    if (params) text += " (" + decodeURIComponent(params.replace(/\+/g, " ")).replace(/&/g, ", ") + ")";
    document.getElementById("confirm-text").textContent = text;
    var err = document.getElementById("confirm-error");
    err.hidden = true; err.textContent = "";
    dlg.showModal();
    document.getElementById("confirm-cancel").focus();
  }
  document.addEventListener("submit", function (ev) {
    var f = ev.target.closest("form.actform");
    if (!f) return;
    ev.preventDefault();
    var p = new URLSearchParams();
    new FormData(f).forEach(function (v, k) { if (String(v).trim() !== "") p.append(k, v); });
    ask(f.dataset.job, f.dataset.action, f.dataset.label, p.toString());
  });
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.act");
    if (b) {
      ask(b.dataset.job, b.dataset.action, b.textContent, "");
      return;
    }
    var t = ev.target.closest("button.tail");
    if (t) {
      var out = document.getElementById("output");
      document.getElementById("output-title").textContent = t.dataset.title;
      var pre = document.getElementById("output-text");
      pre.textContent = "loading…";
      out.hidden = false;
      fetch(t.dataset.src, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : errorText(r).then(function (m) { return "error: " + m; }); })
        .then(function (s) { pre.textContent = s || "(empty)"; out.scrollIntoView(); });
    }
  });
  if (dlg) {
    document.getElementById("confirm-ok").addEventListener("click", function (ev) {
      ev.preventDefault();
      if (!pending) return;
      var err = document.getElementById("confirm-error");
      fetch("/oozie/console/job/" + encodeURIComponent(pending.job) + "?action=" + encodeURIComponent(pending.action) +
        (pending.params ? "&" + pending.params : ""),
        { method: "PUT", credentials: "same-origin" })
        .then(function (r) {
          if (r.ok) { dlg.close(); pending = null; live = true; return refresh(); }
          return errorText(r).then(function (m) { err.textContent = "Refused: " + m; err.hidden = false; });
        })
        .catch(function (e) { err.textContent = "Request failed: " + e; err.hidden = false; });
    });
    document.getElementById("confirm-cancel").addEventListener("click", function (ev) {
      ev.preventDefault(); pending = null; dlg.close();
    });
  }
})();
