package tlc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// release serves a fake tla2tools.jar at /v9.9.9/tla2tools.jar and returns
// the server and the jar's SHA-256.
func release(t *testing.T, entries ...string) (*httptest.Server, string) {
	t.Helper()
	jar, err := os.ReadFile(fakeJar(t, t.TempDir(), entries...))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(jar)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v9.9.9/tla2tools.jar" {
			http.NotFound(w, r)
			return
		}
		w.Write(jar)
	}))
	t.Cleanup(srv.Close)
	return srv, hex.EncodeToString(sum[:])
}

// leftovers lists the files in dir other than want.
func leftovers(t *testing.T, dir, want string) []string {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if e.Name() != want {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestInstall(t *testing.T) {
	isolate(t)
	srv, sum := release(t, "tlc2/TLC.class")
	def, _ := DefaultJar()
	ctx := context.Background()

	path, err := Install(ctx, InstallOptions{Version: "v9.9.9", SHA256: strings.ToUpper(sum), URL: srv.URL + "/v9.9.9/tla2tools.jar"})
	if err != nil || path != def {
		t.Fatalf("Install = %s, %v; want %s", path, err, def)
	}
	if _, err := CheckJar(path); err != nil {
		t.Errorf("the installed jar: %v", err)
	}
	if p, from, err := FindJar(""); p != def || from != FromDefault || err != nil {
		t.Errorf("FindJar after Install = %s %s %v", p, from, err)
	}
	if left := leftovers(t, filepath.Dir(def), "tla2tools.jar"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestInstallRefusesAMismatch(t *testing.T) {
	isolate(t)
	srv, sum := release(t, "tlc2/TLC.class")
	def, _ := DefaultJar()
	wrong := strings.Repeat("0", 64)
	_, err := Install(context.Background(), InstallOptions{Version: "9.9.9", SHA256: wrong, URL: srv.URL + "/v9.9.9/tla2tools.jar"})
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "has SHA-256 "+sum) || !strings.Contains(err.Error(), "nothing was installed") {
		t.Fatalf("Install with a wrong checksum: %v", err)
	}
	if _, err := os.Stat(def); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a jar was installed: %v", err)
	}
	if left := leftovers(t, filepath.Dir(def), ""); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestInstallRefusesAJarWithoutTLC(t *testing.T) {
	isolate(t)
	srv, sum := release(t, "org/example/Main.class")
	_, err := Install(context.Background(), InstallOptions{Version: "9.9.9", SHA256: sum, URL: srv.URL + "/v9.9.9/tla2tools.jar"})
	if !errors.Is(err, ErrNotTLC) || !strings.Contains(err.Error(), "has the pinned checksum but is not TLC's jar") {
		t.Fatalf("Install of a jar without TLC: %v", err)
	}
}

func TestInstallNotFound(t *testing.T) {
	isolate(t)
	srv, sum := release(t, "tlc2/TLC.class")
	_, err := Install(context.Background(), InstallOptions{Version: "0.0.1", SHA256: sum, URL: srv.URL + "/v0.0.1/tla2tools.jar"})
	if err == nil || !strings.Contains(err.Error(), "404 Not Found (is the version a TLC release?") {
		t.Fatalf("Install of a missing version: %v", err)
	}
}

// An unreachable server stands for this machine being offline.
func TestInstallOffline(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v9.9.9/tla2tools.jar"
	ln.Close() // nothing listens there now
	_, err = Install(context.Background(), InstallOptions{Version: "9.9.9", SHA256: strings.Repeat("a", 64), URL: url})
	if err == nil || !strings.Contains(err.Error(), "download "+url) || !strings.Contains(err.Error(), "cannot be reached (is this machine offline?)") {
		t.Fatalf("Install from an unreachable server: %v", err)
	}
	def, _ := DefaultJar()
	if left := leftovers(t, filepath.Dir(def), ""); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestInstallOptionsValidate(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tests := []struct {
		opt  InstallOptions
		want string
	}{
		{InstallOptions{SHA256: sum}, "no version"},
		{InstallOptions{Version: "latest", SHA256: sum}, `version "latest": want a release number`},
		{InstallOptions{Version: "1.7.4"}, "no checksum"},
		{InstallOptions{Version: "1.7.4", SHA256: "abc"}, "want 64 hexadecimal digits"},
	}
	for _, tt := range tests {
		if err := tt.opt.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.opt, err, tt.want)
		}
	}
	if err := (InstallOptions{Version: "v1.8.0", SHA256: sum}).Validate(); err != nil {
		t.Errorf("Validate of good options: %v", err)
	}
}
