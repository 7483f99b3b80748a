// The explorer's script: it walks the state graphs embedded in the page
// (#report-data). Nothing is fetched; the model does not run here, its
// graph was explored when the page was written.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('report-data').textContent);
  var S = data.strs;
  var $ = function (id) { return document.getElementById(id); };

  // The walk: a model, the states visited (indices into its states) and
  // the transitions taken (entries of each state's t).
  var walk = { model: null, states: [0], steps: [] };

  function modelNamed(name) {
    for (var i = 0; i < data.models.length; i++) {
      if (data.models[i].name === name) { return data.models[i]; }
    }
    return null;
  }

  // isLiveness: the property of that name is the spec's liveness (the
  // page's data says which: the script spells no property's name).
  function isLiveness(name) {
    return data.obligations.some(function (o) { return o.name === name && o.liveness; });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function code(text) { return el('code', '', text); }

  // neq writes TLA+'s # (not equal) as ≠.
  function neq(s) { return s.split(' # ').join(' ≠ '); }

  function current() { return walk.model.states[walk.states[walk.states.length - 1]]; }

  // firstBroken: for each property, the first step of the walk whose
  // state violates it, and why.
  function firstBroken() {
    var out = {};
    walk.states.forEach(function (id, k) {
      (walk.model.states[id].bad || []).forEach(function (b) {
        var name = S[b[0]];
        if (!(name in out)) { out[name] = { step: k, why: S[b[1]] }; }
      });
    });
    return out;
  }

  // appended returns what a TLA+ sequence gained at its end ("" when it
  // did not just grow).
  function appended(oldV, newV) {
    if (oldV.length < 4 || oldV === '<<>>' || oldV.slice(0, 2) !== '<<' || oldV.slice(-2) !== '>>') { return ''; }
    var head = oldV.slice(0, -2) + ', ';
    if (newV.indexOf(head) !== 0 || newV.slice(-2) !== '>>') { return ''; }
    return '<<' + newV.slice(head.length);
  }

  function ledgerCell(st, prev, k, m) {
    var td = el('td', 'ledger-cell');
    td.appendChild(el('span', 'card-label', 'effects by task'));
    var box = el('div', 'ledger');
    st.fx.forEach(function (n, i) {
      var t = i + 1;
      var c = 'fx c' + Math.min(n, 3);
      var fired = prev && n > prev.fx[i];
      if (fired) { c += ' fired'; }
      if (n > 1) { c += ' double'; }
      if (t <= st.fr) { c += ' durable'; }
      if (t === st.pc && !st.done) { c += ' next'; }
      var span = el('span', c);
      span.title = 'task ' + t + ': its effect fired ' + n + ' time' + (n === 1 ? '' : 's') + (fired ? ', once in this step' : '') +
        (t <= st.fr ? '; its completion is durable' : '') + (t === st.pc && !st.done ? '; it runs next' : '');
      span.appendChild(el('span', 'task', t + ':'));
      span.appendChild(document.createTextNode(String(n)));
      box.appendChild(span);
    });
    td.appendChild(box);
    return td;
  }

  function row(k, broken) {
    var m = walk.model;
    var st = m.states[walk.states[k]];
    var prev = k > 0 ? m.states[walk.states[k - 1]] : null;
    var step = k > 0 ? walk.steps[k - 1] : null;
    var tr = el('tr', 'step');
    tr.setAttribute('data-step', String(k));
    var th = el('th', 'n');
    th.scope = 'row';
    th.appendChild(el('span', 'n-word', 'step '));
    th.appendChild(document.createTextNode(String(k)));
    tr.appendChild(th);
    var action = el('td', 'action');
    if (step) { action.appendChild(code(S[step[0]])); } else { action.appendChild(el('span', 'init', 'initial state')); }
    tr.appendChild(action);
    var story = el('td', 'story', step ? S[step[2]] : 'The run starts: nothing has run, nothing is durable.');
    var marks = [];
    if (step) {
      for (var i = 3; i < step.length; i++) {
        var mk = S[step[i]];
        var bar = mk.indexOf('|');
        marks.push([mk.slice(0, bar), mk.slice(bar + 1)]);
      }
    }
    Object.keys(broken).forEach(function (name) {
      if (broken[name].step === k) { marks.push([isLiveness(name) ? 'loop' : 'violation', name + ' violated']); }
    });
    if (marks.length) {
      var box = el('div', 'marks');
      marks.forEach(function (mk) {
        box.appendChild(el('span', 'mark mark-' + mk[0], mk[1]));
        tr.classList.add('has-' + mk[0]);
      });
      story.appendChild(box);
    }
    tr.appendChild(story);
    tr.appendChild(ledgerCell(st, prev, k, m));
    var changed = el('td', 'changed');
    if (prev) {
      data.vars.forEach(function (name, i) {
        if (st.v[i] === prev.v[i]) { return; }
        var div = el('div', 'chg');
        div.appendChild(el('code', 'var', name));
        var oldV = S[prev.v[i]], newV = S[st.v[i]];
        var app = appended(oldV, newV);
        if (app) {
          div.appendChild(document.createTextNode(' '));
          div.appendChild(el('span', 'op', 'appended'));
          div.appendChild(document.createTextNode(' '));
          var c = el('code', 'val', app);
          c.title = 'now ' + newV;
          div.appendChild(c);
        } else {
          div.appendChild(document.createTextNode(' = '));
          var v = el('code', 'val', newV);
          v.title = 'was ' + oldV;
          div.appendChild(v);
        }
        changed.appendChild(div);
      });
    }
    var det = el('details', 'state');
    det.appendChild(el('summary', '', 'every variable'));
    det.appendChild(el('pre', '', data.vars.map(function (name, i) { return '/\\ ' + name + ' = ' + S[st.v[i]]; }).join('\n')));
    changed.appendChild(det);
    tr.appendChild(changed);
    return tr;
  }

  function hashOf() {
    var labels = walk.steps.map(function (s) { return encodeURIComponent(S[s[0]]); });
    return '#fault=' + encodeURIComponent(walk.model.name) + (labels.length ? '&steps=' + labels.join(',') : '');
  }

  function render() {
    var m = walk.model;
    var k = walk.states.length - 1;
    var st = current();
    var broken = firstBroken();
    var names = Object.keys(broken);

    // The answer at the top: what the walk shows.
    var ans = $('answer');
    ans.textContent = '';
    ans.className = 'answer ' + (names.length ? 'bad' : 'good');
    var head = el('p', 'headline');
    head.appendChild(el('span', 'icon', names.length ? '✗ ' : '✓ '));
    head.appendChild(document.createTextNode(names.length
      ? names.map(function (n) { return n + ' violated at step ' + broken[n].step; }).join('; ')
      : 'Every obligation holds so far (step ' + k + ')'));
    ans.appendChild(head);
    var why = el('p', 'reason', names.length
      ? names.map(function (n) { return n + ' fails: ' + broken[n].why + '.'; }).join(' ')
      : (st.done ? 'The run is complete.' : 'Take an enabled action below.'));
    ans.appendChild(why);
    var which = el('p', 'faults');
    which.appendChild(el('span', 'label', 'model: '));
    which.appendChild(code(m.fault ? 'fault ' + m.fault : m.name));
    which.appendChild(document.createTextNode(' — ' + m.doc + '.'));
    ans.appendChild(which);

    $('ex-doc').textContent = 'Constants: ' + m.params + '.';
    $('ex-at').textContent = '(at step ' + k + ')';
    $('ex-back').disabled = k === 0;
    $('ex-link').href = hashOf();

    var enabled = $('ex-enabled');
    enabled.textContent = '';
    if (st.t.length === 0) {
      enabled.appendChild(el('p', 'hint', st.done ? 'None: the run is complete.' : 'None: the run is stuck.'));
    }
    st.t.forEach(function (t, i) {
      var b = el('button', 'act');
      b.type = 'button';
      b.setAttribute('data-label', S[t[0]]);
      b.setAttribute('data-index', String(i));
      b.appendChild(code(S[t[0]]));
      b.appendChild(el('span', 'what', S[t[2]]));
      var next = m.states[t[1]];
      var newly = (next.bad || []).filter(function (x) { return !(S[x[0]] in broken); }).map(function (x) { return S[x[0]]; });
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

    var obls = $('ex-obls').tBodies[0];
    obls.textContent = '';
    data.obligations.forEach(function (o) {
      var b = broken[o.name];
      var tr = el('tr', b ? 'st-violated' : 'st-holds');
      var th = el('th', '', o.name);
      th.scope = 'row';
      tr.appendChild(th);
      var td = el('td');
      td.appendChild(el('span', 'status ' + (b ? 'violated' : 'holds'), b ? 'violated' : 'holds'));
      td.appendChild(document.createTextNode(b ? ' at step ' + b.step + ': ' + b.why : (o.liveness ? ': the run can still complete from here' : ' so far')));
      tr.appendChild(td);
      tr.appendChild(el('td', '', o.doc));
      obls.appendChild(tr);
    });

    var heads = $('ex-tasks');
    heads.textContent = '';
    for (var t = 1; t <= m.tasks; t++) {
      var h = el('span', 'fx-head' + (t === m.gate ? ' gate' : ''), String(t));
      h.title = t === m.gate ? 'task ' + t + ', gated by the interrupt' : 'task ' + t;
      heads.appendChild(h);
    }
    var body = $('ex-timeline').tBodies[0];
    body.textContent = '';
    for (var i = 0; i <= k; i++) { body.appendChild(row(i, broken)); }
    try { history.replaceState(null, '', hashOf()); } catch (err) { /* file: pages may refuse; the walk goes on */ }
  }

  function take(i) {
    var t = current().t[i];
    if (!t) { return false; }
    walk.steps.push(t);
    walk.states.push(t[1]);
    return true;
  }

  // takeLabel takes the enabled transition named label; false when none is.
  function takeLabel(label) {
    var ts = current().t;
    for (var i = 0; i < ts.length; i++) {
      if (S[ts[i][0]] === label) { return take(i); }
    }
    return false;
  }

  // start opens model name and replays labels as far as they are enabled
  // there; it returns the labels that could not be taken.
  function start(name, labels) {
    walk = { model: modelNamed(name) || data.models[0], states: [0], steps: [] };
    $('ex-model').value = walk.model.name;
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
    var name = decodeURIComponent(params.fault || 'reference');
    var left = start(name, labels);
    render();
    if (!modelNamed(name)) {
      // Say so: the walk below is not the one the link asked for.
      $('answer').appendChild(el('p', 'reason link-note', '⚠ The link names the model “' + name + '”, which this page does not have: it opens the ' +
        walk.model.name + ' model instead. The models: ' + data.models.map(function (m) { return m.name; }).join(', ') + '.'));
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
    if (walk.steps.length) {
      walk.steps.pop();
      walk.states.pop();
      render();
      if ($('ex-back').disabled) { keepFocus(); }
    }
  });
  $('ex-restart').addEventListener('click', function () {
    start(walk.model.name, []);
    render();
  });
  // Switching the model keeps the walk as far as its actions are enabled
  // in the new one: switch a fault on, and see where the runs part.
  $('ex-model').addEventListener('change', function () {
    var labels = walk.steps.map(function (s) { return S[s[0]]; });
    var left = start($('ex-model').value, labels);
    render();
    if (left.length) {
      $('answer').appendChild(el('p', 'reason', 'The walk\'s step ' + (labels.length - left.length + 1) + ', ' + left[0] + ', is not enabled in this model; the walk stops before it.'));
    }
  });
  window.addEventListener('hashchange', function () {
    if (location.hash !== hashOf()) { fromHash(); }
  });
  fromHash();
})();
