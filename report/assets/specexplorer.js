// The explorer of any spec: it walks the one state graph embedded in the
// page (#report-data), as the seam gave it: each state's variables as
// TLA+ values, its enabled transitions by label, the actions not enabled
// with why, the invariants it violates, and whether the liveness goal
// holds there or can still be reached. Nothing is fetched.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('report-data').textContent);
  var S = data.strs;
  var $ = function (id) { return document.getElementById(id); };

  // The walk: the initial state chosen (1-based), the states visited and
  // the labels taken.
  var walk = { init: 1, states: [data.init[0]], labels: [], stories: [] };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function code(text) { return el('code', '', text); }
  function neq(s) { return s.split(' # ').join(' ≠ '); }
  function state(k) { return data.states[walk.states[k]]; }
  function current() { return state(walk.states.length - 1); }

  // broken: each invariant's first violating step of the walk, and the
  // liveness property's when the walk reaches a state from which its goal
  // is unreachable without having met it.
  function broken() {
    var out = {};
    var met = false;
    walk.states.forEach(function (id, k) {
      var st = data.states[id];
      (st.bad || []).forEach(function (b) {
        if (!(S[b] in out)) { out[S[b]] = { step: k, why: 'it is false in the state of step ' + k }; }
      });
      if (st.goal) { met = true; }
      if (data.liveness && !met && st.stuck && !(data.liveness.name in out)) {
        out[data.liveness.name] = { step: k, why: 'no state where its goal holds is reachable from step ' + k };
      }
    });
    return out;
  }

  // teach is a property's meaning in one sentence, "Name (kind): text."
  // ('' when the spec gives none).
  function teach(name) {
    var live = data.liveness && data.liveness.name === name;
    var p = live ? data.liveness : data.invariants.filter(function (x) { return x.name === name; })[0];
    if (!p || !p.doc) { return ''; }
    return name + ' (' + (live ? 'temporal property' : 'invariant') + '): ' + p.doc.replace(/\.$/, '') + '.';
  }

  // changes says what a transition changes: "x = v, y = w".
  function changes(from, to) {
    var parts = [];
    data.vars.forEach(function (name, i) {
      if (from.v[i] !== to.v[i]) { parts.push(name + ' = ' + S[to.v[i]]); }
    });
    return parts.length ? parts.join(', ') : 'changes no variable';
  }

  function row(k, bad) {
    var st = state(k);
    var prev = k > 0 ? state(k - 1) : null;
    var tr = el('tr', 'step');
    tr.setAttribute('data-step', String(k));
    var th = el('th', 'n');
    th.scope = 'row';
    th.appendChild(el('span', 'n-word', 'step '));
    th.appendChild(document.createTextNode(String(k)));
    tr.appendChild(th);
    var action = el('td', 'action');
    if (k > 0) { action.appendChild(code(walk.labels[k - 1])); } else { action.appendChild(el('span', 'init', 'initial state')); }
    var marks = [];
    Object.keys(bad).forEach(function (name) {
      if (bad[name].step === k) { marks.push(name + ' violated'); }
    });
    if (st.goal && data.liveness) { marks.push(data.liveness.name + ': goal holds'); }
    if (marks.length) {
      var box = el('div', 'marks');
      marks.forEach(function (m) { box.appendChild(el('span', 'mark mark-' + (m.indexOf('violated') > 0 ? 'violation' : 'resume'), m)); });
      action.appendChild(box);
    }
    tr.appendChild(action);
    // What happened, in words: the action and each place its variables
    // changed (the page's data has it per transition).
    tr.appendChild(el('td', 'story', k > 0 ? walk.stories[k - 1] : 'The initial state.'));
    var changed = el('td', 'changed');
    data.vars.forEach(function (name, i) {
      if (prev && st.v[i] === prev.v[i]) { return; }
      if (!prev) { return; }
      var div = el('div', 'chg');
      div.appendChild(el('code', 'var', name));
      div.appendChild(document.createTextNode(' = '));
      var v = el('code', 'val', S[st.v[i]]);
      v.title = 'was ' + S[prev.v[i]];
      div.appendChild(v);
      changed.appendChild(div);
    });
    var det = el('details', 'state');
    if (!prev) { det.open = true; }
    det.appendChild(el('summary', '', 'every variable'));
    det.appendChild(el('pre', '', data.vars.map(function (name, i) { return '/\\ ' + name + ' = ' + S[st.v[i]]; }).join('\n')));
    changed.appendChild(det);
    tr.appendChild(changed);
    return tr;
  }

  function hashOf() {
    var h = data.init.length > 1 ? 'init=' + walk.init : '';
    if (walk.labels.length) { h += (h ? '&' : '') + 'steps=' + walk.labels.map(encodeURIComponent).join(','); }
    return '#' + h;
  }

  function render() {
    var k = walk.states.length - 1;
    var st = current();
    var bad = broken();
    var names = Object.keys(bad);

    var ans = $('answer');
    ans.textContent = '';
    ans.className = 'answer ' + (names.length ? 'bad' : 'good');
    var head = el('p', 'headline');
    head.appendChild(el('span', 'icon', names.length ? '✗ ' : '✓ '));
    head.appendChild(document.createTextNode(names.length
      ? names.map(function (n) { return n + ' violated at step ' + bad[n].step; }).join('; ')
      : 'Every property holds so far (step ' + k + ')'));
    ans.appendChild(head);
    ans.appendChild(el('p', 'reason', names.length
      ? names.map(function (n) { return n + ': ' + bad[n].why + '.'; }).join(' ')
      : (st.t.length ? 'Take an enabled action below.' : 'No action is enabled: the walk ends here.')));
    // Each property the box names, taught in the spec's words where it
    // is first named (the same sentence as the check page's).
    var taught = names.map(teach).filter(Boolean);
    if (taught.length) {
      var ul = el('ul', 'terms');
      ul.setAttribute('aria-label', 'what the names mean');
      taught.forEach(function (s) { ul.appendChild(el('li', '', s)); });
      ans.appendChild(ul);
    }

    $('ex-doc').textContent = 'Module ' + data.module + (data.cfg ? ', model ' + data.cfg : '') +
      ', ' + data.states.length + ' reachable states' + (data.engine ? ', read by ' + data.engine : '') + '.';
    $('ex-at').textContent = '(at step ' + k + ')';
    $('ex-back').disabled = k === 0;
    $('ex-link').href = hashOf();
    if ($('ex-init')) { $('ex-init').value = String(walk.init); }

    var enabled = $('ex-enabled');
    enabled.textContent = '';
    if (st.t.length === 0) { enabled.appendChild(el('p', 'hint', 'None: no action is enabled in this state.')); }
    st.t.forEach(function (t, i) {
      var b = el('button', 'act');
      b.type = 'button';
      b.setAttribute('data-label', S[t[0]]);
      b.setAttribute('data-index', String(i));
      b.appendChild(code(S[t[0]]));
      var next = data.states[t[1]];
      b.appendChild(el('span', 'what', changes(st, next)));
      var newly = (next.bad || []).map(function (x) { return S[x]; }).filter(function (n) { return !(n in bad); });
      if (newly.length) {
        b.classList.add('breaks');
        b.appendChild(el('span', 'breaks-note', 'breaks ' + newly.join(', ')));
      }
      enabled.appendChild(b);
    });

    var dis = $('ex-disabled');
    dis.textContent = '';
    (st.d || []).forEach(function (d) {
      var li = el('li');
      li.appendChild(code(S[d[0]]));
      li.appendChild(document.createTextNode(': ' + neq(S[d[1]])));
      dis.appendChild(li);
    });
    if (!(st.d || []).length) { dis.appendChild(el('li', '', 'every action is enabled')); }

    var props = $('ex-obls').tBodies[0];
    props.textContent = '';
    var all = data.invariants.slice();
    if (data.liveness) { all.push(data.liveness); }
    if (!all.length) {
      var none = el('tr');
      none.appendChild(el('td', 'hint', 'The model checks no property (its cfg lists none).'));
      props.appendChild(none);
    }
    all.forEach(function (p) {
      var b = bad[p.name];
      var tr = el('tr', b ? 'st-violated' : 'st-holds');
      var th = el('th', '', p.name);
      th.scope = 'row';
      tr.appendChild(th);
      var td = el('td');
      td.appendChild(el('span', 'status ' + (b ? 'violated' : 'holds'), b ? 'violated' : 'holds'));
      var live = data.liveness && p.name === data.liveness.name;
      td.appendChild(document.createTextNode(b ? ' at step ' + b.step + ': ' + b.why : (live ? ': its goal can still be reached' : ' so far')));
      tr.appendChild(td);
      tr.appendChild(el('td', '', p.doc));
      props.appendChild(tr);
    });

    var body = $('ex-timeline').tBodies[0];
    body.textContent = '';
    for (var i = 0; i <= k; i++) { body.appendChild(row(i, bad)); }
    try { history.replaceState(null, '', hashOf()); } catch (err) { /* file: pages may refuse; the walk goes on */ }
  }

  function take(i) {
    var t = current().t[i];
    if (!t) { return false; }
    walk.labels.push(S[t[0]]);
    walk.states.push(t[1]);
    walk.stories.push(S[t[2]]);
    return true;
  }

  function takeLabel(label) {
    var ts = current().t;
    for (var i = 0; i < ts.length; i++) {
      if (S[ts[i][0]] === label) { return take(i); }
    }
    return false;
  }

  // start opens the walk at initial state init (1-based) and takes labels
  // as far as they are enabled; it returns those it could not take.
  function start(init, labels) {
    if (!(init >= 1 && init <= data.init.length)) { init = 1; }
    walk = { init: init, states: [data.init[init - 1]], labels: [], stories: [] };
    for (var i = 0; i < labels.length; i++) {
      if (!takeLabel(labels[i])) { return labels.slice(i); }
    }
    return [];
  }

  function fromHash() {
    var params = {};
    location.hash.slice(1).split('&').forEach(function (kv) {
      var at = kv.indexOf('=');
      if (at > 0) { params[kv.slice(0, at)] = kv.slice(at + 1); }
    });
    var labels = params.steps ? params.steps.split(',').map(decodeURIComponent) : [];
    var init = Number(params.init || 1);
    var left = start(init, labels);
    render();
    if (init !== walk.init) {
      // Say so: the walk below is not the one the link asked for.
      $('answer').appendChild(el('p', 'reason link-note', '⚠ The link asks for initial state ' + decodeURIComponent(params.init) + ', and this spec has ' +
        data.init.length + ' (numbered from 1): it opens initial state ' + walk.init + ' instead.'));
    }
    if (left.length) {
      $('answer').appendChild(el('p', 'reason', 'The link\'s step ' + (labels.length - left.length + 1) + ', ' + left[0] + ', is not enabled here; the walk stops before it.'));
    }
  }

  // keepFocus puts the keyboard's focus back on the enabled actions after
  // the page redrew them (the button pressed is gone, and the focus would
  // fall to the document's body): on the first action, or on the list
  // itself when none is enabled.
  function keepFocus() {
    var first = $('ex-enabled').querySelector('button.act');
    (first || $('ex-enabled')).focus();
  }

  $('ex-enabled').addEventListener('click', function (e) {
    var b = e.target.closest('button.act');
    if (b && take(Number(b.getAttribute('data-index')))) {
      render();
      keepFocus();
    }
  });
  $('ex-back').addEventListener('click', function () {
    if (walk.labels.length) {
      walk.labels.pop();
      walk.states.pop();
      walk.stories.pop();
      render();
      if ($('ex-back').disabled) { keepFocus(); }
    }
  });
  $('ex-restart').addEventListener('click', function () {
    start(walk.init, []);
    render();
  });
  if ($('ex-init')) {
    $('ex-init').addEventListener('change', function () {
      start(Number($('ex-init').value), []);
      render();
    });
  }
  window.addEventListener('hashchange', function () {
    if (location.hash !== hashOf()) { fromHash(); }
  });
  fromHash();
})();
