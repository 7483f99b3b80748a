package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// Options configure a sweep.
type Options struct {
	// Engine is "go", "tlc" or "both".
	Engine string
	// Cross says how each engine runs (workers, TLC's jar and java,
	// progress, state comparison).
	Cross crosscheck.Options
	// CfgDir receives the generated cfgs (cell-01.cfg, ...), which stay;
	// "" means a temporary folder, removed at the end.
	CfgDir string
	// Log, when set, receives a line as each cell starts and ends.
	Log io.Writer
	// Load loads a cell for the Go engine; nil means check.Load. (Tests
	// give one that mutates the mirror, to prove a sweep catches it.)
	Load func(cfgPath, specPath string) (*check.Job, error)
}

// Table is the outcome of a sweep: one row per cell.
type Table struct {
	Base   string   `json:"base"`
	Spec   string   `json:"spec"`
	Engine string   `json:"engine"`
	Params []string `json:"parameters"`
	Rows   []Row    `json:"cells"`
}

// Row is one cell's outcome.
type Row struct {
	Cell int `json:"cell"`
	// Values are the parameters' values in the cfg's syntax, in the order
	// of Table.Params.
	Values []string `json:"values"`
	// Cfg is the generated cfg's path, when they are kept (CfgDir).
	Cfg string                  `json:"cfg,omitempty"`
	Go  *crosscheck.Measurement `json:"go,omitempty"`
	TLC *crosscheck.Measurement `json:"tlc,omitempty"`
	// Differences lists what the engines disagree on (engine both).
	Differences []string              `json:"differences,omitempty"`
	States      *crosscheck.StateDiff `json:"states,omitempty"`
}

// Agree reports whether the row's engines agree (always, with one).
func (r *Row) Agree() bool {
	return len(r.Differences) == 0 && (r.States == nil || r.States.Equal())
}

// Found is what the row's engines found: the Go engine's measurement if
// it ran, else TLC's.
func (r *Row) Found() check.Expect {
	if r.Go != nil {
		return r.Go.Found
	}
	return r.TLC.Found
}

// Disagreements counts the rows whose engines disagree.
func (t *Table) Disagreements() int {
	n := 0
	for i := range t.Rows {
		if !t.Rows[i].Agree() {
			n++
		}
	}
	return n
}

// Run sweeps the grid of params over the base cfg. Every cell is written
// and, when the Go engine takes part, validated against the spec before
// any runs; an invalid cell (IP above NTasks, say) is an error naming it.
func Run(ctx context.Context, basePath, specPath string, params []Param, opt Options) (*Table, error) {
	base, err := tlacfg.ParseFile(basePath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &InputError{fmt.Sprintf("base cfg %s does not exist", basePath)}
		}
		return nil, &InputError{err.Error()}
	}
	specPath = check.SpecFor(basePath, specPath)
	if opt.Engine != "tlc" {
		// Before any cell: the Go engine checks only the spec it mirrors.
		if err := check.VerifySpec(specPath); err != nil {
			return nil, err
		}
	}
	cells, err := Cells(base, params)
	if err != nil {
		return nil, &InputError{err.Error()}
	}
	// The cells are checked from cfgs in a folder of this run's own, even
	// with CfgDir: a second sweep keeping its cfgs in the same folder
	// must not have this one check its cells. The kept copies go to
	// CfgDir through temporaries renamed into place, so that a kill
	// leaves no cfg cut short there, and two sweeps leave each cfg whole
	// (the last one's).
	dir, err := os.MkdirTemp("", "tlcrun-sweep-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if opt.CfgDir != "" {
		if err := os.MkdirAll(opt.CfgDir, 0o755); err != nil {
			return nil, err
		}
	}
	useGo, useTLC := opt.Engine != "tlc", opt.Engine != "go"
	t := &Table{Base: basePath, Spec: specPath, Engine: opt.Engine}
	for _, p := range params {
		t.Params = append(t.Params, p.Name)
	}
	width := len(fmt.Sprint(len(cells)))
	jobs := make([]*check.Job, len(cells))
	paths := make([]string, len(cells))
	for i, c := range cells {
		name := fmt.Sprintf("cell-%0*d.cfg", width, c.Index)
		path := filepath.Join(dir, name)
		var sb strings.Builder
		fmt.Fprintf(&sb, "\\* tlcrun sweep, cell %d of %d: %s\n\\* The other constants and the properties are those of %s.\n",
			c.Index, len(cells), Label(params, c), basePath)
		if err := c.Cfg.Write(&sb); err != nil {
			return nil, err
		}
		write := func(w io.Writer) error {
			_, err := io.WriteString(w, sb.String())
			return err
		}
		if err := atomicfile.WriteFile(path, write); err != nil {
			return nil, err
		}
		paths[i] = path
		row := Row{Cell: c.Index}
		if opt.CfgDir != "" {
			row.Cfg = filepath.Join(opt.CfgDir, name)
			if err := atomicfile.WriteFile(row.Cfg, write); err != nil {
				return nil, err
			}
		}
		for _, v := range c.Values {
			row.Values = append(row.Values, v.String())
		}
		t.Rows = append(t.Rows, row)
		if useGo {
			load := opt.Load
			if load == nil {
				load = check.Load
			}
			job, err := load(path, specPath)
			if err != nil {
				return nil, &InputError{fmt.Sprintf("cell %d (%s): %s", c.Index, Label(params, c), strings.TrimPrefix(cfgPosRE.ReplaceAllString(err.Error(), ""), path+": "))}
			}
			jobs[i] = job
		}
	}
	if useTLC {
		// Every cell is valid: now make sure TLC can run before any does.
		if _, err := tlc.Find(ctx, opt.Cross.TLC.Jar, opt.Cross.TLC.Java); err != nil {
			return nil, err
		}
	}
	for i, c := range cells {
		row := &t.Rows[i]
		label := Label(params, c)
		logf(opt.Log, "sweep: [%d/%d] %s: %s\n", c.Index, len(cells), label, engines(opt.Engine))
		cross := opt.Cross
		cross.WorkDir = filepath.Join(dir, fmt.Sprintf("cell-%0*d", width, c.Index))
		switch {
		case useGo && useTLC:
			cmp, err := crosscheck.Both(ctx, jobs[i], cross)
			if err != nil {
				return t, cellError(c, label, err)
			}
			row.Go, row.TLC, row.Differences, row.States = cmp.Go, cmp.TLC, cmp.Differences, cmp.States
		case useGo:
			if row.Go, err = crosscheck.MeasureGo(ctx, jobs[i], cross); err != nil {
				return t, cellError(c, label, err)
			}
		default:
			if row.TLC, err = crosscheck.MeasureTLC(ctx, paths[i], specPath, cross, ""); err != nil {
				return t, cellError(c, label, err)
			}
		}
		os.RemoveAll(cross.WorkDir)
		logf(opt.Log, "sweep: [%d/%d] %s\n", c.Index, len(cells), row.summary())
	}
	return t, nil
}

// cfgPosRE matches the "path:line: " that check puts before a message
// about a cfg line; in a generated cfg the line says nothing to the user.
var cfgPosRE = regexp.MustCompile(`^\S+\.cfg:\d+: `)

// InputError is a sweep's error about its input: the base cfg, the
// parameters, a cell the spec does not allow, a spec TLC cannot parse.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func cellError(c Cell, label string, err error) error {
	var ie *crosscheck.InputError
	if errors.As(err, &ie) || errors.Is(err, check.ErrInput) {
		return &InputError{fmt.Sprintf("cell %d (%s): %v", c.Index, label, err)}
	}
	return fmt.Errorf("cell %d (%s): %w", c.Index, label, err)
}

func engines(e string) string {
	if e == "both" {
		return "the go engine, then tlc"
	}
	return "the " + e + " engine"
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// summary is a row's outcome on one line.
func (r *Row) summary() string {
	var parts []string
	for _, m := range []*crosscheck.Measurement{r.Go, r.TLC} {
		if m != nil {
			parts = append(parts, fmt.Sprintf("%s %s, %d distinct, depth %d, %s", m.Engine, verdict(m.Found), m.Found.Distinct, m.Found.Depth, Seconds(m.Seconds)))
		}
	}
	s := strings.Join(parts, "; ")
	switch {
	case r.Go != nil && r.TLC != nil && r.Agree():
		s += ": the engines agree"
	case !r.Agree():
		s += ": THE ENGINES DISAGREE: " + strings.Join(r.Differences, "; ")
		if r.States != nil && !r.States.Equal() {
			s += fmt.Sprintf("; %s only in TLC's dump, %d only in the Go engine's", english.Count(r.States.OnlyTLCCount, "state"), r.States.OnlyGoCount)
		}
	}
	return s
}

// verdict is "ok" or the first violated property, e.g. "EO violated".
func verdict(e check.Expect) string {
	if e.Result == "violation" && e.First != "" {
		return e.First + " violated"
	}
	return e.Result
}

// Seconds prints a duration given in seconds for a table: 0.03s, 4.1s,
// 2m05s, 1h02m.
func Seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.2fs", s)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", s)
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// columns are the table's header and cells, shared by the text and
// Markdown forms.
func (t *Table) columns() ([]string, [][]string) {
	head := append([]string{}, t.Params...)
	head = append(head, "verdict", "violated", "generated", "distinct", "depth")
	both := t.Engine == "both"
	if both {
		head = append(head, "go time", "tlc time", "agree")
	} else {
		head = append(head, "time")
	}
	var rows [][]string
	for i := range t.Rows {
		r := &t.Rows[i]
		// A figure the engines disagree on shows both: "59/60".
		pair := func(f func(check.Expect) string) string {
			if r.Go != nil && r.TLC != nil {
				if a, b := f(r.Go.Found), f(r.TLC.Found); a != b {
					return a + "/" + b
				}
			}
			return f(r.Found())
		}
		row := append([]string{}, r.Values...)
		row = append(row,
			pair(verdict),
			pair(func(e check.Expect) string { return orDash(strings.Join(e.Violated, " ")) }),
			pair(func(e check.Expect) string { return fmt.Sprint(e.Generated) }),
			pair(func(e check.Expect) string { return fmt.Sprint(e.Distinct) }),
			pair(func(e check.Expect) string { return fmt.Sprint(e.Depth) }))
		switch {
		case both:
			agree := "yes"
			if !r.Agree() {
				agree = "NO"
			}
			row = append(row, took(r.Go), took(r.TLC), agree)
		case r.Go != nil:
			row = append(row, took(r.Go))
		default:
			row = append(row, took(r.TLC))
		}
		rows = append(rows, row)
	}
	return head, rows
}

func took(m *crosscheck.Measurement) string {
	if m == nil {
		return "-"
	}
	return Seconds(m.Seconds)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteText prints the table in aligned columns, and after it what the
// engines disagree on, cell by cell.
func (t *Table) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Sweep of %s (spec %s) with %s, %s\n\n", t.Base, t.Spec, engineWords(t.Engine), english.Count(len(t.Rows), "cell"))
	head, rows := t.columns()
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	t.writeVerdict(&sb)
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteMarkdown prints the table as a Markdown (GitHub) table.
func (t *Table) WriteMarkdown(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Sweep of `%s` (spec `%s`) with %s, %s.\n\n", t.Base, t.Spec, engineWords(t.Engine), english.Count(len(t.Rows), "cell"))
	head, rows := t.columns()
	sb.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i < len(t.Params) || head[i] == "verdict" || head[i] == "violated" || head[i] == "agree" {
			sb.WriteString("---|")
		} else {
			sb.WriteString("---:|")
		}
	}
	sb.WriteString("\n")
	for _, r := range rows {
		sb.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	t.writeVerdict(&sb)
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteJSON prints the table as one JSON object.
func (t *Table) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

func (t *Table) writeVerdict(sb *strings.Builder) {
	if t.Engine != "both" {
		return
	}
	sb.WriteString("\n")
	n := t.Disagreements()
	if n == 0 {
		if len(t.Rows) == 1 {
			sb.WriteString("The engines agree in the one cell.\n")
		} else {
			fmt.Fprintf(sb, "The engines agree in all %d cells.\n", len(t.Rows))
		}
		return
	}
	fmt.Fprintf(sb, "The engines disagree in %d of %s:\n", n, english.Count(len(t.Rows), "cell"))
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.Agree() {
			continue
		}
		fmt.Fprintf(sb, "cell %d (%s): %s\n", r.Cell, t.label(r), strings.Join(r.Differences, "; "))
		if r.States != nil && !r.States.Equal() {
			r.States.Write(sb)
		}
	}
}

func engineWords(e string) string {
	if e == "both" {
		return "the go and tlc engines"
	}
	return "the " + e + " engine"
}

// label names a row's cell by its parameters.
func (t *Table) label(r *Row) string {
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		parts[i] = p + " = " + r.Values[i]
	}
	return strings.Join(parts, ", ")
}
