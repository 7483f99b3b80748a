"""Harness adapter for REMIT (the remit-contract package), the paper's
reference enforcement of the resume contract, docs/harness.md.

REMIT ships a Rust core and `remit.wrap`, a checkpointer veneer for
LangGraph; it has no workflow engine of its own. So the subject is
LangGraph 1.2.9 (REMIT's tested pin) with its SQLite or Postgres saver
wrapped by REMIT, configured the way REMIT's README describes for the
properties the harness measures:

- validator: the state model's validation of the checkpoint's values, so
  an invalid state is refused (RemitValidityError) before it is persisted;
- cross_process_gate=True: the consume-once claim in the saver's own
  database (table remit_claims), so one racer is served and the others get
  RemitConsumeConflict before any node runs;
- fork intent: the `remit_fork` flag with the interrupt checkpoint's id (an
  explicit checkpoint_id is fork intent under REMIT's default policy too);
- inspection reads (get_state for replies, the checkpoint report) carry
  `remit_inspect`, so that reading a parked thread does not take its claim.

The workflow is LangGraph's: a linear StateGraph t1..tN with a pydantic
state model, the gated node calling interrupt() first. The wrapped saver
is subclassed once more so that put, put_writes and REMIT's claim send a
persist note after they returned.

  start             graph.invoke(input, cfg)
  resume            graph.invoke(Command(resume=v), cfg)
  resume fork       graph.invoke(Command(resume=v), cfg + checkpoint_id=<interrupt checkpoint>, remit_fork=True)
  recover resume    graph.invoke(None, cfg)
  recover resubmit  graph.invoke(input, cfg)
  checkpoint        the saver's tuples (inspection reads), oldest first
"""

import importlib.metadata
import os
import re
import sqlite3
import sys
from typing import Literal, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
# The LangGraph adapter's reading of a lineage's records: the subject here
# is LangGraph too, and its records are what its recovery would not redo.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "langgraph"))

import rcadapter  # noqa: E402
from rcadapter import Refusal  # noqa: E402

import lgrecords  # noqa: E402

import remit  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402
from pydantic import Field, ValidationError, create_model  # noqa: E402

FIELDS = ("input", "last", "approval", "outcome")


def _task_of(path):
    m = re.search(r"\bt(\d+)\b", str(path))
    return int(m.group(1)) if m else None


def noting_saver(base, session):
    """REMIT's wrapped subclass of the saver class base, with a persist
    note after every write: LangGraph's put and put_writes (reached
    through REMIT's gates) and REMIT's own claim insert."""

    class Noting(base):
        def put(self, config, checkpoint, metadata, new_versions):
            r = super().put(config, checkpoint, metadata, new_versions)
            session.persisted("put")
            return r

        def put_writes(self, config, writes, task_id, task_path=""):
            r = super().put_writes(config, writes, task_id, task_path)
            session.persisted("put_writes", _task_of(task_path))
            return r

    Noting.__name__ = "Noting" + base.__name__

    class Claiming(remit.saver_class(Noting)):
        def _remit_take_claim(self, thread, ckpt):
            held = (str(thread), str(ckpt)) in self._remit_claims_held
            won = super()._remit_take_claim(thread, ckpt)
            if not held:  # an INSERT was attempted
                session.persisted("claim" if won else "claim_refused")
            return won

    return Claiming


class Remit(rcadapter.Subject):
    name = "remit-contract"
    version = importlib.metadata.version("remit-contract")
    features = {
        "stores": ["sqlite", "postgres"],
        "fork": True,                # the remit_fork flag (and an explicit checkpoint_id)
        "checkpoint_address": True,
        "idempotency_key": False,    # Core.begin_effect's admission ledger is in memory, per process
        "invalid_state": True,
        "resubmit": True,
    }

    def __init__(self):
        self.conn = None
        self.graph = None

    def setup(self, s):
        if self.conn is not None:
            self.conn.close()
        w = s.workflow
        n, gate, values = w["tasks"], w["gate"], tuple(w["values"])
        State = create_model(
            "State",
            input=(str, Field(pattern=r"^[a-z0-9-]{1,64}$")),
            last=(int, Field(default=0, ge=0, le=n)),
            approval=(Optional[Literal[values]], None),
            outcome=(Optional[list[Literal[values]]], Field(default=None, min_length=1, max_length=1)),
        )
        self.State = State

        def validate(checkpoint):
            vals = {k: v for k, v in (checkpoint.get("channel_values") or {}).items() if k in FIELDS}
            if "input" in vals:  # before the input is written there is nothing to check
                State.model_validate(vals)

        g = StateGraph(State)
        for t in range(1, n + 1):
            g.add_node("t%d" % t, self._node(s, t, gate))
        g.add_edge(START, "t1")
        for t in range(1, n):
            g.add_edge("t%d" % t, "t%d" % (t + 1))
        g.add_edge("t%d" % n, END)
        st = s.store
        opts = dict(remit_validator=validate, remit_cross_process_gate=True)
        if st["kind"] == "sqlite":
            from langgraph.checkpoint.sqlite import SqliteSaver
            self.conn = sqlite3.connect(st["path"], check_same_thread=False, timeout=30)
            saver = noting_saver(SqliteSaver, s)(self.conn, **opts)
        elif st["kind"] == "postgres":
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg import Connection
            from psycopg.rows import dict_row
            # LangGraph's documented connection settings; REMIT's gate
            # requires autocommit.
            self.conn = Connection.connect(st["dsn"], autocommit=True, prepare_threshold=0, row_factory=dict_row)
            saver = noting_saver(PostgresSaver, s)(self.conn, **opts)
        else:
            raise Refusal("unsupported", "store %r" % st["kind"])
        saver.setup()
        self.saver = saver
        self.graph = g.compile(checkpointer=saver)
        self.cfg = {"configurable": {"thread_id": s.run}}
        self.inspect = {"configurable": {"thread_id": s.run, "remit_inspect": True}}

    def _node(self, s, t, gate):
        def node(state):
            value = None
            if t == gate:
                value = interrupt({"task": t, "ask": "approve"})
            s.task(t, value=value)
            upd = {"last": s.last_field(t)}
            if t == gate:
                upd["approval"] = value
                upd["outcome"] = [value]
            return upd
        node.__name__ = "t%d" % t
        return node

    def _status(self, result):
        snap = self.graph.get_state(self.inspect)
        r = {"checkpoint": snap.config["configurable"].get("checkpoint_id")}
        if any(task.interrupts for task in snap.tasks):
            r["status"] = "parked"
        elif not snap.next:
            r["status"] = "completed"
        else:
            r["status"] = "idle"
        if isinstance(result, dict):
            r["outcome"] = result.get("outcome")
            r["state"] = {k: v for k, v in result.items() if k in FIELDS}
        return r

    def _invoke(self, arg, cfg=None):
        try:
            return self._status(self.graph.invoke(arg, cfg or self.cfg))
        except Exception as e:  # the subject's refusal or failure, as a reply
            raise Refusal(classify(e), str(e)[:2000], type(e).__name__) from e

    def _interrupt_checkpoint(self):
        """The id of the checkpoint the run parked at: the oldest one
        holding an __interrupt__ write."""
        parked = None
        for tup in self.saver.list(self.cfg):   # newest first
            if any(w[1] == "__interrupt__" for w in tup.pending_writes or ()):
                parked = tup.config["configurable"]["checkpoint_id"]
        return parked

    def start(self, s, input):
        return self._invoke(dict(input))

    def resume(self, s, value, intent, checkpoint):
        cfg = self.cfg
        if intent == "fork":
            ckpt = checkpoint or self._interrupt_checkpoint()
            if ckpt is None:
                raise Refusal("refused", "no interrupt checkpoint to fork from", "NoInterrupt")
            cfg = {"configurable": {"thread_id": s.run, "checkpoint_id": ckpt, "remit_fork": True}}
        elif checkpoint:
            cfg = {"configurable": {"thread_id": s.run, "checkpoint_id": checkpoint}}
        return self._invoke(Command(resume=value), cfg)

    def recover(self, s, address, input):
        if address == "resubmit":
            return self._invoke(dict(input))
        return self._invoke(None)

    def checkpoint(self, s):
        """The main lineage from the latest checkpoint back (inspection
        reads). Its records are what LangGraph's recovery would not run
        again (lgrecords, shared with the LangGraph adapter): the tasks of
        every step a later checkpoint folded in, and the tasks whose writes
        are pending on the latest checkpoint."""
        chain = []
        tup = self.saver.get_tuple(self.inspect)
        while tup is not None and len(chain) < 1000:
            chain.append(tup)
            parent = tup.parent_config
            if not parent:
                break
            pc = {"configurable": dict(parent["configurable"], remit_inspect=True)}
            tup = self.saver.get_tuple(pc)
        chain.reverse()
        records = lgrecords.records(chain, s.workflow["tasks"])
        parked, consumed = False, None
        if chain:
            by_task = {}
            for task_id, channel, value in chain[-1].pending_writes or ():
                by_task.setdefault(task_id, {})[channel] = value
            for chans in by_task.values():
                if "__interrupt__" in chans and "last" not in chans:
                    parked = True
                if "__resume__" in chans:
                    v = chans["__resume__"]
                    consumed = v[0] if isinstance(v, list) and v else v
            if consumed is None:
                consumed = chain[-1].checkpoint["channel_values"].get("approval")
        claims = None
        try:
            if isinstance(self.conn, sqlite3.Connection):
                claims = self.conn.execute("SELECT count(*) FROM remit_claims WHERE thread = ?", (s.run,)).fetchone()[0]
            else:
                claims = self.conn.execute("SELECT count(*) AS c FROM remit_claims WHERE thread = %s", (s.run,)).fetchone()["c"]
        except Exception:
            claims = None
        # Finished: the thread has a checkpoint, and LangGraph's view of it
        # (an inspection read: it takes no claim) has no task at all: none
        # to run, none interrupted, none whose writes are pending (get_state
        # leaves those out of `next`).
        finished = False
        if chain:
            snap = self.graph.get_state(self.inspect)
            finished = not snap.next and not snap.tasks
        return {
            "records": records,
            "parked": parked and not any(r["task"] == s.workflow["gate"] for r in records[-1:]),
            "consumed": consumed,
            "checkpoint": chain[-1].config["configurable"].get("checkpoint_id") if chain else None,
            "finished": finished,
            "raw": {"lineage": len(chain), "claims": claims,
                    "pending_writes": sum(len(t.pending_writes or ()) for t in chain)},
        }


def classify(e):
    if isinstance(e, remit.RemitConsumeConflict):
        return "conflict"
    if isinstance(e, remit.RemitValidityError) or isinstance(e, ValidationError):
        return "invalid_state"
    for cls in type(e).__mro__:
        if cls.__name__ in ("ValidationError", "InvalidUpdateError"):
            return "invalid_state"
    return "failed"


if __name__ == "__main__":
    sys.exit(rcadapter.serve(Remit()))
