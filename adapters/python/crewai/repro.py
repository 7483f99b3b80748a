"""Minimal reproductions of the resume-contract violations the harness
measured on CrewAI 1.15.2 Flows (docs/conformance.md). Standalone: CrewAI
and sqlite3, no harness, no LLM, no network. Each case prints what it
observed and exits 1 when the violation reproduces, 0 when it does not.

    python repro.py crash checkpoint  # SIGKILL inside t3; kickoff(from_checkpoint=...) runs the completed @start t1 again
    python repro.py crash persist     # the same kill; kickoff(inputs={"id": run}) (@persist restore) runs every method again
    python repro.py cv                # t4 sets an int field of the state to a str: @persist stores it, no error
    python repro.py race K            # K processes resume one pending feedback: the gated method runs K times

The flow: t1 (@start) -> ask (@human_feedback, llm=None, an asynchronous
provider: kickoff returns HumanFeedbackPending and the flow is parked in
the store) -> t2 (reads self.last_human_feedback: the gated task) -> t3 ->
t4. Both of CrewAI's durable state systems are on: @persist with
SQLiteFlowPersistence (flows.db) and checkpointing (CheckpointConfig, its
default JsonProvider, a folder of JSON files, on method_execution_finished).
Memory is off (_skip_auto_memory). The "side effect" of each task is a row
in a SQLite table (effects.db), written in autocommit, like an email sent.
"""

import multiprocessing
import os
import signal
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Optional

# Nothing leaves the machine: no telemetry, no tracing, no version check
# against PyPI (the console's "Update Available" panel), and no first-run
# tracing prompt (CREWAI_TESTING is read only by the tracing code).
for _k, _v in (("CREWAI_DISABLE_TELEMETRY", "true"), ("CREWAI_DISABLE_TRACKING", "true"),
               ("CREWAI_TRACING_ENABLED", "false"), ("OTEL_SDK_DISABLED", "true"),
               ("CREWAI_DISABLE_VERSION_CHECK", "true"), ("CREWAI_TESTING", "true")):
    os.environ.setdefault(_k, _v)

from crewai.flow import human_feedback  # noqa: E402
from crewai.flow.async_feedback import HumanFeedbackPending  # noqa: E402
from crewai.flow.flow import Flow, FlowState, listen, start  # noqa: E402
from crewai.flow.persistence import persist  # noqa: E402
from crewai.flow.persistence.sqlite import SQLiteFlowPersistence  # noqa: E402
from crewai.state.checkpoint_config import CheckpointConfig  # noqa: E402
from crewai.state.provider.json_provider import JsonProvider  # noqa: E402
from crewai.events.event_listener import event_listener  # noqa: E402
from rich.console import Console  # noqa: E402

# No console panels per method: the output is the reproduction's own lines.
# (suppress_flow_events would also stop the checkpoints, which are written
# on method_execution_finished events.)
event_listener.formatter.console = Console(file=open(os.devnull, "w"))

# Spawned processes import this module again: they find the directory in
# the environment the parent set.
DIR = os.environ.setdefault("CR_REPRO_DIR", tempfile.mkdtemp(prefix="crewai-repro-"))
CKPT = os.path.join(DIR, "checkpoints")
RUN = "repro-run"
PERSISTENCE = SQLiteFlowPersistence(os.path.join(DIR, "flows.db"))
KILL_IN = None         # SIGKILL the process inside this task, after its effect
INVALID_LAST = False   # t4 stores last = "invalid"


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


class State(FlowState):
    last: int = 0
    approval: Optional[str] = None


class Pending:
    """The human answers later, through Flow.from_pending(...).resume(value)."""

    def request_feedback(self, context, flow):
        raise HumanFeedbackPending(context=context)


def run_task(flow, t, value=None):
    effect(t, value)
    if KILL_IN == t:
        os.kill(os.getpid(), signal.SIGKILL)  # the process dies after the effect
    flow.state.last = "invalid" if (INVALID_LAST and t == 4) else t
    if t == 2:
        flow.state.approval = value
    return t


@persist(PERSISTENCE)
class ReproFlow(Flow[State]):
    _skip_auto_memory = True  # no LanceDB memory store: the flow never recalls

    @start()
    def t1(self):
        return run_task(self, 1)

    @listen("t1")
    @human_feedback(message="approve task 2", llm=None, provider=Pending())
    def ask(self, *args):
        return "approve task 2"

    @listen("ask")
    def t2(self, *args):
        return run_task(self, 2, self.last_human_feedback.feedback)

    @listen("t2")
    def t3(self, *args):
        return run_task(self, 3)

    @listen("t3")
    def t4(self, *args):
        return run_task(self, 4)


def cfg(restore_from=None):
    return CheckpointConfig(location=CKPT, provider=JsonProvider(), on_events=["method_execution_finished"],
                            restore_from=restore_from)


def latest_checkpoint():
    files = sorted((p for p in Path(CKPT).rglob("*.json") if p.is_file()), key=lambda p: p.stat().st_mtime_ns) \
        if os.path.isdir(CKPT) else []
    return str(files[-1]) if files else None


def kickoff():
    """Start the run; it parks at the feedback."""
    return ReproFlow(checkpoint=cfg()).kickoff(inputs={"id": RUN})


def resume(value):
    return ReproFlow.from_pending(RUN, PERSISTENCE, checkpoint=cfg()).resume(value)


def describe(result):
    return "parked (HumanFeedbackPending)" if isinstance(result, HumanFeedbackPending) else "returned %r" % (result,)


def _crash_child():
    global KILL_IN
    KILL_IN = 3
    kickoff()
    resume("va")  # dies inside t3


def crash(address):
    p = multiprocessing.get_context("spawn").Process(target=_crash_child)
    p.start()
    p.join()
    print("the process was killed inside t3, after its effect: exit", p.exitcode)
    print("@persist rows:", [m for (m,) in sqlite3.connect(PERSISTENCE.db_path).execute(
        "SELECT method_name FROM flow_states WHERE flow_uuid = ? ORDER BY id", (RUN,))])
    if address == "checkpoint":
        loc = latest_checkpoint()
        print("restoring the latest checkpoint:", os.path.relpath(loc, DIR) if loc else None)
        if loc is None:
            return False
        r = ReproFlow(checkpoint=cfg()).kickoff(from_checkpoint=cfg(restore_from=loc))
        print("kickoff(from_checkpoint=...) ->", describe(r))
    else:
        r = kickoff()
        print('kickoff(inputs={"id": run}) ->', describe(r))
        if isinstance(r, HumanFeedbackPending):  # parked again: the user answers again
            print('from_pending(run).resume("va") ->', describe(resume("va")))
    counts = effects()
    print("effects per task:", counts)
    return any(c > 1 for c in counts.values())


def cv():
    global INVALID_LAST
    INVALID_LAST = True
    kickoff()
    try:
        r = resume("va")
    except Exception as e:  # noqa: BLE001
        print("refused:", type(e).__name__, e)
        return False
    print('resume("va") ->', describe(r))
    stored = PERSISTENCE.load_state(RUN)["last"]
    print("@persist's latest state for the run stores last =", repr(stored), "(the schema says int); no error raised")
    return not isinstance(stored, int)


def _racer(value, barrier):
    barrier.wait()
    try:
        r = resume(value)
        print("racer %d (%s): %s" % (os.getpid(), value, describe(r)), flush=True)
    except Exception as e:  # noqa: BLE001
        print("racer %d (%s): %s: %s" % (os.getpid(), value, type(e).__name__, e), flush=True)


def race(k):
    print("kickoff ->", describe(kickoff()))
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(k)  # released when every racer has imported CrewAI
    ps = [ctx.Process(target=_racer, args=("va" if i % 2 == 0 else "vb", barrier)) for i in range(k)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    gated = effects().get(2, 0)
    print("%d processes resumed one pending feedback: the gated method t2 ran %d times" % (k, gated))
    return gated > 1


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    try:
        if what == "crash":
            bad = crash(sys.argv[2] if len(sys.argv) > 2 else "checkpoint")
        elif what == "cv":
            bad = cv()
        elif what == "race":
            bad = race(int(sys.argv[2]) if len(sys.argv) > 2 else 4)
        else:
            print(__doc__)
            sys.exit(2)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001
        # A checkpoint written by the event bus's threads while the flow
        # mutates its state can fail with pyo3's PanicException (not an
        # Exception), which kickoff re-raises: the case could not run.
        print("could not run the case: %s: %s" % (type(e).__name__, str(e)[:200]))
        sys.exit(3)
    print("VIOLATION REPRODUCED" if bad else "not reproduced")
    sys.exit(1 if bad else 0)
