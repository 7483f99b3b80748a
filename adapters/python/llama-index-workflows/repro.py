"""Minimal reproductions of the resume-contract violations the harness
measured on LlamaIndex Workflows 2.22.2 (docs/conformance.md). Standalone:
llama-index-workflows and sqlite3, no harness, no LLM. Each case prints
what it observed and exits 1 when the violation reproduces, 0 when not.

    python repro.py stray     # the documented resume on a completed run's context: task 1 runs again
    python repro.py crash     # SIGKILL inside t3 after its effect; the restored context runs t3 again
    python repro.py cv        # the last step sets an int field of the typed state to a str: stored, no error
    python repro.py race K    # K processes restore the parked context and each send a HumanResponseEvent

One step, `task`, takes StartEvent (task 1) or Go(t) and returns Go(t+1)
or StopEvent; task 2 first awaits ctx.wait_for_event(HumanResponseEvent).
The library has no store: as its human-in-the-loop example does, the
driver saves ctx.to_dict() (here in contexts.db) after every finished
step, when the run goes idle waiting for the human (then cancels the run),
and at the end; a resume is Context.from_dict(wf, latest), wf.run(ctx=...),
ctx.send_event(HumanResponseEvent(...)). The "side effect" of each task is
a row in a SQLite table (effects.db), written in autocommit.
"""

import asyncio
import json
import multiprocessing
import os
import signal
import sqlite3
import sys
import tempfile
from typing import Optional

from pydantic import BaseModel
from workflows import Context, Workflow, step
from workflows.events import (Event, HumanResponseEvent, InputRequiredEvent, StartEvent, StepState,
                              StepStateChanged, StopEvent, WorkflowIdleEvent)

DIR = os.environ.setdefault("LI_REPRO_DIR", tempfile.mkdtemp(prefix="llamaindex-repro-"))
N = int(os.environ.get("LI_REPRO_N", "4"))
KILL_IN = None        # SIGKILL the process inside this task, after its effect
INVALID_LAST = False  # the last task stores last = "invalid"


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


def save(kind, data):
    db = sqlite3.connect(os.path.join(DIR, "contexts.db"), isolation_level=None, timeout=30)
    db.execute("CREATE TABLE IF NOT EXISTS contexts (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, data TEXT)")
    db.execute("INSERT INTO contexts (kind, data) VALUES (?, ?)", (kind, json.dumps(data, default=str)))
    db.close()


def latest():
    db = sqlite3.connect(os.path.join(DIR, "contexts.db"), timeout=30)
    row = db.execute("SELECT kind, data FROM contexts ORDER BY seq DESC LIMIT 1").fetchone()
    db.close()
    return row[0], json.loads(row[1])


class State(BaseModel):
    last: int = 0
    approval: Optional[str] = None


class Go(Event):
    t: int


class Repro(Workflow):
    @step
    async def task(self, ctx: Context[State], ev: StartEvent | Go) -> Go | StopEvent:
        t = ev.t if isinstance(ev, Go) else 1
        # Let the driver (a consumer of the event stream) save the context
        # of the step before this one first.
        for _ in range(20):
            await asyncio.sleep(0)
        value = None
        if t == 2:
            answer = await ctx.wait_for_event(HumanResponseEvent, waiter_event=InputRequiredEvent(prefix="approve?"),
                                              waiter_id="gate")
            value = answer.response
        effect(t, value)
        if KILL_IN == t:
            os.kill(os.getpid(), signal.SIGKILL)  # the process dies after the effect
        async with ctx.store.edit_state() as st:
            st.last = "invalid" if (INVALID_LAST and t == N) else t
            if t == 2:
                st.approval = value
        return StopEvent(result="done") if t == N else Go(t=t + 1)


async def drive(handler, send=None):
    """Run to the end, or to idle at the gate (saved, then cancelled)."""
    if send is not None:
        handler.ctx.send_event(send)
    events = handler.stream_events(expose_internal=True).__aiter__()
    while True:
        try:
            ev = await asyncio.wait_for(events.__anext__(), 3.0)
        except StopAsyncIteration:
            break
        except asyncio.TimeoutError:  # a restored waiting context does not go idle again
            if await handler.ctx.running_steps():
                continue
            ev = WorkflowIdleEvent()
        if isinstance(ev, StepStateChanged) and ev.step_state == StepState.NOT_RUNNING and ev.output_event_name:
            save("step", handler.ctx.to_dict())
        elif isinstance(ev, WorkflowIdleEvent):
            save("park", handler.ctx.to_dict())
            await handler.cancel_run()
            try:
                await handler
            except BaseException:  # noqa: BLE001  the cancellation
                pass
            return "parked"
    await handler
    save("end", handler.ctx.to_dict())
    return "completed"


async def start():
    return await drive(Repro(timeout=None).run())


async def resume(value, data=None):
    wf = Repro(timeout=None)
    ctx = Context.from_dict(wf, data if data is not None else latest()[1])
    return await drive(wf.run(ctx=ctx), HumanResponseEvent(response=value))


def stored_state():
    """The typed state inside the latest saved context, as stored."""
    sd = latest()[1]["state"]["state_data"]
    if isinstance(sd, dict) and "_data" in sd:
        sd = sd["_data"]
    if isinstance(sd, str):
        sd = json.loads(sd)
    if isinstance(sd, dict) and isinstance(sd.get("value"), (str, dict)):
        sd = json.loads(sd["value"]) if isinstance(sd["value"], str) else sd["value"]
    return sd


def stray():
    print("start ->", asyncio.run(start()))
    print('resume "va" ->', asyncio.run(resume("va")), "; effects:", effects())
    print('stray resume "vb" on the completed run\'s context ->', asyncio.run(resume("vb")))
    counts = effects()
    print("effects per task:", counts)
    return any(c > 1 for c in counts.values())


def _crash_child():
    global KILL_IN
    KILL_IN = 3
    asyncio.run(start())
    asyncio.run(resume("va"))  # dies inside t3


def crash():
    p = multiprocessing.get_context("spawn").Process(target=_crash_child)
    p.start()
    p.join()
    print("the process was killed inside t3, after its effect: exit", p.exitcode)

    async def recover():
        wf = Repro(timeout=None)
        kind, data = latest()
        print("restoring the latest saved context (%s, last = %s)" % (kind, stored_state().get("last")))
        return await drive(wf.run(ctx=Context.from_dict(wf, data)))
    print("Context.from_dict + wf.run(ctx=...) ->", asyncio.run(recover()))
    counts = effects()
    print("effects per task:", counts)
    return any(c > 1 for c in counts.values())


def cv():
    global INVALID_LAST
    INVALID_LAST = True
    asyncio.run(start())
    try:
        status = asyncio.run(resume("va"))
    except Exception as e:  # noqa: BLE001
        print("refused:", type(e).__name__, e)
        return False
    stored = stored_state().get("last")
    print("run %s; the saved context's state stores last = %r (the schema says int); no error raised" % (status, stored))
    return not isinstance(stored, int)


def _racer(value, barrier):
    # Each racer reads the parked context first (as k request handlers
    # would, each loading the run on a human's answer), then they go at once.
    data = latest()[1]
    barrier.wait()
    try:
        asyncio.run(resume(value, data))
    except Exception as e:  # noqa: BLE001
        print("racer %d: %s: %s" % (os.getpid(), type(e).__name__, e), flush=True)


def race(k):
    print("start ->", asyncio.run(start()))
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(k)
    ps = [ctx.Process(target=_racer, args=("va" if i % 2 == 0 else "vb", barrier)) for i in range(k)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    print("effects per task:", effects())
    gated = effects().get(2, 0)
    print("%d processes resumed one parked context: the gated task 2 fired %d times" % (k, gated))
    return gated > 1


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "stray":
        bad = stray()
    elif what == "crash":
        bad = crash()
    elif what == "cv":
        bad = cv()
    elif what == "race":
        bad = race(int(sys.argv[2]) if len(sys.argv) > 2 else 4)
    else:
        print(__doc__)
        sys.exit(2)
    print("VIOLATION REPRODUCED" if bad else "not reproduced")
    sys.exit(1 if bad else 0)
