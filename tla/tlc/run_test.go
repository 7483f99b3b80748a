package tlc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// specFiles writes a spec and a cfg to a fresh folder.
func specFiles(t *testing.T) (spec, cfg string) {
	dir := t.TempDir()
	spec, cfg = filepath.Join(dir, "Resume.tla"), filepath.Join(dir, "R0.cfg")
	os.WriteFile(spec, []byte("---- MODULE Resume ----\n====\n"), 0o644)
	os.WriteFile(cfg, []byte("INIT Init\nNEXT Next\n"), 0o644)
	return spec, cfg
}

func TestRunWithFakeTLC(t *testing.T) {
	dir, jar := fakeTLC(t, "resume_replay_tool.out")
	spec, cfg := specFiles(t)
	var codes []tlcout.Code
	res, err := Run(context.Background(), Options{Jar: jar, Spec: spec, Cfg: cfg, Continue: true,
		Dump: filepath.Join(dir, "states.dump"), Progress: func(m tlcout.Message) { codes = append(codes, m.Code) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 12 || res.Stderr != "a line on stderr\n" || len(res.Violations) != 1 || res.Err() != nil {
		t.Errorf("exit %d, stderr %q, %d violations, err %v", res.ExitCode, res.Stderr, len(res.Violations), res.Err())
	}
	if runtime.GOOS == "linux" && (res.PeakRSS <= 0 || res.Wall <= 0) {
		t.Errorf("peak RSS %d, wall %v: want the child's measured", res.PeakRSS, res.Wall)
	}
	if len(codes) == 0 || codes[0] != tlcout.CodeVersion || codes[len(codes)-1] != tlcout.CodeFinished {
		t.Errorf("progress saw %v", codes)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "args"))
	args := strings.Split(strings.TrimSpace(string(b)), "\n")
	joined := strings.Join(args, " ")
	for _, want := range []string{"-cp " + jar + " tlc2.TLC -tool -workers 1 -noGenerateSpecTE -lncheck final -metadir ",
		"-continue -dump " + filepath.Join(dir, "states.dump") + " -config " + cfg + " " + spec} {
		if !strings.Contains(joined, want) {
			t.Errorf("arguments %q lack %q", joined, want)
		}
	}
	// TLC's files go to a temporary folder (gone now), not beside the spec.
	pwd, _ := os.ReadFile(filepath.Join(dir, "pwd"))
	if w := strings.TrimSpace(string(pwd)); w == filepath.Dir(spec) || strings.HasPrefix(w, filepath.Dir(spec)) {
		t.Errorf("TLC ran in %s, the spec's folder", w)
	}
	if _, err := os.Stat(strings.TrimSpace(string(pwd))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the work folder %s is still there", pwd)
	}
	entries, _ := os.ReadDir(filepath.Dir(spec))
	if len(entries) != 2 {
		t.Errorf("the spec's folder holds %d files", len(entries))
	}
}

func TestRunReportsErrorsOfTheSpec(t *testing.T) {
	_, jar := fakeTLC(t, "resume_parse_tool.out")
	spec, cfg := specFiles(t)
	res, err := Run(context.Background(), Options{Jar: jar, Spec: spec, Cfg: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var e *tlcout.Error
	if !errors.As(res.Err(), &e) || !e.IsInput() || e.Line != 173 || e.Col != 5 || res.ExitCode != 150 {
		t.Errorf("Err() = %#v, exit %d", res.Err(), res.ExitCode)
	}
}

func TestRunBadInput(t *testing.T) {
	_, jar := fakeTLC(t, "resume_r0_tool.out")
	spec, cfg := specFiles(t)
	ctx := context.Background()
	for _, opt := range []Options{
		{Jar: jar, Spec: spec + ".missing", Cfg: cfg},
		{Jar: jar, Spec: spec, Cfg: cfg + ".missing"},
		{Jar: jar, Spec: spec, Cfg: filepath.Dir(cfg)},
	} {
		if _, err := Run(ctx, opt); !errors.Is(err, ErrInput) {
			t.Errorf("Run(%+v) = %v, want ErrInput", opt, err)
		}
	}
	if _, err := Run(ctx, Options{Jar: jar + ".missing", Spec: spec, Cfg: cfg}); !errors.Is(err, ErrNoJar) {
		t.Errorf("a missing jar: %v", err)
	}
}

func TestRunCrash(t *testing.T) {
	dir := isolate(t)
	fakeJava(t, dir, `if [ "$1" = -version ]; then echo 'openjdk version "17.0.2"' >&2; exit 0; fi
echo 'Error: Could not reserve enough space for object heap' >&2
exit 1
`)
	jar := fakeJar(t, dir, "tlc2/TLC.class")
	spec, cfg := specFiles(t)
	_, err := Run(context.Background(), Options{Jar: jar, Spec: spec, Cfg: cfg})
	if err == nil || !strings.Contains(err.Error(), "Could not reserve enough space") {
		t.Errorf("Run of a java that fails at once = %v", err)
	}
}

// TestRunLive runs the real TLC on the reference bounds, when there is
// one: set TLA2TOOLS_JAR to tla2tools.jar and put java 11+ on PATH.
func TestRunLive(t *testing.T) {
	if os.Getenv(JarEnv) == "" {
		t.Skip("TLC not found: set TLA2TOOLS_JAR to the path of tla2tools.jar to run TLC")
	}
	if _, err := exec.LookPath("java"); err != nil && os.Getenv("JAVA_HOME") == "" {
		t.Skip("TLC not runnable: no java on PATH and JAVA_HOME not set")
	}
	dir := t.TempDir()
	for _, f := range []string{"Resume.tla", "R0.cfg"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "spec", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	dump := filepath.Join(t.TempDir(), "r0.dump")
	res, err := Run(context.Background(), Options{Spec: filepath.Join(dir, "Resume.tla"), Cfg: filepath.Join(dir, "R0.cfg"), Dump: dump})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err() != nil || res.Stats == nil || res.Stats.Distinct != 59 || res.Stats.Generated != 87 || res.Depth != 8 || res.ExitCode != 0 {
		t.Errorf("R0: err %v, stats %+v, depth %d, exit %d", res.Err(), res.Stats, res.Depth, res.ExitCode)
	}
	if _, err := os.Stat(dump); err != nil {
		t.Errorf("no dump: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("TLC wrote beside the spec: %v", names)
	}
}
