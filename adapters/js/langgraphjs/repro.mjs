// Minimal reproductions of the resume-contract violations the harness
// measured on LangGraph.js 1.7.3 (docs/conformance.md). Standalone:
// @langchain/langgraph, its SQLite checkpointer and zod; no harness. Each
// case prints what it observed and exits 1 when the violation reproduces, 0
// when it does not.
//
//   node repro.mjs fd              # a second resume value at the interrupt checkpoint is never consulted
//   node repro.mjs crash resume    # SIGKILL inside a node after its side effect; invoke(null, cfg) runs it again
//   node repro.mjs crash resubmit  # the same, recovered by re-submitting the input: completed work runs again
//   node repro.mjs race K          # K processes resume one interrupt: the gated side effect fires K times
//   node repro.mjs cv              # holds: a node's schema-invalid update is refused (ZodError)
//
// The "side effect" is a row in a SQLite table (effects.db), written in
// autocommit by the node, like an email sent. Run it from this folder (the
// packages come from its node_modules).

import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Command, END, START, StateGraph, interrupt } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";

// A forked child finds the parent's directory in the environment.
const DIR = process.env.LGJS_REPRO_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "lgjs-repro-"));
process.env.LGJS_REPRO_DIR = DIR;
const SELF = fileURLToPath(import.meta.url);
const CFG = { configurable: { thread_id: "t" } };

const State = z.object({
  last: z.number().int().min(0).optional(),
  approval: z.enum(["va", "vb"]).nullable().optional(),
});

function fire(task, value) {
  const db = new Database(path.join(DIR, "effects.db"), { timeout: 30000 });
  db.exec("CREATE TABLE IF NOT EXISTS effects (task INTEGER, value TEXT, pid INTEGER)");
  db.prepare("INSERT INTO effects VALUES (?, ?, ?)").run(task, value ?? null, process.pid);
  db.close();
}

function fired() {
  const file = path.join(DIR, "effects.db");
  if (!fs.existsSync(file)) return {};
  const db = new Database(file, { readonly: true });
  const counts = {};
  for (const r of db.prepare("SELECT task, count(*) AS n FROM effects GROUP BY task ORDER BY task").all()) counts[r.task] = r.n;
  db.close();
  return counts;
}

function valuesOf(task) {
  const db = new Database(path.join(DIR, "effects.db"), { readonly: true });
  const vs = db.prepare("SELECT value FROM effects WHERE task = ? ORDER BY rowid").all(task).map((r) => r.value);
  db.close();
  return vs;
}

// t1 -> t2 (interrupt) -> ... -> tn; every node fires one effect. killIn:
// the node whose process SIGKILLs itself right after its effect.
function build({ n = 3, invalidIn = null, killIn = null } = {}) {
  const g = new StateGraph(State);
  for (let t = 1; t <= n; t++) {
    g.addNode(`t${t}`, async () => {
      const value = t === 2 ? interrupt("approve?") : null;
      fire(t, value);
      if (killIn === t) process.kill(process.pid, "SIGKILL");
      const update = { last: t === invalidIn ? "invalid" : t };
      if (t === 2) update.approval = value;
      return update;
    });
  }
  g.addEdge(START, "t1");
  for (let t = 1; t < n; t++) g.addEdge(`t${t}`, `t${t + 1}`);
  g.addEdge(`t${n}`, END);
  const saver = new SqliteSaver(new Database(path.join(DIR, "checkpoints.db"), { timeout: 30000 }));
  return g.compile({ checkpointer: saver });
}

async function fd() {
  const g = build();
  await g.invoke({ last: 0 }, CFG);
  const parked = (await g.getState(CFG)).config; // the checkpoint the run parked at
  const first = await g.invoke(new Command({ resume: "va" }), CFG);
  const second = await g.invoke(new Command({ resume: "vb" }), parked); // aimed at the same interrupt
  console.log("first resume va observed approval =", first.approval);
  console.log("second resume vb at the interrupt checkpoint observed approval =", second.approval);
  console.log("values the gated node ran with:", valuesOf(2));
  const tuple = await g.checkpointer.getTuple(parked);
  const resumes = tuple.pendingWrites.filter(([, ch]) => ch === "__resume__").map(([task, , v]) => [task.slice(0, 8), v]);
  console.log("resume writes stored at the interrupt checkpoint (task, value):", JSON.stringify(resumes));
  return second.approval !== "vb";
}

async function cv() {
  const g = build({ invalidIn: 3 });
  await g.invoke({ last: 0 }, CFG);
  let refused = null;
  try {
    await g.invoke(new Command({ resume: "va" }), CFG);
  } catch (e) {
    refused = e;
  }
  const snap = await g.getState(CFG);
  if (refused) console.log("refused:", refused.constructor.name, JSON.stringify(refused.issues?.[0] ?? String(refused)).slice(0, 140));
  else console.log("no error raised");
  console.log("checkpointed last =", JSON.stringify(snap.values.last), "next =", JSON.stringify(snap.next), "effects:", JSON.stringify(fired()));
  return !Number.isInteger(snap.values.last);
}

// Runs a child process of this script and resolves to its exit signal or code.
function child(args) {
  return new Promise((resolve) => {
    const p = fork(SELF, args, { stdio: "inherit" });
    p.on("exit", (code, signal) => resolve(signal ?? code));
  });
}

async function crashChild() {
  const g = build({ n: 4, killIn: 3 });
  await g.invoke({ last: 0 }, CFG);
  await g.invoke(new Command({ resume: "va" }), CFG);
}

async function crash(address) {
  const how = await child(["child-crash"]);
  console.log("the process was killed inside t3, after its effect:", how);
  const g = build({ n: 4 });
  let out;
  if (address === "resume") {
    out = await g.invoke(null, CFG);
  } else {
    out = await g.invoke({ last: 0 }, CFG);
    if ((await g.getState(CFG)).next.length > 0) {
      console.log("re-submitted: parked again at", JSON.stringify((await g.getState(CFG)).next), "after effects", JSON.stringify(fired()));
      out = await g.invoke(new Command({ resume: "va" }), CFG); // the user resumes again
    }
  }
  console.log("recovered through", address, "-> last =", out.last);
  const counts = fired();
  console.log("effects per task:", JSON.stringify(counts));
  return Object.values(counts).some((c) => c > 1);
}

async function raceChild(value) {
  const g = build({ n: 2 });
  process.send("ready");
  await new Promise((resolve) => process.once("message", resolve));
  try {
    await g.invoke(new Command({ resume: value }), CFG);
  } catch (e) {
    console.log("racer", value, "failed:", String(e).slice(0, 120));
  }
  process.disconnect();
}

async function race(k) {
  await build({ n: 2 }).invoke({ last: 0 }, CFG); // parks at t2 (the last node)
  const procs = [];
  const ready = [];
  for (let i = 0; i < k; i++) {
    const p = fork(SELF, ["child-race", i % 2 === 0 ? "va" : "vb"], { stdio: "inherit" });
    procs.push(new Promise((resolve) => p.on("exit", resolve)));
    ready.push(new Promise((resolve) => p.once("message", () => resolve(p))));
  }
  // Every racer has loaded its graph and saver; release them at once.
  for (const p of await Promise.all(ready)) p.send("go");
  await Promise.all(procs);
  const gated = fired()[2] ?? 0;
  console.log(`${k} processes resumed one interrupt: the gated effect fired ${gated} times`);
  return gated > 1;
}

const [what, arg] = process.argv.slice(2);
if (what === "child-crash") {
  await crashChild();
} else if (what === "child-race") {
  await raceChild(arg);
} else {
  let bad;
  if (what === "fd") bad = await fd();
  else if (what === "cv") bad = await cv();
  else if (what === "crash") bad = await crash(arg ?? "resume");
  else if (what === "race") bad = await race(Number(arg ?? 4));
  else {
    console.log("usage: node repro.mjs fd | cv | crash resume | crash resubmit | race K");
    process.exit(2);
  }
  console.log(bad ? "VIOLATION REPRODUCED" : "not reproduced");
  process.exit(bad ? 1 : 0);
}
