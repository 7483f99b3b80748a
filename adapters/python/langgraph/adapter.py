"""Harness adapter for LangGraph (Python), with its SQLite and Postgres
checkpointers. docs/harness.md is the protocol; rcadapter does its part.

The workflow is a linear StateGraph t1 -> ... -> tN whose gated node calls
interrupt() first, with a pydantic state model (LangGraph's strongest
state schema). The checkpointer is subclassed so that every put and
put_writes sends a persist note after it returned. Everything else is
LangGraph's documented API, used with its defaults:

  start                 graph.invoke(input, cfg)
  resume                graph.invoke(Command(resume=v), cfg)       (cfg may name a checkpoint_id)
  recover  resume       graph.invoke(None, cfg)
  recover  resubmit     graph.invoke(input, cfg)
  checkpoint            graph.get_state(cfg) and its parents
"""

import importlib.metadata
import os
import re
import sqlite3
import sys
from typing import Literal, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import rcadapter  # noqa: E402
from rcadapter import Refusal  # noqa: E402

import lgrecords  # noqa: E402

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402
from pydantic import Field, create_model  # noqa: E402


def noting(base, session):
    """A subclass of the checkpointer class base that notes every
    persistence operation after it returned."""

    def task_of(task_path):
        m = re.search(r"\bt(\d+)\b", str(task_path))
        return int(m.group(1)) if m else None

    class Noting(base):
        def put(self, config, checkpoint, metadata, new_versions):
            r = super().put(config, checkpoint, metadata, new_versions)
            session.persisted("put")
            return r

        def put_writes(self, config, writes, task_id, task_path=""):
            r = super().put_writes(config, writes, task_id, task_path)
            session.persisted("put_writes", task_of(task_path))
            return r

    Noting.__name__ = "Noting" + base.__name__
    return Noting


class LangGraph(rcadapter.Subject):
    name = "langgraph"
    version = importlib.metadata.version("langgraph")
    features = {
        "stores": ["sqlite", "postgres", "memory"],
        "fork": False,               # Command(resume=...) has no fork intent
        "checkpoint_address": True,  # a resume can name a checkpoint_id
        "idempotency_key": False,
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
            last=(int, 0),
            approval=(Optional[Literal[values]], None),
            outcome=(Optional[list[Literal[values]]], None),
        )
        g = StateGraph(State)
        for t in range(1, n + 1):
            g.add_node("t%d" % t, self._node(s, t, gate))
        g.add_edge(START, "t1")
        for t in range(1, n):
            g.add_edge("t%d" % t, "t%d" % (t + 1))
        g.add_edge("t%d" % n, END)
        st = s.store
        if st["kind"] == "sqlite":
            from langgraph.checkpoint.sqlite import SqliteSaver
            self.conn = sqlite3.connect(st["path"], check_same_thread=False, timeout=30)
            saver = noting(SqliteSaver, s)(self.conn)
        elif st["kind"] == "postgres":
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg import Connection
            from psycopg.rows import dict_row
            # The connection settings LangGraph's documentation gives.
            self.conn = Connection.connect(st["dsn"], autocommit=True, prepare_threshold=0, row_factory=dict_row)
            saver = noting(PostgresSaver, s)(self.conn)
        elif st["kind"] == "memory":
            from langgraph.checkpoint.memory import InMemorySaver
            self.conn = None
            saver = noting(InMemorySaver, s)()
        else:
            raise Refusal("unsupported", "store %r" % st["kind"])
        if st["kind"] != "memory":
            saver.setup()  # creates the checkpointer's tables (idempotent)
        self.graph = g.compile(checkpointer=saver)
        self.cfg = {"configurable": {"thread_id": s.run}}

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
        snap = self.graph.get_state(self.cfg)
        parked = any(task.interrupts for task in snap.tasks)
        r = {"checkpoint": snap.config["configurable"].get("checkpoint_id")}
        if parked:
            r["status"] = "parked"
        elif not snap.next:
            r["status"] = "completed"
        else:
            r["status"] = "idle"
        if isinstance(result, dict):
            r["outcome"] = result.get("outcome")
            r["state"] = {k: v for k, v in result.items() if not k.startswith("__")}
        return r

    def _invoke(self, arg, cfg=None):
        try:
            return self._status(self.graph.invoke(arg, cfg or self.cfg))
        except Exception as e:  # the subject's refusal or failure, as a reply
            raise Refusal(rcadapter.classify(e), str(e)[:2000], type(e).__name__) from e

    def start(self, s, input):
        return self._invoke(dict(input))

    def resume(self, s, value, intent, checkpoint):
        if intent == "fork":
            raise Refusal("unsupported", "LangGraph's resume (Command(resume=...)) has no fork intent")
        cfg = self.cfg
        if checkpoint:
            cfg = {"configurable": {"thread_id": s.run, "checkpoint_id": checkpoint}}
        return self._invoke(Command(resume=value), cfg)

    def recover(self, s, address, input):
        if address == "resubmit":
            return self._invoke(dict(input))
        return self._invoke(None)

    def checkpoint(self, s):
        """The durable state, read from the checkpointer itself (not from
        get_state, which applies pending writes): the main lineage from
        the latest checkpoint back through its parents. Its records are
        what a recovery would not run again (lgrecords): the tasks of every
        step a later checkpoint folded in, and the tasks whose writes are
        pending on the latest checkpoint."""
        saver = self.graph.checkpointer
        n = s.workflow["tasks"]
        chain = []
        tup = saver.get_tuple(self.cfg)
        while tup is not None and len(chain) < 1000:
            chain.append(tup)
            tup = saver.get_tuple(tup.parent_config) if tup.parent_config else None
        chain.reverse()
        records = lgrecords.records(chain, n)
        parked, consumed = False, None
        if chain:
            cur = chain[-1]
            by_task = {}
            for task_id, channel, value in cur.pending_writes or ():
                by_task.setdefault(task_id, {})[channel] = value
            for chans in by_task.values():
                if "__interrupt__" in chans and "last" not in chans:
                    parked = True
                if "__resume__" in chans:
                    v = chans["__resume__"]
                    consumed = v[0] if isinstance(v, list) and v else v
            if consumed is None:
                consumed = cur.checkpoint["channel_values"].get("approval")
        # Finished: the thread has a checkpoint, and LangGraph's own view of
        # it has no task at all: none to run, none interrupted, and none
        # whose writes are pending (get_state leaves a task with pending
        # writes out of `next`, so `next` alone calls a run finished whose
        # latest checkpoint only has the next node's writes beside it).
        finished = False
        if chain:
            snap = self.graph.get_state(self.cfg)
            finished = not snap.next and not snap.tasks
        return {
            "records": records,
            "parked": parked and not any(r["task"] == s.workflow["gate"] for r in records[-1:]),
            "consumed": consumed,
            "checkpoint": chain[-1].config["configurable"].get("checkpoint_id") if chain else None,
            "finished": finished,
            "raw": {"lineage": len(chain),
                    "pending_writes": sum(len(t.pending_writes or ()) for t in chain),
                    "steps": [t.metadata.get("step") for t in chain]},
        }


if __name__ == "__main__":
    sys.exit(rcadapter.serve(LangGraph()))
