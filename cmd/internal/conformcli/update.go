package conformcli

import (
	"io"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/internal/clibase"
)

// recordBaselines is run --update and rejudge --update: the fresh
// profiles (each with the traces of its run folder, runDir) recorded
// into the baselines in dir (baseline.Record), the baselines' table.md
// and, when doc is not "", the generated tables of that document
// written again. It returns every profile the baselines now hold.
func recordBaselines(log io.Writer, dir, doc string, fresh []*harness.Profile, runDir func(*harness.Profile) string) ([]*harness.Profile, error) {
	base, err := baseline.Read(dir)
	if err != nil {
		return nil, clibase.Input(err)
	}
	recorded, err := baseline.Record(dir, base, fresh, runDir, log)
	if err != nil {
		return nil, err
	}
	all := baseline.Merge(base, recorded)
	if err := baseline.WriteTable(dir, all); err != nil {
		return nil, err
	}
	if doc != "" {
		if err := updateDoc(doc, all); err != nil {
			return nil, err
		}
	}
	return all, nil
}
