package tlcruncli

// The tests of this package run the second spec (examples/twophase) as
// the commands do: registered by the registry they import.
import (
	"bytes"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	_ "github.com/resumecontract/resumecheck/registry"
	"github.com/resumecontract/resumecheck/spec"
)

// tlcrun --version names the text of every spec its Go engine takes: the
// record of each registered spec (the registry's) after Resume's.
func TestVersionNamesRegisteredSpecs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Program.Main([]string{"check", "--version"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("check --version: exit %d, stderr %q", code, stderr.String())
	}
	records := check.Records()
	if len(records) == 0 {
		t.Fatal("no spec registered besides Resume; the registry registers TwoPhase")
	}
	for _, text := range records {
		m, err := spec.ParseMirror(text)
		if err != nil {
			t.Fatal(err)
		}
		if want := "mirrors " + m.Spec + " " + m.Digest; !strings.Contains(stdout.String(), want) {
			t.Errorf("--version printed %q; want a line %q", stdout.String(), want)
		}
	}
}
