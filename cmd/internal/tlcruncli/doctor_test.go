package tlcruncli

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlcout/tlcsample"
)

// TestDoctorProbesTLC: doctor says Ready only when TLC checks a spec.
// Issue 14: it said Ready for a jar without its standard modules, where
// every run fails. A fake java replays TLC's recorded run of such a jar
// (tla/tlcout/testdata/probe_nostdlib_tool.out) and of a whole one;
// with TLA2TOOLS_JAR set, the real jar and a copy of it without
// tla2sany/StandardModules/ are probed too.
func TestDoctorProbesTLC(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake java is a shell script")
	}
	type doctorCase struct {
		name string
		jar  func(t *testing.T) string // sets PATH too, for a fake java
		exit int
		want string
	}
	fake := func(sample string, status string) func(t *testing.T) string {
		return func(t *testing.T) string { return fakeTLC(t, t.TempDir(), sample, status) }
	}
	cases := []doctorCase{
		{"fake TLC without standard modules", fake("probe_nostdlib_tool.out", "150"), ExitNoTLC,
			"Probe:   FAILED: TLC could not check a 3-state spec that extends Naturals, Sequences, FiniteSets and TLC, so no model will run: "},
		{"fake whole TLC", fake("probe_ok_tool.out", "0"), ExitOK, "Probe:   TLC checked a 3-state spec that extends Naturals, Sequences, FiniteSets and TLC: ok"},
	}
	if real := os.Getenv("TLA2TOOLS_JAR"); real != "" {
		cases = append(cases,
			doctorCase{"real TLC", func(t *testing.T) string { return real }, ExitOK, "Probe:   TLC checked a 3-state spec"},
			doctorCase{"real TLC without standard modules", func(t *testing.T) string {
				return jarWithout(t, real, "tla2sany/StandardModules/")
			}, ExitNoTLC, "Cannot find source file for module Naturals"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TLA2TOOLS_JAR", "")
			t.Setenv("JAVA_HOME", "")
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			jar := c.jar(t)
			var stdout, stderr bytes.Buffer
			code := Program.Main([]string{"doctor", "--jar", jar}, &stdout, &stderr)
			if code != ExitOK && !strings.Contains(stdout.String(), "Cannot find source file for module Naturals") {
				t.Errorf("doctor does not say what TLC reported:\n%s", stdout.String())
			}
			if code != c.exit || !strings.Contains(stdout.String(), c.want) {
				t.Errorf("doctor: exit %d, want %d and %q:\n%s%s", code, c.exit, c.want, stdout.String(), stderr.String())
			}
			ready := strings.Contains(stdout.String(), "\nReady:")
			if ready != (c.exit == ExitOK) {
				t.Errorf("doctor says Ready: %v, want %v:\n%s", ready, c.exit == ExitOK, stdout.String())
			}
		})
	}
}

// fakeTLC makes dir/bin/java, a Java 17 that prints TLC's recorded output
// sample (without its exit line) and exits with status, puts dir/bin alone
// on PATH, and returns a jar with TLC's main class in it.
func fakeTLC(t *testing.T, dir, sample, status string) string {
	t.Helper()
	b, err := os.ReadFile(tlcsample.Path(sample))
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimRight(string(b), "\n")
	out = out[:strings.LastIndex(out, "\n")+1] // the "exit N" line
	os.WriteFile(filepath.Join(dir, "out"), []byte(out), 0o644)
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	script := `#!/bin/sh
if [ "$1" = -version ]; then echo 'openjdk version "17.0.2" 2022-01-18' >&2; exit 0; fi
while IFS= read -r line; do printf '%s\n' "$line"; done < ` + dir + `/out
exit ` + status + "\n"
	os.WriteFile(filepath.Join(dir, "bin", "java"), []byte(script), 0o755)
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	return writeJar(t, dir, map[string]string{"tlc2/TLC.class": ""})
}

// writeJar writes a zip with the given entries as dir/tla2tools.jar.
func writeJar(t *testing.T, dir string, entries map[string]string) string {
	t.Helper()
	path := filepath.Join(dir, "tla2tools.jar")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range entries {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jarWithout copies a jar without the entries under prefix.
func jarWithout(t *testing.T, src, prefix string) string {
	t.Helper()
	r, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dst := filepath.Join(t.TempDir(), "tla2tools.jar")
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
		hdr := e.FileHeader
		out, err := w.CreateRaw(&hdr)
		if err != nil {
			t.Fatal(err)
		}
		if e.FileInfo().IsDir() {
			continue
		}
		rc, err := e.OpenRaw()
		if err != nil {
			t.Fatal(err)
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
	if left == 0 {
		t.Fatalf("%s has no %s entries", src, prefix)
	}
	return dst
}

// TestDoctorReportsJavac: with a Java, doctor says whether its javac is
// there (only check --distributed's server needs it), without counting
// its absence as a problem.
func TestDoctorReportsJavac(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake java is a shell script")
	}
	for _, withJavac := range []bool{true, false} {
		dir := t.TempDir()
		javac := filepath.Join(dir, "bin", "javac")
		jar := fakeTLC(t, dir, "probe_ok_tool.out", "0")
		if withJavac {
			os.WriteFile(javac, []byte("#!/bin/sh\n"), 0o755)
		}
		t.Setenv("TLA2TOOLS_JAR", "")
		t.Setenv("JAVA_HOME", "")
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		var stdout, stderr bytes.Buffer
		code := Program.Main([]string{"doctor", "--jar", jar}, &stdout, &stderr)
		want := "javac:   " + javac + " (check --distributed's server needs it"
		if !withJavac {
			want = "javac:   none beside " + filepath.Join(dir, "bin", "java") + " nor on PATH: check --distributed's server will not start"
		}
		if code != ExitOK || !strings.Contains(stdout.String(), want) {
			t.Errorf("javac there: %v: exit %d, want 0 and %q:\n%s%s", withJavac, code, want, stdout.String(), stderr.String())
		}
	}
}
