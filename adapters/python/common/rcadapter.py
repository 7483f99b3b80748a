"""The adapter side of the resumecheck harness protocol, for Python adapters.

docs/harness.md is the protocol. An adapter subclasses Subject, implements
its operations, and calls serve(); its task bodies call session.task(...)
and its storage wrapper calls session.persisted(...). The framework's own
prints go to stderr: stdout carries protocol messages only.
"""

import json
import os
import sqlite3
import sys
import threading
import traceback

PROTOCOL = 1

LEDGER_INSERT = "INSERT INTO effects (run, task, branch, value, key, pid) VALUES (?, ?, ?, ?, ?, ?)"


class Refusal(Exception):
    """A refusal of the subject with its protocol kind: conflict, refused,
    invalid_state, unsupported."""

    def __init__(self, kind, message, typ=None):
        super().__init__(message)
        self.kind = kind
        self.typ = typ


class Session:
    """One adapter process: the current run's setup, the ledger, notes."""

    def __init__(self, out, inp):
        self._out = out
        self._in = inp
        self._lock = threading.RLock()
        self._notes = 0
        self._ledger = None
        self.run = None
        self.workflow = None
        self.store = None
        self.sync = False
        self.branch = "main"

    def write(self, msg):
        line = json.dumps(msg, separators=(",", ":"), default=str)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    def note(self, kind, task=None, value=None, op=None):
        """Send a note; with sync on, wait for its ack (the harness may
        SIGKILL this process instead)."""
        with self._lock:
            self._notes += 1
            n = self._notes
            msg = {"type": "note", "n": n, "kind": kind}
            if task:
                msg["task"] = task
            if value is not None:
                msg["value"] = value
            if op:
                msg["op"] = op
            if kind != "persist":
                msg["branch"] = self.branch
            self.write(msg)
            if not self.sync:
                return
            line = self._in.readline()
            if not line:
                raise SystemExit(0)
            ack = json.loads(line)
            if ack.get("type") != "ack" or ack.get("n") != n:
                raise RuntimeError("waiting for the ack of note %d, got %r" % (n, line[:100]))

    def persisted(self, op, task=None):
        self.note("persist", task=task, op=op)

    def task(self, t, value=None, key=None):
        """The effect part of task t's body: task note, ledger row
        (autocommit), effect note."""
        self.note("task", task=t, value=value)
        self._ledger.execute(LEDGER_INSERT, (self.run, t, self.branch, value, key, os.getpid()))
        self.note("effect", task=t)

    def last_field(self, t):
        """What task t writes to the state's `last`: t, or "invalid" for
        the workflow's invalid task."""
        return "invalid" if t == self.workflow.get("invalid_task") else t

    def open_ledger(self, path):
        if self._ledger is not None:
            self._ledger.close()
        # isolation_level=None: autocommit, outside any transaction of
        # the subject.
        self._ledger = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._ledger.execute("PRAGMA busy_timeout = 30000")


class Subject:
    """What an adapter implements. Each operation returns a dict of reply
    fields (status, checkpoint, outcome, state; for checkpoint: records,
    parked, consumed, checkpoint, raw) or raises Refusal."""

    name = None
    version = None
    features = {}

    def setup(self, session):
        raise NotImplementedError

    def start(self, session, input):
        raise NotImplementedError

    def resume(self, session, value, intent, checkpoint):
        raise NotImplementedError

    def recover(self, session, address, input):
        raise NotImplementedError

    def checkpoint(self, session):
        raise NotImplementedError


def serve(subject):
    """Run the protocol on stdin/stdout until quit or end of input."""
    out = sys.stdout
    # Anything the framework prints goes to stderr.
    sys.stdout = sys.stderr
    inp = sys.stdin
    s = Session(out, inp)
    s.write({"type": "hello", "protocol": PROTOCOL, "subject": subject.name,
             "version": subject.version, "features": subject.features})
    while True:
        line = inp.readline()
        if not line:
            return 0
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        rid = req.get("id")
        op = req.get("op")
        s.branch = req.get("branch") or "main"
        reply = {"type": "reply", "id": rid, "ok": True}
        try:
            if op == "setup":
                s.run = req["run"]
                s.workflow = req["workflow"]
                s.store = req["store"]
                s.sync = bool(req.get("sync"))
                s.open_ledger(req["ledger"])
                subject.setup(s)
            elif op == "start":
                reply.update(subject.start(s, req.get("input") or {}))
            elif op == "resume":
                reply.update(subject.resume(s, req.get("value"), req.get("intent") or "ordinary", req.get("checkpoint")))
            elif op == "recover":
                reply.update(subject.recover(s, req.get("address"), req.get("input") or {}))
            elif op == "checkpoint":
                reply.update(subject.checkpoint(s))
            elif op == "quit":
                pass
            else:
                raise Refusal("unsupported", "unknown op %r" % op)
        except Refusal as e:
            reply = {"type": "reply", "id": rid, "ok": False,
                     "error": {"kind": e.kind, "type": e.typ or type(e).__name__, "message": str(e)}}
        except Exception as e:  # noqa: BLE001 - every failure is a reply
            traceback.print_exc(file=sys.stderr)
            reply = {"type": "reply", "id": rid, "ok": False,
                     "error": {"kind": classify(e), "type": type(e).__name__, "message": str(e)[:2000]}}
        s.write(reply)
        if op == "quit":
            return 0


def classify(e):
    """The protocol kind of an exception a subject raised: a validation
    error is invalid_state, anything else failed."""
    for cls in type(e).__mro__:
        if cls.__name__ in ("ValidationError", "InvalidUpdateError"):
            return "invalid_state"
    return "failed"
