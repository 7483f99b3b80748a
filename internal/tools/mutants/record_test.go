package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
)

// The bounded check CI runs, with no TLC: the mutants of the
// repository's own models recorded in testdata/verdicts.tsv (by
// go run ./internal/tools/mutants -record, from a run that compared them
// with TLC) still get the interpreter verdicts recorded there. A change
// of the interpreter that turns one of them (a violation TLC agreed
// with into holds, say) fails here.

// interpret runs the interpreter in process on a mutant, as tlcrun check
// --engine interp --workers 1 does.
func interpret(m Model, mu Mutant) (Result, error) {
	_, spec, cfg, done, err := Stage(m, mu.Text)
	if err != nil {
		return Result{}, err
	}
	defer done()
	job, err := check.LoadInterpreted(cfg, spec)
	if err != nil {
		return Result{Status: Failed, Message: err.Error()}, nil
	}
	rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
	if err != nil {
		return Result{Status: Failed, Message: err.Error()}, nil
	}
	var res Result
	fromReport(&res, rep)
	return res, nil
}

// verifyRecord checks every line of a record against the interpreter and
// returns what differs, one string per mutant.
func verifyRecord(t *testing.T, r io.Reader) []string {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	models := map[string]Model{}
	for _, m := range repoModels {
		models[m.Name] = Model{Name: m.Name, Spec: filepath.Join(root, m.Spec), Cfg: filepath.Join(root, m.Cfg)}
	}
	mutants := map[string]map[string]Mutant{}
	var bad []string
	sc := bufio.NewScanner(r)
	n, lines := 0, 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines++
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("verdicts.tsv:%d: %d fields, want 5", n, len(f))
		}
		m, ok := models[f[0]]
		if !ok {
			t.Fatalf("verdicts.tsv:%d: %s is not one of the repository's models", n, f[0])
		}
		if mutants[m.Name] == nil {
			src, err := os.ReadFile(m.Spec)
			if err != nil {
				t.Fatal(err)
			}
			all, err := Generate(m.Spec, src)
			if err != nil {
				t.Fatal(err)
			}
			mutants[m.Name] = map[string]Mutant{}
			for _, mu := range all {
				mutants[m.Name][mu.ID()] = mu
			}
		}
		mu, ok := mutants[m.Name][f[1]]
		if !ok {
			bad = append(bad, fmt.Sprintf("verdicts.tsv:%d: %s has no mutant %s now (the spec or the operators changed: record again, see docs/mutants.md)", n, m.Name, f[1]))
			continue
		}
		res, err := interpret(m, mu)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Key(); got != f[2] {
			bad = append(bad, fmt.Sprintf("verdicts.tsv:%d: %s %s: the interpreter now says %q (%s), recorded %q (TLC: %q)",
				n, m.Name, f[1], got, res, f[2], f[3]))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines == 0 {
		t.Fatal("the record holds no mutant")
	}
	return bad
}

func TestRecordedVerdicts(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, b := range verifyRecord(t, f) {
		t.Error(b)
	}
}

// TestRecordCatchesAChangedVerdict breaks the record on purpose: a
// mutant recorded as holding that the interpreter finds violated (as a
// record made before a fix would say), and a mutant that does not exist.
func TestRecordCatchesAChangedVerdict(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "queue", "Queue.tla"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := Generate("Queue.tla", src)
	if err != nil {
		t.Fatal(err)
	}
	m := Model{Name: "examples/queue/Queue.cfg", Spec: filepath.Join("..", "..", "..", "examples", "queue", "Queue.tla"),
		Cfg: filepath.Join("..", "..", "..", "examples", "queue", "Queue.cfg")}
	var violated Mutant
	for _, mu := range all {
		res, err := interpret(m, mu)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status == Violated {
			violated = mu
			break
		}
	}
	if violated.Text == nil {
		t.Fatal("no mutant of Queue.tla is violated")
	}
	record := "# a record made by hand\n" +
		m.Name + "\t" + violated.ID() + "\tholds 1/1/1\tviolated invariant X 2\tDIFFER\n" +
		m.Name + "\tno-such@1:1[x]\tholds 1/1/1\tholds 1/1/1\tagree\n"
	bad := verifyRecord(t, strings.NewReader(record))
	if len(bad) != 2 || !strings.Contains(bad[0], "the interpreter now says \"violated") || !strings.Contains(bad[1], "has no mutant no-such@1:1[x]") {
		t.Errorf("a changed verdict and a missing mutant: got %q", bad)
	}
}
