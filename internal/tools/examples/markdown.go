package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Row is one model's line of the suite: both runs and their outcomes.
type Row struct {
	Model         Model
	Interp, TLC   Observed
	InterpOutcome Outcome
	TLCOutcome    Outcome
	// TLCCached: TLC's figures are from the -tlc-cache table.
	TLCCached bool
}

// Outcome is the row's verdict: the interpreter's, or TLC's when the
// interpreter did not run.
func (r Row) Outcome() Outcome {
	if r.Interp.Ran {
		return r.InterpOutcome
	}
	return r.TLCOutcome
}

// Meta says when, where and how the table was made.
type Meta struct {
	When    time.Time
	Arch    string // uname -m
	Cores   int
	Command string
	// Selection says how many models the suite holds and why the others
	// are not in it.
	Selection string
}

// WriteMarkdown writes the suite's table.
func WriteMarkdown(w io.Writer, meta Meta, rows []Row) error {
	bw := bufio.NewWriter(w)
	var t Tally
	for _, r := range rows {
		t.Add(r.Outcome())
	}
	fmt.Fprintf(bw, "# tlaplus/Examples: the interpreter against the manifests\n\n")
	fmt.Fprintf(bw, "Made %s on %s with %d cores, one model at a time, each checker with one worker, by:\n\n",
		meta.When.UTC().Format("2006-01-02 15:04 UTC"), meta.Arch, meta.Cores)
	fmt.Fprintf(bw, "    %s\n\n", meta.Command)
	if meta.Selection != "" {
		fmt.Fprintf(bw, "%s\n\n", meta.Selection)
	}
	fmt.Fprintf(bw, "%s.\n\n", t)
	fmt.Fprintf(bw, "Counts are distinct / generated / depth; the recorded ones are TLC's, from the manifest. A TLC time marked * is from the -tlc-cache table of an earlier run of TLC here.\n\n")
	fmt.Fprintf(bw, "| model | recorded | interpreter | interpreter time | TLC time | outcome |\n")
	fmt.Fprintf(bw, "|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		m := r.Model
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n",
			cell(m.Name), recorded(m), counts(r.Interp), seconds(r.Interp), tlcCell(r), cell(outcomeCell(r.Outcome())))
	}
	return bw.Flush()
}

// WriteMarkdownPath writes the table to path through a temporary file in
// the same folder renamed into place: a reader never sees half a table.
func WriteMarkdownPath(path string, meta Meta, rows []Row) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	if err := WriteMarkdown(f, meta, rows); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func outcomeCell(o Outcome) string {
	if o.Kind == Wrong {
		return "**" + o.String() + "**"
	}
	return o.String()
}

func recorded(m Model) string {
	return opt(m.Distinct) + " / " + opt(m.Generated) + " / " + opt(m.Depth)
}

func opt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func counts(o Observed) string {
	if o.Counts == nil {
		return "-"
	}
	c := o.Counts
	s := fmt.Sprintf("%d / %d / %d", c.Distinct, c.Generated, c.Depth)
	if c.Verdict != "ok" {
		s += " (" + c.Verdict + ")"
	}
	return s
}

func seconds(o Observed) string {
	switch {
	case !o.Ran:
		return "-"
	case o.TimedOut:
		return fmt.Sprintf("> %.0fs", o.Seconds)
	}
	return fmt.Sprintf("%.1fs", o.Seconds)
}

// tlcCell is TLC's time, with its outcome when TLC did not reproduce the
// manifest either (then the model says nothing about the interpreter).
func tlcCell(r Row) string {
	s := seconds(r.TLC)
	if r.TLCCached {
		s += "*"
	}
	if r.TLC.Ran && r.TLCOutcome.Kind != Identical {
		s += " (" + tlcNote(r.TLCOutcome) + ")"
	}
	return cell(s)
}

// tlcNote is TLC's outcome beside the interpreter's: TLC departing from
// the manifest is no WRONG of the interpreter's.
func tlcNote(o Outcome) string {
	if o.Kind == Wrong {
		return "differs from the manifest: " + o.Detail
	}
	return o.String()
}

// cell escapes what would break a table row.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
