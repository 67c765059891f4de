//! The site's stylesheet and its one small script.

pub const STYLE: &str = r#"/* mcp-client-probe site */
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d2125; background: #fff; }
header { background: #1d2b3a; padding: 0.6em 1.2em; }
header a { color: #fff; font-weight: 600; text-decoration: none; }
main { padding: 0.5em 1.2em 3em; }
h1 { font-size: 1.5em; margin: 0.6em 0 0.4em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.05em; margin-top: 1.3em; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; }
a { color: #0b57b0; }
.legend, .facts { color: #444; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
thead th { background: #f3f5f7; position: sticky; top: 0; font-weight: 600; font-size: 0.9em; }
table.summary td, table.history td, table.verdicts td { white-space: nowrap; }
table.summary { font-size: 13px; }
table.summary th, table.summary td { padding: 0.15em 0.4em; }
table.summary thead th small { font-weight: normal; color: #555; }
table.summary tbody th { font-weight: normal; }
/* The probe column stays in view while the hosts scroll past. */
table.summary tbody tr:not(.area) th, table.summary thead th:first-child { position: sticky; left: 0; background: #fff; z-index: 1; }
table.summary thead th:first-child { background: #f3f5f7; z-index: 2; }
table.summary tr.area th span { position: sticky; left: 0.5em; }
table.summary td a, table.history td a { color: inherit; text-decoration: none; display: block; }
table.summary th small { color: #555; font-weight: normal; }
tr.area th { background: #e9eef3; font-size: 1em; }
.o-yes { background: #dcf5df; }
.o-partial { background: #fff1c2; }
.o-no { background: #fbd9d6; }
.o-violation { background: #f4b7c5; }
.o-n-a { background: #f2f2f2; color: #666; }
.o-not-reached, .o-inconclusive { background: #e7e9f5; color: #444; }
.o-declared-only { background: #f8e3c9; }
.o-auto-answered { background: #f1d9f5; }
.mixed { background: repeating-linear-gradient(135deg, #fff, #fff 6px, #f3f5f7 6px, #f3f5f7 12px); }
.badge { padding: 0 0.3em; border-radius: 3px; white-space: nowrap; }
.regressed { outline: 2px solid #c0392b; outline-offset: -2px; }
a.evidence { font-size: 0.85em; white-space: nowrap; }
ul.changes li.regressed { color: #a12; }
table.journal { width: 100%; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
table.journal td { border: 0; border-bottom: 1px solid #eee; }
table.journal td.n { text-align: right; color: #888; width: 4em; }
table.journal td.n a { color: inherit; text-decoration: none; }
table.journal td.r { white-space: nowrap; color: #333; }
table.journal td.t { white-space: pre-wrap; word-break: break-all; }
table.journal tr:target, table.journal tr.cited { background: #fff3a0; outline: 2px solid #e0b000; }
"#;

pub const SCRIPT: &str = r#"// Filters the summary's rows as you type; marks the journal line the address names.
(function () {
  var filter = document.getElementById('filter');
  if (filter) {
    filter.addEventListener('input', function () {
      var words = filter.value.toLowerCase().trim();
      document.querySelectorAll('tr[data-search]').forEach(function (row) {
        row.hidden = words !== '' && row.getAttribute('data-search').indexOf(words) < 0;
      });
    });
  }
  function mark() {
    document.querySelectorAll('tr.cited').forEach(function (row) { row.classList.remove('cited'); });
    var id = decodeURIComponent(location.hash.slice(1));
    var row = id && document.getElementById(id);
    if (row && row.tagName === 'TR') {
      row.classList.add('cited');
      row.scrollIntoView({ block: 'center' });
    }
  }
  window.addEventListener('hashchange', mark);
  mark();
})();
"#;
