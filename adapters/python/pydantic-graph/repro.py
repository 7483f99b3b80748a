"""Minimal reproductions of what the harness measured on pydantic-graph
1.107.10 with FileStatePersistence (docs/conformance.md). Standalone:
pydantic-graph (and the pydantic it depends on), no harness. Each case
prints what it observed and exits 1 when the finding reproduces, 0 when
it does not.

    python repro.py crash resubmit  # SIGKILL inside t3; graph.iter(Task(1), state=input) on the same file runs every task again
    python repro.py crash resume    # the same kill; iter_from_persistence cannot continue (liveness, not safety)
    python repro.py cv              # the last node sets an int field to a str: the snapshot file stores it, no error

The workflow is Task(1) -> AwaitApproval -> Task(2) -> Task(3) -> Task(4).
AwaitApproval is the park point of the library's human-in-the-loop
example: the driver stops before it, and a resume takes the snapshot with
persistence.load_next() and continues with Task(2, value=<the human's
answer>) and that snapshot's state. The "side effect" of each task is a
row in a SQLite table (effects.db), written in autocommit, like an email
sent.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import sqlite3
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pydantic

# 1.107 deprecates the BaseNode Graph for 2.x's builder API; it is the 1.x
# API this reproduces, so the import warning is left out of the output.
warnings.filterwarnings("ignore", message="Importing `Graph` from `pydantic_graph` is deprecated")
from pydantic_graph import BaseNode, End, Graph, GraphRunContext
from pydantic_graph.persistence.file import FileStatePersistence

# Spawned processes import this module again: they find the directory in
# the environment the parent set.
DIR = os.environ.setdefault("PG_REPRO_DIR", tempfile.mkdtemp(prefix="pg-repro-"))
FILE = Path(DIR) / "run.json"
N = 4


class State(pydantic.BaseModel):
    input: str
    last: int = 0
    approval: Optional[str] = None


@dataclass
class Deps:
    kill_in: Optional[int] = None  # SIGKILL the process inside this task, after its effect
    invalid_last: bool = False     # the last task stores last = "invalid"


def effect(task, value=None):
    db = sqlite3.connect(os.path.join(DIR, "effects.db"), isolation_level=None, timeout=30)
    db.execute("CREATE TABLE IF NOT EXISTS effects (task INTEGER, value TEXT, pid INTEGER)")
    db.execute("INSERT INTO effects VALUES (?, ?, ?)", (task, value, os.getpid()))
    db.close()


def effects():
    db = sqlite3.connect(os.path.join(DIR, "effects.db"))
    db.execute("CREATE TABLE IF NOT EXISTS effects (task INTEGER, value TEXT, pid INTEGER)")
    rows = db.execute("SELECT task, count(*) FROM effects GROUP BY task ORDER BY task").fetchall()
    db.close()
    return dict(rows)


@dataclass
class Task(BaseNode[State, Deps, dict]):
    t: int
    value: Optional[str] = None

    async def run(self, ctx: GraphRunContext[State, Deps]) -> Task | AwaitApproval | End[dict]:
        effect(self.t, self.value)
        if ctx.deps.kill_in == self.t:
            os.kill(os.getpid(), signal.SIGKILL)  # the process dies after the effect
        ctx.state.last = "invalid" if (ctx.deps.invalid_last and self.t == N) else self.t
        if self.t == 2:
            ctx.state.approval = self.value
        if self.t == N:
            return End(ctx.state.model_dump())
        if self.t == 1:
            return AwaitApproval()
        return Task(self.t + 1)


@dataclass
class AwaitApproval(BaseNode[State, Deps, dict]):
    """Never run: the driver stops before it."""

    async def run(self, ctx: GraphRunContext[State, Deps]) -> Task:
        raise RuntimeError("needs a human's answer")


GRAPH = Graph(nodes=[Task, AwaitApproval], state_type=State, run_end_type=dict, auto_instrument=False)


def persistence():
    p = FileStatePersistence(FILE)
    p.set_graph_types(GRAPH)
    return p


async def drive(run):
    """Step the run to the approval point or the end."""
    node = run.next_node
    while not isinstance(node, (AwaitApproval, End)):
        node = await run.next(node)
    return "parked" if isinstance(node, AwaitApproval) else "completed"


async def submit(deps):
    async with GRAPH.iter(Task(1), state=State(input="x"), deps=deps, persistence=persistence()) as run:
        return await drive(run)


async def resume(value, deps):
    p = persistence()
    snap = await p.load_next()  # the approval point, now 'pending'
    if snap is None or not isinstance(snap.node, AwaitApproval):
        return "nothing to resume"
    async with GRAPH.iter(Task(2, value=value), state=snap.state, deps=deps, persistence=p) as run:
        return await drive(run)


def snapshots():
    return ["%s%s %s" % (x["node"]["node_id"] if x["kind"] == "node" else "End",
                         "(%s)" % x["node"]["t"] if x["kind"] == "node" and "t" in x["node"] else "",
                         x.get("status", "-"))
            for x in json.loads(FILE.read_bytes())]


def _crash_child():
    deps = Deps(kill_in=3)
    asyncio.run(submit(deps))          # parks before AwaitApproval
    asyncio.run(resume("va", deps))    # dies inside Task(3)


def crash(address):
    p = multiprocessing.get_context("spawn").Process(target=_crash_child)
    p.start()
    p.join()
    print("the process was killed inside Task(3), after its effect: exit", p.exitcode)
    print("snapshots:", ", ".join(snapshots()))
    deps = Deps()
    if address == "resume":
        try:
            async def cont():
                async with GRAPH.iter_from_persistence(persistence(), deps=deps) as run:
                    return await drive(run)
            status = asyncio.run(cont())
        except Exception as e:  # noqa: BLE001
            print("iter_from_persistence raised %s: %s" % (type(e).__name__, e))
            print("effects per task:", effects())
            return "stuck"
        print("recovered through iter_from_persistence ->", status)
        print("effects per task:", effects())
        return False
    status = asyncio.run(submit(deps))
    print("re-submitted graph.iter(Task(1), state=input) on the same file ->", status)
    if status == "parked":  # at the approval point again: the user answers again
        status = asyncio.run(resume("va", deps))
        print("resumed again with va ->", status)
    counts = effects()
    print("effects per task:", counts)
    return any(c > 1 for c in counts.values())


def cv():
    deps = Deps(invalid_last=True)
    asyncio.run(submit(deps))
    try:
        status = asyncio.run(resume("va", deps))
    except Exception as e:  # noqa: BLE001
        print("refused:", type(e).__name__, e)
        return False
    end = json.loads(FILE.read_bytes())[-1]
    print("run %s; the end snapshot stores last =" % status, repr(end["state"]["last"]), "(the schema says int); no error raised")
    try:
        asyncio.run(persistence().load_all())
        print("reading the file back: accepted")
    except pydantic.ValidationError as e:
        print("reading the file back through the persistence: ValidationError (%d error)" % e.error_count())
    return not isinstance(end["state"]["last"], int)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "crash":
        bad = crash(sys.argv[2] if len(sys.argv) > 2 else "resubmit")
    elif what == "cv":
        bad = cv()
    else:
        print(__doc__)
        sys.exit(2)
    if bad == "stuck":
        print("LIVENESS FINDING REPRODUCED: the run cannot continue (docs/resume-contract.md, real frameworks; no safety obligation is violated)")
    else:
        print("VIOLATION REPRODUCED" if bad else "not reproduced")
    sys.exit(1 if bad else 0)
