// Package tlagen turns a recorded trace into a TLA+ trace-validation
// module and its TLC cfg (the trace2tla command).
//
// The module EXTENDS Resume and adds one variable, cursor, the number of
// events matched so far. Each event becomes one action predicate Ev<i>:
// the spec's action with the event's parameter, conjoined with the primed
// variables the event observed. TraceNext takes the event at the cursor
// and advances it, so the behaviours of the trace spec are exactly the
// behaviours of Resume that match a prefix of the trace. TLC explores
// them breadth first; the trace is accepted when some behaviour matches
// every event, that is when the search reaches depth Len + 1, which the
// cfg's POSTCONDITION checks:
//
//	TraceAccepted == TLCGet("stats").diameter = TraceLen + 1
//
// This is the standard TLA+ trace validation (as in etcd-io/raft's tla/
// and Microsoft CCF), with the events embedded in the module instead of
// read from the file with IOUtils, so the module runs with tla2tools.jar
// alone.
//
// A Writer writes the module as the events arrive, so a long trace is
// never held in memory: TraceLen and the dispatch over the events come
// after the event predicates, where the number of events is known. What
// the trace or the user chose (producer, file name, model value names,
// the module name) is escaped or refused, never copied: see names.go.
package tlagen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// Options name the generated module. The zero value names it Trace.
type Options struct {
	// Module is the module's name (and file name without .tla); it must
	// pass CheckModule. "" means "Trace".
	Module string
	// Source names the trace file in the comments of the module and the
	// cfg; any text (it is escaped).
	Source string
	// Pair, when not "", ties the module to its cfg: the module declares
	// CONSTANT TracePair and ASSUMEs it equals Pair, and the cfg gives it
	// Pair, so that TLC refuses a module and a cfg written by two
	// different runs (an assumption violated) instead of checking one
	// trace against another's constants. trace2tla gives it a digest of
	// the trace. Letters and digits only.
	Pair string
}

func (o Options) module() string {
	if o.Module == "" {
		return "Trace"
	}
	return o.Module
}

// Output is a generated module and cfg.
type Output struct {
	Module string
	TLA    []byte
	Cfg    []byte
	// Events is the number of events in the module.
	Events int
}

// ModuleName turns a file name into a module name: its base name without
// extension, with every character that may not appear in a TLA+ module
// name replaced by '_', prefixed with "Trace_". The result always passes
// CheckModule (the prefix keeps it apart from every library module),
// unless it is longer than a module name may be.
func ModuleName(path string) string {
	base := filepath.Base(path)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	var sb strings.Builder
	sb.WriteString("Trace_")
	for _, r := range base {
		if r < 128 && (r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	name := sb.String()
	if len(name) > maxModuleBytes {
		name = name[:maxModuleBytes]
	}
	return name
}

// valueIdents are the identifiers under which the cfg declares the model
// values (index i of Values at i, NoVal last). Values whose names are all
// identifiers that mean nothing else (IsIdentifier) keep their names, so
// the files read like the trace; otherwise every value is given a
// generated name, V1, V2, ... and V0 for NoVal, which cannot collide with
// each other, and the trace's names appear only in an escaped comment.
func valueIdents(p model.Params) (idents []string, generated bool) {
	names := append(append([]string{}, p.Values...), p.NoVal)
	for _, n := range names {
		if !IsIdentifier(n) {
			generated = true
		}
	}
	if !generated {
		return names, false
	}
	idents = make([]string, len(names))
	for i := range p.Values {
		idents[i] = "V" + strconv.Itoa(i+1)
	}
	idents[len(p.Values)] = "V0"
	return idents, true
}

// Writer writes a trace-validation module one event at a time.
type Writer struct {
	w      *bufio.Writer
	m      *model.Model
	h      trace.Header
	opt    Options
	idents []string
	n      int
	err    error
	line   []byte
}

// NewWriter checks the header and the options and writes the start of
// the module to w.
func NewWriter(w io.Writer, h trace.Header, opt Options) (*Writer, error) {
	if err := CheckModule(opt.module()); err != nil {
		return nil, err
	}
	for _, r := range opt.Pair {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return nil, fmt.Errorf("tlagen: pair %q: letters and digits only", opt.Pair)
		}
	}
	p, err := h.Params()
	if err != nil {
		return nil, err
	}
	m, err := model.New(p)
	if err != nil {
		return nil, err
	}
	idents, generated := valueIdents(p)
	g := &Writer{w: bufio.NewWriterSize(w, 64<<10), m: m, h: h, opt: opt, idents: idents}
	name := opt.module()
	var sb strings.Builder
	wr := func(format string, args ...any) { fmt.Fprintf(&sb, format, args...) }
	wr("%s MODULE %s %s\n", strings.Repeat("-", 20), name, strings.Repeat("-", 20))
	wr("(***************************************************************************)\n")
	comment(&sb, "Trace validation of "+sourceText(opt.Source)+" against Resume.tla, generated by trace2tla: do not edit.")
	comment(&sb, "Producer: "+producerText(h.Producer)+". Claimed faults: "+faultList(h.Faults)+".")
	comment(&sb, "Text taken from the trace (the producer, the file name) is written with every character but letters, digits, the space and .,:;/+@#!?_'[]{}<>~^&|$ as %XX, its byte in hex.")
	comment(&sb, "Each event is one predicate Ev<i>: the action it names, with its parameter, and the variables it observed after the step. cursor counts the events matched; the trace is accepted when some behaviour matches them all, which the cfg's POSTCONDITION TraceAccepted checks at the end of TLC's breadth-first search.")
	comment(&sb, fmt.Sprintf("Run: java -cp tla2tools.jar tlc2.TLC -workers 1 -config %s.cfg %s.tla", name, name))
	if generated {
		comment(&sb, "The trace's model values are not all TLA+ identifiers, so the cfg names them:")
		for i, v := range p.Values {
			comment(&sb, fmt.Sprintf("%s is %s", idents[i], commentText(v)))
		}
		comment(&sb, fmt.Sprintf("%s is NoVal, %s", idents[len(p.Values)], commentText(p.NoVal)))
	}
	wr("(***************************************************************************)\n")
	wr("EXTENDS Resume, TLC, Naturals, Sequences\n\n")
	wr("VARIABLE cursor  \\* the number of events matched so far\n\n")
	wr("(* The model values of the cfg, by name: an event names values as strings. *)\n")
	keys := make([]string, len(p.Values))
	for i := range p.Values {
		keys[i] = tlavalue.Quote(idents[i])
	}
	wr("Val == [n \\in {%s} |-> CHOOSE v \\in Values : ToString(v) = n]\n\n", strings.Join(keys, ", "))
	if _, err := g.w.WriteString(sb.String()); err != nil {
		return nil, err
	}
	return g, nil
}

// Event writes the predicate of the next event.
func (g *Writer) Event(ev *trace.Event) error {
	if g.err != nil {
		return g.err
	}
	g.n++
	g.line = g.appendEvent(g.line[:0], g.n, ev)
	if _, err := g.w.Write(g.line); err != nil {
		g.err = err
	}
	return g.err
}

// Events is the number of events written so far.
func (g *Writer) Events() int { return g.n }

// Close writes the end of the module (TraceLen, the dispatch over the
// events, the trace spec) and flushes it.
func (g *Writer) Close() error {
	if g.err != nil {
		return g.err
	}
	// Straight to the writer: the dispatch over millions of events is
	// tens of bytes per event, and is never held.
	wr := func(format string, args ...any) { fmt.Fprintf(g.w, format, args...) }
	wr("TraceLen == %d\n\n", g.n)
	wr("(* The predicate of event i, found by halving 1..TraceLen. *)\n")
	wr("Event(i) ==\n")
	if g.n == 0 {
		wr("    FALSE\n")
	} else {
		dispatch(g.w, 1, g.n, "    ")
	}
	wr("\nTraceInit == Init /\\ cursor = 0\n\n")
	wr("TraceNext ==\n    /\\ cursor < TraceLen\n    /\\ Event(cursor + 1)\n    /\\ cursor' = cursor + 1\n\n")
	wr("TraceSpec == TraceInit /\\ [][TraceNext]_<<vars, cursor>>\n\n")
	wr("(* Every step matches one event, so the breadth-first search reaches     *)\n")
	wr("(* depth TraceLen + 1 (the initial state is depth 1) exactly when some   *)\n")
	wr("(* behaviour of Resume matches every event.                              *)\n")
	wr("TraceAccepted == TLCGet(\"stats\").diameter = TraceLen + 1\n\n")
	if g.opt.Pair != "" {
		wr("(* The cfg written with this module gives TracePair the same value: TLC *)\n")
		wr("(* refuses this module with a cfg written for another trace.           *)\n")
		wr("CONSTANT TracePair\n")
		wr("ASSUME TracePair = %s\n\n", tlavalue.Quote(g.opt.Pair))
	}
	wr("%s\n", strings.Repeat("=", 77))
	g.err = g.w.Flush()
	return g.err
}

// Cfg is the cfg of the module: the header's constants and faults.
func (g *Writer) Cfg() ([]byte, error) { return cfg(g.h, g.m.P, g.idents, g.opt.Source, g.opt.Pair) }

// Generate writes the trace-validation module and cfg of t.
func Generate(t *trace.Trace, opt Options) (*Output, error) {
	var buf bytes.Buffer
	g, err := NewWriter(&buf, t.Header, opt)
	if err != nil {
		return nil, err
	}
	for i := range t.Events {
		if err := g.Event(&t.Events[i]); err != nil {
			return nil, err
		}
	}
	if err := g.Close(); err != nil {
		return nil, err
	}
	c, err := g.Cfg()
	if err != nil {
		return nil, err
	}
	return &Output{Module: opt.module(), TLA: buf.Bytes(), Cfg: c, Events: g.n}, nil
}

func sourceText(source string) string {
	if source == "" {
		return "a recorded trace"
	}
	return "the trace file " + commentText(source)
}

func producerText(p trace.Producer) string {
	if p.Name == "" && p.Version == "" {
		return "(unnamed)"
	}
	return "name " + orNone(p.Name) + ", version " + orNone(p.Version)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return commentText(s)
}

func faultList(fs []string) string {
	if len(fs) == 0 {
		return "none"
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = commentText(f)
	}
	return strings.Join(out, ", ")
}

// comment writes text as a boxed comment, wrapped at 71 columns. The
// caller has escaped whatever the text holds that came from a trace.
func comment(sb *strings.Builder, text string) {
	line := ""
	flush := func() {
		fmt.Fprintf(sb, "(* %-71s *)\n", line)
		line = ""
	}
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > 71 {
			flush()
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		flush()
	}
}

// dispatch writes a balanced IF tree selecting Ev<i> for i in lo..hi:
// TLC evaluates log2(TraceLen) comparisons per step instead of scanning a
// disjunction of every event.
func dispatch(w io.Writer, lo, hi int, indent string) {
	if hi-lo < 4 {
		fmt.Fprintf(w, "%s%s\n", indent, inline(lo, hi))
		return
	}
	mid := (lo + hi) / 2
	fmt.Fprintf(w, "%sIF i <= %d THEN\n", indent, mid)
	dispatch(w, lo, mid, indent+"    ")
	fmt.Fprintf(w, "%sELSE\n", indent)
	dispatch(w, mid+1, hi, indent+"    ")
}

func inline(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("Ev%d", lo)
	}
	mid := (lo + hi) / 2
	return fmt.Sprintf("(IF i <= %d THEN %s ELSE %s)", mid, inline(lo, mid), inline(mid+1, hi))
}

// appendEvent appends the predicate of event i.
func (g *Writer) appendEvent(b []byte, i int, ev *trace.Event) []byte {
	m := g.m
	b = append(b, "\\* event "...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, " ("...)
	if ev.Line > 0 {
		b = append(b, "line "...)
		b = strconv.AppendInt(b, int64(ev.Line), 10)
		b = append(b, ", "...)
	}
	b = append(b, "seq "...)
	b = strconv.AppendInt(b, ev.Seq, 10)
	b = append(b, "): "...)
	b = append(b, ev.Action.String()...)
	l, given := ev.Label()
	switch {
	case !given:
		b = append(b, "(?)"...)
	case ev.Action.TakesValue():
		b = append(b, '(')
		b = append(b, g.idents[l.Value]...)
		b = append(b, ')')
	case ev.Action == model.CrashRecover:
		b = append(b, '(')
		b = append(b, l.Decision.String()...)
		b = append(b, ')')
	}
	b = append(b, "\nEv"...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, " ==\n"...)
	switch {
	case ev.Action.TakesValue() && given:
		b = fmt.Appendf(b, "    /\\ %s(Val[%s])\n", ev.Action, tlavalue.Quote(g.idents[l.Value]))
	case ev.Action.TakesValue():
		b = fmt.Appendf(b, "    /\\ \\E v \\in Values : %s(v)\n", ev.Action)
	case ev.Action == model.CrashRecover && given:
		// CrashRecover chooses its decision inside; the decision it took
		// is the last entry of the recovery history.
		b = fmt.Appendf(b, "    /\\ CrashRecover\n    /\\ recoveries'[Len(recoveries')].decision = %s\n",
			tlavalue.Quote(l.Decision.String()))
	default:
		b = fmt.Appendf(b, "    /\\ %s\n", ev.Action)
	}
	if ev.Observed != 0 {
		vars := m.Vars(ev.State)
		for _, v := range ev.Observed.List() {
			b = fmt.Appendf(b, "    /\\ %s' = %s\n", v, g.expr(vars[v.String()]))
		}
	}
	return append(b, '\n')
}

// expr prints a value of one of the spec's variables as a TLA+
// expression of the trace module: like tlavalue's printing, except that
// model values are looked up by their cfg identifier (they are not
// identifiers of the module).
func (g *Writer) expr(v tlavalue.Value) string {
	switch v.Kind() {
	case tlavalue.KindModel:
		name, _ := v.AsModel()
		if name == g.m.P.NoVal {
			return "NoVal"
		}
		for i, n := range g.m.P.Values {
			if n == name {
				return "Val[" + tlavalue.Quote(g.idents[i]) + "]"
			}
		}
		panic("tlagen: a model value outside Values: " + quoteText(name))
	case tlavalue.KindTuple:
		parts := make([]string, v.Len())
		for i, e := range v.Elems() {
			parts[i] = g.expr(e)
		}
		return "<<" + strings.Join(parts, ", ") + ">>"
	case tlavalue.KindRecord:
		fs := v.Fields()
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = f.Name + " |-> " + g.expr(f.Value)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	// Booleans, integers and the decisions' strings print as TLA+ already.
	return v.String()
}

func cfg(h trace.Header, p model.Params, idents []string, source, pair string) ([]byte, error) {
	values := make([]tlavalue.Value, len(p.Values))
	for i := range p.Values {
		values[i] = tlavalue.Model(idents[i])
	}
	var faults []tlavalue.Value
	for _, f := range p.Faults.Faults() {
		faults = append(faults, tlavalue.Str(string(f)))
	}
	integer := func(n int) tlavalue.Value { return tlavalue.Int(int64(n)) }
	off := false
	c := &tlacfg.Config{
		Init: "TraceInit",
		Next: "TraceNext",
		Constants: []tlacfg.Constant{
			{Name: "NTasks", Value: integer(p.NTasks)},
			{Name: "IP", Value: integer(p.IP)},
			{Name: "Values", Value: tlavalue.Set(values...)},
			{Name: "NoVal", Value: tlavalue.Model(idents[len(p.Values)])},
			{Name: "MaxResumes", Value: integer(p.MaxResumes)},
			{Name: "MaxCrashes", Value: integer(p.MaxCrashes)},
			{Name: "MaxExtraResumes", Value: integer(p.MaxExtraResumes)},
			{Name: "Faults", Value: tlavalue.Set(faults...)},
			{Name: "Racers", Value: integer(p.Racers)},
			{Name: "CrashWhileParked", Value: tlavalue.Bool(p.CrashWhileParked)},
		},
		CheckDeadlock: &off,
		Other:         map[string][]string{"POSTCONDITION": {"TraceAccepted"}},
	}
	if pair != "" {
		c.Constants = append(c.Constants, tlacfg.Constant{Name: "TracePair", Value: tlavalue.Str(pair)})
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\\* Trace validation of %s, generated by trace2tla: do not edit.\n", sourceText(source))
	fmt.Fprintf(&sb, "\\* The constants are the trace header's (producer: %s).\n", producerText(h.Producer))
	sb.WriteString("\\* Text from the trace is written with %XX escapes (see the module).\n")
	sb.WriteString("\\* The trace spec stops where the trace ends, so a state without successor\n")
	sb.WriteString("\\* is no deadlock (CHECK_DEADLOCK FALSE); whether the whole trace matched is\n")
	sb.WriteString("\\* the POSTCONDITION, checked when the search is over. Run TLC with one\n")
	sb.WriteString("\\* worker: the verdict does not depend on it, and one worker keeps runs\n")
	sb.WriteString("\\* comparable.\n")
	if err := c.Write(&sb); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}

// WriteDir writes <Module>.tla and <Module>.cfg into dir.
func (o *Output) WriteDir(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, o.Module+".tla"), o.TLA, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, o.Module+".cfg"), o.Cfg, 0o644)
}
