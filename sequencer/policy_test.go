package sequencer_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/recovery"
	"github.com/resumecontract/resumecheck/sequencer"
	"github.com/resumecontract/resumecheck/sequencer/demo"
	"github.com/resumecontract/resumecheck/sequencer/storetest"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// Policies that are the reference with one answer changed, written here
// without package faulty: the seam alone must carry a mutation into the
// run's trace.

// skipsNothing recovers at the frontier task, calling it "skip".
type skipsNothing struct{ sequencer.Reference }

func (skipsNothing) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	return sequencer.Recovery{Plan: recovery.Plan{Next: v.Frontier}, Decision: recovery.Decision}
}

// firstValue serves every fork the value that consumed the gate.
type firstValue struct{ sequencer.Reference }

func (firstValue) ForkValue(_, consumed string) string { return consumed }

// grabs lets a racer take a grant on the consumed gate.
type grabs struct{ sequencer.Reference }

func (grabs) Race() sequencer.Consumption { return sequencer.Consume }

// TestPolicySeam: each scenario's trace is accepted with the reference
// policy and rejected with the policy that changes one method.
func TestPolicySeam(t *testing.T) {
	ctx := context.Background()
	l, err := demo.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h := &storetest.Harness{Store: sequencer.NewMemStore(), Ledger: l}
	// crashed runs f on a sequencer that "crashes" (panics, caught here)
	// right after its commit of task n.
	crashed := func(run string, n int, f func(s *sequencer.Sequencer) error) {
		e := storetest.NewEnv(t, h, 3, sequencer.Options{AfterOp: func(op sequencer.Op) {
			if op.Name == "commit" && op.Task == n {
				panic(op)
			}
		}})
		defer func() {
			if _, ok := recover().(sequencer.Op); !ok {
				t.Fatalf("run %s: no crash after the commit of task %d", run, n)
			}
		}()
		f(e.Seq)
	}
	cases := []struct {
		name     string
		policy   sequencer.Policy
		scenario func(s *sequencer.Sequencer, run string)
	}{
		{"Recover", skipsNothing{}, func(s *sequencer.Sequencer, run string) {
			crashed(run, 1, func(c *sequencer.Sequencer) error { _, err := c.Start(ctx, run, nil); return err })
			s.Recover(ctx, run) // skipsNothing: refused its claim of the committed task 1
			s.Resume(ctx, run, "va", sequencer.Ordinary)
		}},
		{"ForkValue", firstValue{}, func(s *sequencer.Sequencer, run string) {
			s.Start(ctx, run, nil)
			s.Resume(ctx, run, "va", sequencer.Ordinary)
			s.Resume(ctx, run, "vb", sequencer.Fork)
		}},
		{"Race", grabs{}, func(s *sequencer.Sequencer, run string) {
			s.Start(ctx, run, nil)
			crashed(run, 2, func(c *sequencer.Sequencer) error {
				_, err := c.Resume(ctx, run, "va", sequencer.Ordinary)
				return err
			})
			s.Resume(ctx, run, "vb", sequencer.Ordinary)
			s.Recover(ctx, run)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range []sequencer.Policy{nil, c.policy} {
				e := storetest.NewEnv(t, h, 3, sequencer.Options{Policy: p})
				run := h.RunID(t, "reference")
				want := tracecheck.Accepted
				if p != nil {
					run, want = h.RunID(t, "mutant"), tracecheck.Rejected
				}
				c.scenario(e.Seq, run)
				r, tr, err := storetest.CheckTrace(ctx, e.Seq, run)
				if err != nil {
					t.Fatal(err)
				}
				if r.Verdict != want {
					t.Fatalf("run %s: %s, want %s\n%s\n%s", run, r.Verdict, want, r.Text(), storetest.TraceText(tr))
				}
				if p != nil {
					t.Logf("%T: %s at %s", p, r.Verdict, r.Failure.Event)
				}
			}
		})
	}
}

// faultNames are the names of model that speak of faults: the Fault
// constants, and every name with "Fault" in it (Fault, FaultSet,
// AllFaults, ParseFault, ...), read from model's source.
func faultNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	files, err := filepath.Glob("../model/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && strings.Contains(d.Name.Name, "Fault") {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if strings.Contains(sp.Name.Name, "Fault") {
							names[sp.Name.Name] = true
						}
					case *ast.ValueSpec:
						typ, _ := sp.Type.(*ast.Ident)
						for _, id := range sp.Names {
							if strings.Contains(id.Name, "Fault") || (d.Tok == token.CONST && typ != nil && typ.Name == "Fault") {
								names[id.Name] = true
							}
						}
					}
				}
			}
		}
	}
	if !names["Replay"] || !names["NoIntent"] || !names["FaultSet"] {
		t.Fatalf("read no fault names from model: %v", names)
	}
	return names
}

// faultBranches returns the places of src that name a fault of model (a
// selector model.X with X in faults) or the old test switch Unfenced.
func faultBranches(name, src string, faults map[string]bool) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "model" && faults[n.Sel.Name] {
				found = append(found, fmt.Sprintf("%s: model.%s", fset.Position(n.Pos()), n.Sel.Name))
			}
		case *ast.Ident:
			if n.Name == "Unfenced" {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), n.Name))
			}
		}
		return true
	})
	return found, nil
}

// TestNoFaultBranch: the reference sequencer's code names no fault: what
// a fault changes goes through its Policy (package faulty builds them).
// The check is shown to find the old code's branches.
func TestNoFaultBranch(t *testing.T) {
	faults := faultNames(t)
	old := "package sequencer\nfunc f(s *S) { if s.fault(model.VolatilePark) || s.opt.Unfenced {} }\n"
	if got, err := faultBranches("old.go", old, faults); err != nil || len(got) != 2 {
		t.Fatalf("the check finds %v (%v) in the old code; want model.VolatilePark and Unfenced", got, err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		found, err := faultBranches(name, string(src), faults)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			t.Errorf("%s: the reference sequencer names a fault; ask its Policy instead", f)
		}
	}
}
