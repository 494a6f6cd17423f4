"""The page's stylesheet, inline (no fonts or images fetched). Every tone has a word beside its colour,
so the page still reads in greyscale and in print."""

STYLE = """
:root { --ink: #1d2433; --muted: #5b6475; --rule: #d5dae3; --panel: #f3f5f9; --navy: #1f3a5f;
  --FAIL: #b42318; --FAIL-bg: #fde4e2; --ERROR: #a14a00; --ERROR-bg: #feebd6;
  --NOT_ASSESSED: #7a5b00; --NOT_ASSESSED-bg: #fff3c4; --PASS: #1b6e35; --PASS-bg: #dcf2e2;
  --NOT_APPLICABLE: #4a5563; --NOT_APPLICABLE-bg: #eceff3; --WAIVED: #5b3c99; --WAIVED-bg: #ebe3fa; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 1400px; padding: 24px 32px 48px; color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; }
h1 { font-size: 30px; margin: 4px 0 2px; color: var(--navy); }
h2 { font-size: 22px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--navy);
  color: var(--navy); }
h3 { font-size: 17px; margin: 22px 0 6px; }
a { color: #1f5fa8; }
code, .hash { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, monospace;
  font-size: 13px; overflow-wrap: anywhere; }
.eyebrow { letter-spacing: .12em; font-size: 12px; color: var(--muted); margin: 0; }
.subtitle { color: var(--muted); margin: 0 0 12px; }
.cover { border-bottom: 3px solid var(--navy); padding-bottom: 14px; }
.who p { margin: 4px 0; }
.note { color: var(--muted); font-size: 13.5px; }
.warn { color: var(--ERROR); }
nav.toc { margin: 16px 0; padding: 10px 14px; background: var(--panel); border-radius: 6px; }
nav.toc ol { margin: 0; padding-left: 4px; columns: 2; list-style: none; }
td.run-complete { background: var(--PASS-bg); }
td.run-partial, td.run-running { background: var(--NOT_ASSESSED-bg); }
td.run-failed, td.run-interrupted { background: var(--FAIL-bg); }
.banner { margin: 14px 0 4px; padding: 12px 16px; border-left: 6px solid; border-radius: 4px;
  display: flex; gap: 18px; align-items: baseline; flex-wrap: wrap; }
.banner strong { font-size: 19px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 14px; }
th, td { border: 1px solid var(--rule); padding: 5px 7px; vertical-align: top; text-align: left; }
thead th { background: var(--navy); color: #fff; font-weight: 600; position: sticky; top: 0; }
tbody tr:nth-child(even) { background: #fafbfd; }
table.facts th { width: 210px; background: var(--panel); font-weight: 600; }
table.counts td { text-align: center; }
table.counts td:first-child { text-align: left; }
.tone-FAIL { background: var(--FAIL-bg); color: var(--FAIL); border-color: var(--FAIL); }
.tone-ERROR { background: var(--ERROR-bg); color: var(--ERROR); border-color: var(--ERROR); }
.tone-NOT_ASSESSED { background: var(--NOT_ASSESSED-bg); color: var(--NOT_ASSESSED);
  border-color: var(--NOT_ASSESSED); }
.tone-PASS { background: var(--PASS-bg); color: var(--PASS); border-color: var(--PASS); }
.tone-NOT_APPLICABLE { background: var(--NOT_APPLICABLE-bg); color: var(--NOT_APPLICABLE);
  border-color: var(--NOT_APPLICABLE); }
.tone-WAIVED { background: var(--WAIVED-bg); color: var(--WAIVED); border-color: var(--WAIVED); }
.pill, .count, .result { display: inline-block; padding: 0 6px; border-radius: 3px; font-weight: 700;
  font-size: 12.5px; white-space: nowrap; }
.pill.waived { outline: 2px dashed var(--WAIVED); }
svg.bar { display: block; }
svg.bar .track { fill: var(--panel); }
svg.bar .seg.tone-FAIL { fill: var(--FAIL); }
svg.bar .seg.tone-ERROR { fill: #e07b00; }
svg.bar .seg.tone-NOT_ASSESSED { fill: #e0b400; }
svg.bar .seg.tone-WAIVED { fill: #8a63d2; }
svg.bar .seg.tone-PASS { fill: #2f9e55; }
svg.bar .seg.tone-NOT_APPLICABLE { fill: #9aa3b2; }
ul.legend { list-style: none; padding: 0; display: flex; gap: 14px; flex-wrap: wrap; font-size: 13px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -1px; }
.swatch.tone-FAIL { background: var(--FAIL); } .swatch.tone-ERROR { background: #e07b00; }
.swatch.tone-NOT_ASSESSED { background: #e0b400; } .swatch.tone-PASS { background: #2f9e55; }
.swatch.tone-NOT_APPLICABLE { background: #9aa3b2; } .swatch.tone-WAIVED { background: #8a63d2; }
ul.commands code { background: var(--panel); padding: 1px 5px; border-radius: 3px; }
.filters { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: center; padding: 10px 12px;
  background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; margin: 8px 0; }
.filters fieldset { border: 0; margin: 0; padding: 0; display: flex; gap: 8px; flex-wrap: wrap; }
.filters legend { font-weight: 600; float: left; margin-right: 6px; }
.filters label { font-size: 14px; }
.filters output { margin-left: auto; font-weight: 700; }
.scroll { overflow-x: auto; }
table.findings { font-size: 13.5px; }
table.findings th button.sort { all: unset; cursor: pointer; }
table.findings th button.sort::after { content: " \\2195"; opacity: .55; }
table.findings th[aria-sort=ascending] button.sort::after { content: " \\25B2"; opacity: 1; }
table.findings th[aria-sort=descending] button.sort::after { content: " \\25BC"; opacity: 1; }
table.findings th, table.findings td:nth-child(-n+4) { white-space: nowrap; }
table.findings td.subject, table.findings td.target { overflow-wrap: anywhere; min-width: 120px; }
table.findings td.message { min-width: 320px; }
details summary { cursor: pointer; }
dl.details { margin: 6px 0 2px; display: grid; grid-template-columns: max-content 1fr; gap: 3px 10px; }
dl.details dt { font-weight: 600; color: var(--muted); }
dl.details dd { margin: 0; overflow-wrap: anywhere; }
dl.details dd.text { white-space: pre-wrap; }
ul.evidence { margin: 0; padding-left: 16px; }
svg.tiers { display: block; margin: 8px 0; }
svg.tiers .zone rect { fill: #eef3fa; stroke: var(--navy); stroke-width: 2; }
svg.tiers .zone-internet rect { fill: #f6f0e6; stroke: #8a6d3b; }
svg.tiers .zone.undeclared rect { fill: #fff; stroke-dasharray: 6 4; stroke: var(--muted); }
svg.tiers .zone-name { font-weight: 700; font-size: 14px; fill: var(--ink); }
svg.tiers .zone-state { font-size: 12px; fill: var(--muted); }
svg.tiers .crossing path { fill: none; stroke: var(--FAIL); stroke-width: 2.2; }
svg.tiers .crossing text { font-size: 12.5px; font-weight: 700; fill: var(--FAIL); paint-order: stroke;
  stroke: #fff; stroke-width: 4px; }
svg.tiers .arrowhead { fill: var(--FAIL); }
div.path { border-left: 4px solid var(--FAIL); padding: 2px 12px; margin: 10px 0; background: #fffafa; }
div.path h3 { margin: 6px 0 2px; font-size: 15.5px; overflow-wrap: anywhere; }
ol.hops > li { margin: 4px 0; }
ul.via { margin: 2px 0; color: var(--muted); font-size: 13.5px; }
tr.reject td { color: var(--muted); }
tr.current td { font-weight: 600; }
.tone-none { background: var(--panel); color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; border-top: 1px solid var(--rule);
  padding-top: 8px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  .filters, nav.toc { display: none !important; }
  thead th { position: static; }
  .scroll { overflow: visible; }
  table.findings th button.sort::after { content: none; }
  #f-more { display: none !important; }
}
"""
