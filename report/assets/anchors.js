// The anchors of a timeline (docs/report.md, "Anchors"): a selected step
// shows its action's TLA+ definition, watch expressions are evaluated at
// every step, a lasso's loop is marked, the changes inside records,
// functions and sequences are listed, and the path is exported as a trace
// file. Everything is computed from what the page holds: each row's
// action label and its state printed as TLA+ ("every variable"), the
// timeline's data-export header and data-loop step, and the actions'
// definitions (#anchors-tla). Nothing is fetched.
(function () {
  'use strict';

  // Values. Booleans and integers are JavaScript's own; the others are
  // {k: 'str'|'model', v}, {k: 'tuple'|'set', e: [...]},
  // {k: 'rec', f: [[name, value], ...]} and {k: 'fn', p: [[key, value], ...]},
  // kept in the order TLA+ prints them (package tlavalue's canonical
  // order), so that two values are equal when they print the same.

  function WatchError(msg) {
    this.message = msg;
  }
  WatchError.prototype = Object.create(Error.prototype);
  WatchError.prototype.name = 'WatchError';

  // tokens splits TLA+ text into tokens, each {t, pos} (pos 1-based).
  function tokens(src) {
    var out = [];
    var i = 0;
    var ops = ['<<', '>>', '|->', ':>', '@@', '/\\', '\\/', '\\in', '\\notin', '/=', '<=', '=<', '>=',
      '(', ')', '[', ']', '{', '}', ',', '.', '=', '#', '<', '>', '+', '-', '*', '~'];
    while (i < src.length) {
      var c = src[i];
      if (/\s/.test(c)) {
        i++;
        continue;
      }
      var m = /^[0-9]+/.exec(src.slice(i));
      if (m) {
        out.push({ t: m[0], num: true, pos: i + 1 });
        i += m[0].length;
        continue;
      }
      m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
      if (m) {
        out.push({ t: m[0], id: true, pos: i + 1 });
        i += m[0].length;
        continue;
      }
      if (c === '"') {
        var j = i + 1;
        var s = '';
        while (j < src.length && src[j] !== '"') {
          if (src[j] === '\\' && j + 1 < src.length) {
            j++;
            s += { n: '\n', t: '\t', r: '\r' }[src[j]] || src[j];
          } else {
            s += src[j];
          }
          j++;
        }
        if (j >= src.length) {
          throw new WatchError('unterminated string at column ' + (i + 1));
        }
        out.push({ t: '"', str: s, pos: i + 1 });
        i = j + 1;
        continue;
      }
      var op = null;
      for (var k = 0; k < ops.length; k++) {
        if (src.startsWith(ops[k], i) && (!op || ops[k].length > op.length)) {
          op = ops[k];
        }
      }
      if (!op) {
        throw new WatchError('unexpected ' + JSON.stringify(c) + ' at column ' + (i + 1));
      }
      out.push({ t: op, pos: i + 1 });
      i += op.length;
    }
    out.push({ t: '', end: true, pos: src.length + 1 });
    return out;
  }

  // Parser is a recursive descent over tokens, for both printed values
  // (parseValue) and watch expressions (parseExpr).
  function Parser(src) {
    this.toks = tokens(src);
    this.i = 0;
  }
  Parser.prototype.peek = function () { return this.toks[this.i]; };
  Parser.prototype.next = function () { return this.toks[this.i++]; };
  Parser.prototype.accept = function (t) {
    if (this.peek().t === t && !this.peek().str) {
      this.i++;
      return true;
    }
    return false;
  };
  Parser.prototype.fail = function (what) {
    var tok = this.peek();
    throw new WatchError('expected ' + what + ' at column ' + tok.pos + ', found ' + (tok.end ? 'the end' : JSON.stringify(tok.str !== undefined ? '"' + tok.str + '"' : tok.t)));
  };
  Parser.prototype.expect = function (t) {
    if (!this.accept(t)) {
      this.fail(JSON.stringify(t));
    }
  };
  // list parses items separated by commas up to close.
  Parser.prototype.list = function (item, close) {
    var out = [];
    if (this.accept(close)) {
      return out;
    }
    do {
      out.push(item.call(this));
    } while (this.accept(','));
    this.expect(close);
    return out;
  };

  // value parses a value as package tlavalue prints it.
  Parser.prototype.value = function () {
    var tok = this.next();
    if (tok.num) {
      return parseInt(tok.t, 10);
    }
    if (tok.t === '-' && this.peek().num) {
      return -parseInt(this.next().t, 10);
    }
    if (tok.str !== undefined) {
      return { k: 'str', v: tok.str };
    }
    if (tok.id) {
      if (tok.t === 'TRUE' || tok.t === 'FALSE') {
        return tok.t === 'TRUE';
      }
      return { k: 'model', v: tok.t };
    }
    switch (tok.t) {
      case '<<':
        return { k: 'tuple', e: this.list(this.value, '>>') };
      case '{':
        return { k: 'set', e: this.list(this.value, '}') };
      case '[':
        return { k: 'rec', f: this.list(function () {
          var name = this.next();
          if (!name.id) {
            this.i--;
            this.fail('a field name');
          }
          this.expect('|->');
          return [name.t, this.value()];
        }, ']') };
      case '(':
        var pairs = [];
        if (this.accept(')')) {
          return { k: 'fn', p: pairs };
        }
        do {
          var key = this.value();
          this.expect(':>');
          pairs.push([key, this.value()]);
        } while (this.accept('@@'));
        this.expect(')');
        return { k: 'fn', p: pairs };
    }
    this.i--;
    return this.fail('a value');
  };

  function parseValue(src) {
    var p = new Parser(src);
    var v = p.value();
    if (!p.peek().end) {
      p.fail('the end of the value');
    }
    return v;
  }

  function show(v) {
    if (typeof v === 'boolean') {
      return v ? 'TRUE' : 'FALSE';
    }
    if (typeof v === 'number') {
      return String(v);
    }
    switch (v.k) {
      case 'str':
        return JSON.stringify(v.v);
      case 'model':
        return v.v;
      case 'tuple':
        return '<<' + v.e.map(show).join(', ') + '>>';
      case 'set':
        return '{' + v.e.map(show).join(', ') + '}';
      case 'rec':
        return '[' + v.f.map(function (f) { return f[0] + ' |-> ' + show(f[1]); }).join(', ') + ']';
    }
    return '(' + v.p.map(function (p) { return show(p[0]) + ' :> ' + show(p[1]); }).join(' @@ ') + ')';
  }

  function kindOf(v) {
    if (typeof v === 'boolean') {
      return 'a boolean';
    }
    if (typeof v === 'number') {
      return 'an integer';
    }
    return { str: 'a string', model: 'a model value', tuple: 'a sequence', set: 'a set', rec: 'a record', fn: 'a function' }[v.k];
  }

  // Expressions: \/ below /\ below ~ below the relations below + - below
  // * below unary - and DOMAIN; then application f[x] and field access r.f.
  Parser.prototype.expr = function () {
    var l = this.conj();
    while (this.accept('\\/')) {
      l = { op: '\\/', a: l, b: this.conj() };
    }
    return l;
  };
  Parser.prototype.conj = function () {
    var l = this.neg();
    while (this.accept('/\\')) {
      l = { op: '/\\', a: l, b: this.neg() };
    }
    return l;
  };
  Parser.prototype.neg = function () {
    if (this.accept('~')) {
      return { op: '~', a: this.neg() };
    }
    return this.rel();
  };
  var relations = ['=', '#', '/=', '<', '<=', '=<', '>', '>=', '\\in', '\\notin'];
  Parser.prototype.rel = function () {
    var l = this.sum();
    var t = this.peek().t;
    if (relations.indexOf(t) >= 0 && this.peek().str === undefined) {
      this.next();
      l = { op: { '/=': '#', '=<': '<=' }[t] || t, a: l, b: this.sum() };
    }
    return l;
  };
  Parser.prototype.sum = function () {
    var l = this.prod();
    for (;;) {
      var t = this.peek().t;
      if ((t === '+' || t === '-') && this.peek().str === undefined) {
        this.next();
        l = { op: t, a: l, b: this.prod() };
      } else {
        return l;
      }
    }
  };
  Parser.prototype.prod = function () {
    var l = this.unary();
    while (this.accept('*')) {
      l = { op: '*', a: l, b: this.unary() };
    }
    return l;
  };
  Parser.prototype.unary = function () {
    if (this.accept('-')) {
      return { op: 'neg', a: this.unary() };
    }
    if (this.peek().id && this.peek().t === 'DOMAIN') {
      this.next();
      return { op: 'DOMAIN', a: this.unary() };
    }
    return this.postfix();
  };
  Parser.prototype.postfix = function () {
    var e = this.primary();
    for (;;) {
      var at = this.peek().pos;
      if (this.accept('[')) {
        e = { op: 'apply', a: e, b: this.expr(), pos: at };
        this.expect(']');
      } else if (this.accept('.')) {
        var f = this.next();
        if (!f.id) {
          this.i--;
          this.fail('a field name after "."');
        }
        e = { op: 'field', a: e, name: f.t, pos: at };
      } else {
        return e;
      }
    }
  };
  var builtins = { Len: 1, Cardinality: 1 };
  Parser.prototype.primary = function () {
    var tok = this.next();
    if (tok.num) {
      return { op: 'lit', v: parseInt(tok.t, 10) };
    }
    if (tok.str !== undefined) {
      return { op: 'lit', v: { k: 'str', v: tok.str } };
    }
    if (tok.id) {
      if (tok.t === 'TRUE' || tok.t === 'FALSE') {
        return { op: 'lit', v: tok.t === 'TRUE' };
      }
      if (builtins[tok.t] && this.accept('(')) {
        var args = this.list(this.expr, ')');
        if (args.length !== builtins[tok.t]) {
          throw new WatchError(tok.t + ' takes ' + builtins[tok.t] + ' argument, not ' + args.length + ' (column ' + tok.pos + ')');
        }
        return { op: tok.t, a: args[0], pos: tok.pos };
      }
      return { op: 'name', name: tok.t, pos: tok.pos };
    }
    switch (tok.t) {
      case '(':
        var e = this.expr();
        this.expect(')');
        return e;
      case '<<':
        return { op: 'tuple', es: this.list(this.expr, '>>') };
      case '{':
        return { op: 'set', es: this.list(this.expr, '}') };
    }
    this.i--;
    return this.fail('an expression');
  };

  function parseExpr(src) {
    if (!src.trim()) {
      throw new WatchError('the expression is empty');
    }
    var p = new Parser(src);
    var e = p.expr();
    if (!p.peek().end) {
      p.fail('an operator or the end');
    }
    return e;
  }

  // names are the names an expression uses that are not built in.
  function names(e, out) {
    out = out || [];
    if (!e || typeof e !== 'object') {
      return out;
    }
    if (e.op === 'name' && out.indexOf(e.name) < 0) {
      out.push(e.name);
    }
    [e.a, e.b].forEach(function (x) { names(x, out); });
    (e.es || []).forEach(function (x) { names(x, out); });
    return out;
  }

  function canonSet(es) {
    var seen = {};
    var out = [];
    es.forEach(function (x) {
      var k = show(x);
      if (!seen[k]) {
        seen[k] = true;
        out.push(x);
      }
    });
    return out.sort(compare);
  }

  // compare orders values as package tlavalue does within one kind:
  // integers by value, strings and model values by their text, others by
  // their printed text (enough for DOMAIN and set literals).
  function compare(a, b) {
    if (typeof a === 'number' && typeof b === 'number') {
      return a - b;
    }
    var x = typeof a === 'object' && (a.k === 'str' || a.k === 'model') ? a.v : show(a);
    var y = typeof b === 'object' && (b.k === 'str' || b.k === 'model') ? b.v : show(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  function want(v, kind, what) {
    var ok = kind === 'boolean' ? typeof v === 'boolean' : kind === 'integer' ? typeof v === 'number' : false;
    if (!ok) {
      throw new WatchError(what + ' needs ' + (kind === 'boolean' ? 'a boolean' : 'an integer') + ', not ' + kindOf(v) + ' (' + show(v) + ')');
    }
    return v;
  }

  // apply is f[x]: a sequence at 1..Len, a function at a key of its
  // domain, a record at a field name.
  function apply(f, x, e) {
    var at = ' (column ' + e.pos + ')';
    if (typeof f === 'object' && f.k === 'tuple') {
      if (typeof x !== 'number' || x < 1 || x > f.e.length) {
        throw new WatchError(show(x) + ' is not in the domain 1..' + f.e.length + ' of the sequence' + at);
      }
      return f.e[x - 1];
    }
    var pairs = typeof f === 'object' && (f.k === 'fn' ? f.p : f.k === 'rec' ? f.f.map(function (p) { return [{ k: 'str', v: p[0] }, p[1]]; }) : null);
    if (!pairs) {
      throw new WatchError('cannot apply ' + kindOf(f) + ' (' + show(f) + ') to an argument' + at);
    }
    var key = show(x);
    for (var i = 0; i < pairs.length; i++) {
      if (show(pairs[i][0]) === key) {
        return pairs[i][1];
      }
    }
    throw new WatchError(key + ' is not in the function\'s domain' + at);
  }

  // evaluate evaluates e in env: {vars: {name: value}, models: {name: true}}.
  function evaluate(e, env) {
    var a;
    var b;
    switch (e.op) {
      case 'lit':
        return e.v;
      case 'name':
        if (Object.prototype.hasOwnProperty.call(env.vars, e.name)) {
          return env.vars[e.name];
        }
        if (env.models[e.name]) {
          return { k: 'model', v: e.name };
        }
        throw new WatchError('unknown name ' + e.name + ' at column ' + e.pos + ': the variables are ' + Object.keys(env.vars).join(', '));
      case 'tuple':
        return { k: 'tuple', e: e.es.map(function (x) { return evaluate(x, env); }) };
      case 'set':
        return { k: 'set', e: canonSet(e.es.map(function (x) { return evaluate(x, env); })) };
      case '\\/':
        return want(evaluate(e.a, env), 'boolean', '\\/') || want(evaluate(e.b, env), 'boolean', '\\/');
      case '/\\':
        return want(evaluate(e.a, env), 'boolean', '/\\') && want(evaluate(e.b, env), 'boolean', '/\\');
      case '~':
        return !want(evaluate(e.a, env), 'boolean', '~');
      case 'neg':
        return -want(evaluate(e.a, env), 'integer', '-');
      case 'Len':
        a = evaluate(e.a, env);
        if (typeof a === 'object' && a.k === 'tuple') {
          return a.e.length;
        }
        if (typeof a === 'object' && a.k === 'str') {
          return a.v.length;
        }
        throw new WatchError('Len needs a sequence, not ' + kindOf(a) + ' (' + show(a) + ')');
      case 'Cardinality':
        a = evaluate(e.a, env);
        if (typeof a === 'object' && a.k === 'set') {
          return a.e.length;
        }
        throw new WatchError('Cardinality needs a set, not ' + kindOf(a) + ' (' + show(a) + ')');
      case 'DOMAIN':
        a = evaluate(e.a, env);
        if (typeof a === 'object' && a.k === 'tuple') {
          return { k: 'set', e: a.e.map(function (_, i) { return i + 1; }) };
        }
        if (typeof a === 'object' && a.k === 'rec') {
          return { k: 'set', e: canonSet(a.f.map(function (f) { return { k: 'str', v: f[0] }; })) };
        }
        if (typeof a === 'object' && a.k === 'fn') {
          return { k: 'set', e: a.p.map(function (p) { return p[0]; }) };
        }
        throw new WatchError('DOMAIN needs a function, not ' + kindOf(a) + ' (' + show(a) + ')');
      case 'apply':
        return apply(evaluate(e.a, env), evaluate(e.b, env), e);
      case 'field':
        a = evaluate(e.a, env);
        if (typeof a !== 'object' || a.k !== 'rec') {
          return apply(a, { k: 'str', v: e.name }, e);
        }
        for (var i = 0; i < a.f.length; i++) {
          if (a.f[i][0] === e.name) {
            return a.f[i][1];
          }
        }
        throw new WatchError('the record has no field ' + e.name + ' (column ' + e.pos + '); its fields are ' + a.f.map(function (f) { return f[0]; }).join(', '));
    }
    a = evaluate(e.a, env);
    b = evaluate(e.b, env);
    switch (e.op) {
      case '=':
        return show(a) === show(b);
      case '#':
        return show(a) !== show(b);
      case '\\in':
      case '\\notin':
        if (typeof b !== 'object' || b.k !== 'set') {
          throw new WatchError(e.op + ' needs a set on its right, not ' + kindOf(b) + ' (' + show(b) + ')');
        }
        var inside = b.e.some(function (x) { return show(x) === show(a); });
        return e.op === '\\in' ? inside : !inside;
    }
    want(a, 'integer', e.op);
    want(b, 'integer', e.op);
    switch (e.op) {
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
      case '+':
        return a + b;
      case '-':
        return a - b;
    }
    return a * b;
  }

  // watch evaluates the expression src at each state (a list of
  // {name: value}); each result is {value} or {error}. An unknown name
  // is an error at every state, found before any is evaluated.
  function watch(src, states) {
    var e = parseExpr(src);
    var models = {};
    states.forEach(function (s) {
      Object.keys(s).forEach(function (k) { collectModels(s[k], models); });
    });
    var env0 = { vars: states[0] || {}, models: models };
    names(e).forEach(function (n) {
      if (!Object.prototype.hasOwnProperty.call(env0.vars, n) && !models[n]) {
        throw new WatchError('unknown name ' + n + ': the variables are ' + Object.keys(env0.vars).join(', '));
      }
    });
    return states.map(function (s) {
      try {
        return { value: show(evaluate(e, { vars: s, models: models })) };
      } catch (err) {
        if (err instanceof WatchError) {
          return { error: err.message };
        }
        throw err;
      }
    });
  }

  function collectModels(v, out) {
    if (typeof v !== 'object') {
      return;
    }
    if (v.k === 'model') {
      out[v.v] = true;
    }
    (v.e || []).forEach(function (x) { collectModels(x, out); });
    (v.f || []).forEach(function (x) { collectModels(x[1], out); });
    (v.p || []).forEach(function (x) { collectModels(x[0], out); collectModels(x[1], out); });
  }

  // diff lists where b differs from a inside records, functions and
  // sequences: [{path, old, new}] with old or new undefined for a part
  // added or removed.
  function diff(a, b, path, out) {
    out = out || [];
    if (show(a) === show(b)) {
      return out;
    }
    var pa = parts(a);
    var pb = parts(b);
    if (!pa || !pb || pa.kind !== pb.kind) {
      out.push({ path: path, old: a, new: b });
      return out;
    }
    var keys = [];
    pa.list.concat(pb.list).forEach(function (p) {
      if (keys.indexOf(p[0]) < 0) {
        keys.push(p[0]);
      }
    });
    keys.forEach(function (k) {
      var x = find(pa.list, k);
      var y = find(pb.list, k);
      var sub = path + (pa.kind === 'rec' ? '.' + k : '[' + k + ']');
      if (x === undefined || y === undefined) {
        out.push({ path: sub, old: x, new: y });
      } else {
        diff(x, y, sub, out);
      }
    });
    return out;
  }
  function find(list, k) {
    for (var i = 0; i < list.length; i++) {
      if (list[i][0] === k) {
        return list[i][1];
      }
    }
    return undefined;
  }
  // parts are a compound value's parts by printed key (a tuple and a
  // function are both functions, as in TLA+).
  function parts(v) {
    if (typeof v !== 'object') {
      return null;
    }
    switch (v.k) {
      case 'tuple':
        return { kind: 'fn', list: v.e.map(function (x, i) { return [String(i + 1), x]; }) };
      case 'fn':
        return { kind: 'fn', list: v.p.map(function (p) { return [show(p[0]), p[1]]; }) };
      case 'rec':
        return { kind: 'rec', list: v.f };
    }
    return null;
  }

  // toJSON encodes a value as TLC's Json module does (the Resume trace
  // format's "vars"): sequences and sets as arrays, records and functions
  // as objects, model values and strings as strings.
  function toJSON(v) {
    if (typeof v !== 'object') {
      return v;
    }
    switch (v.k) {
      case 'str':
      case 'model':
        return v.v;
      case 'tuple':
      case 'set':
        return v.e.map(toJSON);
      case 'rec':
        var r = {};
        v.f.forEach(function (f) { r[f[0]] = toJSON(f[1]); });
        return r;
    }
    var o = {};
    v.p.forEach(function (p) { o[p[0].k === 'str' ? p[0].v : show(p[0])] = toJSON(p[1]); });
    return o;
  }

  // exportTrace writes a path as a trace file: header is its first line
  // (a Resume trace's or a spec trace's, trace.SpecFormat); steps are
  // [{label, vars: [[name, text]]}], the first the initial state. The
  // header's envelope says the payload (trace.Envelope): Resume's when it
  // is "resume-trace" (version 1) or names module Resume (version 2). A
  // Resume event names its action and parameter (a value, or a
  // recovery's decision: decisions are the actions whose parameter is
  // one, from the page's #anchors-tla) and every variable in TLC's JSON; a
  // spec trace's event names its label and every variable as TLA+ text.
  function exportTrace(header, steps, decisions) {
    var h = JSON.parse(header);
    var lines = [header];
    for (var i = 1; i < steps.length; i++) {
      var st = steps[i];
      var ev = { seq: i, action: st.label };
      var vars = {};
      if (h.format === 'tla-trace' && !(h.version === 2 && h.module === 'Resume')) {
        st.vars.forEach(function (x) { vars[x[0]] = x[1]; });
      } else {
        var m = /^([A-Za-z_]\w*)(?:\((.*)\))?$/.exec(st.label);
        ev.action = m ? m[1] : st.label;
        if (m && m[2] !== undefined) {
          ev.params = (decisions || []).indexOf(m[1]) >= 0 ? { decision: m[2] } : { value: m[2] };
        }
        st.vars.forEach(function (x) { vars[x[0]] = toJSON(parseValue(x[1])); });
      }
      ev.vars = vars;
      lines.push(JSON.stringify(ev));
    }
    return lines.join('\n') + '\n';
  }

  var api = { parseValue: parseValue, parseExpr: parseExpr, show: show, watch: watch, diff: diff, exportTrace: exportTrace, WatchError: WatchError };
  if (typeof document === 'undefined') {
    if (typeof module !== 'undefined') {
      module.exports = api;
    }
    return;
  }

  // The page.

  function el(tag, cls, text) {
    var x = document.createElement(tag);
    if (cls) {
      x.className = cls;
    }
    if (text !== undefined) {
      x.textContent = text;
    }
    return x;
  }

  // rowsOf reads a timeline's rows: step number, label and variables
  // (name and printed value), from the row's cells.
  function rowsOf(table) {
    var out = [];
    table.querySelectorAll('tbody tr.step').forEach(function (tr) {
      var code = tr.querySelector('td.action > code');
      var pre = tr.querySelector('details.state pre');
      var vars = [];
      (pre ? pre.textContent : '').split('\n').forEach(function (line) {
        var m = /^\/\\ (\S+) = (.*)$/.exec(line);
        if (m) {
          vars.push([m[1], m[2]]);
        }
      });
      out.push({ tr: tr, n: parseInt(tr.getAttribute('data-step'), 10), label: code ? code.textContent : '', vars: vars });
    });
    return out;
  }

  var texts = null;
  // page is the page's #anchors-tla: the actions' definitions and the
  // trace headers.
  function page() {
    if (texts === null) {
      var node = document.getElementById('anchors-tla');
      texts = node ? JSON.parse(node.textContent) : { actions: [] };
    }
    return texts;
  }
  function actionText(label) {
    var texts = page();
    var name = label.split('(')[0];
    texts.actions = texts.actions || [];
    for (var i = 0; i < texts.actions.length; i++) {
      if (texts.actions[i].name === name) {
        return { file: texts.file, a: texts.actions[i] };
      }
    }
    return null;
  }

  // headerOf is the first line of the box's exported trace: the page's
  // header data-export names, or, in the explorer, the one of the model
  // chosen in the select that data-export-by names (null: no export).
  function headerOf(box) {
    var hs = page().headers || [];
    var by = box.getAttribute('data-export-by');
    if (by) {
      var sel = document.getElementById(by);
      var i = sel && page().models ? page().models[sel.value] : undefined;
      return i === undefined ? null : hs[i];
    }
    var hi = box.getAttribute('data-export');
    return hi === null ? null : hs[parseInt(hi, 10)] || null;
  }

  var boxes = 0;
  // setUp adds the anchors to a timeline's box: the tools above it once,
  // and the rows' decorations each time its rows change (the explorer
  // draws them anew at every step).
  function setUp(box) {
    var table = box.querySelector('table.timeline');
    if (!table || box.hasAttribute('data-anchored')) {
      return;
    }
    box.setAttribute('data-anchored', '');
    var id = 'tl' + (++boxes);
    var rows = [];
    var states = [];
    var watches = [];
    var tools = el('div', 'anchors');
    box.parentNode.insertBefore(tools, box);

    // The action's definition of the selected step.
    var def = el('figure', 'tla-def');
    def.id = id + '-def';
    def.hidden = true;
    var defCap = el('figcaption');
    var defPre = el('pre');
    def.appendChild(defCap);
    def.appendChild(defPre);
    box.parentNode.insertBefore(def, box.nextSibling);
    function select(r) {
      var t = actionText(r.label);
      rows.forEach(function (x) {
        x.tr.classList.toggle('selected', x === r);
        var b = x.tr.querySelector('button.tla-link');
        if (b) {
          b.setAttribute('aria-pressed', x === r ? 'true' : 'false');
        }
      });
      defCap.textContent = 'Step ' + r.n + ', ' + r.label + ': its action as ' + t.file + ' defines it (line ' + t.a.line + ')';
      defPre.textContent = t.a.text;
      def.hidden = false;
    }

    function decorate() {
      var read = rowsOf(table);
      var parsed;
      try {
        parsed = read.map(function (r) {
          var s = {};
          r.vars.forEach(function (x) { s[x[0]] = parseValue(x[1]); });
          return s;
        });
      } catch (err) {
        return;
      }
      rows = read;
      states = parsed;
      def.hidden = true;
      rows.forEach(function (r, i) {
        var code = r.tr.querySelector('td.action > code');
        if (code && actionText(r.label)) {
          var b = el('button', 'tla-link');
          b.type = 'button';
          b.setAttribute('aria-controls', def.id);
          b.title = 'show the TLA+ definition of ' + r.label.split('(')[0];
          code.parentNode.insertBefore(b, code);
          b.appendChild(code);
          b.addEventListener('click', function () { select(r); });
        }
        if (i > 0) {
          deepChanges(r, states[i - 1], states[i]);
        }
      });
      lasso();
      watchColumns();
    }

    // The changes inside compound values.
    function deepChanges(r, before, now) {
      var cell = r.tr.querySelector('td.changed');
      if (!cell || cell.querySelector('ul.deep')) {
        return;
      }
      var list = [];
      r.vars.forEach(function (x) {
        var a = before[x[0]];
        var b = now[x[0]];
        if (a === undefined || show(a) === show(b) || !parts(a) || !parts(b)) {
          return;
        }
        diff(a, b, x[0]).forEach(function (d) { list.push(d); });
      });
      if (!list.length) {
        return;
      }
      var ul = el('ul', 'deep');
      ul.setAttribute('aria-label', 'changed inside');
      list.forEach(function (d) {
        var li = el('li');
        li.appendChild(el('code', 'path', d.path));
        li.appendChild(document.createTextNode(': '));
        li.appendChild(el(d.old === undefined ? 'span' : 'del', 'was', d.old === undefined ? '(new)' : show(d.old)));
        li.appendChild(document.createTextNode(' → '));
        li.appendChild(el(d.new === undefined ? 'span' : 'ins', 'now', d.new === undefined ? '(removed)' : show(d.new)));
        ul.appendChild(li);
      });
      cell.insertBefore(ul, cell.querySelector('details.state'));
    }

    // The lasso: the loop's rows and states marked.
    function lasso() {
      var loop = box.getAttribute('data-loop');
      if (loop === null || !rows.length) {
        return;
      }
      var k = parseInt(loop, 10);
      var last = rows[rows.length - 1].n;
      rows.forEach(function (r) {
        if (r.n < k || r.tr.classList.contains('in-loop')) {
          return;
        }
        r.tr.classList.add('in-loop');
        var story = r.tr.querySelector('td.story');
        var marks = story && story.querySelector('.marks');
        if (story && !marks) {
          marks = story.appendChild(el('div', 'marks'));
        }
        if (marks) {
          var text = r.n === k ? 'the loop starts here' : 'in the loop';
          if (r.n === last) {
            text = (r.n === k ? 'the loop: ' : '') + '↩ back to step ' + k;
          }
          marks.appendChild(el('span', 'mark mark-loop lasso', text));
        }
      });
      var scope = box.closest('.panel, section, article') || document;
      scope.querySelectorAll('svg g.pn[data-step]').forEach(function (g) {
        if (parseInt(g.getAttribute('data-step'), 10) >= k) {
          g.classList.add('in-loop');
        }
      });
    }

    // Export.
    if (box.hasAttribute('data-export') || box.hasAttribute('data-export-by')) {
      var ex = el('button', 'export', 'Export this path as a trace');
      ex.type = 'button';
      ex.addEventListener('click', function () {
        var header = headerOf(box);
        if (!header || !rows.length) {
          return;
        }
        var text = exportTrace(header, rows, page().decisions);
        var a = el('a');
        a.href = 'data:application/x-ndjson;charset=utf-8,' + encodeURIComponent(text);
        a.download = 'path.ndjson';
        a.hidden = true;
        tools.appendChild(a);
        a.click();
        tools.removeChild(a);
      });
      tools.appendChild(ex);
    }

    // Watch expressions: each a column, evaluated again when the rows
    // change.
    var form = el('form', 'watch');
    var label = el('label', '', 'Watch ');
    var input = el('input');
    input.type = 'text';
    input.spellcheck = false;
    input.placeholder = 'e.g. x[1] = 2';
    label.appendChild(input);
    var add = el('button', '', 'Evaluate at each step');
    add.type = 'submit';
    var err = el('p', 'watch-error');
    err.setAttribute('role', 'status');
    form.appendChild(label);
    form.appendChild(add);
    tools.appendChild(form);
    tools.appendChild(err);
    function watchColumns() {
      var head = table.querySelector('thead tr');
      head.querySelectorAll('th.watch-col').forEach(function (th) { head.removeChild(th); });
      table.querySelectorAll('td.watch-cell').forEach(function (td) { td.parentNode.removeChild(td); });
      var end = table.querySelector('tr.end td');
      if (end) {
        end.colSpan = parseInt(end.getAttribute('data-span') || String(end.colSpan), 10) + watches.length;
        end.setAttribute('data-span', String(end.colSpan - watches.length));
      }
      watches.forEach(function (src) {
        var results;
        try {
          results = watch(src, states);
        } catch (x) {
          if (!(x instanceof WatchError)) {
            throw x;
          }
          results = states.map(function () { return { error: x.message }; });
        }
        var th = el('th', 'watch-col', src);
        th.scope = 'col';
        head.appendChild(th);
        rows.forEach(function (r, i) {
          var td = el('td', 'watch-cell');
          td.appendChild(el('span', 'card-label', src));
          var res = results[i];
          td.appendChild(el('code', res.error ? 'watch-err' : 'watch-val', res.error ? res.error : res.value));
          if (i > 0 && !res.error && !results[i - 1].error && results[i - 1].value !== res.value) {
            td.classList.add('watch-changed');
          }
          r.tr.appendChild(td);
        });
      });
    }
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var src = input.value;
      try {
        watch(src, states.length ? states : [{}]);
      } catch (x) {
        if (!(x instanceof WatchError)) {
          throw x;
        }
        err.textContent = src + ': ' + x.message;
        return;
      }
      err.textContent = '';
      watches.push(src);
      watchColumns();
      input.value = '';
    });

    decorate();
    new MutationObserver(decorate).observe(table.tBodies[0], { childList: true });
  }

  document.querySelectorAll('.tl-box').forEach(setUp);
})();
