"""Harness adapter for LlamaIndex Workflows (llama-index-workflows),
docs/harness.md. No LLM: the steps are plain Python.

The scenario workflow is one step, `task`, taking StartEvent (task 1) or
Go(t) (task t) and returning Go(t+1) or StopEvent; a step execution is a
task. The state is the workflow's typed state (Context[RunState], a
pydantic model), edited with ctx.store.edit_state(). The gate is the
library's human-in-the-loop primitive: the gated task first awaits
ctx.wait_for_event(HumanResponseEvent, waiter_event=InputRequiredEvent()).

LlamaIndex Workflows has no store of its own: a run is continued from a
serialized Context (ctx.to_dict() / Context.from_dict()), which the user
keeps where they like. The adapter keeps it where the harness says, in a
table of the SQLite store, as a careful user would: a snapshot after
every step that finished (the StepStateChanged 'not_running' events of
the stream, internal events exposed), one when the run goes idle waiting
for the human (WorkflowIdleEvent; the run is then cancelled, as the
library's HITL example does after saving the context), and one at the
end. Each snapshot write is a persistence operation and is noted.

  start             wf.run(input=...)                    (fresh context)
  resume            Context.from_dict(wf, latest); wf.run(ctx=...); ctx.send_event(HumanResponseEvent(response=v))
  recover resume    Context.from_dict(wf, latest); wf.run(ctx=...)
  recover resubmit  Context.from_dict(wf, latest); wf.run(ctx=..., input=...)   (a fresh run when nothing is stored)
  checkpoint        the snapshots table
"""

import asyncio
import importlib.metadata
import json
import os
import sqlite3
import sys
from typing import Literal, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import rcadapter  # noqa: E402
from rcadapter import Refusal  # noqa: E402

from pydantic import Field, create_model  # noqa: E402
from workflows import Context, Workflow, step  # noqa: E402
from workflows.events import (  # noqa: E402
    Event,
    HumanResponseEvent,
    InputRequiredEvent,
    StartEvent,
    StepState,
    StepStateChanged,
    StopEvent,
    WorkflowIdleEvent,
)

SNAPSHOTS = """CREATE TABLE IF NOT EXISTS llamaindex_contexts (
  seq  INTEGER PRIMARY KEY AUTOINCREMENT,
  run  TEXT NOT NULL,
  kind TEXT NOT NULL,      -- step (a step finished), park (idle at the gate), end
  data TEXT NOT NULL       -- Context.to_dict(), JSON
)"""


YIELDS = 20  # event-loop turns a step gives the stream consumer before it runs
QUIET = 3.0  # seconds without an event after which a run with no running step is parked


class Go(Event):
    t: int


def build(s, State):
    """The workflow class for this setup's N, IP and state model."""
    w = s.workflow
    n, gate = w["tasks"], w["gate"]

    async def task(ctx: Context[State], ev: StartEvent | Go) -> Go | StopEvent:
        t = ev.t if isinstance(ev, Go) else 1
        # Yield to the event loop before the task runs, so that the
        # driver, a consumer of the event stream, saves the context of the
        # step that finished before this one starts. (Task bodies block
        # the loop while the harness acks their notes; without the yield
        # the snapshot of step t-1 is taken after step t.)
        for _ in range(YIELDS):
            await asyncio.sleep(0)
        value = None
        if t == gate:
            answer = await ctx.wait_for_event(
                HumanResponseEvent, waiter_event=InputRequiredEvent(prefix="approve task %d" % t), waiter_id="gate")
            value = answer.response
        s.task(t, value=value)
        async with ctx.store.edit_state() as st:
            if t == 1:
                st.input = ev.get("input")
            st.last = s.last_field(t)
            if t == gate:
                st.approval = value
                st.outcome = [value]
        if t == n:
            return StopEvent(result="done")
        return Go(t=t + 1)

    wf = type("ResumeWorkflow", (Workflow,), {})
    # A function built here is not a method of the class: it is attached
    # as a step with step(workflow=...), the library's form for that.
    step(workflow=wf)(task)
    return wf


class LlamaIndexWorkflows(rcadapter.Subject):
    name = "llama-index-workflows"
    version = importlib.metadata.version("llama-index-workflows")
    features = {
        "stores": ["sqlite"],
        "fork": False,               # a restored context takes events; nothing marks one as a fork
        "checkpoint_address": True,  # any stored snapshot can be restored
        "idempotency_key": False,
        "invalid_state": True,
        "resubmit": True,
    }

    def setup(self, s):
        st = s.store
        if st["kind"] != "sqlite":
            raise Refusal("unsupported", "store %r: the adapter keeps the serialized contexts in SQLite" % st["kind"])
        self.s = s
        self.db = st["path"]
        w = s.workflow
        values = tuple(w["values"])
        self.State = create_model(
            "RunState",
            __module__=__name__,
            input=(Optional[str], Field(default=None, pattern=r"^[a-z0-9-]{1,64}$")),
            last=(int, 0),
            approval=(Optional[Literal[values]], None),
            outcome=(Optional[list[Literal[values]]], None),
        )
        # A serialized context names its state class by module and name;
        # from_dict imports it from there.
        globals()["RunState"] = self.State
        self.WF = build(s, self.State)
        with sqlite3.connect(self.db, timeout=30) as c:
            c.execute(SNAPSHOTS)

    # -- the store: serialized contexts ------------------------------------

    def _save(self, kind, data, task=None):
        with sqlite3.connect(self.db, timeout=30) as c:
            c.execute("INSERT INTO llamaindex_contexts (run, kind, data) VALUES (?, ?, ?)",
                      (self.s.run, kind, json.dumps(data, default=str)))
        self.s.persisted("save_context:" + kind, task)

    def _rows(self):
        with sqlite3.connect(self.db, timeout=30) as c:
            return c.execute("SELECT seq, kind, data FROM llamaindex_contexts WHERE run = ? ORDER BY seq", (self.s.run,)).fetchall()

    def _latest(self, seq=None):
        rows = self._rows()
        if seq is not None:
            rows = [r for r in rows if str(r[0]) == str(seq)]
        return (rows[-1][0], json.loads(rows[-1][2])) if rows else (None, None)

    # -- driving ------------------------------------------------------------

    def _wf(self):
        # No timeout: a run waits for its human as long as it takes.
        return self.WF(timeout=None)

    async def _drive(self, wf, handler, send=None):
        """Stream the run, saving the context after every finished step,
        at idle (then cancel: parked) and at the end."""
        if send is not None:
            handler.ctx.send_event(send)
        parked = False
        events = handler.stream_events(expose_internal=True).__aiter__()
        while True:
            try:
                ev = await asyncio.wait_for(events.__anext__(), QUIET)
            except StopAsyncIteration:
                break
            except asyncio.TimeoutError:
                # A context restored while it waited for the human does
                # not go idle again (it already is): no event comes. With
                # no step running it is parked where it was saved.
                if await handler.ctx.running_steps():
                    continue
                parked = True
                await handler.cancel_run()
                break
            if isinstance(ev, StepStateChanged) and ev.step_state == StepState.NOT_RUNNING and ev.output_event_name:
                data = handler.ctx.to_dict()
                self._save("step", data, _last(data))
            elif isinstance(ev, WorkflowIdleEvent):
                self._save("park", handler.ctx.to_dict())
                parked = True
                await handler.cancel_run()
                break
        if parked:
            try:
                await handler
            except Exception:  # the cancellation the run ends with
                pass
            seq, data = self._latest()
            return {"status": "parked", "checkpoint": str(seq), "state": _state_of(data)}
        result = await handler
        data = handler.ctx.to_dict()
        self._save("end", data)
        seq, _ = self._latest()
        st = _state_of(data)
        return {"status": "completed" if isinstance(result, str) or result is not None else "idle",
                "checkpoint": str(seq), "outcome": st.get("outcome"), "state": st}

    def _call(self, coro):
        try:
            return asyncio.run(coro)
        except Refusal:
            raise
        except Exception as e:  # the subject's refusal or failure, as a reply
            raise Refusal(classify(e), str(e)[:2000], type(e).__name__) from e

    def _restored(self, wf, seq=None):
        _, data = self._latest(seq)
        if data is None:
            return None
        return Context.from_dict(wf, data)

    def start(self, s, input):
        async def go():
            wf = self._wf()
            return await self._drive(wf, wf.run(**input))
        return self._call(go())

    def resume(self, s, value, intent, checkpoint):
        if intent == "fork":
            raise Refusal("unsupported", "a LlamaIndex resume (an event sent to a restored context) has no fork intent")

        async def go():
            wf = self._wf()
            ctx = self._restored(wf, checkpoint)
            if ctx is None:
                raise Refusal("refused", "no stored context for run %r%s" % (s.run, " at %s" % checkpoint if checkpoint else ""), "NoContext")
            return await self._drive(wf, wf.run(ctx=ctx), HumanResponseEvent(response=value))
        return self._call(go())

    def recover(self, s, address, input):
        async def go():
            wf = self._wf()
            ctx = self._restored(wf)
            if address == "resubmit":
                if ctx is None:
                    return await self._drive(wf, wf.run(**input))
                return await self._drive(wf, wf.run(ctx=ctx, **input))
            if ctx is None:
                raise Refusal("refused", "no stored context for run %r" % s.run, "NoContext")
            return await self._drive(wf, wf.run(ctx=ctx))
        return self._call(go())

    def checkpoint(self, s):
        rows = self._rows()
        # A snapshot is taken when the stream reports a finished step; the
        # stream lags the run, so a snapshot may already hold later steps,
        # and two may hold the same. A record is a snapshot that advanced
        # `last`.
        records, prev = [], None
        for _, kind, data in rows:
            st = _state_of(json.loads(data))
            t = st.get("last")
            if kind == "park" or t == prev:
                continue
            prev = t
            if t == "invalid":
                t = s.workflow.get("invalid_task")
            records.append({"task": t, "state": st})
        last = json.loads(rows[-1][2]) if rows else {}
        st = _state_of(last) if rows else {}
        return {"records": records, "parked": bool(rows) and rows[-1][1] == "park",
                "consumed": st.get("approval"), "checkpoint": str(rows[-1][0]) if rows else None,
                "raw": {"snapshots": [k for _, k, _ in rows],
                        "is_running": last.get("is_running") if rows else None}}


def _state_of(data):
    """The typed state inside a serialized context."""
    if not data:
        return {}
    st = data.get("state") or {}
    # The state store serializes its model under state_data (serializer-encoded).
    sd = st.get("state_data", st)
    if isinstance(sd, dict) and "_data" in sd:
        sd = sd["_data"]
    if isinstance(sd, str):
        try:
            sd = json.loads(sd)
        except ValueError:
            return {}
    if isinstance(sd, dict) and "value" in sd and isinstance(sd["value"], (str, dict)):
        v = sd["value"]
        sd = json.loads(v) if isinstance(v, str) else v
    return {k: sd.get(k) for k in ("input", "last", "approval", "outcome")} if isinstance(sd, dict) else {}


def _last(data):
    t = _state_of(data).get("last")
    return t if isinstance(t, int) else None


def classify(e):
    for cls in type(e).__mro__:
        if cls.__name__ == "ValidationError":
            return "invalid_state"
    return "failed"


if __name__ == "__main__":
    sys.exit(rcadapter.serve(LlamaIndexWorkflows()))
