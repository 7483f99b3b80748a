package tlaspec_test

import (
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// record is a mirror record of Toy.tla.
const record = `{"spec": "Toy.tla", "normalisation": "n1", "digest": "sha256:00"}`

func toy() tlaspec.Registration[int, int] {
	return tlaspec.Registration[int, int]{
		Module:     "Toy",
		Record:     []byte(record),
		Constants:  []string{"N"},
		Invariants: []string{"TypeOK"},
		Temporal:   []string{"Liveness"},
		Bind: func(map[string]tlavalue.Value, []string) (tlaspec.Spec[int, int], error) {
			return nil, nil
		},
	}
}

func TestRegistrationValidate(t *testing.T) {
	if err := toy().Validate(); err != nil {
		t.Fatalf("a complete registration: %v", err)
	}
	none := toy()
	none.Constants = []string{}
	if err := none.Validate(); err != nil {
		t.Errorf("a spec without constants: %v", err)
	}
	for _, c := range []struct {
		name  string
		spoil func(r *tlaspec.Registration[int, int])
		want  string
	}{
		{"no module", func(r *tlaspec.Registration[int, int]) { r.Module = "" }, "registration of an unnamed spec: Module is missing"},
		{"bad module", func(r *tlaspec.Registration[int, int]) { r.Module = "Toy.tla" }, `Module "Toy.tla" is not a TLA+ module name`},
		{"no record", func(r *tlaspec.Registration[int, int]) { r.Record = nil }, "registration of Toy: Record is missing"},
		{"bad record", func(r *tlaspec.Registration[int, int]) { r.Record = []byte("{") }, "Record is not a mirror record"},
		{"record of another spec", func(r *tlaspec.Registration[int, int]) { r.Module = "Other" }, "Record is of Toy.tla, not of Other.tla"},
		{"no bind", func(r *tlaspec.Registration[int, int]) { r.Bind = nil }, "registration of Toy: Bind is missing"},
		{"no constants", func(r *tlaspec.Registration[int, int]) { r.Constants = nil }, "registration of Toy: Constants is missing"},
		{"no properties", func(r *tlaspec.Registration[int, int]) { r.Invariants, r.Temporal = nil, nil }, "Invariants and Temporal are both empty"},
		{"twice", func(r *tlaspec.Registration[int, int]) { r.Invariants = []string{"TypeOK", "TypeOK"} }, "Invariants names TypeOK twice"},
		{"two roles", func(r *tlaspec.Registration[int, int]) { r.Temporal = []string{"N"} }, "N is named in both Constants and Temporal"},
		{"not a name", func(r *tlaspec.Registration[int, int]) { r.Constants = []string{"a b"} }, `Constants names "a b", which is not a TLA+ identifier`},
	} {
		r := toy()
		c.spoil(&r)
		err := r.Validate()
		if err == nil {
			t.Errorf("%s: Validate passed", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %q, want it to say %q", c.name, err, c.want)
		}
	}
}

func TestRegistrationProperties(t *testing.T) {
	if got := strings.Join(toy().Properties(), " "); got != "TypeOK Liveness" {
		t.Errorf("Properties: got %q, want %q", got, "TypeOK Liveness")
	}
}
