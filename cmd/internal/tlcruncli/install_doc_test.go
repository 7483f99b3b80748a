package tlcruncli

import (
	"os"
	"regexp"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlc"
)

// TestInstallChecksumDocumented: the pinned release that README.md,
// docs/tlcrun.md and tlcrun install --help show is one version with one
// SHA-256, written as install takes it (64 hex digits), so that a reader
// copying any of them gets the same pin.
func TestInstallChecksumDocumented(t *testing.T) {
	pin := regexp.MustCompile(`tlcrun install --release (\S+) --sha256 ([0-9a-fA-F]+)\b`)
	sources := map[string]string{"tlcrun install --help": newInstallCmd().Example}
	for _, f := range []string{"../../../README.md", "../../../docs/tlcrun.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[f] = string(b)
	}
	pins := map[string]string{} // version -> checksum
	for name, text := range sources {
		found := pin.FindAllStringSubmatch(text, -1)
		if len(found) == 0 {
			t.Errorf("%s shows no 'tlcrun install --release V --sha256 <hex>'", name)
		}
		for _, m := range found {
			version, sum := m[1], m[2]
			if err := (&tlc.InstallOptions{Version: version, SHA256: sum}).Validate(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if prev, ok := pins[version]; ok && prev != sum {
				t.Errorf("%s pins %s to %s, another source to %s", name, version, sum, prev)
			}
			pins[version] = sum
		}
	}
}
