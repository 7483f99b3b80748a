"""Minimal reproduction of the one resume-contract violation the harness
measured on DBOS Transact 3.4.0 for Python (docs/conformance.md): CV.
Standalone: DBOS with its default SQLite system database; no harness.
Prints what it observed and exits 1 when the violation reproduces, 0 when
it does not.

    python repro.py cv    # a step's schema-invalid output is recorded, and the workflow succeeds

The workflow's state is declared as a TypedDict (last: int), the way a
DBOS user documents it: DBOS checks no step output against it. The last
step returns last="invalid".
"""

import base64
import os
import pickle
import sqlite3
import sys
import tempfile
from typing import TypedDict

from dbos import DBOS, DBOSConfig, SetWorkflowID

DIR = tempfile.mkdtemp(prefix="dbos-repro-")
DB = os.path.join(DIR, "dbos.sqlite")
N = 3


class State(TypedDict):
    last: int


@DBOS.step()
def task(t: int, state: State) -> State:
    return {"last": "invalid" if t == N else t}


@DBOS.workflow()
def run(state: State) -> State:
    for t in range(1, N + 1):
        state = task(t, state)
    return state


def recorded_outputs(wid):
    """The step outputs as DBOS's system database holds them (table
    operation_outputs), decoded by their recorded serialization."""
    db = sqlite3.connect(DB)
    rows = db.execute("SELECT function_id, function_name, output, serialization FROM operation_outputs"
                      " WHERE workflow_uuid = ? ORDER BY function_id", (wid,)).fetchall()
    db.close()
    out = []
    for fid, name, text, ser in rows:
        value = pickle.loads(base64.b64decode(text)) if ser in (None, "py_pickle") and text else text
        out.append((fid, name, ser, value))
    return out


def cv():
    wid = "repro-cv"
    with SetWorkflowID(wid):
        handle = DBOS.start_workflow(run, {"last": 0})
    result = handle.get_result()
    status = handle.get_status().status
    print("workflow", wid, "->", status, "with result", result, "(the schema says last: int)")
    steps = DBOS.list_workflow_steps(wid)
    print("DBOS.list_workflow_steps:", [(s["function_id"], s["function_name"], s["output"]) for s in steps])
    rows = recorded_outputs(wid)
    for fid, name, ser, value in rows:
        print("operation_outputs row: function_id=%s %s serialization=%s output=%r" % (fid, name, ser, value))
    return any(isinstance(v, dict) and not isinstance(v.get("last"), int) for _, _, _, v in rows)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what != "cv":
        print(__doc__)
        sys.exit(2)
    config: DBOSConfig = {"name": "repro", "system_database_url": "sqlite:///" + DB,
                          "run_admin_server": False, "enable_otlp": False, "log_level": "WARNING"}
    DBOS(config=config)
    DBOS.launch()
    bad = cv()
    print("VIOLATION REPRODUCED" if bad else "not reproduced")
    sys.stdout.flush()
    # DBOS's background threads do not end by themselves.
    os._exit(1 if bad else 0)
