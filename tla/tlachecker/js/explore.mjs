// Breadth-first exploration of a TLA+ spec through tla-checker's stepping
// API (explore_init / explore_next), all in this one node process.
//
// Input, one JSON object on stdin:
//   {"dir": folder whose node_modules holds tla-checker,
//    "spec": module text, "cfg": cfg text (INIT/NEXT, not SPECIFICATION),
//    "maxStates": bound on distinct states, 0 = none}
// Output, one JSON object on stdout:
//   {"vars": [...], "init": [i, ...],
//    "states": [{"json": state, "next": [{"action": name, "to": j}, ...]}],
//    "millis": time spent exploring}
// where i and j index "states". States are told apart by the text of their
// json form; the Go side decides distinctness again in its own encoding.
// Any failure is one line on stderr and exit status 1.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

function fail(msg) {
  process.stderr.write('tla-checker driver: ' + msg + '\n');
  process.exit(1);
}

// Every explore_* call answers a JSON text with "ok"; anything else is the
// checker refusing the spec, the cfg or the state.
function answer(what, text) {
  let r;
  try {
    r = JSON.parse(text);
  } catch (e) {
    fail(`${what}: reply is not JSON: ${String(text).slice(0, 500)}`);
  }
  if (!r || r.ok !== true) {
    fail(`${what}: ${JSON.stringify(r).slice(0, 2000)}`);
  }
  return r;
}

const input = JSON.parse(fs.readFileSync(0, 'utf8'));

// Resolve the package the way an import in input.dir would, so the version
// is whatever that folder's package-lock.json pinned.
let entry;
try {
  entry = createRequire(path.resolve(input.dir, 'package.json')).resolve('tla-checker');
} catch (e) {
  fail(`tla-checker is not installed under ${input.dir}: ${e.message}`);
}
const tc = await import(pathToFileURL(entry).href);
tc.initSync({ module: fs.readFileSync(path.join(path.dirname(entry), 'tla_checker_bg.wasm')) });

const started = Date.now();
const constants = '{}'; // every constant comes from the cfg
const states = [];
const index = new Map(); // json text -> index in states

function visit(json) {
  const key = JSON.stringify(json);
  let i = index.get(key);
  if (i === undefined) {
    i = states.length;
    if (input.maxStates > 0 && i >= input.maxStates) {
      fail(`more than ${input.maxStates} distinct states; raise maxStates or shrink the cfg`);
    }
    index.set(key, i);
    states.push({ json, key, next: null });
  }
  return i;
}

const first = answer('explore_init', tc.explore_init(input.spec, input.cfg, constants));
const init = first.states.map((s) => visit(s.json));
for (let i = 0; i < states.length; i++) {
  const s = states[i];
  const r = answer(`explore_next from state ${i} ${s.key}`,
    tc.explore_next(input.spec, input.cfg, constants, s.key));
  s.next = r.transitions.map((t) => ({ action: t.action, to: visit(t.state.json) }));
}

process.stdout.write(JSON.stringify({
  vars: first.vars,
  init,
  states: states.map((s) => ({ json: s.json, next: s.next })),
  millis: Date.now() - started,
}));
process.stdout.write('\n');
