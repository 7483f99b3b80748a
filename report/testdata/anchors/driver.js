// The Node side of report's anchors tests: it loads the page's own
// assets/anchors.js and runs its exporter and its watch expressions on
// what the Go test read out of a page, given as JSON on stdin:
// {exports: [{header, decisions, steps: [{label, vars: [[name, text]]}]}],
//  watches: [{exprs: [text], states: [[[name, text]]]}]}.
// It prints {exports: [ndjson], watches: [[[{value}|{error}] per state] per
// expression]}, an expression that fails to parse or names an unknown
// name giving [{error}] once.
'use strict';
const path = require('path');
const anchors = require(path.join(__dirname, '..', '..', 'assets', 'anchors.js'));

let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const req = JSON.parse(input);
  const out = { exports: [], watches: [] };
  for (const ex of req.exports || []) {
    out.exports.push(anchors.exportTrace(ex.header, ex.steps, ex.decisions));
  }
  for (const w of req.watches || []) {
    const states = w.states.map((vars) => {
      const s = {};
      for (const [name, text] of vars) {
        s[name] = anchors.parseValue(text);
      }
      return s;
    });
    out.watches.push(w.exprs.map((e) => {
      try {
        return anchors.watch(e, states);
      } catch (err) {
        if (err instanceof anchors.WatchError) {
          return [{ error: err.message }];
        }
        throw err;
      }
    }));
  }
  process.stdout.write(JSON.stringify(out));
});
