"""Harness adapter for CrewAI Flows (docs/harness.md); no LLM anywhere.

The scenario workflow as a Flow: t1 is @start(), every other task
@listen()s to the one before it. The gate is CrewAI's human-in-the-loop:
a method `ask` (listening to t{IP-1}) carries @human_feedback with an
asynchronous provider that raises HumanFeedbackPending, so kickoff()
returns the pending signal and the flow is parked in the store; t{IP}
listens to `ask` and takes the human's answer from
self.last_human_feedback. No `emit` and llm=None: the feedback is passed
through as it is, nothing is asked of a model.

Both of CrewAI's durable state systems are on, in the harness's SQLite
file and beside it:
- @persist(SQLiteFlowPersistence) on the class: the state after every
  method (table flow_states) and the pending feedback (pending_feedback);
- checkpointing (CheckpointConfig, its default JsonProvider: a folder of
  JSON files beside the store) on every method_execution_finished event.
Their write methods are wrapped (at class level) to send a persist note
after each returned.

  start             Flow(...).kickoff(inputs={"id": run, "input": ...})
  resume            Flow.from_pending(run, persistence).resume(value)
  recover resume    Flow(...).kickoff(from_checkpoint=CheckpointConfig(restore_from=<latest checkpoint>))
  recover resubmit  Flow(...).kickoff(inputs={"id": run, "input": ...})   (the @persist restore by state id)
  checkpoint        @persist's flow_states and pending_feedback tables, and the latest checkpoint file
"""

import importlib.metadata
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Literal, Optional

# No telemetry or tracing: nothing leaves the machine.
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_DISABLE_TRACKING", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_DISABLE_VERSION_CHECK", "true")  # no PyPI lookup mid-run
os.environ.setdefault("CREWAI_TESTING", "true")  # no first-run tracing prompt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import rcadapter  # noqa: E402
from rcadapter import Refusal  # noqa: E402

from pydantic import Field, ValidationError, create_model  # noqa: E402

from crewai.flow import human_feedback  # noqa: E402
from crewai.flow.async_feedback import HumanFeedbackPending  # noqa: E402
from crewai.flow.flow import Flow, FlowState, listen, start  # noqa: E402
from crewai.flow.persistence import persist  # noqa: E402
from crewai.flow.persistence.sqlite import SQLiteFlowPersistence  # noqa: E402
from crewai.state.checkpoint_config import CheckpointConfig  # noqa: E402
from crewai.state.provider.json_provider import JsonProvider  # noqa: E402

SESSION = None  # the harness session, for the storage wrappers


def _wrap(cls, name, op, task_of=None):
    """Wrap cls.name so that a persist note follows every call that
    returned (sync and async methods alike)."""
    orig = getattr(cls, name)
    import inspect

    if inspect.iscoroutinefunction(orig):
        async def wrapped(self, *a, **k):
            r = await orig(self, *a, **k)
            if SESSION is not None:
                SESSION.persisted(op, task_of(a, k) if task_of else None)
            return r
    else:
        def wrapped(self, *a, **k):
            r = orig(self, *a, **k)
            if SESSION is not None:
                SESSION.persisted(op, task_of(a, k) if task_of else None)
            return r
    wrapped.__name__ = name
    setattr(cls, name, wrapped)


def _method_task(a, k):
    m = k.get("method_name", a[1] if len(a) > 1 else "")
    return int(m[1:]) if isinstance(m, str) and m[1:].isdigit() and m[:1] == "t" else None


_wrap(SQLiteFlowPersistence, "save_state", "save_state", _method_task)
_wrap(SQLiteFlowPersistence, "save_pending_feedback", "save_pending_feedback")
_wrap(SQLiteFlowPersistence, "clear_pending_feedback", "clear_pending_feedback")
_wrap(JsonProvider, "checkpoint", "checkpoint")
_wrap(JsonProvider, "acheckpoint", "checkpoint")


class Pending:
    """An asynchronous feedback provider: the human answers later, through
    Flow.from_pending(...).resume(value)."""

    def request_feedback(self, context, flow):
        raise HumanFeedbackPending(context=context)


CHECKPOINT_EVENTS = ["method_execution_finished"]


class CrewAI(rcadapter.Subject):
    name = "crewai"
    version = importlib.metadata.version("crewai")
    features = {
        "stores": ["sqlite"],
        "fork": True,                # Flow.fork(checkpoint) from the parked checkpoint, then the fork's own feedback
        "checkpoint_address": False,
        "idempotency_key": False,
        "invalid_state": True,
        "resubmit": True,            # kickoff(inputs={"id": ...}) restores the @persist state of that id
    }

    def setup(self, s):
        global SESSION
        SESSION = s
        st = s.store
        if st["kind"] != "sqlite":
            raise Refusal("unsupported", "store %r: the adapter runs CrewAI's SQLite persistence and checkpoints" % st["kind"])
        self.db = st["path"]
        # CheckpointConfig's default provider, JsonProvider: a folder of
        # JSON files. (SqliteProvider needs SQLite's jsonb(), 3.45+.)
        self.ckpt_dir = os.path.join(os.path.dirname(os.path.abspath(self.db)), "crewai-checkpoints-" + s.run)
        w = s.workflow
        n, gate, values = w["tasks"], w["gate"], tuple(w["values"])
        self.State = create_model(
            "RunState",
            __base__=FlowState,
            input=(str, Field(default="", pattern=r"^$|^[a-z0-9-]{1,64}$")),
            last=(int, 0),
            approval=(Optional[Literal[values]], None),
            outcome=(Optional[list[Literal[values]]], None),
        )
        self.persistence = SQLiteFlowPersistence(self.db)
        # The state model as the Flow's type parameter (Flow[State]): an
        # `initial_state` class would not serialize into a checkpoint.
        # No auto-created Memory: the flow never recalls, and its
        # LanceDB store would be a second, shared, unrelated store.
        ns = {"__module__": __name__, "_skip_auto_memory": True}

        def task(t):
            def body(self, *args):
                value = None
                if t == gate:
                    value = self.last_human_feedback.feedback
                s.task(t, value=value)
                self.state.last = s.last_field(t)
                if t == gate:
                    self.state.approval = value
                    self.state.outcome = [value]
                return t
            body.__name__ = "t%d" % t
            if t == 1:
                return start()(body)
            return listen("ask" if t == gate else "t%d" % (t - 1))(body)

        for t in range(1, n + 1):
            ns["t%d" % t] = task(t)

        def ask(self, *args):
            return {"approve": "task %d" % gate}

        ns["ask"] = listen("t%d" % (gate - 1))(
            human_feedback(message="approve task %d" % gate, llm=None, provider=Pending())(ask))
        self.Flow = persist(self.persistence)(type("ResumeFlow", (Flow[self.State],), ns))

    def _cfg(self, restore_from=None):
        return CheckpointConfig(location=self.ckpt_dir, provider=JsonProvider(), on_events=CHECKPOINT_EVENTS,
                                restore_from=restore_from)

    def _checkpoints(self):
        """The run's checkpoint files, oldest first."""
        files = [p for p in Path(self.ckpt_dir).rglob("*.json") if p.is_file()] if os.path.isdir(self.ckpt_dir) else []
        return sorted(files, key=lambda p: p.stat().st_mtime_ns)

    def _latest_checkpoint(self):
        files = self._checkpoints()
        return str(files[-1]) if files else None

    def _status(self, flow, result):
        st = flow.state.model_dump() if hasattr(flow.state, "model_dump") else dict(flow.state)
        r = {"checkpoint": self._latest_checkpoint(), "state": {k: st.get(k) for k in ("input", "last", "approval", "outcome")}}
        if isinstance(result, HumanFeedbackPending):
            r["status"] = "parked"
        elif st.get("last") == SESSION.workflow["tasks"] or (st.get("last") == "invalid" and SESSION.workflow.get("invalid_task") == SESSION.workflow["tasks"]):
            r["status"] = "completed"
            r["outcome"] = st.get("outcome")
        else:
            r["status"] = "idle"
        return r

    def _run(self, fn):
        try:
            return fn()
        except Refusal:
            raise
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # the subject's refusal or failure, as a reply
            # BaseException too: a checkpoint written by the event bus while
            # the flow mutates its state can fail with pyo3's PanicException
            # ("dictionary changed size during iteration"), which is not an
            # Exception, and kickoff re-raises it.
            raise Refusal(classify(e), str(e)[:2000], type(e).__name__) from e

    def start(self, s, input):
        def go():
            flow = self.Flow(checkpoint=self._cfg())
            return self._status(flow, flow.kickoff(inputs={"id": s.run, **input}))
        return self._run(go)

    def _park_checkpoint(self):
        """The checkpoint the run was parked at: the latest checkpoint
        file whose flow had not finished `ask` (the feedback method), or
        None."""
        park = None
        for p in self._checkpoints():
            try:
                with open(p) as f:
                    doc = json.load(f)
            except (OSError, ValueError):
                continue
            for e in doc.get("entities") or ():
                if e.get("entity_type") == "flow" and "ask" not in (e.get("checkpoint_completed_methods") or ()):
                    park = str(p)
        return park

    def _fork(self, s, value):
        """CrewAI's fork: Flow.fork restores the parked checkpoint into a
        new flow (a new state id, on a branch of the checkpoint lineage);
        its kickoff runs the feedback method again, which parks the fork;
        the fork's own feedback is then the value. Its checkpoints go to a
        folder of their own, so the run's checkpoint report (the latest
        file of the run's folder) stays the main line's."""
        loc = self._park_checkpoint()
        if loc is None:
            raise Refusal("refused", "no checkpoint of the parked run to fork from", "NoCheckpoint")
        fork_cfg = CheckpointConfig(location=self.ckpt_dir + "-" + s.branch, provider=JsonProvider(),
                                    on_events=CHECKPOINT_EVENTS, restore_from=loc)
        flow = self.Flow.fork(fork_cfg, branch=s.branch)
        parked = flow.kickoff()
        if not isinstance(parked, HumanFeedbackPending):
            return self._status(flow, parked)
        fork_id = flow.state.id
        fork_cfg = CheckpointConfig(location=self.ckpt_dir + "-" + s.branch, provider=JsonProvider(), on_events=CHECKPOINT_EVENTS)
        f2 = self.Flow.from_pending(fork_id, self.persistence, checkpoint=fork_cfg)
        return self._status(f2, f2.resume(value))

    def resume(self, s, value, intent, checkpoint):
        if intent == "fork":
            if checkpoint:
                raise Refusal("unsupported", "Flow.fork forks the parked checkpoint; the adapter takes no other")
            return self._run(lambda: self._fork(s, value))
        if checkpoint:
            raise Refusal("unsupported", "Flow.from_pending takes a flow id, not a checkpoint")

        def go():
            try:
                flow = self.Flow.from_pending(s.run, self.persistence, checkpoint=self._cfg())
            except ValueError as e:
                raise Refusal("refused", str(e), type(e).__name__) from e
            return self._status(flow, flow.resume(value))
        return self._run(go)

    def recover(self, s, address, input):
        def go():
            flow = self.Flow(checkpoint=self._cfg())
            if address == "resubmit":
                return self._status(flow, flow.kickoff(inputs={"id": s.run, **input}))
            loc = self._latest_checkpoint()
            if loc is None:
                raise Refusal("refused", "no checkpoint in %s" % self.db, "NoCheckpoint")
            result = flow.kickoff(from_checkpoint=self._cfg(restore_from=loc))
            # kickoff ran on a restored instance; the state is read back
            # from @persist's latest row for the reply.
            return self._status_from_store(result)
        return self._run(go)

    def _status_from_store(self, result):
        st = self.persistence.load_state(SESSION.run) or {}
        r = {"checkpoint": self._latest_checkpoint(), "state": {k: st.get(k) for k in ("input", "last", "approval", "outcome")}}
        w = SESSION.workflow
        if isinstance(result, HumanFeedbackPending):
            r["status"] = "parked"
        elif st.get("last") == w["tasks"] or (st.get("last") == "invalid" and w.get("invalid_task") == w["tasks"]):
            r["status"], r["outcome"] = "completed", st.get("outcome")
        else:
            r["status"] = "idle"
        return r

    def _checkpoint_view(self):
        """What a recovery through from_checkpoint reads: the latest
        checkpoint file's completed methods and the human feedback it
        holds (the flow entity's last_human_feedback, kept once `ask` has
        finished), or None when there is no checkpoint file."""
        loc = self._latest_checkpoint()
        if loc is None:
            return None
        try:
            with open(loc) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return None
        for e in doc.get("entities") or ():
            if e.get("entity_type") != "flow":
                continue
            done = sorted(e.get("checkpoint_completed_methods") or ())
            fb = e.get("last_human_feedback") or {}
            feedback = fb.get("feedback") if "ask" in done and fb.get("method_name") == "ask" else None
            return {"file": os.path.basename(loc), "completed": done, "feedback": feedback}
        return None

    def checkpoint(self, s):
        """Both durable stores. The records are @persist's rows (the state
        after every task, as stored: what CV judges). A recovery through
        from_checkpoint (the resume address) reads the latest checkpoint
        file instead, written asynchronously by the event bus after the
        method finished: it can hold the feedback `ask` took while @persist
        does not (the pending feedback is cleared and t{IP} has not saved
        its state yet). So `consumed` is the feedback either store holds:
        the approval of a @persist state, else the latest checkpoint's."""
        with sqlite3.connect(self.db) as c:
            rows = c.execute("SELECT method_name, state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id", (s.run,)).fetchall()
            pend = c.execute("SELECT context_json FROM pending_feedback WHERE flow_uuid = ?", (s.run,)).fetchone()
        ckpts = len(self._checkpoints())
        view = self._checkpoint_view()
        records, consumed = [], None
        for method, sj in rows:
            state = json.loads(sj)
            if method[:1] == "t" and method[1:].isdigit():
                records.append({"task": int(method[1:]),
                                "state": {k: state.get(k) for k in ("input", "last", "approval", "outcome")}})
            if state.get("approval") is not None and consumed is None:
                consumed = state.get("approval")
        if consumed is None and view is not None:
            consumed = view["feedback"]
        # Parked: standing at the gate until the gate's task is recorded:
        # the feedback is pending, or was taken (pending cleared, `ask`
        # saved again) and t{IP} has not saved its state yet. (A checkpoint
        # file may hold the taken feedback meanwhile: parked and consumed,
        # as LangGraph's resume value beside its interrupt.)
        gate = "t%d" % s.workflow["gate"]
        methods = [m for m, _ in rows]
        at_gate = "ask" in methods and gate not in methods[max(i for i, m in enumerate(methods) if m == "ask"):]
        return {"records": records, "parked": pend is not None or at_gate, "consumed": consumed,
                "checkpoint": self._latest_checkpoint(),
                "raw": {"flow_states": [m for m, _ in rows], "pending_feedback": pend is not None, "checkpoints": ckpts,
                        "latest_checkpoint": view}}

def classify(e):
    for cls in type(e).__mro__:
        if cls.__name__ == "ValidationError":
            return "invalid_state"
    if isinstance(e, ValueError) and "Invalid inputs for structured state" in str(e):
        return "invalid_state"
    return "failed"


if __name__ == "__main__":
    sys.exit(rcadapter.serve(CrewAI()))
