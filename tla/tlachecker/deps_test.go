package tlachecker

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The messages make deps prints when npm ci fails (Makefile, target deps).
const (
	depsSkipMsg    = "npm ci failed (offline, or no registry?): the tla-checker differential test will be skipped"
	depsRequireMsg = "npm ci failed, and RESUMECHECK_REQUIRE_TLA_CHECKER=1 requires tla-checker"
)

// TestOfflineDepsDegradeToSkip runs the Makefile's deps target in a scratch
// copy (the Makefile and js/'s package files, no node_modules, an empty npm
// cache) with the registry at a closed local port, then this package's
// TestDifferential in that copy: offline, make deps exits 0 saying the
// differential test will be skipped, and that test skips saying how to
// install tla-checker; with RESUMECHECK_REQUIRE_TLA_CHECKER=1 (CI) both
// fail. The Makefile with the degrade removed, and with the requirement
// ignored, must be caught.
func TestOfflineDepsDegradeToSkip(t *testing.T) {
	for _, tool := range []string{"make", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH: the offline make deps cannot be run", tool)
		}
	}
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	registry := closedRegistry(t)

	t.Run("offline", func(t *testing.T) {
		root := offlineCopy(t, makefile)
		out, err := makeDeps(t, root, registry, false)
		if err != nil || !strings.Contains(out, depsSkipMsg) {
			t.Fatalf("offline make deps: %v, want exit 0 and %q:\n%s", err, depsSkipMsg, out)
		}
		if _, err := os.Stat(filepath.Join(root, "tla/tlachecker/js/node_modules/tla-checker")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("tla-checker was installed with the registry at %s (stat: %v):\n%s", registry, err, out)
		}
		out, err = differentialIn(t, root, false)
		if err != nil || !strings.Contains(out, "--- SKIP: TestDifferential") ||
			!strings.Contains(out, "tla-checker not installed: run npm ci --prefix tla/tlachecker/js") {
			t.Fatalf("TestDifferential without tla-checker: %v, want a skip saying how to install it:\n%s", err, out)
		}
	})
	t.Run("offline-required", func(t *testing.T) {
		root := offlineCopy(t, makefile)
		out, err := makeDeps(t, root, registry, true)
		if err == nil || !strings.Contains(out, depsRequireMsg) {
			t.Fatalf("offline make deps with %s=1: %v, want a failure saying %q:\n%s", requireEnv, err, depsRequireMsg, out)
		}
		out, err = differentialIn(t, root, true)
		if err == nil || !strings.Contains(out, "--- FAIL: TestDifferential") || !strings.Contains(out, requireEnv+`="1"`) {
			t.Fatalf("TestDifferential without tla-checker and %s=1: %v, want a failure naming it:\n%s", requireEnv, err, out)
		}
	})

	// Mutations of the deps target: each must change what make deps does
	// offline in a way the checks above catch.
	for _, m := range []struct {
		name, old, new string
		require        bool
	}{
		// npm ci's failure fails the target, as before the degrade.
		{"no-degrade", `else echo "` + depsSkipMsg + `"; fi`, `else exit 1; fi`, false},
		// CI's requirement is ignored: offline passes there too.
		{"require-ignored", `elif [ "$$RESUMECHECK_REQUIRE_TLA_CHECKER" = 1 ]`, `elif false`, true},
	} {
		t.Run("mutant-"+m.name, func(t *testing.T) {
			if !strings.Contains(string(makefile), m.old) {
				t.Fatalf("the Makefile no longer has %q: update this mutation", m.old)
			}
			root := offlineCopy(t, []byte(strings.Replace(string(makefile), m.old, m.new, 1)))
			out, err := makeDeps(t, root, registry, m.require)
			switch {
			case !m.require && err != nil:
				t.Logf("caught: offline make deps fails (%v) without the degrade", err)
			case m.require && err == nil:
				t.Logf("caught: offline make deps passes with %s=1", requireEnv)
			default:
				t.Fatalf("mutant %s not caught: make deps: %v\n%s", m.name, err, out)
			}
		})
	}
}

// closedRegistry returns a registry URL at a loopback port nothing listens
// on, so that npm fails at once with ECONNREFUSED (no network wait).
func closedRegistry(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/"
}

// offlineCopy is a scratch root holding makefile and js/'s package files,
// without node_modules.
func offlineCopy(t *testing.T, makefile []byte) string {
	t.Helper()
	root := t.TempDir()
	js := filepath.Join(root, "tla", "tlachecker", "js")
	if err := os.MkdirAll(js, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Makefile"), makefile, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("js", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(js, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// makeDeps runs make deps in root with npm pointed at registry, an empty
// cache and empty config files (so neither a cached tarball nor a
// configured mirror can satisfy it), no retries and a short timeout. It
// also requires npm to have failed for the registry, not for some other
// reason (npm reports ECONNREFUSED).
func makeDeps(t *testing.T, root, registry string, require bool) (string, error) {
	t.Helper()
	npmDir := t.TempDir()
	for _, f := range []string{"user.npmrc", "global.npmrc"} {
		if err := os.WriteFile(filepath.Join(npmDir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "deps")
	cmd.Dir = root
	cmd.Env = append(envWithout(requireEnv, "MAKEFLAGS", "NPM"),
		"npm_config_registry="+registry,
		"npm_config_cache="+filepath.Join(npmDir, "cache"),
		"npm_config_userconfig="+filepath.Join(npmDir, "user.npmrc"),
		"npm_config_globalconfig="+filepath.Join(npmDir, "global.npmrc"),
		"npm_config_fetch_retries=0",
		"npm_config_fetch_retry_mintimeout=10",
		"npm_config_fetch_retry_maxtimeout=20",
		"npm_config_fetch_timeout=2000",
		"npm_config_update_notifier=false",
	)
	if require {
		cmd.Env = append(cmd.Env, requireEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	if !strings.Contains(string(out), "ECONNREFUSED") {
		t.Fatalf("npm ci did not fail on the closed registry %s (no ECONNREFUSED); make deps: %v\n%s", registry, err, out)
	}
	return string(out), err
}

// differentialIn runs this test binary's TestDifferential in root's copy
// of this package's folder, where js/ has no node_modules.
func differentialIn(t *testing.T, root string, require bool) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDifferential$", "-test.v", "-test.count=1")
	cmd.Dir = filepath.Join(root, "tla", "tlachecker")
	cmd.Env = envWithout(requireEnv)
	if require {
		cmd.Env = append(cmd.Env, requireEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// envWithout is the environment without the named variables.
func envWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}
