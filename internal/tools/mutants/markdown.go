package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
)

// Meta says how a run was made.
type Meta struct {
	Command               string
	Seed                  uint64
	N                     int
	Timeout               time.Duration
	LoadBefore, LoadAfter string
	Started               time.Time
	Elapsed               time.Duration
}

// ModelReport is one model's mutants: how many the operators made
// (Total), the rows of those picked, and their tally.
type ModelReport struct {
	Model Model
	Total int
	Rows  []Row
	Tally Tally
}

// The generated part of docs/mutants.md is between these lines; the
// text around them is written by hand and kept.
const (
	beginMark = "<!-- mutants:begin (written by go run ./internal/tools/mutants -out) -->"
	endMark   = "<!-- mutants:end -->"
)

// WriteMarkdown writes the generated part: how the run was made, the
// tally of each model, and every mutant that is not agree or both
// refuse.
func WriteMarkdown(w io.Writer, meta Meta, reports []ModelReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Made with `%s` on %s (%s, %d cores), seed %d, %d mutants per model, %v per run; load average (1, 5, 15 min) %s before, %s after; %s in all.\n\n",
		strings.TrimSpace(meta.Command), meta.Started.UTC().Format("2006-01-02"), runtime.GOARCH, runtime.NumCPU(), meta.Seed, meta.N, meta.Timeout,
		meta.LoadBefore, meta.LoadAfter, meta.Elapsed.Round(time.Second))
	b.WriteString("| model | mutants (of) | agree | both refuse | interp refuses | timeout | DIFFER | of which severity 1 | TLC found a violation |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	var total Tally
	all := 0
	for _, r := range reports {
		t := r.Tally
		total = total.Plus(t)
		all += r.Total
		fmt.Fprintf(&b, "| %s | %d (%d) | %d | %d | %d | %d | %d | %d | %d |\n", r.Model.Name, t.Mutants, r.Total,
			t.Agree, t.BothRefuse, t.InterpRefuses, t.Timeout, t.Differ, t.Severity1, t.TLCViolation)
	}
	fmt.Fprintf(&b, "| all | %d (%d) | %d | %d | %d | %d | %d | %d | %d |\n\n", total.Mutants, all,
		total.Agree, total.BothRefuse, total.InterpRefuses, total.Timeout, total.Differ, total.Severity1, total.TLCViolation)
	var rest []string
	for _, r := range reports {
		for _, row := range r.Rows {
			if c := row.Comparison.Class; c == Agree || c == BothRefuse {
				continue
			}
			detail := row.Comparison.Detail
			if detail == "" {
				detail = "interp " + row.Interp.String() + "; TLC " + row.TLC.String()
			}
			rest = append(rest, fmt.Sprintf("| %s | %s | `%s` | %s | %s |", row.Comparison.Class, r.Model.Name,
				strings.ReplaceAll(row.Mutant.ID(), "|", `\|`), row.Mutant.Def, cell(detail)))
		}
	}
	if len(rest) == 0 {
		b.WriteString("Every mutant is agree or both refuse.\n")
	} else {
		b.WriteString("The mutants that are neither agree nor both refuse:\n\n| class | model | mutant | in | what |\n|---|---|---|---|---|\n")
		b.WriteString(strings.Join(rest, "\n") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// WriteMarkdownPath writes the generated part into the file at path,
// between its marker lines, keeping the text around them; a file without
// them (or none) gets the part alone, between the markers.
func WriteMarkdownPath(path string, meta Meta, reports []ModelReport) error {
	var gen bytes.Buffer
	if err := WriteMarkdown(&gen, meta, reports); err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	text := Splice(string(old), gen.String())
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

// Splice puts gen between old's marker lines, or makes a text of gen
// alone between them when old has none.
func Splice(old, gen string) string {
	region := beginMark + "\n\n" + gen + "\n" + endMark
	i, j := strings.Index(old, beginMark), strings.Index(old, endMark)
	if i < 0 || j < i {
		return region + "\n"
	}
	return old[:i] + region + old[j+len(endMark):]
}

// WriteRecord writes the interpreter's verdict on each mutant of the
// repository's own models (not tlaplus/Examples', whose texts are not
// here), for the bounded check CI runs without TLC (record_test.go):
// one line per mutant, tab-separated: model, mutant ID, the
// interpreter's Result.Key, TLC's (for the reader), the class.
func WriteRecord(w io.Writer, meta Meta, reports []ModelReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (seed %d, %d per model): the interpreter's verdicts, checked without TLC by record_test.go\n",
		strings.TrimSpace(meta.Command), meta.Seed, meta.N)
	b.WriteString("# model\tmutant\tinterpreter\tTLC\tclass\n")
	for _, r := range reports {
		if strings.HasPrefix(r.Model.Name, examplesPrefix) {
			continue
		}
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", r.Model.Name, row.Mutant.ID(), row.Interp.Key(), row.TLC.Key(), row.Comparison.Class)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
