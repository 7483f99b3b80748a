// The report's only script: it opens the panel of the selected cell or tab
// and links the rows of a timeline with the numbered states of its path.
// The page's content is already in the HTML; nothing is fetched.
(function () {
  'use strict';

  // showPath scrolls each graph box inside root so that its path's first
  // state is in view (a graph larger than its box would otherwise open on
  // its top-left corner, away from the path).
  function showPath(root) {
    root.querySelectorAll('.graph-scroll').forEach(function (box) {
      var first = box.querySelector('g.pn[data-step="0"] circle') || box.querySelector('g.pn circle');
      if (!first || box.clientWidth === 0) {
        return;
      }
      var r = first.getBoundingClientRect();
      var c = box.getBoundingClientRect();
      if (r.left < c.left || r.right > c.left + box.clientWidth) {
        box.scrollLeft += r.left - c.left - 16;
      }
      if (r.top < c.top || r.bottom > c.top + box.clientHeight) {
        box.scrollTop += r.top - c.top - box.clientHeight / 3;
      }
    });
  }

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

  showPath(document);
  if (!open(location.hash.slice(1), true)) {
    var first = document.querySelector('[data-default]');
    if (first) {
      open(first.getAttribute('data-default'), false);
    }
  }
})();
