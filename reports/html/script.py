"""The page script: sorting and filtering of the findings table. Inline (the CSP allows exactly this
text by its hash), no dependencies, and it only moves rows and sets `hidden`/`textContent`: it never
turns text into markup."""

SCRIPT = r"""
(function () {
  "use strict";
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
  var table = document.getElementById("findings-table");
  var form = document.getElementById("filters");
  if (!table || !form) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var count = document.getElementById("f-count");
  var none = document.getElementById("f-none");
  var collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  var texts = [];
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

  function sortBy(th) {
    var col = Number(th.getAttribute("data-col"));
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var keyed = rows.map(function (r) {
      return [key(r, col), Number(r.cells[0].getAttribute("data-v")), r];
    });
    keyed.sort(function (a, b) { return compare(a[0], b[0]) * dir || a[1] - b[1]; });
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (k) { fragment.appendChild(k[2]); });
    body.appendChild(fragment);
  }

  table.querySelectorAll("thead th").forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () { sortBy(th); });
  });

  function rowText(i) {
    if (texts[i] === undefined) {
      var cells = Array.prototype.slice.call(rows[i].cells, 1);
      texts[i] = cells.map(function (c) { return c.textContent; }).join(" ").toLowerCase();
    }
    return texts[i];
  }

  function apply() {
    var statuses = {};
    form.querySelectorAll("input[name=status]").forEach(function (cb) { statuses[cb.value] = cb.checked; });
    var hideWaived = document.getElementById("f-hide-waived").checked;
    var tier = document.getElementById("f-tier").value;
    var severity = document.getElementById("f-severity").value;
    var check = document.getElementById("f-check").value;
    var words = document.getElementById("f-text").value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (r, i) {
      var ok = statuses[r.getAttribute("data-status")] === true &&
        !(hideWaived && r.hasAttribute("data-waived")) &&
        (!tier || r.getAttribute("data-tier") === tier) &&
        (!severity || r.getAttribute("data-severity") === severity) &&
        (!check || r.getAttribute("data-check") === check);
      if (ok && words.length) {
        var text = rowText(i);
        ok = words.every(function (w) { return text.indexOf(w) !== -1; });
      }
      r.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown.toLocaleString("en") + " of " + rows.length.toLocaleString("en") + " findings";
    none.hidden = shown !== 0;
  }

  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  document.getElementById("f-clear").addEventListener("click", function (e) {
    e.preventDefault();
    form.reset();  // synchronous: the rows are shown again before the click returns
    apply();
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
})();
"""
