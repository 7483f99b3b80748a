package recovery_test

import (
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/recovery"
)

// TestModelRecoversWithRecover: in every reachable state of the reference
// bounds (with crashes while parked, and with more crashes), the model's
// CrashRecover(skip) continues where recovery.Recover says, and parks
// when it says: the model checks this function.
func TestModelRecoversWithRecover(t *testing.T) {
	p := model.R0()
	p.CrashWhileParked = true
	p.MaxCrashes = 3
	m, err := model.New(p)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	queue := []model.State{m.Init()}
	checked := 0
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		k := string(m.Encode(nil, s))
		if seen[k] {
			continue
		}
		seen[k] = true
		if u, ok := m.CrashRecover(s, model.Skip); ok {
			plan := recovery.Recover(recovery.View{Frontier: int(s.Frontier), Parked: s.Waiting, Consumed: s.Consumed != model.NoVal})
			if int(u.PC) != plan.Next || u.Waiting != plan.Parked {
				t.Fatalf("from %+v: CrashRecover(skip) goes to pc %d waiting %v; Recover says %+v", s, u.PC, u.Waiting, plan)
			}
			checked++
		}
		m.Next(s, func(_ model.Label, u model.State) { queue = append(queue, u) })
	}
	if checked == 0 {
		t.Fatal("no recovery checked")
	}
	t.Logf("%d states, %d recoveries checked", len(seen), checked)
}
