"""Harness adapter for pydantic-graph (docs/harness.md).

The scenario workflow as a pydantic-graph graph, driven the way the
library's own human-in-the-loop example drives one:

- Task(t) is one node per task; the run is stepped with GraphRun.next().
- The gate: task IP-1 returns AwaitApproval(), a node that is never run.
  The driver stops there (the run is parked: its snapshot is persisted
  with status 'created'). A resume loads it with persistence.load_next()
  and continues with Task(IP, value=v) and the snapshot's state, which is
  how the example hands a human's answer to the next node.
- Persistence is FileStatePersistence, the library's durable persistence
  (it has no SQL one): one JSON file per run, beside the path the harness
  gives as the sqlite store. A subclass sends a persist note after every
  method that wrote the file.
- State: a pydantic model with the scenario's constraints, the facility a
  pydantic-graph user reaches for. It is not validated on assignment
  (pydantic's default), so an invalid task's state reaches the file.

Recovery addresses: `resume` is Graph.iter_from_persistence (continue from
the next 'created' snapshot); `resubmit` is Graph.iter(Task(1)) with the
input, on the same persistence file.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import rcadapter  # noqa: E402
from rcadapter import Refusal  # noqa: E402

import pydantic  # noqa: E402
from pydantic_graph import BaseNode, End, Graph, GraphRunContext  # noqa: E402
from pydantic_graph.exceptions import GraphNodeStatusError, GraphRuntimeError  # noqa: E402
from pydantic_graph.persistence.file import FileStatePersistence  # noqa: E402


class Driver:
    """What the nodes need at run time (the graph's deps): the harness
    session (notes, ledger, the request's branch)."""

    def __init__(self) -> None:
        self.s: Any = None


@dataclass
class Task(BaseNode[Any, Driver, dict]):
    t: int
    value: Optional[str] = None

    async def run(self, ctx: GraphRunContext[Any, Driver]) -> Task | AwaitApproval | End[dict]:
        s = ctx.deps.s
        w = s.workflow
        value = self.value if self.t == w["gate"] else None
        s.task(self.t, value=value)
        ctx.state.last = s.last_field(self.t)
        if self.t == w["gate"]:
            ctx.state.approval = value
            ctx.state.outcome = [value]
        if self.t == w["tasks"]:
            return End(ctx.state.model_dump())
        if self.t + 1 == w["gate"]:
            return AwaitApproval()
        return Task(self.t + 1)


@dataclass
class AwaitApproval(BaseNode[Any, Driver, dict]):
    """The park point: the run stops before this node and never runs it."""

    async def run(self, ctx: GraphRunContext[Any, Driver]) -> Task:
        raise GraphRuntimeError("AwaitApproval needs a human's value: resume the run with one")


def state_model(w: dict) -> type[pydantic.BaseModel]:
    vals = tuple(w["values"])
    V = Literal[vals]  # type: ignore[valid-type]
    return pydantic.create_model(
        "RunState",
        input=(Annotated[str, pydantic.StringConstraints(pattern=r"^[a-z0-9-]{1,64}$")], ...),
        last=(Annotated[int, pydantic.Field(ge=0, le=w["tasks"])], 0),
        approval=(Optional[V], None),
        outcome=(Optional[Annotated[list[V], pydantic.Field(min_length=1, max_length=1)]], None),
    )


class NotingPersistence(FileStatePersistence):
    """FileStatePersistence with a persist note after every write."""

    session: Any = None

    def _task_of(self, node: Any) -> int | None:
        return getattr(node, "t", None) if isinstance(node, Task) else None

    async def snapshot_node(self, state, next_node) -> None:
        await super().snapshot_node(state, next_node)
        self.session.persisted("snapshot_node", self._task_of(next_node))

    async def snapshot_node_if_new(self, snapshot_id, state, next_node) -> None:
        await super().snapshot_node_if_new(snapshot_id, state, next_node)
        self.session.persisted("snapshot_node_if_new", self._task_of(next_node))

    async def snapshot_end(self, state, end) -> None:
        await super().snapshot_end(state, end)
        self.session.persisted("snapshot_end")

    async def load_next(self):
        snap = await super().load_next()
        if snap is not None:  # it wrote the snapshot's status 'pending'
            self.session.persisted("load_next", self._task_of(snap.node))
        return snap

    @asynccontextmanager
    async def record_run(self, snapshot_id: str):
        task = _task_of_id(snapshot_id, self.json_file)
        cm = super().record_run(snapshot_id)
        await cm.__aenter__()
        self.session.persisted("record_run:running", task)
        try:
            yield
        except BaseException as exc:
            await cm.__aexit__(type(exc), exc, exc.__traceback__)
            self.session.persisted("record_run:error", task)
            raise
        else:
            await cm.__aexit__(None, None, None)
            self.session.persisted("record_run:success", task)


def _raw_snapshots(path: Path) -> list[dict]:
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return []


def _task_of_id(snapshot_id: str, path: Path) -> int | None:
    for s in _raw_snapshots(path):
        if s.get("id") == snapshot_id:
            node = s.get("node") or {}
            return node.get("t")
    return None


class PydanticGraph(rcadapter.Subject):
    name = "pydantic-graph"
    version = importlib.metadata.version("pydantic-graph")
    features = {
        # FileStatePersistence is a file: the adapter keeps it beside the
        # path of the harness's sqlite store (pydantic-graph has no SQL
        # persistence, and an in-memory one does not survive a kill).
        "stores": ["sqlite"],
        "fork": False,               # a resume is a node built from the human's value: no fork intent
        "checkpoint_address": True,  # any snapshot id of the run can be resumed from (its state)
        "idempotency_key": False,
        "invalid_state": True,
        "resubmit": True,            # Graph.iter(first node) on the same persistence
    }

    def __init__(self) -> None:
        self.drv = Driver()
        self.graph: Graph | None = None
        self.model: type[pydantic.BaseModel] | None = None
        self.file: Path | None = None

    def setup(self, s) -> None:
        st = s.store
        if st.get("kind") != "sqlite":
            raise Refusal("unsupported", "store %r: pydantic-graph persists to a file (FileStatePersistence)" % st.get("kind"))
        self.drv.s = s
        self.model = state_model(s.workflow)
        self.graph = Graph(nodes=[Task, AwaitApproval], name="resumecheck", state_type=self.model,
                           run_end_type=dict, auto_instrument=False)
        self.file = Path(os.path.dirname(os.path.abspath(st["path"]))) / ("pydantic-graph-%s.json" % s.run)

    def _persistence(self) -> NotingPersistence:
        p = NotingPersistence(self.file)
        p.session = self.drv.s
        p.set_graph_types(self.graph)
        return p

    async def _drive(self, run) -> dict:
        """Step the run until it reaches the approval point (parked) or
        the end, as the library's human-in-the-loop example does."""
        node = run.next_node
        while True:
            if isinstance(node, AwaitApproval):
                return {"status": "parked", "checkpoint": node.get_snapshot_id(), "state": run.state.model_dump()}
            if isinstance(node, End):
                st = run.state.model_dump()
                return {"status": "completed", "checkpoint": node.get_snapshot_id(), "outcome": st.get("outcome"), "state": st}
            node = await run.next(node)

    async def _from(self, start: BaseNode, state: Any, p: NotingPersistence | None = None) -> dict:
        async with self.graph.iter(start, state=state, deps=self.drv, persistence=p or self._persistence()) as run:
            return await self._drive(run)

    def _call(self, coro) -> dict:
        try:
            return asyncio.run(coro)
        except Refusal:
            raise
        except Exception as e:  # the subject's refusal or failure, as a reply
            raise Refusal(classify(e), str(e)[:2000], type(e).__name__) from e

    def start(self, s, input) -> dict:
        return self._call(self._from(Task(1), self.model(**input)))

    def resume(self, s, value, intent, checkpoint) -> dict:
        if intent == "fork":
            raise Refusal("unsupported", "pydantic-graph has no fork intent")

        async def go() -> dict:
            p = self._persistence()
            if checkpoint:
                snap = next((x for x in await p.load_all() if x.id == checkpoint), None)
                if snap is None:
                    raise Refusal("refused", "no snapshot %r in the run's persistence" % checkpoint, "LookupError")
            else:
                snap = await p.load_next()
                if snap is None:
                    raise Refusal("refused", "persistence.load_next() found no snapshot waiting to run (status 'created')", "NoSnapshot")
            if not isinstance(snap.node, AwaitApproval):
                raise Refusal("refused", "the snapshot to resume is a %s node, not the approval point" % type(snap.node).__name__, "NotParked")
            return await self._from(Task(s.workflow["gate"], value=value), snap.state, p)

        return self._call(go())

    def recover(self, s, address, input) -> dict:
        if address == "resubmit":
            return self._call(self._from(Task(1), self.model(**input)))

        async def go() -> dict:
            p = self._persistence()
            # A run whose next snapshot is the approval point is parked:
            # iter_from_persistence would take that snapshot (load_next
            # marks it 'pending') and stop before the node, leaving nothing
            # for the human's resume to load. Report it parked instead.
            nxt = next((x for x in await p.load_all() if x.kind == "node" and x.status == "created"), None)
            if nxt is not None and isinstance(nxt.node, AwaitApproval):
                return {"status": "parked", "checkpoint": nxt.id, "state": nxt.state.model_dump()}
            async with self.graph.iter_from_persistence(p, deps=self.drv) as run:
                return await self._drive(run)

        return self._call(go())

    def checkpoint(self, s) -> dict:
        """Read from the JSON file as stored (not through the snapshot
        type adapter, which would refuse an invalid state)."""
        raw = _raw_snapshots(self.file)
        gate = s.workflow["gate"]
        records, consumed = [], None
        for i, x in enumerate(raw):
            node = x.get("node") or {}
            if x.get("kind") != "node" or node.get("node_id") != "Task":
                continue
            if node.get("t") == gate and consumed is None and node.get("value") is not None:
                consumed = node.get("value")
            if x.get("status") == "success" and i + 1 < len(raw):
                # A snapshot holds the state before its node ran: task t's
                # result is the state of the snapshot written after it.
                records.append({"task": node.get("t"), "state": raw[i + 1].get("state")})
        last = raw[-1] if raw else {}
        # Parked: standing at the gate until the gate's task is recorded
        # (the approval point reached and no Task(IP) succeeded after it;
        # a value may already be taken: the snapshot 'pending').
        parked = False
        for x in raw:
            node = x.get("node") or {}
            if x.get("kind") == "node" and node.get("node_id") == "AwaitApproval":
                parked = True
            elif x.get("kind") == "node" and node.get("node_id") == "Task" and node.get("t") == gate and x.get("status") == "success":
                parked = False
        # Finished: the persistence holds the run's End snapshot.
        finished = any(x.get("kind") == "end" for x in raw)
        return {
            "parked": parked,
            "consumed": consumed,
            "checkpoint": last.get("id"),
            "finished": finished,
            "records": records,
            "raw": {"file": str(self.file), "snapshots": [
                {"id": x.get("id"), "kind": x.get("kind"), "status": x.get("status"),
                 "node": (x.get("node") or {}).get("node_id"), "t": (x.get("node") or {}).get("t")}
                for x in raw]},
        }


def classify(e: BaseException) -> str:
    """The protocol kind of what pydantic-graph raised."""
    if isinstance(e, GraphNodeStatusError):
        return "refused"  # the snapshot is not 'created' or 'pending'
    if isinstance(e, GraphRuntimeError) and "Unable to restore snapshot" in str(e):
        return "refused"  # iter_from_persistence: no snapshot with status 'created'
    if isinstance(e, pydantic.ValidationError):
        return "invalid_state"
    return "failed"


if __name__ == "__main__":
    sys.exit(rcadapter.serve(PydanticGraph()))
