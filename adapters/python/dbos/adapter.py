"""Harness adapter for DBOS Transact (Python, the `dbos` package),
docs/harness.md.

The scenario workflow is one @DBOS.workflow() that calls one @DBOS.step()
per task; the state is a dict (DBOS has no schema facility: a TypedDict
documents it and nothing checks it). The gate is DBOS's durable
notification pair: before task IP the workflow publishes
set_event("waiting", True) and blocks in DBOS.recv("approval"); a resume
is DBOS.send(run, value, "approval"). Task bodies pass
"<DBOS.workflow_id>:<DBOS.step_id>" to the effect as its idempotency key,
the key DBOS's documentation tells step authors to use.

The system database is the harness's store: SQLite (sqlite:///path) or
PostgreSQL (the DSN). Persist notes come from wrapping the system
database's write methods on the launched instance: the workflow's status
row, every step's recorded output, events, sends, the consumption of a
message, the workflow's outcome, forks.

Every adapter process of a run is the same application instance (one
executor id per run, "resumecheck-<run>"). DBOS.launch() is DBOS's
recovery: it resumes the executor's pending workflows. The adapter launches lazily, at
the first request that runs a workflow:

  start             launch; start_workflow(run_wf) under SetWorkflowID(run)
  resume            DBOS.send(run, value, "approval"), then wait for the run. A process that
                    did not start the run sends through DBOSClient and waits; if no live process
                    advances the run within RESUME_GRACE seconds, it launches (the restart that
                    recovers the run)
  resume fork       DBOS.fork_workflow(run, <the recv step>) and send the value to the fork
  recover resume    launch (DBOS recovers the pending run) and wait
  recover resubmit  launch and start_workflow(run_wf, input) under SetWorkflowID(run) again
  checkpoint        DBOSClient: the run's status, steps and the "waiting" event
"""

import importlib.metadata
import os
import sys
import threading
import time
from typing import Literal, Optional, TypedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import rcadapter  # noqa: E402
from rcadapter import Refusal  # noqa: E402

from dbos import DBOS, DBOSClient, DBOSConfig, SetWorkflowID  # noqa: E402

RESUME_GRACE = 20.0   # seconds a resume waits for a live owner before launching
WAIT = 110.0          # bound on waiting for a run (the harness's request timeout is 120 s)
RECV_TIMEOUT = 7 * 24 * 3600.0
SCHEMA = "dbos_resumecheck_py"

S = None  # the harness session: task bodies and storage wrappers use it


class RunState(TypedDict):
    input: str
    last: int
    approval: Optional[str]
    outcome: Optional[list[str]]


@DBOS.step()
def task_step(t: int, value: Optional[str], state: dict) -> dict:
    key = "%s:%s" % (DBOS.workflow_id, DBOS.step_id)
    S.task(t, value=value, key=key)
    new = dict(state)
    new["last"] = S.last_field(t)
    if value is not None:
        new["approval"] = value
        new["outcome"] = [value]
    return new


@DBOS.workflow()
def run_wf(inp: dict) -> dict:
    n, gate = inp["tasks"], inp["gate"]
    state = {"input": inp["input"], "last": 0, "approval": None, "outcome": None}
    for t in range(1, n + 1):
        value = None
        if t == gate:
            DBOS.set_event("waiting", True)
            value = DBOS.recv("approval", timeout_seconds=RECV_TIMEOUT)
            DBOS.set_event("waiting", False)
        state = task_step(t, value if t == gate else None, state)
    return state


# The system database's methods that commit a write the workflow relies on.
WRITES = {
    "init_workflow": "init_workflow",
    "record_operation_result": "record_step",
    "set_event_from_workflow": "set_event",
    "recv": "recv",                    # consumes the message and records it, one transaction
    "update_workflow_outcome": "workflow_outcome",
    "send_bulk": "send",
    "fork_workflow": "fork",
}


class InFlight:
    """Counts the wrapped writes between their start and their note's
    ack. A reply waits for zero: a workflow thread that is still noting
    (and so reading its ack from stdin) must be done before the main
    thread reads the next request."""

    def __init__(self):
        self.n = 0
        self.cv = threading.Condition()

    def __enter__(self):
        with self.cv:
            self.n += 1

    def __exit__(self, *exc):
        with self.cv:
            self.n -= 1
            self.cv.notify_all()

    def settle(self, timeout=WAIT):
        with self.cv:
            self.cv.wait_for(lambda: self.n == 0, timeout=timeout)


INFLIGHT = InFlight()


def _note_writes(sysdb):
    """Wrap the launched system database's write methods (on the
    instance) so that each sends a persist note after it returned."""
    for name, op in WRITES.items():
        orig = getattr(sysdb, name, None)
        if orig is None:
            continue

        def wrapped(*a, __orig=orig, __op=op, **k):
            if __op == "recv":
                # recv blocks until a message comes: count only its end.
                r = __orig(*a, **k)
                with INFLIGHT:
                    S.persisted(__op)
                return r
            with INFLIGHT:
                r = __orig(*a, **k)
                task = None
                if __op == "record_step" and a:
                    res = a[0]
                    if isinstance(res, dict) and res.get("function_name", "").endswith("task_step"):
                        task = _task_of_output(sysdb, res)
                S.persisted(__op, task)
            return r
        setattr(sysdb, name, wrapped)


def _task_of_output(sysdb, res):
    try:
        out = sysdb.serializer.deserialize(res["output"]) if res.get("output") else None
        t = out.get("last") if isinstance(out, dict) else None
        return t if isinstance(t, int) else None
    except Exception:
        return None


class Dbos(rcadapter.Subject):
    name = "dbos"
    version = importlib.metadata.version("dbos")
    features = {
        "stores": ["sqlite", "postgres"],
        "fork": True,                # DBOS.fork_workflow(id, start_step): a new workflow, explicitly a fork
        "checkpoint_address": False,
        "idempotency_key": True,     # DBOS.workflow_id + DBOS.step_id, passed to the effect
        "invalid_state": True,
        "resubmit": True,
    }

    def __init__(self):
        self.launched = False
        self.owned = set()   # runs this process started or recovered
        self.client = None
        self.url = None
        self.run = self.url_of_instance = None

    def setup(self, s):
        global S
        S = s
        st = s.store
        if st["kind"] == "sqlite":
            self.url = "sqlite:///" + os.path.abspath(st["path"])
        elif st["kind"] == "postgres":
            dsn = st["dsn"]
            self.url = "postgresql://" + dsn.split("://", 1)[1] if dsn.startswith("postgres://") else dsn
        else:
            raise Refusal("unsupported", "store %r: DBOS needs a database" % st["kind"])
        if DBOS_INSTANCE[0] is not None and (self.run, self.url_of_instance) == (s.run, self.url):
            # The same run again (a parker set up again as a racer): keep
            # the application, and the workflow it runs, as they are.
            return
        if DBOS_INSTANCE[0] is not None:
            DBOS.destroy(destroy_registry=False)
            DBOS_INSTANCE[0] = None
        if self.client is not None:
            self.client.destroy()
        self.launched = False
        self.owned = set()
        # One executor id per run: every process of a run is the same
        # application instance restarted (launch recovers the run), and no
        # run recovers another's workflows in a shared PostgreSQL.
        # Its own system schema in a PostgreSQL shared with other subjects
        # (dbos-transact-golang keeps its tables in "dbos" too): DBOS
        # resolves "the latest application version" over the schema, and a
        # fork is queued for that version.
        cfg: DBOSConfig = {"name": "resumecheck", "system_database_url": self.url,
                           "executor_id": "resumecheck-" + s.run,
                           "dbos_system_schema": SCHEMA,
                           "run_admin_server": False, "enable_otlp": False}
        DBOS_INSTANCE[0] = DBOS(config=cfg)
        self.client = DBOSClient(system_database_url=self.url, dbos_system_schema=SCHEMA)
        self.run, self.url_of_instance = s.run, self.url

    def _launch(self):
        if not self.launched:
            DBOS.launch()
            _note_writes(_sysdb())
            self.launched = True

    def _inp(self, s, input):
        w = s.workflow
        return {"input": input.get("input"), "tasks": w["tasks"], "gate": w["gate"]}

    # -- where a run stands -------------------------------------------------

    def _status(self, wid):
        st = self.client.retrieve_workflow(wid).get_status()
        return st

    def _waiting(self, wid):
        try:
            return self.client.get_event(wid, "waiting", timeout_seconds=0) is True
        except Exception:
            return False

    def _parked(self, wid):
        """Waiting at the gate: the "waiting" event is set and recv has
        recorded its durable timeout (DBOS.sleep), its last write before
        it blocks; the message is not consumed yet (no DBOS.recv step)."""
        if not self._waiting(wid):
            return False
        names = [x["function_name"] for x in self.client.list_workflow_steps(wid, load_output=False)]
        return "DBOS.sleep" in names and "DBOS.recv" not in names

    def _wait(self, wid, until_parked=True, bound=WAIT):
        """Wait until the run completes, fails, or (until_parked) waits at
        the gate. Returns the reply fields, or None at the bound."""
        end = time.monotonic() + bound
        while time.monotonic() < end:
            st = self._status(wid)
            if st.status == "SUCCESS":
                INFLIGHT.settle()
                out = st.output or {}
                return {"status": "completed", "checkpoint": wid, "outcome": out.get("outcome"), "state": out}
            if st.status in ("ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"):
                raise Refusal("failed", "workflow %s: %s %s" % (wid, st.status, st.error), "Workflow" + st.status.title())
            if until_parked and self._parked(wid):
                INFLIGHT.settle()
                return {"status": "parked", "checkpoint": wid}
            time.sleep(0.02)
        return None

    # -- requests -------------------------------------------------------------

    def start(self, s, input):
        self._launch()
        with SetWorkflowID(s.run):
            DBOS.start_workflow(run_wf, self._inp(s, input))
        self.owned.add(s.run)
        return self._wait(s.run) or {"status": "idle", "checkpoint": s.run}

    def resume(self, s, value, intent, checkpoint):
        if checkpoint:
            raise Refusal("unsupported", "a DBOS message goes to a workflow, not a checkpoint (use intent fork)")
        if intent == "fork":
            return self._fork(s, value)
        if self._status_or_none(s.run) is None:
            raise Refusal("refused", "no workflow %r" % s.run, "NoWorkflow")
        if s.run in self.owned:
            DBOS.send(s.run, value, "approval")
            return self._wait(s.run, until_parked=False) or {"status": "idle", "checkpoint": s.run}
        self.client.send(s.run, value, "approval")
        r = self._wait(s.run, until_parked=False, bound=RESUME_GRACE)
        if r is not None:
            return r
        # No live process advanced the run: start the application here,
        # which recovers the executor's pending workflows (DBOS's restart).
        self._launch()
        self.owned.add(s.run)
        return self._wait(s.run, until_parked=False) or {"status": "idle", "checkpoint": s.run}

    def _status_or_none(self, wid):
        try:
            return self._status(wid)
        except Exception:
            return None

    def _fork(self, s, value):
        self._launch()
        steps = DBOS.list_workflow_steps(s.run)
        recv = [x for x in steps if x["function_name"] == "DBOS.recv"]
        if not recv:
            raise Refusal("refused", "the run has not consumed its gate: nothing to fork from", "NotConsumed")
        # The fork runs this application's code: its version, not whatever
        # version registered last.
        h = DBOS.fork_workflow(s.run, recv[0]["function_id"], application_version=DBOS.application_version)
        fid = h.get_workflow_id()
        DBOS.send(fid, value, "approval")
        r = self._wait(fid, until_parked=False) or {"status": "idle"}
        r["checkpoint"] = fid
        return r

    def recover(self, s, address, input):
        self._launch()   # DBOS's recovery: the executor's pending workflows resume
        self.owned.add(s.run)
        if address == "resubmit":
            with SetWorkflowID(s.run):
                DBOS.start_workflow(run_wf, self._inp(s, input))
        return self._wait(s.run) or {"status": "idle", "checkpoint": s.run}

    def checkpoint(self, s):
        st = self._status_or_none(s.run)
        if st is None:
            return {"records": [], "parked": False, "consumed": None, "checkpoint": None, "finished": False,
                    "raw": {"status": None}}
        steps = self.client.list_workflow_steps(s.run)
        records, consumed, names = [], None, []
        for x in steps:
            names.append(x["function_name"])
            if x["function_name"].endswith("task_step") and isinstance(x.get("output"), dict):
                out = x["output"]
                t = out.get("last")
                if t == "invalid":
                    t = s.workflow.get("invalid_task")
                records.append({"task": t, "state": out})
            if x["function_name"] == "DBOS.recv" and consumed is None:
                consumed = x.get("output")
        # Parked: PENDING at the gate, the tasks before it recorded and the
        # gate's not (its recv may have taken a value already).
        at_gate = st.status == "PENDING" and [r["task"] for r in records] == list(range(1, s.workflow["gate"]))
        # Finished: the workflow's status row says SUCCESS.
        return {"records": records, "parked": at_gate,
                "consumed": consumed, "checkpoint": s.run, "finished": st.status == "SUCCESS",
                "raw": {"status": st.status, "executor": st.executor_id, "recovery_attempts": st.recovery_attempts,
                        "steps": names}}


DBOS_INSTANCE = [None]


def _sysdb():
    from dbos._dbos import _get_dbos_instance
    return _get_dbos_instance()._sys_db


if __name__ == "__main__":
    threading.excepthook = lambda a: print("thread failed:", a.exc_type.__name__, a.exc_value, file=sys.stderr)
    rc = rcadapter.serve(Dbos())
    sys.stderr.flush()
    # DBOS's threads (queue, notifications) do not end by themselves.
    os._exit(rc or 0)
