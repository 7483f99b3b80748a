package report

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/trace"
)

// The anchors of a timeline (docs/report.md, "Anchors"): what a reader of
// a counterexample asks of it beyond the rows. The page's script
// (assets/anchors.js) does the work from what the page already holds:
// each row's action label and its state printed as TLA+ ("every
// variable"). The Go side adds only what the rows lack: the definitions
// of the spec's actions (once per page) and, per timeline, the first line
// of a trace file (the header) and the step a lasso returns to.

// specText is the TLA+ text of a spec's actions, embedded once in a page.
type specText struct {
	// File is the spec's file as the page names it.
	File string `json:"file"`
	// Actions are the definitions, in the spec's order.
	Actions []actionText `json:"actions"`
	// Headers are the first lines of the trace files the timelines
	// export (Timeline.ExportID - 1 is a timeline's).
	Headers []string `json:"headers,omitempty"`
	// Models are, in the explorer, the index in Headers of each model's
	// header by the model's name (the walk exports under the model
	// chosen).
	Models map[string]int `json:"models,omitempty"`
	// Decisions are the actions whose trace parameter is a recovery's
	// decision rather than a resume value (Resume's CrashRecover): what
	// an exported Resume event names its parameter by.
	Decisions []string `json:"decisions,omitempty"`
}

// actionText is one action's definition: its lines, from the one that
// names it to the last line before the next definition (its leading
// comment and the blank lines after it left out).
type actionText struct {
	Name string `json:"name"`
	// Line is the 1-based line of the definition's first line.
	Line int    `json:"line"`
	Text string `json:"text"`
}

// defLine matches a top-level definition's first line: a name, its
// parameters, "==".
var defLine = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*==`)

// actionTexts cuts the definitions of names out of a module's text. A
// definition runs until the next line that starts in column 0 (another
// definition, a comment, the module's end); the comment lines and blank
// lines just before that line belong to what follows. Names that the text
// does not define are left out.
func actionTexts(file, src string, names []string) *specText {
	lines := strings.Split(src, "\n")
	st := &specText{File: file, Actions: []actionText{}}
	for i, l := range lines {
		m := defLine.FindStringSubmatch(l)
		if m == nil || !slices.Contains(names, m[1]) || slices.ContainsFunc(st.Actions, func(a actionText) bool { return a.Name == m[1] }) {
			continue
		}
		end := i + 1
		for end < len(lines) && (lines[end] == "" || lines[end][0] == ' ' || lines[end][0] == '\t') {
			end++
		}
		for end > i+1 {
			t := strings.TrimSpace(lines[end-1])
			if t != "" && !strings.HasPrefix(t, `\*`) {
				break
			}
			end--
		}
		st.Actions = append(st.Actions, actionText{Name: m[1], Line: i + 1, Text: strings.Join(lines[i:end], "\n")})
	}
	return st
}

// anchorsOf is what a page's script needs beyond its timelines' rows:
// the text of the actions they take, cut out of the module src, and
// their trace headers, each once (a matrix's 33 timelines have 13); each
// timeline then names its header by its index. Nil when there is no
// timeline.
func anchorsOf(file, src string, tls ...*Timeline) *specText {
	if len(tls) == 0 {
		return nil
	}
	st := &specText{File: file, Actions: []actionText{}}
	if src != "" {
		st = actionTexts(file, src, actionsOf(tls...))
	}
	for _, tl := range tls {
		if tl.Export == "" {
			continue
		}
		i := slices.Index(st.Headers, tl.Export)
		if i < 0 {
			i = len(st.Headers)
			st.Headers = append(st.Headers, tl.Export)
		}
		tl.ExportID = i + 1
	}
	return st
}

// resumeAnchors is anchorsOf for Resume's pages.
func resumeAnchors(tls ...*Timeline) *specText {
	st := anchorsOf(spec.ResumeFile, spec.ResumeSource, tls...)
	if st != nil {
		st.Decisions = resumeDecisions()
	}
	return st
}

// resumeDecisions are Resume's actions whose parameter is a decision.
func resumeDecisions() []string { return []string{model.CrashRecover.String()} }

// resumeActions is the text of every action of Resume, for the
// explorer, which may take any.
func resumeActions() *specText {
	names := make([]string, len(model.Actions))
	for i, a := range model.Actions {
		names[i] = a.String()
	}
	st := actionTexts(spec.ResumeFile, spec.ResumeSource, names)
	st.Decisions = resumeDecisions()
	return st
}

// timelines are the panels' timelines.
func timelines(ps ...*panel) []*Timeline {
	var out []*Timeline
	for _, p := range ps {
		if p != nil && p.Timeline != nil {
			out = append(out, p.Timeline)
		}
	}
	return out
}

// actionsOf are the actions the timelines take, in order of first use.
func actionsOf(tls ...*Timeline) []string {
	var out []string
	for _, tl := range tls {
		if tl == nil {
			continue
		}
		for _, st := range tl.Steps {
			if st.Action != "" && !slices.Contains(out, st.Action) {
				out = append(out, st.Action)
			}
		}
	}
	return out
}

// resumeHeader is the first line of the trace file a Resume timeline
// exports: the model's constants and faults.
func resumeHeader(p model.Params) string {
	b, err := json.Marshal(trace.NewHeader(p, exportProducer))
	if err != nil {
		panic("report: a model's trace header does not encode: " + err.Error())
	}
	return string(b)
}

// specHeader is the first line of the trace file of any spec's timeline
// (trace.SpecFormat), its constants as TLA+ text.
func specHeader(module string, constants map[string]string) string {
	b, err := json.Marshal(trace.SpecHeader{Format: trace.SpecFormat, Version: trace.OneVersion, Module: module,
		Producer: exportProducer, Constants: constants})
	if err != nil {
		panic("report: a spec trace header does not encode: " + err.Error())
	}
	return string(b)
}

// exportProducer names the pages as the producer of the traces they
// export.
var exportProducer = trace.Producer{Name: "resumecheck report", Version: "1"}
