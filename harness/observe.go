package harness

// Roles say what a request is for in its scenario; the trace builder
// maps requests by role, not by guessing from their fields.
const (
	RoleStart   = "start"   // start the run from its input
	RoleResume  = "resume"  // an ordinary resume of the parked interrupt (the first value, or again after a recovery parked)
	RoleSecond  = "second"  // a second value aimed at the interrupt checkpoint (FD)
	RoleFork    = "fork"    // a resume with fork intent (FI)
	RoleStray   = "stray"   // a resume after completion (CO)
	RoleRacer   = "racer"   // one of k racers resuming the parked interrupt
	RoleRecover = "recover" // continue after a kill, through an address
	RoleReport  = "report"  // a checkpoint report
)

// Entry kinds of a run log.
const (
	EntryRequest = "request"
	EntryNote    = "note"
	EntryReply   = "reply"
	EntryKill    = "kill"
)

// Entry is one thing the harness asked or observed during a run, in the
// order it happened. Counts is the ledger read at that moment (for a note:
// while the adapter waited for its ack).
type Entry struct {
	Kind    string   `json:"kind"`
	Proc    int      `json:"proc"`
	Role    string   `json:"role,omitempty"`
	Request *Request `json:"request,omitempty"`
	Msg     *Message `json:"msg,omitempty"`
	Counts  *Counts  `json:"counts,omitempty"`
	// Note is, for a kill, the note the adapter was waiting at.
	Note int `json:"note,omitempty"`
}

// RunLog is everything the harness knows about one run: the input of
// BuildTrace and the evidence kept beside the trace.
type RunLog struct {
	Scenario string   `json:"scenario"`
	Run      string   `json:"run"`
	Store    string   `json:"store"`
	Workflow Workflow `json:"workflow"`
	// Racers is k for a race run (0 otherwise).
	Racers int `json:"racers,omitempty"`
	// KillAt names the kill point a crash run aims at (KillPointName):
	// a run whose log has no kill entry did not reach it, and judges as
	// inconclusive.
	KillAt  string  `json:"kill_at,omitempty"`
	Entries []Entry `json:"entries"`
	// Rows is the run's ledger at the end.
	Rows []Effect `json:"rows"`
	// Problems are what went wrong driving the run (an adapter that died
	// on its own, a timeout): a run with problems has no verdict.
	Problems []string `json:"problems,omitempty"`
	// End is the end mark the runner writes when the run is over (Seal);
	// last, so that a file cut short loses it first. A log read from a
	// file without it, or whose entries it does not match, is refused
	// (CheckEnd).
	End *LogEnd `json:"end,omitempty"`
}

// Add appends an entry.
func (l *RunLog) Add(e Entry) { l.Entries = append(l.Entries, e) }
