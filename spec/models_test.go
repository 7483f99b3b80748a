package spec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ModelCfgs lists the manifest's models, by tier, and not a cfg that lies
// in the folder without an entry (a user's copy).
func TestModelCfgs(t *testing.T) {
	dir := t.TempDir()
	manifest := `{"spec": "S.tla", "models": [
  {"cfg": "A.cfg", "tier": "quick"},
  {"cfg": "B.cfg", "tier": "long"}
]}`
	for name, text := range map[string]string{ManifestFile: manifest, "A.cfg": "", "B.cfg": "", "mine.cfg": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for tier, want := range map[string][]string{
		"":      {filepath.Join(dir, "A.cfg"), filepath.Join(dir, "B.cfg")},
		"quick": {filepath.Join(dir, "A.cfg")},
		"none":  nil,
	} {
		got, err := ModelCfgs(dir, tier)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("tier %q (-want +got):\n%s", tier, d)
		}
	}
	if _, err := ModelCfgs(t.TempDir(), ""); !os.IsNotExist(err) {
		t.Errorf("a folder without a manifest: %v, want not-exist", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"models": [{"tier": "quick"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ModelCfgs(dir, ""); err == nil {
		t.Error("a model without a cfg was accepted")
	}
}
