package resume

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

func TestRegistrationValidate(t *testing.T) {
	if err := Registration.Validate(); err != nil {
		t.Fatal(err)
	}
	broken := Registration
	broken.Constants = nil
	if err := broken.Validate(); err == nil || !strings.Contains(err.Error(), "registration of Resume: Constants is missing") {
		t.Errorf("Resume without constants: %v", err)
	}
}

// cfgConstants reads a cfg of spec/ as Bind takes it.
func cfgConstants(t *testing.T, name string) (map[string]tlavalue.Value, []string) {
	t.Helper()
	cfg, err := tlacfg.ParseFile("../../spec/" + name)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]tlavalue.Value{}
	for _, k := range cfg.Constants {
		consts[k.Name] = k.Value
	}
	return consts, slices.Concat(cfg.Invariants, cfg.Properties)
}

// expected is a model's expected figures in spec/manifest.json.
func expected(t *testing.T, cfg string) (generated, distinct, depth int) {
	t.Helper()
	b, err := os.ReadFile("../../spec/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Models []struct {
			Cfg    string
			Expect struct{ Generated, Distinct, Depth int }
		}
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	for _, m := range man.Models {
		if m.Cfg == cfg {
			return m.Expect.Generated, m.Expect.Distinct, m.Expect.Depth
		}
	}
	t.Fatalf("spec/manifest.json has no %s", cfg)
	return
}

// Bound through its registration at R0.cfg's constants, Resume explores
// to the manifest's figures (states generated, distinct, depth) with
// every invariant the cfg names holding; and on every reachable state the
// transitions Labels lists that Disabled calls enabled are exactly those
// Next takes, in Next's order.
func TestRegistrationBindsR0(t *testing.T) {
	consts, props := cfgConstants(t, "R0.cfg")
	sp, err := Registration.Bind(consts, props)
	if err != nil {
		t.Fatal(err)
	}
	key := func(s model.Packed) string {
		buf := make([]byte, sp.Width())
		sp.Encode(buf, s)
		return string(buf)
	}
	level := sp.Init()
	generated, depth := len(level), 0
	seen := map[string]bool{}
	for _, s := range level {
		seen[key(s)] = true
	}
	for len(level) > 0 {
		depth++
		var next []model.Packed
		for _, s := range level {
			for _, p := range sp.Properties() {
				if p.Kind == tlaspec.Invariant && !p.Holds(s) {
					t.Fatalf("%s violated in %v", p.Name, sp.Vars(s))
				}
			}
			var taken, enabled []string
			sp.Next(s, func(l model.Label, u model.Packed) {
				generated++
				taken = append(taken, sp.Label(l))
				if !seen[key(u)] {
					seen[key(u)] = true
					next = append(next, u)
				}
			})
			for _, l := range sp.Labels(s) {
				if sp.Disabled(s, l) == "" {
					enabled = append(enabled, sp.Label(l))
				}
			}
			if !slices.Equal(taken, enabled) {
				t.Fatalf("%v: Next takes %v, Labels and Disabled say %v", sp.Vars(s), taken, enabled)
			}
		}
		level = next
	}
	g, d, dep := expected(t, "R0.cfg")
	if generated != g || len(seen) != d || depth != dep {
		t.Errorf("R0 through the registration: %d generated, %d distinct, depth %d; the manifest says %d, %d, %d",
			generated, len(seen), depth, g, d, dep)
	}
}

// A constant of the wrong kind, or one the spec's ASSUMEs refuse, is a
// ConstantError naming it.
func TestRegistrationBindRefuses(t *testing.T) {
	for _, c := range []struct {
		constant string
		value    tlavalue.Value
		want     string
	}{
		{"NTasks", tlavalue.Str("three"), `constant NTasks = "three": want an integer`},
		{"Values", tlavalue.Set(tlavalue.Str("va")), `constant Values: "va" is not a model value`},
		{"Faults", tlavalue.Set(tlavalue.Str("nosuch")), "constant Faults: "},
		{"CrashWhileParked", tlavalue.Int(1), "constant CrashWhileParked = 1: want TRUE or FALSE"},
		{"NTasks", tlavalue.Int(-1), "(the spec assumes it)"},
	} {
		consts, props := cfgConstants(t, "R0.cfg")
		consts[c.constant] = c.value
		_, err := Registration.Bind(consts, props)
		var ce *tlaspec.ConstantError
		if !errors.As(err, &ce) || ce.Constant != c.constant || !strings.Contains(ce.Msg, c.want) {
			t.Errorf("%s = %s: got %v, want a ConstantError on %s saying %q", c.constant, c.value, err, c.constant, c.want)
		}
	}
}
