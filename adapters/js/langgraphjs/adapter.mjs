// The conformance harness's adapter for LangGraph.js (docs/harness.md): a
// thin driver of @langchain/langgraph with the SQLite checkpointer of
// @langchain/langgraph-checkpoint-sqlite. It builds the scenario workflow as
// a user would (a StateGraph over a Zod object, interrupt() at the gate,
// Command({resume}) to deliver a value), wraps the checkpointer to announce
// every persistence operation, and writes one ledger row per task effect.
// It does not fix, retry or deduplicate anything.
//
// Protocol: NDJSON requests on stdin, hello/reply/note lines on stdout,
// free text on stderr.

import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { Command, END, START, StateGraph, interrupt } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";

const require = createRequire(import.meta.url);
const SUBJECT = "langgraphjs";

// stdout belongs to the protocol: anything a library logs goes to stderr.
for (const k of ["log", "info", "debug", "warn", "trace"]) console[k] = console.error.bind(console);

// The versions actually loaded, from the installed packages' metadata.
function versionOf(pkg) {
  try {
    return require(`${pkg}/package.json`).version;
  } catch {
    return null;
  }
}

const VERSION = versionOf("@langchain/langgraph");

// ---- protocol I/O --------------------------------------------------------

const out = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

// Lines from stdin, sorted by type into two channels: acks go to the note
// waiting for one, every other line to the request loop. A note of a
// background promise can be waiting for its ack while the loop waits for
// the next request; arrival order alone would hand either the wrong line.
function channel() {
  return { pending: [], waiters: [] };
}
const acks = channel();
const requests = channel();
let closed = false;
function deliver(ch, line) {
  if (ch.waiters.length > 0) ch.waiters.shift()(line);
  else ch.pending.push(line);
}
function isAck(line) {
  try {
    return JSON.parse(line)?.type === "ack";
  } catch {
    return false; // the request loop reports the malformed line
  }
}
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (line.trim() === "") return;
  deliver(isAck(line) ? acks : requests, line);
});
rl.on("close", () => {
  closed = true;
  for (const ch of [acks, requests]) while (ch.waiters.length > 0) ch.waiters.shift()(null);
});
function nextLine(ch) {
  if (ch.pending.length > 0) return Promise.resolve(ch.pending.shift());
  if (closed) return Promise.resolve(null);
  return new Promise((resolve) => ch.waiters.push(resolve));
}

class ProtocolError extends Error {}

// A refusal of the subject, with the protocol's error kind.
class Refusal extends Error {
  constructor(kind, message, type) {
    super(message);
    this.kind = kind;
    this.type = type ?? "Refusal";
  }
}

// The session: the current setup, the ledger and the note channel.
const session = {
  run: null,
  workflow: null,
  branch: "main",
  sync: false,
  ledger: null,
  insert: null,
  notes: 0,
  // Notes are sent one at a time: a note and its ack finish before the next
  // note is written, whichever promise of the subject sends it.
  chain: Promise.resolve(),
};

function note(fields) {
  const p = session.chain.then(async () => {
    session.notes += 1;
    const n = session.notes;
    out({ type: "note", n, ...fields });
    if (!session.sync) return;
    const line = await nextLine(acks);
    if (line === null) throw new ProtocolError(`stdin closed while waiting for the ack of note ${n}`);
    let ack;
    try {
      ack = JSON.parse(line);
    } catch {
      ack = null;
    }
    if (!ack || ack.type !== "ack" || ack.n !== n) {
      throw new ProtocolError(`waiting for the ack of note ${n}, got ${line.slice(0, 100)}`);
    }
  });
  session.chain = p.catch(() => {});
  return p;
}

const persisted = (op, task) => note({ kind: "persist", op, ...(task ? { task } : {}) });

// The effect part of task t's body, in the protocol's order: the task note,
// the ledger row (autocommit), the effect note.
async function effect(t, value) {
  await note({ kind: "task", task: t, ...(value != null ? { value } : {}), branch: session.branch });
  session.insert.run(session.run, t, session.branch, value ?? null, null, process.pid);
  await note({ kind: "effect", task: t, branch: session.branch });
}

// ---- the subject ---------------------------------------------------------

// The task a checkpointer operation belongs to, when the data says: the
// `last` a checkpoint holds or a write sets, or the gate for an interrupt or
// a resume write.
function taskOfWrites(writes) {
  for (const [channel, value] of writes) {
    if (channel === "last" && Number.isInteger(value)) return value;
  }
  for (const [channel] of writes) {
    if (channel === "__interrupt__" || channel === "__resume__") return session.workflow.gate;
  }
  return undefined;
}

// The SQLite checkpointer as shipped, with a note after every persistence
// operation returned (its rows are written synchronously by better-sqlite3,
// in autocommit or in one transaction).
class NotingSaver extends SqliteSaver {
  async put(config, checkpoint, metadata, newVersions) {
    const r = await super.put(config, checkpoint, metadata, newVersions);
    const last = checkpoint?.channel_values?.last;
    await persisted("put", Number.isInteger(last) ? last : undefined);
    return r;
  }

  async putWrites(config, writes, taskId) {
    await super.putWrites(config, writes, taskId);
    await persisted("put_writes", taskOfWrites(writes));
  }
}

let graph = null;
let saver = null;

function buildGraph(w) {
  const values = w.values;
  // The scenario's state, declared with Zod as a LangGraph.js user would:
  // LangGraph validates every node's update against it.
  const State = z.object({
    input: z.string().regex(/^[a-z0-9-]{1,64}$/),
    last: z.number().int().min(0).max(w.tasks).optional(),
    approval: z.enum(values).nullable().optional(),
    outcome: z.array(z.enum(values)).length(1).nullable().optional(),
  });
  const g = new StateGraph(State);
  for (let t = 1; t <= w.tasks; t++) {
    g.addNode(`t${t}`, async () => {
      let value = null;
      if (t === w.gate) value = interrupt({ task: t });
      await effect(t, value);
      const update = { last: t === w.invalid_task ? "invalid" : t };
      if (t === w.gate) {
        update.approval = value;
        update.outcome = [value];
      }
      return update;
    });
  }
  g.addEdge(START, "t1");
  for (let t = 1; t < w.tasks; t++) g.addEdge(`t${t}`, `t${t + 1}`);
  g.addEdge(`t${w.tasks}`, END);
  return g;
}

function config(checkpointId) {
  const c = { configurable: { thread_id: session.run } };
  if (checkpointId) c.configurable.checkpoint_id = checkpointId;
  return c;
}

// Where the run stands after an invoke: the thread's latest checkpoint.
async function standing(result) {
  const snap = await graph.getState(config());
  const interrupted = snap.tasks.some((t) => (t.interrupts ?? []).length > 0);
  let status = "idle";
  if (snap.next.length === 0 && snap.config?.configurable?.checkpoint_id) status = "completed";
  else if (interrupted) status = "parked";
  const state = result && typeof result === "object" ? { ...result } : null;
  if (state) delete state.__interrupt__;
  return {
    status,
    checkpoint: snap.config?.configurable?.checkpoint_id,
    outcome: state?.outcome ?? null,
    state,
  };
}

// The error kinds of what LangGraph.js throws: a Zod validation of a node's
// update is a refused invalid state; the rest failed.
function classify(err) {
  if (err instanceof Refusal || err instanceof ProtocolError) return err;
  const name = err?.constructor?.name ?? "Error";
  if (name === "ZodError" || name === "$ZodError" || Array.isArray(err?.issues)) {
    return new Refusal("invalid_state", String(err.message ?? err), name);
  }
  return new Refusal("failed", String(err?.stack ?? err), name);
}

async function invoke(input, checkpointId) {
  const result = await graph.invoke(input, config(checkpointId));
  return standing(result);
}

// ---- the checkpoint report ----------------------------------------------

const INTERNAL = /^(__|branch:)/;

function publicState(channelValues) {
  const s = {};
  for (const [k, v] of Object.entries(channelValues ?? {})) if (!INTERNAL.test(k)) s[k] = v;
  return s;
}

async function report() {
  const tuples = [];
  for await (const t of saver.list(config())) tuples.push(t);
  const byId = new Map(tuples.map((t) => [t.config.configurable.checkpoint_id, t]));
  const children = new Map();
  let root = null;
  for (const t of tuples) {
    const parent = t.parentConfig?.configurable?.checkpoint_id;
    if (!parent || !byId.has(parent)) {
      if (root === null || t.config.configurable.checkpoint_id < root.config.configurable.checkpoint_id) root = t;
      continue;
    }
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(t);
  }
  // The main line: from the root, the first-created child at every fork
  // (checkpoint ids are time-ordered). A resume aimed at an earlier
  // checkpoint branches off it; the first line is the run's own.
  const line = [];
  for (let c = root; c; ) {
    line.push(c);
    const kids = children.get(c.config.configurable.checkpoint_id) ?? [];
    kids.sort((a, b) => (a.config.configurable.checkpoint_id < b.config.configurable.checkpoint_id ? -1 : 1));
    c = kids[0];
  }
  const records = [];
  let prevLast;
  let consumed = null;
  for (const c of line) {
    const cv = c.checkpoint.channel_values ?? {};
    if (cv.last !== undefined && cv.last !== prevLast) records.push({ task: cv.last, state: publicState(cv) });
    prevLast = cv.last;
    const interrupted = c.pendingWrites.some(([, ch]) => ch === "__interrupt__");
    if (interrupted && consumed === null) {
      const r = c.pendingWrites.find(([, ch, v]) => ch === "__resume__" && Array.isArray(v));
      if (r) consumed = r[2][0];
    }
  }
  // The leaf's pending writes: a task that finished and wrote, whose
  // checkpoint is not (yet) there, counts as recorded: LangGraph applies
  // its writes on resume instead of running it again.
  let parked = false;
  const leaf = line[line.length - 1];
  if (leaf) {
    const byTask = new Map();
    for (const [task, ch, v] of leaf.pendingWrites) {
      if (!byTask.has(task)) byTask.set(task, []);
      byTask.get(task).push([ch, v]);
    }
    // Parked: the leaf holds the gate's interrupt and not the gate's
    // completion (a resume value may already be recorded beside it).
    for (const writes of byTask.values()) {
      const chans = writes.map(([ch]) => ch);
      if (chans.includes("__interrupt__") && !chans.includes("last")) parked = true;
      if (chans.includes("__error__")) continue;
      const last = writes.find(([ch]) => ch === "last");
      if (last && last[1] !== prevLast) {
        const st = publicState(leaf.checkpoint.channel_values);
        for (const [ch, v] of writes) if (!INTERNAL.test(ch)) st[ch] = v;
        records.push({ task: last[1], state: st });
      }
    }
  }
  const resumeWrites = [];
  let writes = 0;
  for (const t of tuples) {
    writes += t.pendingWrites.length;
    for (const [, ch, v] of t.pendingWrites) {
      if (ch === "__resume__") resumeWrites.push({ checkpoint: t.config.configurable.checkpoint_id, value: v });
    }
  }
  const latest = tuples.length > 0 ? tuples[0].config.configurable.checkpoint_id : null;
  // Finished: the thread has a checkpoint, and LangGraph's view of it has no
  // task at all: none to run, none interrupted, none whose writes are
  // pending (getState leaves a task with pending writes out of `next`, so
  // `next` alone calls a run finished whose latest checkpoint only has the
  // next node's writes beside it).
  let finished = false;
  if (latest !== null) {
    const snap = await graph.getState(config());
    finished = snap.next.length === 0 && snap.tasks.length === 0;
  }
  return {
    records,
    parked,
    consumed,
    checkpoint: latest,
    finished,
    raw: {
      checkpoints: tuples.length,
      main_line: line.length,
      pending_writes: writes,
      resume_writes: resumeWrites,
    },
  };
}

// ---- requests ------------------------------------------------------------

async function handle(req) {
  session.branch = req.branch || "main";
  switch (req.op) {
    case "setup": {
      const w = req.workflow;
      if (!w || !req.store) throw new Refusal("failed", "setup without workflow or store");
      if (req.store.kind !== "sqlite") {
        throw new Refusal("unsupported", `store ${req.store.kind}: this adapter runs LangGraph.js on its SQLite checkpointer`);
      }
      session.run = req.run;
      session.workflow = w;
      session.sync = req.sync === true;
      if (session.ledger) session.ledger.close();
      // Autocommit inserts with a long busy timeout (racers write at once).
      session.ledger = new Database(req.ledger, { timeout: 30000 });
      session.insert = session.ledger.prepare(
        "INSERT INTO effects (run, task, branch, value, key, pid) VALUES (?, ?, ?, ?, ?, ?)",
      );
      if (saver) saver.db.close();
      saver = new NotingSaver(new Database(req.store.path));
      graph = buildGraph(w).compile({ checkpointer: saver });
      return {};
    }
    case "start":
      return invoke({ input: req.input?.input }, null);
    case "resume":
      if (req.intent === "fork") {
        throw new Refusal("unsupported", "LangGraph.js has no fork intent on its resume call (Command({resume}))");
      }
      return invoke(new Command({ resume: req.value }), req.checkpoint ?? null);
    case "recover":
      if (req.address === "resubmit") return invoke({ input: req.input?.input }, null);
      return invoke(null, null);
    case "checkpoint":
      return report();
    case "quit":
      return {};
  }
  throw new Refusal("unsupported", `unknown op ${JSON.stringify(req.op)}`);
}

async function main() {
  out({
    type: "hello",
    protocol: 1,
    subject: SUBJECT,
    version: VERSION ?? "unknown",
    features: {
      stores: ["sqlite"],
      fork: false,
      checkpoint_address: true,
      idempotency_key: false,
      invalid_state: true,
      resubmit: true,
    },
    components: {
      "@langchain/langgraph": VERSION,
      "@langchain/langgraph-checkpoint": versionOf("@langchain/langgraph-checkpoint"),
      "@langchain/langgraph-checkpoint-sqlite": versionOf("@langchain/langgraph-checkpoint-sqlite"),
      "@langchain/core": versionOf("@langchain/core"),
      "better-sqlite3": versionOf("better-sqlite3"),
      zod: versionOf("zod"),
      node: process.versions.node,
    },
  });
  for (;;) {
    const line = await nextLine(requests);
    if (line === null) break;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      console.error(`bad request line: ${e.message}`);
      process.exitCode = 1;
      break;
    }
    let reply;
    try {
      reply = { type: "reply", id: req.id, ok: true, ...(await handle(req)) };
    } catch (e) {
      const r = classify(e);
      if (r instanceof ProtocolError) {
        console.error(r.message);
        process.exitCode = 1;
        break;
      }
      reply = { type: "reply", id: req.id, ok: false, error: { kind: r.kind, type: r.type, message: r.message } };
    }
    out(reply);
    if (req.op === "quit") break;
  }
  // Let stdout drain before the process ends.
  process.stdout.write("", () => process.exit(process.exitCode ?? 0));
}

main().catch((e) => {
  console.error(e?.stack ?? String(e));
  process.stdout.write("", () => process.exit(1));
});
