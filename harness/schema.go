package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
)

var inputPattern = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

// ValidateState checks a persisted state against the scenario workflow's
// schema (docs/harness.md): input a string of [a-z0-9-], last an integer
// 0..N, approval null or one of the values, outcome null or [value], and
// no other field. The harness judges validity; adapters report the state
// as stored.
func (w Workflow) ValidateState(raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&fields); err != nil || fields == nil {
		return fmt.Errorf("state is not a JSON object")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := fields[k]
		null := string(v) == "null"
		switch k {
		case "input":
			var s string
			if json.Unmarshal(v, &s) != nil || !inputPattern.MatchString(s) {
				return fmt.Errorf("input = %s: want a string of [a-z0-9-]{1,64}", v)
			}
		case "last":
			var n int
			if json.Unmarshal(v, &n) != nil || n < 0 || n > w.Tasks {
				return fmt.Errorf("last = %s: want an integer 0..%d", v, w.Tasks)
			}
		case "approval":
			var s string
			if !null && (json.Unmarshal(v, &s) != nil || !slices.Contains(w.Values, s)) {
				return fmt.Errorf("approval = %s: want null or one of %v", v, w.Values)
			}
		case "outcome":
			if _, ok := OutcomeValue(v); !null && !ok {
				return fmt.Errorf("outcome = %s: want null or [value]", v)
			}
			if s, ok := OutcomeValue(v); ok && !slices.Contains(w.Values, s) {
				return fmt.Errorf("outcome = %s: want null or [one of %v]", v, w.Values)
			}
		default:
			return fmt.Errorf("field %q is not in the schema", k)
		}
	}
	return nil
}

// Effect is one row of the effect ledger.
type Effect struct {
	Seq    int64   `json:"seq"`
	Task   int     `json:"task"`
	Branch string  `json:"branch"`
	Value  *string `json:"value,omitempty"`
	Key    *string `json:"key,omitempty"`
	PID    int     `json:"pid"`
}

// Counts are a run's ledger counts.
type Counts struct {
	// Applied[t-1] is task t's applied effects on the main branch: rows,
	// except those repeating an earlier idempotency key of the same task.
	Applied []int `json:"applied"`
	// Delivered[t-1] counts every main-branch row of task t.
	Delivered []int `json:"delivered"`
	// Other counts the rows of other branches, by branch.
	Other map[string]int `json:"other,omitempty"`
}

// Count computes the ledger counts of a run's rows for n tasks.
func Count(rows []Effect, n int) Counts {
	c := Counts{Applied: make([]int, n), Delivered: make([]int, n)}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Branch != MainBranch {
			if c.Other == nil {
				c.Other = map[string]int{}
			}
			c.Other[r.Branch]++
			continue
		}
		if r.Task < 1 || r.Task > n {
			continue
		}
		c.Delivered[r.Task-1]++
		if r.Key != nil {
			k := fmt.Sprintf("%d/%s", r.Task, *r.Key)
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		c.Applied[r.Task-1]++
	}
	return c
}
