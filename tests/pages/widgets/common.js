// Shared by every widget page, loaded before the library: what the page commits and how much a
// person (or a test) did to get there.
//
//   reportCommit(field, value)  call it from the library's own change callback (never from a DOM
//                               event the page chose: the library's callback is what an app sees).
//                               Pass the value normalized: an option's label, a list of labels,
//                               true/false, a number, [low, high], or a date (a Date, or an ISO
//                               "YYYY-MM-DD" string; a Date becomes its local ISO date).
//   isoDate(date)               a Date's local "YYYY-MM-DD" (null for none or an invalid one).
//   window.__commits            [{field, value}] in order, on this load of the page.
//   window.__input              {clicks, keys}: trusted pointerdown and keydown events, counted in
//                               the capture phase of window, so a library that stops them still
//                               counts (the speed benchmark reads it).
//   window.__pageId             this load's id, posted with each commit (tests wait for a load's
//                               commits to reach the server: fetch returns before it lands).
//
// The library's name is the page's folder: /widgets/<lib>/index.html, or <html data-lib="...">.
(function () {
  "use strict";
  var parts = location.pathname.split("/");
  var lib = document.documentElement.getAttribute("data-lib") || parts[parts.indexOf("widgets") + 1] || "";
  var pageId = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  window.__pageId = pageId;
  window.__commits = [];
  window.__input = { clicks: 0, keys: 0 };
  window.addEventListener("pointerdown", function (e) { if (e.isTrusted) window.__input.clicks++; }, true);
  window.addEventListener("keydown", function (e) { if (e.isTrusted) window.__input.keys++; }, true);

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function isoDate(d) {
    if (!(d instanceof Date) || isNaN(d.getTime())) return null;
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }

  function normalize(value) {
    if (value instanceof Date) return isoDate(value);
    if (Array.isArray(value)) return value.map(normalize);
    return value === undefined ? null : value;
  }

  window.isoDate = isoDate;
  window.reportCommit = function (field, value) {
    var v = normalize(value);
    var seq = window.__commits.length;
    window.__commits.push({ field: field, value: v });
    // keepalive: a commit made just before the page unloads (a reload between fields) still lands.
    fetch("/commit", {
      method: "POST",
      keepalive: true,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ lib: lib, field: field, value: v, page: pageId, seq: seq }),
    }).catch(function () {});
  };
})();
