"""The page script: sorting, filtering and paging of the findings table. Inline (the CSP allows exactly
this text by its hash), no dependencies, and it only moves rows and sets `hidden`/`textContent`: it never
turns text into markup. Only a page of matching rows is shown at a time (more on request), so a run of
tens of thousands of findings stays responsive; without script every row is shown."""

PAGE = 250  # rows shown at once; the server marks the rows after the first page hidden as well

SCRIPT = r"""
(function () {
  "use strict";
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
  var table = document.getElementById("findings-table");
  var form = document.getElementById("filters");
  if (!table || !form) { return; }
  var PAGE = Number(table.getAttribute("data-page")) || 250;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);  // in the current sort order (the DOM order of
  // the rows on show; hidden rows are not kept in order)
  var count = document.getElementById("f-count");
  var none = document.getElementById("f-none");
  var more = document.getElementById("f-more");
  var collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  var texts = new Map();
  var limit = PAGE;
  var matching = rows;
  var visible = rows.filter(function (r) { return !r.hidden; });
  var keys = {};  // column -> sort key per row, computed on the first sort by that column
  form.hidden = false;

  function key(row, col) {
    var cell = row.cells[col];
    if (cell.hasAttribute("data-v")) { return Number(cell.getAttribute("data-v")); }
    var k = cell.querySelector(".k");
    return (k || cell).textContent.trim();
  }

  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    return collator.compare(String(a), String(b));
  }

  function rowText(r) {
    var text = texts.get(r);
    if (text === undefined) {
      var cells = Array.prototype.slice.call(r.cells, 1);
      text = cells.map(function (c) { return c.textContent; }).join(" ").toLowerCase();
      texts.set(r, text);
    }
    return text;
  }

  function show() {  // touches only the rows that change: a page, not the whole table
    var shown = Math.min(limit, matching.length);
    var next = matching.slice(0, shown);
    var keep = new Set(next);
    visible.forEach(function (r) { if (!keep.has(r)) { r.hidden = true; } });
    var fragment = document.createDocumentFragment();  // the page, in order, at the top of the table;
    next.forEach(function (r) {  // hidden rows stay where they are (moving them all costs seconds)
      fragment.appendChild(r);
      if (r.hidden) { r.hidden = false; }
    });
    body.insertBefore(fragment, body.firstChild);
    visible = next;
    var total = rows.length.toLocaleString("en");
    count.textContent = matching.length.toLocaleString("en") + " of " + total + " findings" +
      (shown < matching.length ? " (the first " + shown.toLocaleString("en") + " shown)" : "");
    none.hidden = matching.length !== 0;
    more.hidden = shown >= matching.length;
  }

  function apply() {
    var statuses = {};
    form.querySelectorAll("input[name=status]").forEach(function (cb) { statuses[cb.value] = cb.checked; });
    var hideWaived = document.getElementById("f-hide-waived").checked;
    var tier = document.getElementById("f-tier").value;
    var severity = document.getElementById("f-severity").value;
    var check = document.getElementById("f-check").value;
    var words = document.getElementById("f-text").value.toLowerCase().split(/\s+/).filter(Boolean);
    matching = rows.filter(function (r) {
      var ok = statuses[r.getAttribute("data-status")] === true &&
        !(hideWaived && r.hasAttribute("data-waived")) &&
        (!tier || r.getAttribute("data-tier") === tier) &&
        (!severity || r.getAttribute("data-severity") === severity) &&
        (!check || r.getAttribute("data-check") === check);
      if (ok && words.length) {
        var text = rowText(r);
        ok = words.every(function (w) { return text.indexOf(w) !== -1; });
      }
      return ok;
    });
    limit = PAGE;
    show();
  }

  function sortBy(th) {
    var col = Number(th.getAttribute("data-col"));
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    if (!keys[col]) {
      keys[col] = new Map(rows.map(function (r) {
        return [r, [key(r, col), Number(r.cells[0].getAttribute("data-v"))]];
      }));
    }
    var k = keys[col];
    rows.sort(function (a, b) {
      var x = k.get(a), y = k.get(b);
      return compare(x[0], y[0]) * dir || x[1] - y[1];
    });
    apply();
  }

  table.querySelectorAll("thead th").forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () { sortBy(th); });
  });
  document.getElementById("f-more-page").addEventListener("click", function () { limit += PAGE; show(); });
  document.getElementById("f-more-all").addEventListener("click", function () { limit = Infinity; show(); });
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  document.getElementById("f-clear").addEventListener("click", function (e) {
    e.preventDefault();
    form.reset();  // synchronous: the rows are shown again before the click returns
    apply();
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });

  function reveal() {  // a link to a finding (the grouped view links to each group's first) shows it
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (!target || target.parentNode !== body) { return; }
    var at = matching.indexOf(target);
    if (at < 0) { form.reset(); apply(); at = matching.indexOf(target); }
    if (at >= limit) { limit = at + 1; show(); }
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  window.addEventListener("beforeprint", function () { limit = Infinity; show(); });  // print every match
  show();
  reveal();
})();
"""
