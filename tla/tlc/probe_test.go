package tlc

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlcout/tlcsample"
)

func probe(t *testing.T, jar string) error {
	t.Helper()
	s, err := Find(context.Background(), jar, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Probe(context.Background())
	return err
}

// TestProbeWithFakeTLC: the probe passes only on a complete run of its
// 3 states, whatever -version said: the recorded run of a jar without its
// standard modules fails (issue 14: doctor said Ready for such a jar), and
// so do runs that end without TLC's success or with other counts.
func TestProbeWithFakeTLC(t *testing.T) {
	ok, _ := tlcsample.Read(t, "probe_ok_tool.out")
	broken, _ := tlcsample.Read(t, "probe_nostdlib_tool.out")
	tests := []struct {
		name   string
		out    string
		status int
		want   string // "" = the probe passes
	}{
		{"whole jar", ok, 0, ""},
		{"no standard modules", broken, 150, "Cannot find source file for module Naturals imported in module Probe. (exit 150)"},
		{"other counts", strings.Replace(ok, "3 states generated, 3 distinct states found", "1 states generated, 1 distinct states found", 1), 0, "it reported 1 distinct states, want 3"},
		{"no success message", withoutMessage(ok, "2193"), 0, "and no success"},
		{"a non-zero exit", ok, 1, "exit 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.status == 0 && tt.want != "" && tt.out == ok {
				t.Fatal("the sample was not edited")
			}
			err := probe(t, fakeTLCText(t, tt.out, tt.status))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("the probe failed: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			case err != nil && !strings.Contains(err.Error(), "get an intact one"):
				t.Errorf("the error does not say what to do: %v", err)
			}
		})
	}
}

// withoutMessage cuts TLC's message of a code out of its -tool output.
func withoutMessage(out, code string) string {
	start := strings.Index(out, "@!@!@STARTMSG "+code+":")
	end := strings.Index(out, "@!@!@ENDMSG "+code+" @!@!@\n")
	if start < 0 || end < 0 {
		return out
	}
	return out[:start] + out[end+len("@!@!@ENDMSG "+code+" @!@!@\n"):]
}

// TestProbeLive runs the probe with the real TLC, and with a copy of its
// jar without the standard modules, built here (nothing is downloaded).
func TestProbeLive(t *testing.T) {
	jar := os.Getenv(JarEnv)
	if jar == "" {
		t.Skip("set TLA2TOOLS_JAR to the path of tla2tools.jar to run TLC")
	}
	if err := probe(t, jar); err != nil {
		t.Fatalf("the real jar: %v", err)
	}
	broken := filepath.Join(t.TempDir(), "tla2tools.jar")
	if n := copyJarWithout(t, jar, broken, "tla2sany/StandardModules/"); n == 0 {
		t.Fatal("the jar has no tla2sany/StandardModules/ entries to leave out")
	}
	if err := probe(t, broken); err == nil || !strings.Contains(err.Error(), "Cannot find source file for module Naturals") {
		t.Errorf("a jar without its standard modules: %v", err)
	}
}

// copyJarWithout copies a jar leaving out the entries under prefix and
// returns how many it left out.
func copyJarWithout(t *testing.T, src, dst, prefix string) int {
	t.Helper()
	r, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	left := 0
	for _, e := range r.File {
		if strings.HasPrefix(e.Name, prefix) {
			left++
			continue
		}
		rc, err := e.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		hdr := e.FileHeader
		out, err := w.CreateRaw(&hdr)
		if err != nil {
			t.Fatal(err)
		}
		if e.FileInfo().IsDir() {
			continue
		}
		if _, err := io.Copy(out, rc); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return left
}
