package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// The schema in docs/ is checked two ways: its enumerations are the Go
// vocabulary, and every line this package writes, and every line of the
// corpus, validates against it. The validator below knows the keywords
// the schema uses and fails on any other, so that the schema cannot
// quietly grow past what is tested.

const schemaPath = "../docs/trace.schema.json"

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return s
}

func strs(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func TestSchemaVocabulary(t *testing.T) {
	s := loadSchema(t)
	defs := s["$defs"].(map[string]any)
	def := func(name string) map[string]any { return defs[name].(map[string]any) }
	var actions, faults, decisions []string
	for _, a := range model.Actions {
		actions = append(actions, a.String())
	}
	for _, f := range model.AllFaults {
		faults = append(faults, string(f))
	}
	for d := model.Decision(0); d.String() != "?"; d++ {
		decisions = append(decisions, d.String())
	}
	keys := func(m any) []string {
		var ks []string
		for k := range m.(map[string]any) {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	sorted := func(ss []string) []string { ss = slices.Clone(ss); slices.Sort(ss); return ss }
	checks := []struct {
		what      string
		got, want []string
	}{
		{"action enum", strs(def("action")["enum"]), actions},
		{"fault enum", strs(def("fault")["enum"]), faults},
		{"decision enum", strs(def("decision")["enum"]), decisions},
		{"vars", keys(def("vars")["properties"]), sorted(model.VarNames)},
		{"constants", keys(def("constants")["properties"]),
			sorted([]string{"NTasks", "IP", "Values", "NoVal", "MaxResumes", "MaxCrashes", "MaxExtraResumes", "Racers", "CrashWhileParked"})},
		{"event fields", keys(def("event")["properties"]), []string{"action", "params", "seq", "time", "vars"}},
	}
	for _, c := range checks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("schema %s = %v, want %v", c.what, c.got, c.want)
		}
	}
	// The header's JSON field names are the schema's.
	h := NewHeader(model.R0(), Producer{Name: "x", Version: "1"})
	b, _ := json.Marshal(h)
	var hm map[string]any
	_ = json.Unmarshal(b, &hm)
	hm["module"] = ResumeModule // the one format's envelope names it
	if got, want := keys(hm), keys(def("header")["properties"]); !slices.Equal(got, want) {
		t.Errorf("header fields %v, schema %v", got, want)
	}
}

// TestSchemaVersions: the schema takes a Resume header in either version
// (the corpus's, and the same in the one format), and refuses each mix of
// the two that the decoder refuses.
func TestSchemaVersions(t *testing.T) {
	s := loadSchema(t)
	const rest = `"producer":{"name":"p","version":"1"},"constants":{"NTasks":3,"IP":2,"Values":["va","vb"],"NoVal":"NoVal","MaxResumes":2,"MaxCrashes":1,"MaxExtraResumes":1},"faults":[]}`
	for _, c := range []struct {
		header string
		ok     bool
	}{
		{`{"format":"resume-trace","version":1,` + rest, true},
		{`{"format":"tla-trace","version":2,"module":"Resume",` + rest, true},
		{`{"format":"resume-trace","version":2,` + rest, false},
		{`{"format":"resume-trace","version":1,"module":"Resume",` + rest, false},
		{`{"format":"tla-trace","version":2,` + rest, false},
		{`{"format":"tla-trace","version":1,"module":"Resume",` + rest, false},
		{`{"format":"tla-trace","version":2,"module":"TwoPhase",` + rest, false},
	} {
		err := validateLine(s, c.header)
		if (err == nil) != c.ok {
			t.Errorf("schema on %.70s: %v, want valid %v", c.header, err, c.ok)
		}
		_, derr := Decode(strings.NewReader(c.header + "\n"))
		if (derr == nil) != c.ok {
			t.Errorf("decoder on %.70s: %v, want valid %v", c.header, derr, c.ok)
		}
	}
}

func TestSchemaValidatesWrittenLines(t *testing.T) {
	s := loadSchema(t)
	masks := []VarSet{AllVars, 0, Vars(VarPC, VarConsumed)}
	for pi, p := range testParams() {
		m, _ := model.New(p)
		for seed := range uint64(6) {
			events := FromSteps(walk(m, seed), masks[int(seed)%len(masks)])
			if seed%2 == 1 && len(events) > 0 {
				events[0].Value, events[0].HasDecision = model.NoVal, false
			}
			var buf bytes.Buffer
			tr := &Trace{Header: NewHeader(p, Producer{Name: "t", Version: "1"}), Events: events}
			if err := tr.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if err := validateLine(s, line); err != nil {
					t.Fatalf("params %d seed %d line %d: %v\n%s", pi, seed, i+1, err, line)
				}
			}
		}
	}
}

// TestSchemaCorpus: every line of the well-formed corpus validates; the
// offending line of malformed traces that the schema can see does not.
func TestSchemaCorpus(t *testing.T) {
	s := loadSchema(t)
	files, _ := filepath.Glob("../testdata/traces/*/*.ndjson")
	for _, f := range files {
		if strings.Contains(f, "/bad/") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if err := validateLine(s, sc.Text()); err != nil {
				t.Errorf("%s:%d: %v", f, n, err)
			}
		}
	}
	for file, line := range map[string]int{"unknown-action.ndjson": 3, "wrong-type.ndjson": 3, "bad-constants.ndjson": -1} {
		raw, err := os.ReadFile(filepath.Join("../testdata/traces/bad", file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if line < 0 {
			continue // the ASSUME clauses (IP <= NTasks) are beyond a schema
		}
		if err := validateLine(s, lines[line-1]); err == nil {
			t.Errorf("%s line %d validates", file, line)
		}
	}
}

func validateLine(schema map[string]any, line string) error {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return validate(schema, schema, v, "$")
}

// validate checks v against schema node s (root resolves $ref).
func validate(root, s map[string]any, v any, path string) error {
	for k := range s {
		switch k {
		case "$schema", "$id", "title", "description", "$defs", "$ref", "oneOf", "allOf", "if", "then",
			"type", "required", "additionalProperties", "properties", "items", "enum", "const",
			"minimum", "maximum", "minItems", "maxItems", "uniqueItems", "minLength", "pattern":
		default:
			return fmt.Errorf("schema keyword %q at %s is unknown to the test's validator", k, path)
		}
	}
	sub := func(x any) map[string]any { return x.(map[string]any) }
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		if err := validate(root, sub(sub(root["$defs"])[name]), v, path); err != nil {
			return err
		}
	}
	if alts, ok := s["oneOf"].([]any); ok {
		n := 0
		var errs []string
		for _, a := range alts {
			if err := validate(root, sub(a), v, path); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: %d of oneOf match (%s)", path, n, strings.Join(errs, "; "))
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			if err := validate(root, sub(a), v, path); err != nil {
				return err
			}
		}
	}
	if cond, ok := s["if"]; ok && validate(root, sub(cond), v, path) == nil {
		if err := validate(root, sub(s["then"]), v, path); err != nil {
			return err
		}
	}
	if typ, ok := s["type"].(string); ok {
		var good bool
		switch typ {
		case "object":
			_, good = v.(map[string]any)
		case "array":
			_, good = v.([]any)
		case "string":
			_, good = v.(string)
		case "boolean":
			_, good = v.(bool)
		case "integer":
			n, isNum := v.(json.Number)
			_, err := n.Int64()
			good = isNum && err == nil
		}
		if !good {
			return fmt.Errorf("%s: want %s, got %v", path, typ, v)
		}
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		return fmt.Errorf("%s: want %v, got %v", path, c, v)
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return reflect.DeepEqual(x, v) }) {
		return fmt.Errorf("%s: %v is not one of %v", path, v, e)
	}
	if n, ok := v.(json.Number); ok {
		i, _ := n.Int64()
		if lo, ok := s["minimum"].(json.Number); ok {
			if l, _ := lo.Int64(); i < l {
				return fmt.Errorf("%s: %d < minimum %d", path, i, l)
			}
		}
		if hi, ok := s["maximum"].(json.Number); ok {
			if h, _ := hi.Int64(); i > h {
				return fmt.Errorf("%s: %d > maximum %d", path, i, h)
			}
		}
	}
	if str, ok := v.(string); ok {
		if pat, ok := s["pattern"].(string); ok {
			// ECMA-262's \uXXXX is RE2's \x{XXXX}.
			re := regexp.MustCompile(regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`).ReplaceAllString(pat, `\x{$1}`))
			if !re.MatchString(str) {
				return fmt.Errorf("%s: %q does not match %s", path, str, pat)
			}
		}
		if ml, ok := s["minLength"].(json.Number); ok {
			if l, _ := ml.Int64(); int64(len(str)) < l {
				return fmt.Errorf("%s: shorter than %d", path, l)
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if lo, ok := s["minItems"].(json.Number); ok {
			if l, _ := lo.Int64(); int64(len(arr)) < l {
				return fmt.Errorf("%s: fewer than %d items", path, l)
			}
		}
		if hi, ok := s["maxItems"].(json.Number); ok {
			if h, _ := hi.Int64(); int64(len(arr)) > h {
				return fmt.Errorf("%s: more than %d items", path, h)
			}
		}
		if u, _ := s["uniqueItems"].(bool); u {
			for i := range arr {
				for j := i + 1; j < len(arr); j++ {
					if reflect.DeepEqual(arr[i], arr[j]) {
						return fmt.Errorf("%s: items %d and %d are equal", path, i, j)
					}
				}
			}
		}
		if it, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				if err := validate(root, it, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, has := obj[r.(string)]; !has {
					return fmt.Errorf("%s: missing %s", path, r)
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, e := range obj {
			ps, known := props[k]
			if !known {
				if ap, ok := s["additionalProperties"].(bool); ok && !ap {
					return fmt.Errorf("%s: unexpected property %q", path, k)
				}
				continue
			}
			if err := validate(root, sub(ps), e, path+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestSchemaRefusesControlText: the schema's rule for the header's text is
// the decoder's (no control character, even escaped).
func TestSchemaRefusesControlText(t *testing.T) {
	s := loadSchema(t)
	for _, in := range []string{`a\nb`, `a\u0000`, `\u001b[2J`, `\u0085`} {
		line := strings.Replace(header, `"name":"t"`, `"name":"`+in+`"`, 1)
		if err := validateLine(s, line); err == nil {
			t.Errorf("the schema takes the producer name %s", in)
		}
		if _, err := Decode(strings.NewReader(line)); err == nil {
			t.Errorf("the decoder takes the producer name %s", in)
		}
	}
	if err := validateLine(s, strings.Replace(header, `"name":"t"`, `"name":"r\u00e9sum\u00e9 \u2028"`, 1)); err != nil {
		t.Errorf("the schema refuses printable text: %v", err)
	}
}
