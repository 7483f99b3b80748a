package tlc

// Fake TLC installations for the tests of finding, probing and running
// TLC: a jar that is a zip with the entries asked for, a java that is a
// shell script, an environment that points nowhere else.

import (
	"archive/zip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlcout/tlcsample"
)

// fakeJar writes a zip file holding the named entries (and a manifest
// saying version v9.9.9) and returns its path.
func fakeJar(t *testing.T, dir string, entries ...string) string {
	t.Helper()
	path := filepath.Join(dir, "tla2tools.jar")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("META-INF/MANIFEST.MF")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("Manifest-Version: 1.0\r\nX-Git-Tag: v9.9.9\r\nX-Git-ShortRevision: abc1234\r\nMain-Class: tlc2.TLC\r\n"))
	for _, e := range entries {
		if _, err := zw.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeJava writes an executable shell script named java into dir/bin.
func fakeJava(t *testing.T, dir, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake java is a shell script")
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(bin, "java")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// isolate clears the environment tlc looks at.
func isolate(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv(JarEnv, "")
	t.Setenv("JAVA_HOME", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("HOME", dir)
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	return dir
}

// fakeTLC installs a java on PATH that answers -version as Java 17 and
// otherwise writes its arguments to dir/args, prints the recorded run
// sample and exits with the status the sample records: TLC without TLC.
// The script uses shell built-ins only, for PATH holds nothing else.
func fakeTLC(t *testing.T, sample string) (dir, jar string) {
	t.Helper()
	dir = isolate(t)
	out, status := tlcsample.Read(t, sample)
	if err := os.WriteFile(filepath.Join(dir, "out"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	fakeJava(t, dir, `if [ "$1" = -version ]; then echo 'openjdk version "17.0.2" 2022-01-18' >&2; exit 0; fi
for a in "$@"; do echo "$a"; done > `+dir+`/args
pwd > `+dir+`/pwd
while IFS= read -r line; do printf '%s\n' "$line"; done < `+dir+`/out
echo "a line on stderr" >&2
exit `+strconv.Itoa(status)+"\n")
	return dir, fakeJar(t, dir, "tlc2/TLC.class")
}

// fakeTLCText is fakeTLC with the output given as text.
func fakeTLCText(t *testing.T, out string, status int) (jar string) {
	t.Helper()
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, "out"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	fakeJava(t, dir, `if [ "$1" = -version ]; then echo 'openjdk version "17.0.2" 2022-01-18' >&2; exit 0; fi
while IFS= read -r line; do printf '%s\n' "$line"; done < `+dir+`/out
exit `+strconv.Itoa(status)+"\n")
	return fakeJar(t, dir, "tlc2/TLC.class")
}
