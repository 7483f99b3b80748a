package tlagen

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/trace"
)

// hostileTexts are producer names, versions and file names that try to
// leave the comments they are written into.
var hostileTexts = []string{
	"1\nCONSTANT TraceLen = 1\n\\*", // ends the cfg's line comment (issue 14)
	"a *) b (* c",                   // leaves the module's header comment
	"*)\nTraceLen == 1\n(*",
	"\r\nINVARIANT FALSE",
	"\\* x", "\"", "(*", "*)", "%41", "====", "----- MODULE X -----",
	"\x00", "\x1b[2J", "\u2028", "é", "\xff\xfe", strings.Repeat("*)", 300),
}

func TestCommentText(t *testing.T) {
	for _, s := range hostileTexts {
		got := commentText(s)
		for i := 0; i < len(got); i++ {
			if c := got[i]; !commentSafe[c] && c != '%' {
				t.Errorf("commentText(%q) = %q holds %q", s, got, c)
			}
		}
		if len(got) > maxCommentText+3+2 {
			t.Errorf("commentText(%q) is %d bytes long", s, len(got))
		}
	}
	if got := commentText("a *) b"); got != "a %2A%29 b" {
		t.Errorf("got %q", got)
	}
}

func TestCheckModule(t *testing.T) {
	for _, tc := range []struct{ name, err string }{
		{"Resume", "is the spec's"},
		{"resume", "is the spec's"},
		{"RESUME", "is the spec's"},
		{"TLC", "library module TLC"},
		{"Sequences", "library module Sequences"},
		{"naturals", "library module Naturals"},
		{"Integers", "library module"},
		{"FiniteSets", "library module"},
		{"Bags", "library module"},
		{"IOUtils", "library module"},
		{"Json", "library module"},
		{"SequencesExt", "library module"},
		{"_TLCTrace", "starts with '_'"},
		{"IF", "reserved word"},
		{"INIT", "keyword of TLC's cfg"},
		{"a-b", "not a TLA+ identifier"},
		{"Trace\n", "not a TLA+ identifier"},
		{"123", "not a TLA+ identifier"},
		{"", "empty"},
		{strings.Repeat("a", 200), "longer than"},
	} {
		err := CheckModule(tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("CheckModule(%q) = %v, want %q", tc.name, err, tc.err)
		}
	}
	for _, name := range []string{"Trace", "Trace_run1", "MyTrace", "Trace_Resume", ModuleName("x/Resume.ndjson"), ModuleName("TLC.ndjson")} {
		if err := CheckModule(name); err != nil {
			t.Errorf("CheckModule(%q): %v", name, err)
		}
	}
}

// TestHostileHeader is issue 14's reproduction at the generator: a trace
// whose producer version would end the cfg's comment and set TraceLen to
// 1, and whose producer name would end the module's header comment,
// generates the same module and cfg, comments aside, as a trace with a
// harmless producer.
func TestHostileHeader(t *testing.T) {
	base := simTrace(t, model.R0(), 1, trace.AllVars)
	for _, s := range hostileTexts {
		out := generateHostile(t, base, s)
		checkWellFormed(t, out)
		cfg, err := tlacfg.Parse("h.cfg", string(out.Cfg))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cfg.Constant("TraceLen"); ok {
			t.Errorf("%q: the cfg sets TraceLen:\n%s", s, out.Cfg)
		}
	}
}

// generateHostile generates the module of base with s as the file name
// and, where the format allows it (no control characters), as the
// producer's name and version; where it does not, Generate must refuse
// the producer as bad input (the decoder's rule).
func generateHostile(t *testing.T, base *trace.Trace, s string) *Output {
	t.Helper()
	tr := *base
	tr.Header.Producer = trace.Producer{Name: s, Version: s + "v"}
	out, err := Generate(&tr, Options{Module: "Trace_h", Source: s})
	if err != nil {
		if !errors.Is(err, trace.ErrBadInput) || !strings.Contains(err.Error(), "control character") && !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("%q: %v", s, err)
		}
		tr.Header.Producer = trace.Producer{Name: "p", Version: "v"}
		if out, err = Generate(&tr, Options{Module: "Trace_h", Source: s}); err != nil {
			t.Fatalf("%q as the file name: %v", s, err)
		}
	}
	return out
}

// checkWellFormed checks out against the same trace with harmless text:
// the module and the cfg lex, and their tokens other than comments are
// equal; the cfg parses to the same configuration.
func checkWellFormed(t *testing.T, out *Output) {
	t.Helper()
	if err := WellFormed(out); err != nil {
		t.Fatalf("%v\nmodule:\n%s\ncfg:\n%s", err, out.TLA, out.Cfg)
	}
}

// harmless is t with a producer and file name that cannot be hostile.
func harmless(tr *trace.Trace) *trace.Trace {
	c := *tr
	c.Header.Producer = trace.Producer{Name: "p", Version: "v"}
	return &c
}

func TestHostileStructure(t *testing.T) {
	base := simTrace(t, model.R0(), 4, trace.AllVars)
	want, err := Generate(harmless(base), Options{Module: "Trace_h", Source: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range hostileTexts {
		got := generateHostile(t, base, s)
		if err := SameStructure(got, want); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}

// TestStructureCatchesInjection: the structure check fails when text gets
// out of a comment, which is what the tests above rely on.
func TestStructureCatchesInjection(t *testing.T) {
	out, err := Generate(simTrace(t, model.R0(), 4, trace.AllVars), Options{Module: "Trace_h", Source: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ where, old, inject string }{
		{"module", "(* Producer: ", "(* Producer: *) TraceLen == 1 (* "},
		{"module", "(* Producer: ", "(* Producer: \" "},
		{"cfg", "(producer: ", "(producer: 1\nCONSTANT TraceLen = 1\n\\* "},
	} {
		bad := *out
		if tc.where == "module" {
			bad.TLA = bytes.Replace(out.TLA, []byte(tc.old), []byte(tc.inject), 1)
		} else {
			bad.Cfg = bytes.Replace(out.Cfg, []byte(tc.old), []byte(tc.inject), 1)
		}
		if err := SameStructure(&bad, out); err == nil {
			t.Errorf("%s: injecting %q goes unnoticed", tc.where, tc.inject)
		}
	}
}

// FuzzGenerate: for any trace the decoder accepts, with any file name and
// module name, the generator either refuses the module name (and only
// for a reason CheckModule gives) or writes a module and cfg that lex and
// parse, and that equal, outside comments, those of the same trace with a
// harmless producer and file name.
//
//	go test ./tla/tlagen -run '^$' -fuzz FuzzGenerate -fuzztime 60s
func FuzzGenerate(f *testing.F) {
	valid := validTrace(f, trace.Producer{Name: "x", Version: "1"})
	for _, s := range hostileTexts {
		f.Add(valid, s, "Trace_x", s, "")
	}
	f.Add(validTrace(f, trace.Producer{Name: "a *) b (* c", Version: "1"}), "run.ndjson", "Trace_run", "", "")
	f.Add(valid, "Resume.ndjson", "Resume", "", "")
	f.Add(valid, "t", "TLC", "*)", "(*")
	f.Fuzz(func(t *testing.T, data []byte, source, module, name, version string) {
		tr, err := trace.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		// The producer from the fuzzer's strings, when they are text the
		// format takes (the decoder refuses the rest).
		if name != "" || version != "" {
			h := tr.Header
			h.Producer = trace.Producer{Name: name, Version: version}
			if _, err := h.Params(); err == nil {
				tr.Header = h
			}
		}
		out, err := Generate(tr, Options{Module: module, Source: source})
		if merr := CheckModule(Options{Module: module}.module()); merr != nil {
			if err == nil {
				t.Fatalf("module %q generated, CheckModule: %v", module, merr)
			}
			return
		}
		if err != nil {
			t.Fatalf("a decoded trace is refused: %v", err)
		}
		if err := WellFormed(out); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out.TLA, out.Cfg)
		}
		want, err := Generate(harmless(tr), Options{Module: module, Source: "s"})
		if err != nil {
			t.Fatal(err)
		}
		if err := SameStructure(out, want); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out.TLA, out.Cfg)
		}
	})
}

// validTrace is a short accepted trace of R0 with the producer pr, as
// bytes.
func validTrace(tb testing.TB, pr trace.Producer) []byte {
	m, err := model.New(model.R0())
	if err != nil {
		tb.Fatal(err)
	}
	s := m.Init()
	steps := []model.Step{{State: s}}
	for range 4 {
		succ := m.Successors(s)
		if len(succ) == 0 {
			break
		}
		steps = append(steps, succ[0])
		s = succ[0].State
	}
	tr := &trace.Trace{Header: trace.NewHeader(model.R0(), pr), Events: trace.FromSteps(steps, trace.AllVars)}
	var buf bytes.Buffer
	if err := tr.Encode(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
