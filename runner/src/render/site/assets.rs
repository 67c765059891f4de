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
.lead { max-width: 60em; }
.legend, .facts { color: #444; }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 0.25em 0.8em; margin: 0.4em 0; font-size: 0.92em; max-width: 60em; }
dl.legend dt { font-weight: 600; padding: 0 0.3em; border-radius: 3px; }
dl.legend dd { margin: 0; }
.lead span[class^="a-"] { padding: 0 0.25em; border-radius: 3px; white-space: nowrap; }
button.inline { font: inherit; border: 0; background: none; color: #0b57b0; text-decoration: underline; padding: 0; cursor: pointer; }
.controls input { font: inherit; width: min(32em, 70vw); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
thead th { background: #f3f5f7; position: sticky; top: 0; font-weight: 600; font-size: 0.9em; z-index: 2; }
/* The grids scroll with the page both ways (no scrolling box around them, which would hold the
   sticky header in place): the header row stays at the top, the first column at the left. */
table.grid { font-size: 13px; border-collapse: separate; border-spacing: 0; }
table.grid th, table.grid td { padding: 0.15em 0.4em; border-width: 0 1px 1px 0; }
table.grid thead th { border-top-width: 1px; }
table.grid th.first { position: sticky; left: 0; background: #fff; z-index: 1; border-left-width: 1px; min-width: 12em; max-width: 22em; font-weight: normal; }
table.grid thead th.first { background: #f3f5f7; z-index: 3; font-weight: 600; }
table.grid td { white-space: nowrap; }
table.grid td a { color: inherit; text-decoration: none; display: block; }
table.grid thead th small, table.grid td small { font-weight: normal; color: #555; }
table.grid tr.group th.first { background: #e9eef3; font-weight: 600; }
table.grid tr.group td { background: #e9eef3; }
table.grid tr.probe th.first { padding-left: 1.8em; }
button.toggle { font: inherit; border: 0; background: none; cursor: pointer; padding: 0 0.2em; width: 1.2em; }
table.history td, table.verdicts td { white-space: nowrap; }
table.verdicts { font-size: 13px; }
table.summary td a, table.history td a { color: inherit; text-decoration: none; display: block; }
tr.area th { background: #e9eef3; font-size: 1em; }
.a-supported, .o-yes { background: #dcf5df; }
.a-partly, .o-partial { background: #fff1c2; }
.a-no, .o-no { background: #fbd9d6; }
.a-untested { background: #e7e9f5; color: #444; }
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
#which fieldset { display: inline-block; vertical-align: top; border: 1px solid #d0d7de; margin: 0 0.5em 0.5em 0; max-width: 22em; }
#which label { display: block; }
#which-answer { font-weight: 600; }
ol.journal { list-style: none; padding: 0; margin: 0; font-size: 12.5px; }
ol.journal li { border-bottom: 1px solid #eee; padding: 0.2em 0; display: grid; grid-template-columns: 4em 6.5em 1fr; gap: 0 0.6em; }
ol.journal .n { text-align: right; color: #888; }
ol.journal .n a { color: inherit; text-decoration: none; }
ol.journal .when { color: #666; font-family: ui-monospace, Menlo, Consolas, monospace; }
ol.journal .what { font-weight: 600; }
ol.journal pre { grid-column: 3; margin: 0.1em 0 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
ol.journal li:target, ol.journal li.cited { background: #fff3a0; outline: 2px solid #e0b000; }
/* A phone: the answers as marks only, the first column narrower, journal lines stacked. */
@media (max-width: 600px) {
  main { padding: 0.4em 0.5em 2em; }
  table.grid .word { display: none; }
  table.grid th.first { min-width: 7.5em; max-width: 9em; font-size: 12px; overflow-wrap: anywhere; }
  table.grid tr.probe th.first { padding-left: 0.6em; }
  table.grid thead th { font-size: 11px; }
  ol.journal li { grid-template-columns: 3em 1fr; }
  ol.journal .when { grid-column: 2; }
  ol.journal .what { grid-column: 2; }
  ol.journal pre { grid-column: 1 / -1; }
}
"#;

pub const SCRIPT: &str = r#"// The index: features expand to their probes; the filter finds features and probes by name, probe
// id or spec term and hides groups left empty; the checklist names the clients that support every
// ticked feature. A journal page: marks the line the address names.
(function () {
  var grid = document.getElementById('grid');
  function rows(selector) { return grid ? Array.prototype.slice.call(grid.querySelectorAll(selector)) : []; }
  var expanded = {};
  var filter = document.getElementById('filter');
  function matches(row, words) {
    var text = row.getAttribute('data-search') || '';
    return words.every(function (word) { return text.indexOf(word) >= 0; });
  }
  function refresh() {
    var words = filter ? filter.value.toLowerCase().split(/\s+/).filter(function (w) { return w; }) : [];
    var searching = words.length > 0;
    var shownFeatures = {}, shownGroups = {}, count = 0;
    rows('tr.probe').forEach(function (row) {
      var feature = row.getAttribute('data-feature');
      var show = searching ? matches(row, words) : !!expanded[feature];
      row.hidden = !show;
      if (show && searching) { shownFeatures[feature] = true; count++; }
    });
    rows('tr.feature').forEach(function (row) {
      var feature = row.getAttribute('data-feature');
      var show = !searching || matches(row, words) || !!shownFeatures[feature];
      row.hidden = !show;
      if (show) { shownGroups[row.getAttribute('data-group')] = true; if (searching) { count++; } }
      var toggle = row.querySelector('button.toggle');
      if (toggle) { toggle.setAttribute('aria-expanded', expanded[feature] ? 'true' : 'false'); toggle.textContent = expanded[feature] ? '▾' : '▸'; }
    });
    rows('tr.group').forEach(function (row) { row.hidden = !shownGroups[row.getAttribute('data-group')]; });
    var counter = document.getElementById('filter-count');
    if (counter) { counter.textContent = searching ? count + ' rows' : ''; }
  }
  rows('button.toggle').forEach(function (button) {
    button.addEventListener('click', function () {
      var feature = button.closest('tr').getAttribute('data-feature');
      expanded[feature] = !expanded[feature];
      refresh();
    });
  });
  var all = document.getElementById('expand');
  if (all) {
    all.addEventListener('click', function () {
      var open = all.getAttribute('aria-expanded') !== 'true';
      rows('tr.feature').forEach(function (row) { expanded[row.getAttribute('data-feature')] = open; });
      all.setAttribute('aria-expanded', open ? 'true' : 'false');
      all.textContent = open ? 'show features only' : 'show every probe';
      refresh();
    });
  }
  if (filter) { filter.addEventListener('input', refresh); }
  var form = document.getElementById('which-form');
  if (form) {
    form.addEventListener('change', function () {
      var wanted = Array.prototype.slice.call(form.querySelectorAll('input:checked')).map(function (box) { return box.value; });
      var answer = document.getElementById('which-answer');
      if (!wanted.length) { answer.textContent = 'Tick a feature to see which clients support it.'; return; }
      var heads = rows('thead th[data-client]');
      var names = heads.filter(function (head, i) {
        return wanted.every(function (feature) {
          var row = grid.querySelector('tr.feature[data-feature="' + feature + '"]');
          var cell = row && row.querySelectorAll('td')[i];
          return cell && cell.getAttribute('data-answer') === 'supported';
        });
      }).map(function (head) { return head.getAttribute('data-client'); });
      answer.textContent = names.length + ' of ' + heads.length + ' clients support all ' + wanted.length + ': ' + (names.length ? names.join(', ') : 'none');
    });
  }
  refresh();
  function mark() {
    document.querySelectorAll('.cited').forEach(function (line) { line.classList.remove('cited'); });
    var id = decodeURIComponent(location.hash.slice(1));
    var line = id && document.getElementById(id);
    if (line && line.tagName === 'LI') {
      line.classList.add('cited');
      line.scrollIntoView({ block: 'center' });
    }
  }
  window.addEventListener('hashchange', mark);
  mark();
})();
"#;
