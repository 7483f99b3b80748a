package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// WriteIndCheck writes into dir the module and cfg with which TLC checks
// the same induction step as the job (docs/induct.md), and returns their
// paths: a module IndCheck extending the spec, with
//
//	IndInit    == Type /\ Inv
//	IndOneStep == TLCGet("level") = 1
//
// and a cfg with INIT IndInit, the spec's NEXT, INVARIANTS Type Inv,
// CONSTRAINT IndOneStep and no deadlock checking. TLC enumerates IndInit
// as it enumerates any initial predicate, so its distinct initial states
// are the states of Type /\ Inv; it checks the invariants on each
// successor; and the constraint, true of the initial states (level 1)
// only, keeps it from exploring past one step: a successor not already an
// initial state is checked, never expanded. (TLC's -depth bounds
// simulation, not breadth-first search; a level bound in the constraint
// is exact.) It needs the spec's next-state relation to be a definition
// (NEXT Next, or [][Next]_v). tla/crosscheck runs it.
func (j *InductJob) WriteIndCheck(dir string) (spec, cfgPath string, err error) {
	m := j.sp.M
	if m.NextName == "" {
		return "", "", inputf("%s: the next-state relation is a formula, not a definition: TLC's IndCheck run needs its name (NEXT Next)", j.SpecPath)
	}
	cfg, err := tlacfg.ParseFileAny(j.CfgPath)
	if err != nil {
		return "", "", inputf("%v", err)
	}
	const mod = "IndCheck"
	src := fmt.Sprintf("---- MODULE %s ----\n"+
		"\\* Written by tlcrun induct --compare-tlc: one induction step of %s for TLC.\n"+
		"EXTENDS %s, TLC\n"+
		"IndInit == %s /\\ %s\n"+
		"IndOneStep == TLCGet(\"level\") = 1\n"+
		"====\n", mod, j.Inv, m.Module, j.Type, j.Inv)
	no := false
	cfg.Specification, cfg.Init, cfg.Next = "", "IndInit", m.NextName
	cfg.Invariants = slices.Compact([]string{j.Type, j.Inv})
	cfg.Properties = nil
	cfg.Constraints = []string{"IndOneStep"}
	cfg.CheckDeadlock = &no
	delete(cfg.Other, "ALIAS")
	spec, cfgPath = filepath.Join(dir, mod+".tla"), filepath.Join(dir, mod+".cfg")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		return "", "", err
	}
	var sb strings.Builder
	if err := cfg.Write(&sb); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(cfgPath, []byte(sb.String()), 0o644); err != nil {
		return "", "", err
	}
	return spec, cfgPath, nil
}

// Lib are the folders TLC searches for the modules the job's spec uses
// (its TLA-Library): the spec's and the cfg's, then lib.
func (j *InductJob) Lib(lib []string) []string {
	path := []string{filepath.Dir(j.SpecPath), filepath.Dir(j.CfgPath)}
	path = append(path, lib...)
	for i, p := range path {
		if a, err := filepath.Abs(p); err == nil {
			path[i] = a
		}
	}
	return slices.Compact(path)
}
