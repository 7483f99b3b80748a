"""Minimal reproductions of the resume-contract violations the harness
measured on LangGraph (docs/conformance.md). Standalone: LangGraph and its
SQLite checkpointer, no harness. Each prints what it observed and exits 1
when the violation reproduces, 0 when it does not.

    python repro.py fd              # a second resume value at the interrupt checkpoint is never consulted
    python repro.py cv              # a node's schema-invalid update is checkpointed without an error
    python repro.py crash resume    # SIGKILL inside a node after its side effect; invoke(None, cfg) runs it again
    python repro.py crash resubmit  # the same, recovered by re-submitting the input: completed work runs again
    python repro.py race K          # K processes resume one interrupt: the gated side effect fires K times

The "side effect" is a row in a SQLite table (effects.db), written in
autocommit by the node, like an email sent.
"""

import multiprocessing
import os
import signal
import sqlite3
import sys
import tempfile
from typing import Literal, Optional

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from pydantic import BaseModel

# Spawned processes import this module again: they find the directory in
# the environment the parent set.
DIR = os.environ.setdefault("LG_REPRO_DIR", tempfile.mkdtemp(prefix="lg-repro-"))
CFG = {"configurable": {"thread_id": "t"}}


class State(BaseModel):
    last: int = 0
    approval: Optional[Literal["va", "vb"]] = None


def effect(task, value=None):
    db = sqlite3.connect(os.path.join(DIR, "effects.db"), isolation_level=None, timeout=30)
    db.execute("CREATE TABLE IF NOT EXISTS effects (task INTEGER, value TEXT, pid INTEGER)")
    db.execute("INSERT INTO effects VALUES (?, ?, ?)", (task, value, os.getpid()))
    db.close()


def effects():
    db = sqlite3.connect(os.path.join(DIR, "effects.db"))
    rows = db.execute("SELECT task, count(*) FROM effects GROUP BY task ORDER BY task").fetchall()
    db.close()
    return dict(rows)


def graph(n=3, invalid_last=False, kill_in=None):
    """t1 -> t2 (interrupt) -> ... -> tn; every node fires one effect."""
    g = StateGraph(State)

    def node(t):
        def run(state):
            value = interrupt("approve?") if t == 2 else None
            effect(t, value)
            if kill_in == t:
                os.kill(os.getpid(), signal.SIGKILL)  # the process dies after the effect
            upd = {"last": "invalid" if (invalid_last and t == n) else t}
            if t == 2:
                upd["approval"] = value
            return upd
        return run

    for t in range(1, n + 1):
        g.add_node("t%d" % t, node(t))
    g.add_edge(START, "t1")
    for t in range(1, n):
        g.add_edge("t%d" % t, "t%d" % (t + 1))
    g.add_edge("t%d" % n, END)
    conn = sqlite3.connect(os.path.join(DIR, "checkpoints.db"), check_same_thread=False, timeout=30)
    return g.compile(checkpointer=SqliteSaver(conn))


def fd():
    g = graph()
    g.invoke({"last": 0}, CFG)
    interrupt_ckpt = g.get_state(CFG).config  # the checkpoint the run parked at
    first = g.invoke(Command(resume="va"), CFG)
    second = g.invoke(Command(resume="vb"), interrupt_ckpt)  # aimed at the same interrupt
    print("first resume va observed approval =", first["approval"])
    print("second resume vb at the interrupt checkpoint observed approval =", second["approval"])
    # What the checkpointer holds for the interrupt checkpoint: both values.
    tup = g.checkpointer.get_tuple(interrupt_ckpt)
    print("resume values stored at the interrupt checkpoint:",
          [v for _, ch, v in tup.pending_writes if ch == "__resume__"])
    return second["approval"] != "vb"


def cv():
    g = graph(invalid_last=True)
    g.invoke({"last": 0}, CFG)
    try:
        g.invoke(Command(resume="va"), CFG)
    except Exception as e:  # noqa: BLE001
        print("refused:", type(e).__name__, e)
        return False
    stored = g.checkpointer.get_tuple(CFG).checkpoint["channel_values"]["last"]
    print("checkpointed last =", repr(stored), "(the schema says int); no error raised")
    return not isinstance(stored, int)


def _crash_child():
    g = graph(n=4, kill_in=3)
    g.invoke({"last": 0}, CFG)
    g.invoke(Command(resume="va"), CFG)


def crash(address):
    p = multiprocessing.get_context("spawn").Process(target=_crash_child)
    p.start()
    p.join()
    print("the process was killed inside t3, after its effect: exit", p.exitcode)
    g = graph(n=4)
    if address == "resume":
        out = g.invoke(None, CFG)
    else:
        out = g.invoke({"last": 0}, CFG)
        if g.get_state(CFG).next:  # parked again at t2: the user resumes again
            out = g.invoke(Command(resume="va"), CFG)
    print("recovered through", address, "-> last =", out.get("last"))
    counts = effects()
    print("effects per task:", counts)
    return any(c > 1 for c in counts.values())


def _racer(value, barrier):
    g = graph(n=2)
    barrier.wait()
    g.invoke(Command(resume=value), CFG)


def race(k):
    graph(n=2).invoke({"last": 0}, CFG)  # parks at t2 (the last node)
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(k)
    ps = [ctx.Process(target=_racer, args=("va" if i % 2 == 0 else "vb", barrier)) for i in range(k)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    gated = effects().get(2, 0)
    print("%d processes resumed one interrupt: the gated effect fired %d times" % (k, gated))
    return gated > 1


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "fd":
        bad = fd()
    elif what == "cv":
        bad = cv()
    elif what == "crash":
        bad = crash(sys.argv[2] if len(sys.argv) > 2 else "resume")
    elif what == "race":
        bad = race(int(sys.argv[2]) if len(sys.argv) > 2 else 4)
    else:
        print(__doc__)
        sys.exit(2)
    print("VIOLATION REPRODUCED" if bad else "not reproduced")
    sys.exit(1 if bad else 0)
