// The report's only script: it opens the panel of the selected cell or tab
// and links the rows of a timeline with the numbered states of its path.
// The page's content is already in the HTML; nothing is fetched.
(function () {
  'use strict';

  // showPath fits each graph box inside root to its path: the drawing is
  // shrunk until the whole path (every state, every transition and its
  // label) fits the box, never enlarged, and the box is scrolled so that
  // the path is in its middle. A graph larger than its box would otherwise
  // open on its top-left corner, or on the path's first states alone (at
  // 390 px a 7-step path is three phone widths long). "Actual size" undoes
  // the shrinking; the box then scrolls to the path's first state.
  function showPath(root) {
    root.querySelectorAll('.graph-scroll').forEach(function (box) {
      if (box.clientWidth === 0) {
        return;
      }
      var svg = box.querySelector('svg');
      var path = svg && svg.querySelector('g.path');
      if (!path) {
        return;
      }
      var vb = svg.viewBox.baseVal;
      var cs = getComputedStyle(box);
      var maxH = parseFloat(cs.maxHeight);
      var availW = box.clientWidth;
      var availH = isNaN(maxH) ? Infinity : maxH - (box.offsetHeight - box.clientHeight);
      var bb = path.getBBox();
      var pad = 14;
      var fit = Math.min(1, availW / (bb.width + 2 * pad), availH / (bb.height + 2 * pad));
      var actual = box.getAttribute('data-zoom') === 'actual';
      var scale = actual ? 1 : fit;
      svg.setAttribute('width', String(vb.width * scale));
      svg.setAttribute('height', String(vb.height * scale));
      // The step numbers stay readable when the drawing shrinks.
      svg.style.setProperty('--pn-font', (10.5 / Math.max(scale, 0.6)) + 'px');
      zoomButton(box, fit < 1, actual);
      if (actual) {
        var first = path.querySelector('g.pn[data-step="0"] circle') || path.querySelector('g.pn circle');
        var r = first.getBoundingClientRect();
        var c = box.getBoundingClientRect();
        box.scrollLeft += r.left - c.left - box.clientLeft - 16;
        box.scrollTop += r.top - c.top - box.clientTop - box.clientHeight / 3;
        return;
      }
      var x = (bb.x - vb.x) * scale;
      var y = (bb.y - vb.y) * scale;
      box.scrollLeft = x - (box.clientWidth - bb.width * scale) / 2;
      box.scrollTop = y - (box.clientHeight - bb.height * scale) / 2;
    });
  }

  // zoomButton offers, above a shrunk drawing, its actual size (and back).
  function zoomButton(box, shrunk, actual) {
    var fig = box.parentElement;
    var b = fig.querySelector('button.zoom');
    if (!shrunk) {
      if (b) {
        b.hidden = true;
      }
      return;
    }
    if (!b) {
      b = document.createElement('button');
      b.type = 'button';
      b.className = 'zoom';
      fig.insertBefore(b, box);
      b.addEventListener('click', function () {
        box.setAttribute('data-zoom', box.getAttribute('data-zoom') === 'actual' ? 'fit' : 'actual');
        showPath(fig);
      });
    }
    b.hidden = false;
    b.textContent = actual ? 'Fit the path in the box' : 'Actual size (the path is shrunk to fit)';
    b.setAttribute('aria-pressed', actual ? 'true' : 'false');
  }

  // Grids of cells (the fault matrix, the conformance table) are one tab
  // stop each, as a grid widget is: the cell last selected or moved to
  // holds tabindex 0, every other -1. The arrow keys move between cells
  // (skipping cells still pending, which open nothing), Home and End to
  // the row's first and last cell, Ctrl+Home and Ctrl+End to the grid's
  // corners; Enter or Space opens the cell (the button's own click). With
  // no script every cell stays a tab stop of its own.
  function cellsOf(table) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (tr) {
      return Array.prototype.filter.call(tr.cells, function (td) { return td.classList.contains('cell'); });
    });
  }
  function rove(table, button) {
    table.querySelectorAll('td.cell button').forEach(function (b) { b.tabIndex = b === button ? 0 : -1; });
  }
  // reveal scrolls the grid's box so that the cell is not under the row
  // names that stay in view at its left.
  function reveal(button) {
    var box = button.closest('.grid');
    var head = button.closest('tr').querySelector('th');
    if (!box || !head) {
      return;
    }
    var b = button.getBoundingClientRect();
    var h = head.getBoundingClientRect();
    if (b.left < h.right) {
      box.scrollLeft -= h.right - b.left + 4;
    }
  }
  function gridKey(table, e) {
    var td = e.target.closest('td.cell');
    if (!td || !e.target.matches('button') || e.altKey || e.metaKey) {
      return;
    }
    var rows = cellsOf(table);
    var r = rows.findIndex(function (row) { return row.indexOf(td) >= 0; });
    var c = rows[r].indexOf(td);
    var moves = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };
    var to = null;
    var usable = function (cell) { return cell && cell.querySelector('button'); };
    if (moves[e.key]) {
      var d = moves[e.key];
      for (var i = r + d[0], j = c + d[1]; i >= 0 && i < rows.length && j >= 0 && j < rows[i].length; i += d[0], j += d[1]) {
        if (usable(rows[i][j])) {
          to = rows[i][j];
          break;
        }
      }
    } else if (e.key === 'Home' || e.key === 'End') {
      var row = e.ctrlKey ? (e.key === 'Home' ? rows[0] : rows[rows.length - 1]) : rows[r];
      var found = row.filter(usable);
      to = e.key === 'Home' ? found[0] : found[found.length - 1];
    } else {
      return;
    }
    e.preventDefault();
    if (!to) {
      return;
    }
    var b = to.querySelector('button');
    rove(table, b);
    b.focus();
    reveal(b);
  }
  document.querySelectorAll('.grid table.matrix').forEach(function (table) {
    var buttons = table.querySelectorAll('td.cell button');
    if (buttons.length === 0) {
      return;
    }
    table.setAttribute('role', 'grid');
    rove(table, buttons[0]);
    table.addEventListener('keydown', function (e) { gridKey(table, e); });
    table.addEventListener('focusin', function (e) {
      var b = e.target.closest('td.cell button');
      if (b) {
        rove(table, b);
      }
    });
  });

  function open(id, scroll) {
    var panel = id && document.getElementById(id);
    if (!panel || !panel.classList.contains('panel') || !panel.hasAttribute('data-group')) {
      return false;
    }
    var group = panel.getAttribute('data-group');
    document.querySelectorAll('.panel[data-group="' + group + '"]').forEach(function (p) {
      p.hidden = p !== panel;
    });
    document.querySelectorAll('[data-open]').forEach(function (b) {
      var on = b.getAttribute('data-open') === id;
      b.classList.toggle('selected', on);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
      // A cell opened from elsewhere (a claim's link, the address)
      // becomes its grid's tab stop.
      var grid = on && b.closest('td.cell') && b.closest('table[role=grid]');
      if (grid) {
        rove(grid, b);
      }
    });
    var placeholder = document.getElementById('placeholder');
    if (placeholder) {
      placeholder.hidden = true;
    }
    showPath(panel);
    if (scroll) {
      panel.scrollIntoView({ block: 'start' });
    }
    return true;
  }

  document.addEventListener('click', function (e) {
    var button = e.target.closest('[data-open]');
    if (!button) {
      return;
    }
    var id = button.getAttribute('data-open');
    if (open(id, button.hasAttribute('data-scroll'))) {
      try {
        history.replaceState(null, '', '#' + id);
      } catch (err) {
        // Some browsers refuse history changes on file: pages; the panel
        // is open all the same.
      }
    }
  });

  // Hovering a step of a timeline marks its state in the panel's graph,
  // and the other way round.
  function hot(target, on) {
    var step = target.closest('[data-step]');
    var panel = target.closest('.panel, [data-scope]');
    if (!step || !panel) {
      return;
    }
    var n = step.getAttribute('data-step');
    panel.querySelectorAll('[data-step="' + n + '"]').forEach(function (el) {
      el.classList.toggle('hot', on);
    });
  }
  document.addEventListener('mouseover', function (e) { hot(e.target, true); });
  document.addEventListener('mouseout', function (e) { hot(e.target, false); });

  window.addEventListener('hashchange', function () { open(location.hash.slice(1), true); });

  // A turned phone or a resized window fits the open graphs anew.
  var resizing = 0;
  window.addEventListener('resize', function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () { showPath(document); }, 150);
  });

  // A conformance page's trace links are relative to the folder it was
  // written in (data-trace-base). A copy opened from another folder
  // resolves them from there, so that they still reach the traces on the
  // machine that wrote it; over http they are left as they are.
  var traces = document.querySelector('[data-trace-base]');
  if (traces && location.protocol === 'file:') {
    var traceBase = traces.getAttribute('data-trace-base');
    var here = location.href.replace(/[?#].*$/, '').replace(/[^/]*$/, '');
    if (here !== traceBase) {
      traces.querySelectorAll('table.cells .run a[href]').forEach(function (a) {
        a.href = new URL(a.getAttribute('href'), traceBase).href;
      });
    }
  }

  // On a phone the sentences that teach the verdict's names would push a
  // grid's first row (the matrix, the conformance table) below the first
  // screen: they are folded to their names and short meanings, the
  // summary, and a tap opens them where they were.
  var meanings = document.querySelector('#answer details.meanings');
  var firstRow = document.querySelector('.grid table.matrix tbody tr');
  if (meanings && firstRow && firstRow.getBoundingClientRect().bottom + window.scrollY > window.innerHeight) {
    meanings.open = false;
  }

  showPath(document);
  if (!open(location.hash.slice(1), true)) {
    var first = document.querySelector('[data-default]');
    if (first) {
      open(first.getAttribute('data-default'), false);
    }
  }
})();
