package harness

import "github.com/resumecontract/resumecheck/model"

// Scenario is one kind of cell (docs/harness.md, "Scenarios").
type Scenario struct {
	Name     string
	Workflow Workflow
	// Measures are the obligations the scenario's runs decide. LV is
	// judged over every run that drives the workflow (a run that does not
	// complete is evidence against liveness whatever it was for), so
	// every scenario measures it but cv, whose workflow is written to be
	// refused: a conforming subject stops it at the invalid write.
	Measures []string
	Doc      string
}

// Values are the resume values of every scenario workflow.
var Values = []string{"va", "vb"}

func wf(tasks, gate, invalid int) Workflow {
	return Workflow{Tasks: tasks, Gate: gate, Values: Values, InvalidTask: invalid}
}

// The scenarios, in the profile's order.
var Scenarios = []Scenario{
	{"fd", wf(3, 2, 0), []string{model.FD, model.EO, model.CO, model.LV}, "a second resume value aimed at the interrupt checkpoint"},
	{"stray", wf(3, 2, 0), []string{model.CO, model.EO, model.LV}, "a resume after completion"},
	{"cv", wf(3, 2, 3), []string{model.CV}, "the last task writes a schema-invalid state"},
	{"crash", wf(4, 2, 0), []string{model.EO, model.PC, model.LV}, "SIGKILL inside task 3, after its effect; recovery through an address"},
	{"killsweep", wf(4, 2, 0), []string{model.EO, model.PC, model.RD, model.LV}, "SIGKILL at every note of start + resume; recovery through an address"},
	{"race", wf(3, 3, 0), []string{model.CO, model.LV}, "k processes resume one parked interrupt behind a barrier"},
	{"parked", wf(3, 2, 0), []string{model.LV}, "SIGKILL while parked, then resume"},
	{"fork", wf(3, 2, 0), []string{model.FI, model.FD, model.LV}, "a resume with explicit fork intent"},
}

// ScenarioByName returns the scenario with that name.
func ScenarioByName(name string) (Scenario, bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// RaceGrid is the race scenario's grid.
type RaceGrid struct {
	Ks        []int `json:"k"`
	JitterMS  []int `json:"jitter_ms"`
	Reps      int   `json:"reps"`
	Seed      int64 `json:"seed"`
	MaxRacers int   `json:"-"`
}

// FullGrid is the paper's grid: k in {2,3,4,8,16} x jitter {0,1,5,25} ms.
func FullGrid(reps int) RaceGrid {
	return RaceGrid{Ks: []int{2, 3, 4, 8, 16}, JitterMS: []int{0, 1, 5, 25}, Reps: max(1, reps), Seed: 1}
}

// CIGrid is the bounded grid CI runs: four points of the full grid where
// every committed baseline whose race violates CO fired the gated effect
// more than once (TestCIGridWhereBaselinesViolate), k in {4,16} x jitter
// {1,5} ms. The gate pools a race cell (gateRaceLost): at points where
// the baseline always had the outcome, four fresh runs without it are
// significant against a baseline grid with it in 17 of 20 runs or more.
// (The corners, {2,16} x {0,25}, included k=2, J=25 ms, where most
// baselines fired once: a lost race could not be confirmed there.)
func CIGrid() RaceGrid {
	return RaceGrid{Ks: []int{4, 16}, JitterMS: []int{1, 5}, Reps: 1, Seed: 1}
}
