"""The durable completion records of a LangGraph thread, read from its
checkpointer the way a recovery reads them (docs/harness.md, the checkpoint
report). Shared by the LangGraph adapter and REMIT's (LangGraph under
REMIT's saver).

A recovery (invoke(None, cfg)) loads the thread's latest checkpoint and
applies that checkpoint's pending writes: a node whose writes are there is
not run again. So a task is recorded when either
- a later checkpoint of the lineage continues the step it ran in (source
  "loop"): the step's result is folded into that checkpoint whether or not
  the node's own writes ever reached checkpoint_writes (with the default
  durability="async", put_writes and the next put are submitted to a
  background executor and a kill can land between them in either order);
  which nodes ran in the step is LangGraph's own bookkeeping, the nodes
  whose versions_seen the later checkpoint changed; or
- it is not folded into a checkpoint yet, and its successful writes are
  pending on the checkpoint it ran from (put_writes without a new put).
"""

import re

FIELDS = ("input", "last", "approval", "outcome")


def fields(values):
    return {k: v for k, v in (values or {}).items() if k in FIELDS}


def task_of_node(name):
    m = re.fullmatch(r"t(\d+)", str(name))
    return int(m.group(1)) if m else None


def stepped(prev, nxt):
    """The workflow tasks that ran in the step from checkpoint prev to its
    successor nxt: the nodes whose versions_seen nxt changed."""
    before = prev.checkpoint.get("versions_seen") or {}
    after = nxt.checkpoint.get("versions_seen") or {}
    tasks = []
    for node, seen in after.items():
        t = task_of_node(node)
        if t is not None and seen != before.get(node):
            tasks.append(t)
    return sorted(tasks)


def pending(tup, n):
    """The tasks whose successful writes are pending on checkpoint tup,
    in task order, each with its channel writes. A task's writes that set
    `last` are a completed execution (an interrupt or an error writes
    none); the task is the node its branch:to:t<k+1> write triggers, or
    the last task when it triggers none."""
    by_task = {}
    for task_id, channel, value in tup.pending_writes or ():
        by_task.setdefault(task_id, []).append((channel, value))
    out = []
    for writes in by_task.values():
        chans = dict(writes)
        if "last" not in chans or "__error__" in chans:
            continue
        t = n
        for ch in chans:
            if ch.startswith("branch:to:t") and ch[11:].isdigit():
                t = int(ch[11:]) - 1
        out.append((t, chans))
    return sorted(out, key=lambda x: x[0])


def records(chain, n):
    """The records of the lineage chain (checkpoint tuples, oldest first)
    of an n-task workflow, oldest first, each with the persisted state:
    the checkpoint that folded the task's step in, or, for a task not
    folded in yet, the checkpoint it ran from with its writes applied."""
    out = []
    for i, tup in enumerate(chain):
        nxt = chain[i + 1] if i + 1 < len(chain) else None
        if nxt is not None and (nxt.metadata or {}).get("source") == "loop":
            tasks = stepped(tup, nxt)
            if tasks:
                state = fields(nxt.checkpoint.get("channel_values"))
                out.extend({"task": t, "state": dict(state)} for t in tasks)
                continue
        # Not folded into a later checkpoint: the latest checkpoint, or one
        # whose successor starts a new run from an input (or a successor
        # without versions_seen, where the pending writes are all there is).
        for t, chans in pending(tup, n):
            if nxt is not None and (nxt.metadata or {}).get("source") == "loop":
                state = fields(nxt.checkpoint.get("channel_values"))
            else:
                state = fields(tup.checkpoint.get("channel_values"))
                state.update(fields(chans))
            out.append({"task": t, "state": state})
    return out
