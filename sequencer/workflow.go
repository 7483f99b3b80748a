package sequencer

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"

	"github.com/resumecontract/resumecheck/internal/english"
)

// State is a workflow's state: what each task reads and returns. It is
// what a completion record persists, after validation against the
// workflow's Schema.
type State map[string]string

// Workflow is a sequence of tasks 1..N, one of which, Gate, is guarded by
// an interrupt: the run parks before it and runs it only once a resume
// value (one of Values) is supplied.
type Workflow struct {
	Name  string
	Tasks []Task
	// Gate is the 1-based number of the interrupt-gated task (2..N).
	Gate int
	// Values are the resume values the gate accepts: the value schema.
	Values []string
	// Schema validates the state after every task.
	Schema Schema
}

// Task is one step. Run may fire an external effect; it must hand
// in.Key to the effect as its idempotency key, since after a crash
// between the effect and the commit the task is run again with the same
// key (and is the effect's only chance to deduplicate).
type Task struct {
	Name string
	Run  func(ctx context.Context, in TaskInput) (TaskOutput, error)
}

// TaskInput is what a task is given.
type TaskInput struct {
	Run    string
	Branch int
	Task   int
	// Key is the admission ledger's claim key: the effect's idempotency
	// key.
	Key   string
	State State
	// Value is the resume value, for the gated task only.
	Value string
}

// TaskOutput is what a task returns: the next state and, for the gated
// task, the outcome the resume observes.
type TaskOutput struct {
	State   State
	Outcome []string
}

// Schema maps every field a state may have to the regular expression its
// value must match in full. A state with a field the schema does not
// name, or a value that does not match, is invalid.
type Schema map[string]string

// Validate reports the first field of s that does not fit the schema.
func (sc Schema) Validate(s State) error {
	for _, k := range slices.Sorted(maps.Keys(s)) {
		pat, ok := sc[k]
		if !ok {
			return fmt.Errorf("%w: field %q is not in the schema", ErrInvalidState, k)
		}
		re, err := compiled(pat)
		if err != nil {
			return fmt.Errorf("%w: field %q: pattern: %v", ErrBadWorkflow, k, err)
		}
		if !re.MatchString(s[k]) {
			return fmt.Errorf("%w: field %q = %q does not match %s", ErrInvalidState, k, s[k], pat)
		}
	}
	return nil
}

// patterns caches compiled schema patterns: records are validated on
// every load.
var patterns sync.Map // string -> *regexp.Regexp

func compiled(pat string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(pat); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile("^(?:" + pat + ")$")
	if err != nil {
		return nil, err
	}
	patterns.Store(pat, re)
	return re, nil
}

// Validate checks the workflow before anything runs.
func (w *Workflow) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadWorkflow, w.Name, fmt.Sprintf(format, args...))
	}
	switch {
	case w.Name == "":
		return fmt.Errorf("%w: no name", ErrBadWorkflow)
	case len(w.Tasks) < 2:
		return bad("%s, want at least 2", english.Count(len(w.Tasks), "task"))
	case w.Gate < 2 || w.Gate > len(w.Tasks):
		return bad("gate %d, want 2..%d", w.Gate, len(w.Tasks))
	case len(w.Values) == 0:
		return bad("no resume values")
	}
	seen := map[string]bool{}
	for _, v := range w.Values {
		if v == "" || v == NoVal || seen[v] {
			return bad("resume value %q is empty, reserved or repeated", v)
		}
		seen[v] = true
	}
	for i, t := range w.Tasks {
		if t.Run == nil {
			return bad("task %d (%s) has no function", i+1, t.Name)
		}
	}
	for k, pat := range w.Schema {
		if _, err := regexp.Compile(pat); err != nil {
			return bad("schema field %q: %v", k, err)
		}
	}
	return nil
}

// NoVal is the trace's name for "nothing consumed yet".
const NoVal = "NoVal"

func (w *Workflow) validValue(v string) bool { return slices.Contains(w.Values, v) }
