// The report's only script: it opens the panel of the selected cell or tab
// and links the rows of a timeline with the numbered states of its path.
// The page's content is already in the HTML; nothing is fetched.
(function () {
  'use strict';

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

  if (!open(location.hash.slice(1), true)) {
    var first = document.querySelector('[data-default]');
    if (first) {
      open(first.getAttribute('data-default'), false);
    }
  }
})();
