"""The adapter side of the resumecheck harness protocol, for Python adapters.

docs/harness.md is the protocol. An adapter subclasses Subject, implements
its operations, and calls serve(); its task bodies call session.task(...)
and its storage wrapper calls session.persisted(...). The framework's own
prints go to stderr: stdout carries protocol messages only.

One thread reads stdin: it hands acks to the note waiting for them and
requests to serve()'s loop. A note may come from a thread of the framework
that runs between requests (LangGraph's durability="async" persists from a
background thread); the harness acks it during its next request, so stdin
then carries a request and an ack in either order, and neither reader may
take the other's line.
"""

import json
import os
import queue
import sqlite3
import sys
import threading
import traceback

PROTOCOL = 1

LEDGER_INSERT = "INSERT INTO effects (run, task, branch, value, key, pid) VALUES (?, ?, ?, ?, ?, ?)"


class StdinClosed(EOFError):
    """stdin ended while a note (sent from a thread other than the main
    one) waited for its ack. On the main thread the process exits 0
    instead, as at the end of stdin."""


# What the reader puts on both queues at the end of stdin.
_EOF = object()


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
        # _lock makes a note and the wait for its ack one step (concurrent
        # task bodies get their own acks); _write_lock keeps lines whole.
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._acks = queue.Queue()
        self._requests = queue.Queue()
        self._reader = None
        self._notes = 0
        self._ledger = None
        self.run = None
        self.workflow = None
        self.store = None
        self.sync = False
        self.branch = "main"

    def write(self, msg):
        line = json.dumps(msg, separators=(",", ":"), default=str)
        with self._write_lock:
            self._out.write(line + "\n")
            self._out.flush()

    def start_reader(self):
        """Start the one thread that reads stdin (serve() calls it)."""
        self._reader = threading.Thread(target=self._read, name="rcadapter-stdin", daemon=True)
        self._reader.start()

    def _read(self):
        try:
            for line in iter(self._in.readline, ""):
                if not line.strip():
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = None
                if isinstance(msg, dict) and msg.get("type") == "ack":
                    self._acks.put(msg)
                else:
                    # serve() parses it again and fails on a bad line, as
                    # it always did.
                    self._requests.put(line)
        except (OSError, ValueError) as e:
            print("rcadapter: reading stdin: %s" % e, file=sys.stderr)
        finally:
            self._acks.put(_EOF)
            self._requests.put(_EOF)

    def next_request(self):
        """The next request line, or None at the end of stdin."""
        line = self._requests.get()
        if line is _EOF:
            self._requests.put(_EOF)
            return None
        return line

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
            ack = self._acks.get()
            if ack is _EOF:
                # Every later waiter sees the end too.
                self._acks.put(_EOF)
                if threading.current_thread() is threading.main_thread():
                    raise SystemExit(0)
                raise StdinClosed("stdin closed while waiting for the ack of note %d" % n)
            if ack.get("n") != n:
                raise RuntimeError("waiting for the ack of note %d, got the ack of note %r" % (n, ack.get("n")))

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
    parked, consumed, checkpoint, raw, and optionally finished: True when
    the subject's store records the run as complete, False when it records
    it as not complete, left out when the adapter cannot tell) or raises
    Refusal."""

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
    s.start_reader()
    while True:
        line = s.next_request()
        if line is None:
            return 0
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
