package spec

import (
	"os"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlanorm"
)

// TestRecordNamesTheSpec fails when Resume.tla was edited (beyond its
// comments and insignificant whitespace) without the comparison that
// records which text the Go model mirrors: the Go engine would refuse the
// spec, and it must not be committed that way.
func TestRecordNamesTheSpec(t *testing.T) {
	rec, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(MirrorFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != string(mirrorJSON) {
		t.Fatalf("%s differs from the record this test binary embeds", MirrorFile)
	}
	src, err := os.ReadFile(rec.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Normalisation != tlanorm.Version {
		t.Fatalf("%s records a digest of normal form %q; this build computes %q: run go run ./cmd/tlcrun mirror --update",
			MirrorFile, rec.Normalisation, tlanorm.Version)
	}
	got, err := tlanorm.Digest(src)
	if err != nil {
		t.Fatalf("spec/%s: %v", rec.Spec, err)
	}
	if got != rec.Digest {
		t.Fatalf("spec/%s changed since the Go model was last compared with it: its digest is %s, spec/%s records %s (compared %s).\n"+
			"If model/ mirrors the new text, run 'go run ./cmd/tlcrun mirror --update' from the repository's root (it needs "+
			"tla-checker, npm ci --prefix tla/tlachecker/js, or TLC) and commit spec/%s; if it does not, bring model/ in line first.",
			rec.Spec, got, MirrorFile, rec.Digest, rec.Compared, MirrorFile)
	}
	if rec.Compared == "" || rec.Command == "" || len(rec.Checks) == 0 {
		t.Errorf("%s does not say when and how the engines were compared: %+v", MirrorFile, rec)
	}
	for _, c := range rec.Checks {
		if c.Checker == "" || len(c.Models) == 0 {
			t.Errorf("%s: a check without a checker or models: %+v", MirrorFile, c)
		}
	}
}

func TestParseMirror(t *testing.T) {
	for _, bad := range []string{``, `{}`, `{"digest": "sha256:00"}`, `[1]`, `{"spec": "Resume.tla", "normalisation": "x"}`} {
		if _, err := ParseMirror([]byte(bad)); err == nil {
			t.Errorf("ParseMirror(%q) accepted it", bad)
		}
	}
}
