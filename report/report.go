package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
)

//go:embed assets/page.tmpl
var pageTemplate string

//go:embed assets/report.css
var pageCSS string

//go:embed assets/report.js
var pageJS string

//go:embed assets/anchors.js
var anchorsJS string

// anchorsMin is anchors.js without its comment lines and indentation:
// the matrix page carries it once and must stay small (docs/report.md).
var anchorsMin = minifyJS(anchorsJS)

// minifyJS drops the lines that are only a // comment and each line's
// leading spaces; the script keeps no string across lines, so nothing
// else changes.
func minifyJS(src string) string {
	var sb strings.Builder
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		sb.WriteString(t)
		sb.WriteByte('\n')
	}
	return sb.String()
}

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"join":        strings.Join,
	"slug":        slug,
	"add":         func(a, b int) int { return a + b },
	"statusClass": statusClass,
	// wbr lets a long name break after its separators (+ / @) only.
	"wbr": func(s string) template.HTML {
		var sb strings.Builder
		for _, r := range s {
			sb.WriteString(template.HTMLEscapeString(string(r)))
			if r == '+' || r == '/' || r == '@' {
				sb.WriteString("<wbr>")
			}
		}
		return template.HTML(sb.String())
	},
	// text escapes what an element's text needs escaped, & and <, and
	// leaves the rest as it is: the graphs' tooltips and the states are
	// TLA+ full of >> and "", which html/template's escaping would make
	// four to five times longer (44 KB of the R0 matrix page).
	"text": escapeText,
	// gloss is a sentence of teach cut to its name and its expansion:
	// "EO (effect exactly-once): every ..." gives "EO" and "effect
	// exactly-once", the folded summary of the sentences.
	"gloss": func(term string) []string {
		name, rest, ok := strings.Cut(term, " (")
		short, _, ok2 := strings.Cut(rest, "):")
		if !ok || !ok2 {
			return []string{term, ""}
		}
		return []string{name, short}
	},
	// svgTitle is a drawing's tooltip element; html/template would escape
	// its text as a <title>'s (RCDATA), >> included, whatever its type.
	"svgTitle": func(s string) template.HTML { return "<title>" + escapeText(s) + "</title>" },
	// neq writes TLA+'s "#" (not equal) as "≠" in a guard's explanation.
	"neq": func(s string) string { return strings.ReplaceAll(s, " # ", " ≠ ") },
}).Parse(pageTemplate))

func escapeText(s string) template.HTML {
	return template.HTML(strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(s))
}

// Options tune the pages. The zero value is the default.
type Options struct {
	// MaxGraphStates bounds the state graphs drawn (0: DefaultMaxStates);
	// a model with more reachable states is reported without its graph.
	MaxGraphStates int
	// PageDir is the folder the page is written to: links to files (a
	// conformance run's trace) are made relative to it ("": the paths as
	// read).
	PageDir string
	// Pending names the rows of a matrix still being checked: the page
	// of a matrix in progress shows them as pending and judges no claim.
	Pending []string
	// SpecFile and SpecSource are the module a CheckSpec page draws, as
	// the page names it and its text: a selected step shows its action's
	// definition ("": not shown). Resume's pages carry Resume.tla's.
	SpecFile, SpecSource string
	// SpecConstants are the constants of a CheckSpec page's model as TLA+
	// text, for the header of the traces it exports (nil: no export).
	SpecConstants map[string]string
}

// maxGraphStates is MaxGraphStates or its default.
func (o Options) maxGraphStates() int {
	if o.MaxGraphStates <= 0 {
		return DefaultMaxStates
	}
	return o.MaxGraphStates
}

// Page is one self-contained HTML report: its styles, its script and its
// data are inside the file, and it loads nothing from anywhere.
type Page struct {
	v pageView
}

// pageView is what the template sees.
type pageView struct {
	Kind     string
	Title    string
	Subtitle string
	// Answer is the page's verdict in one box at its top.
	Answer *answer
	Facts  []fact
	CSS    template.CSS
	JS     template.JS
	// Data is the result the page shows, as JSON in the page (for scripts
	// and tests that read the file).
	Data any

	Matrix      *matrixView
	Check       *checkView
	Trace       *traceView
	Conformance *confView
	Explore     *exploreView
	SpecExplore *specExploreView
	Induct      *inductView
	Graphs      []*graphDef
	// KeyKinds and KeyActions are the legend's samples, drawn once in the
	// page's definitions and used by every graph's legend (legendKeys).
	KeyKinds   []nodeKind
	KeyActions []edgeStyle
	// Extra is a script of the page's own, after the common one.
	Extra template.JS
	// Anchors are the definitions of the actions the page's timelines
	// take, shown beside a selected step (nil: none).
	Anchors *specText
}

// answer is what a reader came for, at the top of every page: the
// verdict, the fault that explains it and the obligations it violates.
type answer struct {
	Class, Headline, Reason string
	// Terms teach, one sentence each, the obligations and properties the
	// box names (teach).
	Terms []string
	// Faults are the faults that explain the result (a trace's diagnosis,
	// or the faults switched on in a checked model).
	Faults []string
	// FaultNote says what the faults are (e.g. "explained by").
	FaultNote string
	Violated  []string
	// ViolatedNote labels Violated ("violated" when empty).
	ViolatedNote string
	// Holding are the obligations that hold, when the page knows them.
	Holding []string
}

type fact struct {
	Name, Value string
	Class       string
	// Note says, after the value, why it is what it is.
	Note string
}

// Write writes the page.
func (p *Page) Write(w io.Writer) error {
	v := p.v
	v.CSS = template.CSS(pageCSS)
	v.JS = template.JS(pageJS)
	v.KeyKinds, v.KeyActions = legendKeys(v.Graphs)
	if v.Anchors != nil {
		v.JS += template.JS(anchorsMin)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, &v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WritePath writes the page to a file, through a temporary name renamed
// into place: a reader (or a browser reloading the page while a long run
// rewrites it) sees the old page or the whole new one.
func (p *Page) WritePath(path string) error {
	return atomicfile.WriteFile(path, p.Write)
}

// slug makes an HTML id fragment of s.
func slug(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			sb.WriteRune(r)
		default:
			sb.WriteByte('-')
		}
	}
	return sb.String()
}

// params says a model's constants in one line.
func params(p model.Params) string {
	s := fmt.Sprintf("NTasks = %d, IP = %d, Values = {%s}, MaxResumes = %d, MaxCrashes = %d, MaxExtraResumes = %d",
		p.NTasks, p.IP, strings.Join(p.Values, ", "), p.MaxResumes, p.MaxCrashes, p.MaxExtraResumes)
	if p.Racers > 1 {
		s += fmt.Sprintf(", Racers = %d", p.Racers)
	}
	if p.CrashWhileParked {
		s += ", CrashWhileParked = TRUE"
	}
	if p.Faults != 0 {
		s += ", Faults = " + p.Faults.String()
	}
	return s
}

// specTerms is teach for any spec of the seam: one sentence for each of
// sp's properties among names, in their order and once each, from what
// the spec says the property means (its mirror's registration, or the
// comment on its definition in the TLA+ text): "Consistent (invariant):
// no resource manager has committed while another has aborted." A name
// the spec has not got, or has no text for, is left out.
func specTerms(sp tlaspec.Any, names ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		i := slices.IndexFunc(sp.Properties(), func(p tlaspec.PropertyInfo) bool { return p.Name == n })
		if i < 0 || seen[n] {
			continue
		}
		seen[n] = true
		p := sp.Properties()[i]
		if p.Text == "" {
			continue
		}
		kind := "invariant"
		if p.Kind != tlaspec.Invariant {
			kind = "temporal property"
		}
		out = append(out, fmt.Sprintf("%s (%s): %s.", p.Name, kind, strings.TrimSuffix(p.Text, ".")))
	}
	return out
}

// teach is one sentence for each of the contract's names among names, in
// their order and once each (model.Teach): what a page says where it
// first names an obligation. A name the contract has not got is left out.
func teach(names ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if s := model.Teach(n); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
