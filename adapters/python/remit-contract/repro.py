"""Minimal reproductions of what the harness measured on REMIT 0.1.2
(remit-contract) over LangGraph 1.2.9's SqliteSaver (docs/conformance.md).
Standalone: REMIT, LangGraph, its SQLite checkpointer and pydantic; no
harness. The saver is wrapped the way REMIT's README shows: a validator
(the state model), cross_process_gate=True (the consume-once claim in the
saver's own database). Each case prints what it observed and exits 1 when
the finding reproduces, 0 when it does not.

    python repro.py cv              # the last node's invalid update is in the writes table before the validity gate refuses put
    python repro.py crash resume    # SIGKILL inside a node after its side effect; invoke(None, cfg) runs it again
    python repro.py crash resubmit  # the same, recovered by re-submitting the input: the gate is consumed twice
    python repro.py stranded        # SIGKILL after REMIT's claim, before the gate's writes: every invoke is refused

The "side effect" is a row in a SQLite table (effects.db), written in
autocommit by the node, like an email sent.
"""

import multiprocessing
import os
import signal
import sqlite3
import sys
import tempfile
import time
from typing import Literal, Optional

import remit
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from pydantic import BaseModel, Field

# A spawned child imports this module again and finds the directory here.
DIR = os.environ.setdefault("REMIT_REPRO_DIR", tempfile.mkdtemp(prefix="remit-repro-"))
CFG = {"configurable": {"thread_id": "t"}}
# REMIT's read-intent flag: reading a parked thread this way takes no claim.
INSPECT = {"configurable": {"thread_id": "t", "remit_inspect": True}}
N = 4  # t1 -> t2 (the gate) -> t3 -> t4
WORK = 0.2  # seconds the killed node works before its effect


class State(BaseModel):
    last: int = Field(default=0, ge=0, le=N)
    approval: Optional[Literal["va", "vb"]] = None


def validate(checkpoint):
    """REMIT's validator: the state model over the checkpoint's values."""
    values = checkpoint.get("channel_values") or {}
    State.model_validate({k: v for k, v in values.items() if k in State.model_fields})


def fire(task, value=None):
    db = sqlite3.connect(os.path.join(DIR, "effects.db"), isolation_level=None, timeout=30)
    db.execute("CREATE TABLE IF NOT EXISTS effects (task INTEGER, value TEXT, pid INTEGER)")
    db.execute("INSERT INTO effects VALUES (?, ?, ?)", (task, value, os.getpid()))
    db.close()


def fired():
    path = os.path.join(DIR, "effects.db")
    if not os.path.exists(path):
        return {}
    db = sqlite3.connect(path)
    counts = dict(db.execute("SELECT task, count(*) FROM effects GROUP BY task ORDER BY task").fetchall())
    db.close()
    return counts


def build(invalid_in=None, kill_in=None, kill_before_effect=False):
    """The linear graph over a REMIT-wrapped SqliteSaver. kill_in: the node
    whose process SIGKILLs itself, after its effect (or, with
    kill_before_effect, right after it got its value)."""
    g = StateGraph(State)

    def make(t):
        def node(state):
            value = interrupt("approve?") if t == 2 else None
            if kill_in == t and kill_before_effect:
                os.kill(os.getpid(), signal.SIGKILL)
            if kill_in == t:
                # The node's own work (a model call, say). LangGraph's default
                # durability writes the previous checkpoint in the background
                # while this node runs; without the pause a kill can come
                # before that write, and REPRO.md says what happens then.
                time.sleep(WORK)
            fire(t, value)
            if kill_in == t:
                os.kill(os.getpid(), signal.SIGKILL)
            update = {"last": "invalid" if t == invalid_in else t}
            if t == 2:
                update["approval"] = value
            return update
        node.__name__ = "t%d" % t
        return node

    for t in range(1, N + 1):
        g.add_node("t%d" % t, make(t))
    g.add_edge(START, "t1")
    for t in range(1, N):
        g.add_edge("t%d" % t, "t%d" % (t + 1))
    g.add_edge("t%d" % N, END)
    conn = sqlite3.connect(os.path.join(DIR, "checkpoints.db"), check_same_thread=False, timeout=30)
    saver = remit.wrap(SqliteSaver, conn, validator=validate, cross_process_gate=True)
    saver.setup()
    return g.compile(checkpointer=saver)


def cv():
    g = build(invalid_in=N)  # the last node, as in the harness's cv scenario
    g.invoke({"last": 0}, CFG)
    try:
        g.invoke(Command(resume="va"), CFG)
        print("the invalid update was accepted without an error")
    except remit.RemitValidityError as e:
        print("REMIT refused the checkpoint:", type(e).__name__, str(e).splitlines()[0][:100])
    # What LangGraph's checkpoint_writes table holds for t3 (put_writes ran before the refused put).
    db = sqlite3.connect(os.path.join(DIR, "checkpoints.db"))
    rows = db.execute("SELECT type, value FROM writes WHERE channel = 'last' ORDER BY rowid").fetchall()
    db.close()
    stored = [g.checkpointer.serde.loads_typed(row) for row in rows]
    print("values of 'last' in the saver's writes table:", stored)
    # Continued, LangGraph applies t4's pending writes instead of running t4 again.
    before = fired().get(N, 0)
    try:
        out = g.invoke(None, CFG)
        print("continued with invoke(None, cfg) -> last =", repr(out.get("last")))
    except remit.RemitValidityError as e:
        print("continued with invoke(None, cfg): refused again:", type(e).__name__)
    snap = g.get_state(INSPECT)
    print("t4 ran again when continued:", fired().get(N, 0) > before, "; the thread's view: last =",
          repr(snap.values.get("last")), "next =", snap.next)
    return "invalid" in stored


def _crash_child(kill_in, before_effect):
    g = build(kill_in=kill_in, kill_before_effect=before_effect)
    g.invoke({"last": 0}, CFG)
    g.invoke(Command(resume="va"), CFG)


def _killed_child(kill_in, before_effect=False):
    p = multiprocessing.get_context("spawn").Process(target=_crash_child, args=(kill_in, before_effect))
    p.start()
    p.join()
    return p.exitcode


def crash(address):
    code = _killed_child(3)
    print("the process was killed inside t3, after its effect: exit", code)
    g = build()
    if address == "resume":
        out = g.invoke(None, CFG)
    else:
        out = g.invoke({"last": 0}, CFG)
        if g.get_state(INSPECT).next:  # parked again at t2: the user resumes again
            parked_at = g.get_state(INSPECT).config["configurable"]["checkpoint_id"]
            print("re-submitted: parked again at t2, checkpoint", parked_at)
            out = g.invoke(Command(resume="va"), CFG)
        print("REMIT's claims (one per interrupt checkpoint consumed):", claims())
    print("recovered through", address, "-> last =", out.get("last"))
    counts = fired()
    print("effects per task:", counts)
    return any(c > 1 for c in counts.values())


def claims():
    """The checkpoint ids of REMIT's consume-once claims (table remit_claims)."""
    db = sqlite3.connect(os.path.join(DIR, "checkpoints.db"))
    ids = [r[0] for r in db.execute("SELECT ckpt FROM remit_claims ORDER BY rowid")]
    db.close()
    return ids


def stranded():
    code = _killed_child(2, before_effect=True)
    print("the process was killed inside t2 after REMIT's claim, before t2's effect and writes: exit", code)
    print("REMIT's claims:", claims(), "; effects so far:", fired())
    refused = 0
    attempts = [("invoke(None, cfg)", None), ("invoke(Command(resume='va'), cfg)", Command(resume="va")),
                ("invoke(input, cfg)", {"last": 0})]
    for name, arg in attempts:
        g = build()  # a fresh process would build the same saver
        try:
            out = g.invoke(arg, CFG)
            print(name, "->", "last =", out.get("last"))
        except remit.RemitConsumeConflict as e:
            refused += 1
            print(name, "-> RemitConsumeConflict:", str(e).splitlines()[0][:110])
    print("liveness: the run cannot complete, %d of %d recoveries refused" % (refused, len(attempts)))
    return refused == len(attempts)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "cv":
        bad = cv()
    elif what == "crash":
        bad = crash(sys.argv[2] if len(sys.argv) > 2 else "resume")
    elif what == "stranded":
        bad = stranded()
    else:
        print(__doc__)
        sys.exit(2)
    print("VIOLATION REPRODUCED" if bad else "not reproduced")
    sys.exit(1 if bad else 0)
