package sequencer

import (
	"encoding/json"
	"slices"
)

// The JSON form of a run's durable state (seqctl --json history; the
// shape is documented in docs/sequencer.md). Durable's maps are keyed by
// what JSON objects cannot be keyed by, so it is written as lists, each
// in key order.

type historyJSON struct {
	Run        string         `json:"run"`
	Workflow   string         `json:"workflow"`
	Tasks      int            `json:"tasks"`
	Gate       int            `json:"gate"`
	Values     []string       `json:"values"`
	Input      State          `json:"input"`
	Branches   []branchJSON   `json:"branches"`
	Claims     []claimJSON    `json:"claims"`
	Parks      []parkJSON     `json:"parks"`
	Grants     []grantJSON    `json:"grants"`
	Resumes    []resumeJSON   `json:"resumes"`
	Forks      []forkJSON     `json:"forks"`
	Refusals   []refusalJSON  `json:"refusals"`
	Recoveries []recoveryJSON `json:"recoveries"`
	Owners     []ownerJSON    `json:"owners"`
	Events     int            `json:"events"`
}

type branchJSON struct {
	Branch   int          `json:"branch"`
	Frontier int          `json:"frontier"`
	Records  []recordJSON `json:"records"`
}

type recordJSON struct {
	Index   int      `json:"index"`
	Task    int      `json:"task"`
	Valid   bool     `json:"valid"`
	State   State    `json:"state"`
	Outcome []string `json:"outcome,omitempty"`
	Value   string   `json:"value,omitempty"`
}

type claimJSON struct {
	Branch  int    `json:"branch"`
	Task    int    `json:"task"`
	Attempt int    `json:"attempt"`
	Key     string `json:"key"`
}

type parkJSON struct {
	Branch int `json:"branch"`
	Task   int `json:"task"`
}

type grantJSON struct {
	Checkpoint int    `json:"checkpoint"`
	Ordinal    int    `json:"ordinal"`
	Value      string `json:"value"`
	Resumer    string `json:"resumer"`
}

type resumeJSON struct {
	Intent   string   `json:"intent"`
	Value    string   `json:"value"`
	Observed []string `json:"observed"`
	Branch   int      `json:"branch"`
}

type forkJSON struct {
	Branch     int    `json:"branch"`
	Checkpoint int    `json:"checkpoint"`
	Ordinal    int    `json:"ordinal"`
	Value      string `json:"value"`
}

type refusalJSON struct {
	Kind    string `json:"kind"`
	Value   string `json:"value"`
	Granted bool   `json:"granted,omitempty"`
}

type recoveryJSON struct {
	Frontier int    `json:"frontier"`
	Decision string `json:"decision"`
	Parked   bool   `json:"parked"`
	Lost     bool   `json:"lost,omitempty"`
}

type ownerJSON struct {
	Branch int    `json:"branch"`
	Epoch  int    `json:"epoch"`
	By     string `json:"by"`
	Op     string `json:"op"`
}

// MarshalJSON writes the durable state as one object of lists (see
// docs/sequencer.md, "seqctl --json").
func (d *Durable) MarshalJSON() ([]byte, error) {
	h := historyJSON{Run: d.Run, Workflow: d.Def.Workflow, Tasks: d.Def.NTasks, Gate: d.Def.Gate,
		Values: nonNil(d.Def.Values), Input: d.Def.Input, Events: len(d.Events),
		Branches: []branchJSON{}, Claims: []claimJSON{}, Parks: []parkJSON{}, Grants: []grantJSON{},
		Resumes: []resumeJSON{}, Forks: []forkJSON{}, Refusals: []refusalJSON{}, Recoveries: []recoveryJSON{},
		Owners: []ownerJSON{}}
	if h.Input == nil {
		h.Input = State{}
	}
	branches := make([]int, 0, len(d.Records))
	for b := range d.Records {
		branches = append(branches, b)
	}
	slices.Sort(branches)
	for _, b := range branches {
		bj := branchJSON{Branch: b, Frontier: d.Frontier(b), Records: []recordJSON{}}
		for _, r := range d.Records[b] {
			bj.Records = append(bj.Records, recordJSON{Index: r.Index, Task: r.Task, Valid: r.Valid, State: r.State, Outcome: r.Outcome, Value: r.Value})
		}
		h.Branches = append(h.Branches, bj)
	}
	keys := make([][2]int, 0, len(d.Claims))
	for k := range d.Claims {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, k := range keys {
		for _, c := range d.Claims[k] {
			h.Claims = append(h.Claims, claimJSON{Branch: c.Branch, Task: c.Task, Attempt: c.Attempt, Key: c.Key})
		}
	}
	parks := make([]int, 0, len(d.Parks))
	for b := range d.Parks {
		parks = append(parks, b)
	}
	slices.Sort(parks)
	for _, b := range parks {
		h.Parks = append(h.Parks, parkJSON{Branch: b, Task: d.Parks[b]})
	}
	for _, g := range d.Grants {
		h.Grants = append(h.Grants, grantJSON{Checkpoint: g.Checkpoint, Ordinal: g.Ordinal, Value: g.Value, Resumer: g.Resumer})
	}
	for _, r := range d.Resumes {
		h.Resumes = append(h.Resumes, resumeJSON{Intent: r.Intent, Value: r.Value, Observed: nonNil(r.Observed), Branch: r.Branch})
	}
	for _, f := range d.Forks {
		h.Forks = append(h.Forks, forkJSON{Branch: f.Branch, Checkpoint: f.Checkpoint, Ordinal: f.Ordinal, Value: f.Value})
	}
	for _, r := range d.Refusals {
		h.Refusals = append(h.Refusals, refusalJSON{Kind: r.Kind, Value: r.Value, Granted: r.Granted})
	}
	for _, r := range d.Recoveries {
		h.Recoveries = append(h.Recoveries, recoveryJSON{Frontier: r.Frontier, Decision: r.Decision, Parked: r.Parked, Lost: r.Lost})
	}
	for _, o := range d.Owners {
		h.Owners = append(h.Owners, ownerJSON{Branch: o.Branch, Epoch: o.Epoch, By: o.By, Op: o.Op})
	}
	return json.Marshal(h)
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
