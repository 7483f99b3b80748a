package tlcruncli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/mirror"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlachecker"
	"github.com/resumecontract/resumecheck/tla/tlanorm"
)

// scratchSpec copies the repository's spec/ folder (Resume.tla, the cfgs,
// the manifest and the mirror record) into a new folder, with edit applied
// to Resume.tla, and returns the folder that holds spec/.
func scratchSpec(t *testing.T, edit func(string) string) string {
	t.Helper()
	root := t.TempDir()
	dst := filepath.Join(root, "spec")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "..", "spec")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, ".tla") || strings.HasSuffix(name, ".cfg") || strings.HasSuffix(name, ".json")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "Resume.tla" {
			b = []byte(edit(string(b)))
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The edits of Resume.tla, each of which the Go engine used to
// check as if it were the spec it mirrors ("No error has been found").
var otherSpecs = map[string]func(string) string{
	"syntax error": func(s string) string { return strings.Replace(s, "Done == NTasks + 1", "Done == NTasks +", 1) },
	"renamed action": func(s string) string {
		return strings.ReplaceAll(s, "ExtraResume", "StrayResume")
	},
	"cut to 50 lines": func(s string) string { return strings.Join(strings.SplitAfter(s, "\n")[:50], "") },
	"semantic edit": func(s string) string {
		// The run completes one step later: a different state space,
		// still valid TLA+.
		return strings.Replace(s, "Done == NTasks + 1", "Done == NTasks + 2", 1)
	},
}

func run(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Program.Main(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestGoEngineRefusesOtherSpecs: every command that runs the compiled
// mirror on a spec file (and has no other way to check it) refuses a
// Resume.tla that is not the text model/ mirrors, with exit 4 (not a
// verdict, not 2) and a message saying what to do, in a scratch copy of
// spec/. TLC is not needed: the refusal comes before anything runs.
// tlcrun check is the exception: it hands such a spec to the TLA+
// interpreter (TestCheckInterpretsOtherSpecs).
func TestGoEngineRefusesOtherSpecs(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	commands := [][]string{
		{"sweep", "--progress", "0", "--set", "NTasks=3..4"},
		{"matrix"},
		{"explore", "--html", "explorer.html"},
		{"report", "site", "--dir", "site"},
		{"bench", "--tlc", "off", "--cfg", "spec/R0.cfg", "--spec", "spec/Resume.tla", "--pairs", "1"},
	}
	for name, edit := range otherSpecs {
		t.Run(name, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("..", "..", "..", "spec", "Resume.tla"))
			if err != nil {
				t.Fatal(err)
			}
			if edit(string(orig)) == string(orig) {
				t.Fatal("the edit changed nothing")
			}
			t.Chdir(scratchSpec(t, edit))
			for _, args := range commands {
				code, stdout, stderr := run(args...)
				if code != ExitNotMirror {
					t.Errorf("tlcrun %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, ExitNotMirror, stdout, stderr)
					continue
				}
				for _, want := range []string{"is not the spec the Go engine mirrors", "--engine tlc", "tlcrun mirror --update"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("tlcrun %s: the message lacks %q:\n%s", strings.Join(args, " "), want, stderr)
					}
				}
				if strings.Contains(stdout, "No error has been found") {
					t.Errorf("tlcrun %s: a verdict on a spec it does not mirror:\n%s", strings.Join(args, " "), stdout)
				}
			}
			// verify, as check, gives the text to the interpreter and says
			// so: its figures are the edited spec's, never the mirror's.
			// A spec it cannot read is bad input (2), with the position.
			code, stdout, stderr := run("verify")
			ran := (code == 0 || code == ExitMismatch) && strings.Contains(stdout, "checked with the TLA+ interpreter")
			refused := code == ExitUsage && strings.Contains(stderr, "spec/Resume.tla")
			if !strings.Contains(stderr, "the TLA+ interpreter checks it") || !ran && !refused {
				t.Errorf("verify: exit %d, want 0 or %d run by the interpreter, or %d naming the spec:\n%s%s", code, ExitMismatch, ExitUsage, stdout, stderr)
			}
			// TLC checks any spec: no refusal, only the missing TLC (3).
			if code, _, stderr := run("check", "--engine", "tlc", "spec/R0.cfg"); code != ExitNoTLC {
				t.Errorf("check --engine tlc: exit %d, want %d (no TLC here)\n%s", code, ExitNoTLC, stderr)
			}
		})
	}
}

// TestCheckInterpretsOtherSpecs: tlcrun check gives an edited Resume.tla
// to the TLA+ interpreter, says so, and reports the edited spec's own
// verdict (never the mirror's); a spec that does not parse is refused
// with its position (exit 2).
func TestCheckInterpretsOtherSpecs(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cases := map[string]struct {
		code int
		text string // in stdout for a verdict, in stderr otherwise
	}{
		"syntax error":    {ExitUsage, "spec/Resume.tla:73:"},
		"cut to 50 lines": {ExitUsage, "spec/Resume.tla:51:1: module Resume has no ==== line"},
		// The rename reaches the constant MaxExtraResumes, which R0.cfg
		// still assigns under its old name.
		"renamed action": {ExitUsage, "the cfg gives no value for the constant MaxStrayResumes"},
		// The run can no longer complete: the mirror would say it holds.
		"semantic edit": {ExitLiveness, "Temporal property Liveness was violated"},
	}
	for name, edit := range otherSpecs {
		want, ok := cases[name]
		if !ok {
			t.Fatalf("no expected outcome for %q", name)
		}
		t.Run(name, func(t *testing.T) {
			t.Chdir(scratchSpec(t, edit))
			for _, args := range [][]string{
				{"check", "--progress", "0", "spec/R0.cfg"},
				{"check", "--progress", "0", "--engine", "interp", "spec/R0.cfg"},
			} {
				code, stdout, stderr := run(args...)
				if code != want.code {
					t.Errorf("tlcrun %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want.code, stdout, stderr)
					continue
				}
				out := stderr
				if code == ExitOK || code == ExitLiveness {
					out = stdout
					if !strings.Contains(stdout, "with the interpreter engine") {
						t.Errorf("tlcrun %s: the report does not say the interpreter ran:\n%s", strings.Join(args, " "), stdout)
					}
					if args[3] != "--engine" && !strings.Contains(stderr, "the TLA+ interpreter checks it") {
						t.Errorf("tlcrun %s: stderr does not say why the interpreter runs:\n%s", strings.Join(args, " "), stderr)
					}
				}
				if !strings.Contains(out, want.text) {
					t.Errorf("tlcrun %s: lacks %q:\n%s%s", strings.Join(args, " "), want.text, stdout, stderr)
				}
			}
		})
	}
}

// TestGoEngineAcceptsSameSpec: edits of comments and whitespace that do
// not move code keep the spec the one the Go engine mirrors.
func TestGoEngineAcceptsSameSpec(t *testing.T) {
	edits := map[string]func(string) string{
		"comment-only edit": func(s string) string {
			s = strings.Replace(s, "What happens to the effects that already fired", "What happens to the effects which already fired", 1)
			return strings.ReplaceAll(s, "\n\n", "\n\n\\* (a note added by a spec author)\n")
		},
		"unchanged": func(s string) string { return s },
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			t.Chdir(scratchSpec(t, edit))
			code, stdout, stderr := run("check", "--progress", "0", "spec/R0.cfg")
			if code != ExitOK || !strings.Contains(stdout, "No error has been found") {
				t.Errorf("exit %d, want 0\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// needChecker skips without node and the pinned tla-checker (unless CI
// requires it) and returns its folder.
func needChecker(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "tla", "tlachecker", "js"))
	if err != nil {
		t.Fatal(err)
	}
	err = tlachecker.Available(tlachecker.Options{Dir: dir})
	if errors.Is(err, tlachecker.ErrNotInstalled) && os.Getenv("RESUMECHECK_REQUIRE_TLA_CHECKER") != "1" {
		t.Skipf("tla-checker not installed: run npm ci --prefix tla/tlachecker/js (%v)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMirrorCommand: tlcrun mirror records a spec's digest only when the
// Go model agrees with it. A scratch manifest keeps it to one model.
func TestMirrorCommand(t *testing.T) {
	checker := needChecker(t)
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	setup := func(t *testing.T, edit func(string) string) (manifest, record string) {
		root := scratchSpec(t, edit)
		manifest = filepath.Join(root, "spec", "manifest.json")
		small := `{"spec": "Resume.tla", "models": [
  {"cfg": "fault-rebuild.cfg", "tier": "quick", "tla_checker": true, "expect": {"result": "violation", "first": "PC", "first_kind": "invariant", "trace_length": 3, "violated": ["PC"], "generated": 87, "distinct": 59, "depth": 8}}]}`
		if err := os.WriteFile(manifest, []byte(small), 0o644); err != nil {
			t.Fatal(err)
		}
		return manifest, filepath.Join(root, "spec", "mirror.json")
	}
	read := func(t *testing.T, path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("a mutated model is not recorded", func(t *testing.T) {
		mutateMirror(t)
		manifest, record := setup(t, func(s string) string { return s })
		before := read(t, record)
		code, stdout, stderr := run("mirror", "--update", "--tla-checker-dir", checker, manifest)
		if code != ExitDisagree || !strings.Contains(stdout, `decision |-> "skip"`) || !strings.Contains(stdout, "nothing was recorded") {
			t.Errorf("exit %d, want %d and the differing state\n%s%s", code, ExitDisagree, stdout, stderr)
		}
		if read(t, record) != before {
			t.Error("the record changed")
		}
	})

	t.Run("an edited spec the model does not follow is not recorded", func(t *testing.T) {
		manifest, record := setup(t, otherSpecs["semantic edit"])
		before := read(t, record)
		if code, stdout, stderr := run("mirror", "--update", "--tla-checker-dir", checker, manifest); code != ExitDisagree {
			t.Errorf("exit %d, want %d\n%s%s", code, ExitDisagree, stdout, stderr)
		}
		if read(t, record) != before {
			t.Error("the record changed")
		}
	})

	t.Run("a re-indented spec is recorded with --update only", func(t *testing.T) {
		// Indentation counts (bulleted lists are read by column), so this
		// spec has a new digest, and the same meaning.
		manifest, record := setup(t, func(s string) string { return strings.ReplaceAll(s, "\n    NTasks,", "\n      NTasks,") })
		before := read(t, record)
		code, stdout, stderr := run("mirror", "--tla-checker-dir", checker, manifest)
		if code != ExitNotMirror || !strings.Contains(stdout, "run tlcrun mirror --update") {
			t.Errorf("without --update: exit %d, want %d\n%s%s", code, ExitNotMirror, stdout, stderr)
		}
		if read(t, record) != before {
			t.Error("the record changed without --update")
		}
		code, stdout, stderr = run("mirror", "--update", "--tla-checker-dir", checker, manifest)
		if code != ExitOK || !strings.Contains(stdout, "recorded its digest") || !strings.Contains(stdout, "rebuild") {
			t.Errorf("--update: exit %d, want 0\n%s%s", code, stdout, stderr)
		}
		rec, err := mirror.ReadRecord(record)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(filepath.Join(filepath.Dir(record), "Resume.tla"))
		if want, _ := tlanorm.Digest(src); rec.Digest != want || rec.Digest == "" || rec.Command != "tlcrun mirror --update" {
			t.Errorf("record %+v, want digest %s", rec, want)
		}
		// Recorded and current: exit 0 (this build still carries the
		// repository's record, and says so).
		if code, stdout, stderr := run("mirror", "--tla-checker-dir", checker, manifest); code != ExitOK || !strings.Contains(stdout, "records it") {
			t.Errorf("after --update: exit %d\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("no checker", func(t *testing.T) {
		manifest, _ := setup(t, func(s string) string { return s })
		if code, _, stderr := run("mirror", "--checkers", "tlc", manifest); code != ExitNoTLC || !strings.Contains(stderr, "tla2tools.jar") {
			t.Errorf("--checkers tlc without TLC: exit %d\n%s", code, stderr)
		}
		if code, _, stderr := run("mirror", "--checkers", "tla-checker", "--tla-checker-dir", t.TempDir(), manifest); code != ExitNoTLC || !strings.Contains(stderr, "npm ci") {
			t.Errorf("--checkers tla-checker without it: exit %d\n%s", code, stderr)
		}

		if code, _, stderr := run("mirror", "--checkers", "spin", manifest); code != ExitUsage {
			t.Errorf("an unknown checker: exit %d\n%s", code, stderr)
		}
	})
}

// TestMirrorComparesWithInterpreter breaks the mirror or the spec on
// purpose, one way at a time, in a scratch copy of spec/ (all sixteen
// quick models), and expects tlcrun mirror --update to exit 15 with the
// first differing state and to leave mirror.json as it was; the spec as
// it is agrees, and --update records it. Only the interpreter compares
// (no Java, no Node): these run everywhere.
func TestMirrorComparesWithInterpreter(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	// The invariant: LF holds in every state (effects never go
	// below zero).
	addLF := func(s string) string {
		return strings.Replace(s, "Safety ==", "LF == \\A t \\in Tasks : effects[t] >= 0\n\nSafety ==", 1)
	}
	read := func(t *testing.T, path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	disagree := func(t *testing.T, edit func(string) string, want ...string) {
		t.Helper()
		root := scratchSpec(t, edit)
		manifest := filepath.Join(root, "spec", "manifest.json")
		record := filepath.Join(root, "spec", "mirror.json")
		before := read(t, record)
		code, stdout, stderr := run("mirror", "--update", "--checkers", "interpreter", manifest)
		if code != ExitDisagree {
			t.Errorf("exit %d, want %d\n%s%s", code, ExitDisagree, stdout, stderr)
		}
		for _, w := range append(want, "nothing was recorded") {
			if !strings.Contains(stdout, w) {
				t.Errorf("the output lacks %q:\n%s", w, stdout)
			}
		}
		if read(t, record) != before {
			t.Error("the record changed")
		}
	}

	t.Run("LF computed wrongly by the mirror (> for >=)", func(t *testing.T) {
		mirrorExtra = []check.MirrorPredicate{{Name: "LF", Holds: func(_ *model.Model, s model.State) bool {
			for _, e := range s.Effects {
				if !(e > 0) { // the spec says >= 0
					return false
				}
			}
			return true
		}}}
		t.Cleanup(func() { mirrorExtra = nil })
		disagree(t, addLF,
			"FAIL R0.cfg: they differ in a state at depth 1: LF: the mirror says FALSE, the interpreter (the spec) TRUE",
			"State 1: <Initial predicate>", "effects = <<0, 0, 0>>")
	})

	t.Run("LF in the spec only", func(t *testing.T) {
		disagree(t, addLF, "LF: a state predicate of", "that the mirror does not define")
	})

	t.Run("a mutated transition", func(t *testing.T) {
		mutateMirror(t)
		disagree(t, func(s string) string { return s },
			"FAIL fault-rebuild.cfg", "the successors differ", "Only the mirror: CrashRecover", `decision |-> "skip"`, "State 1: <Initial predicate>")
	})

	t.Run("a guard changed", func(t *testing.T) {
		// The spec no longer parks a run that has crashed; the mirror does.
		disagree(t, func(s string) string {
			return strings.Replace(s, "EmitInterrupt ==\n", "EmitInterrupt ==\n    /\\ crashes = 0\n", 1)
		}, "EmitInterrupt: enabled in the mirror TRUE, in the interpreter (the spec) FALSE", "CrashRecover")
	})

	t.Run("the interpreter compares without TLC", func(t *testing.T) {
		root := scratchSpec(t, func(s string) string { return s })
		dir, err := filepath.Abs(filepath.Join("..", "..", "..", "tla", "tlachecker", "js"))
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run("mirror", "--tla-checker-dir", dir, filepath.Join(root, "spec", "manifest.json"))
		if code != ExitOK || !strings.Contains(stdout, "interpreter (tla/interp): 16 of 16 models agree") || !strings.Contains(stdout, "Not compared with: no tla2tools.jar") {
			t.Errorf("exit %d, want 0 with the interpreter's comparison\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("the spec as it is agrees, and --update records it", func(t *testing.T) {
		// Re-indented: a new digest, the same meaning.
		root := scratchSpec(t, func(s string) string { return strings.ReplaceAll(s, "\n    NTasks,", "\n      NTasks,") })
		manifest := filepath.Join(root, "spec", "manifest.json")
		record := filepath.Join(root, "spec", "mirror.json")
		code, stdout, stderr := run("mirror", "--update", "--checkers", "interpreter", manifest)
		if code != ExitOK || !strings.Contains(stdout, "16 of 16 models agree, the manifest's quick models") || !strings.Contains(stdout, "recorded its digest") {
			t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
		}
		rec, err := mirror.ReadRecord(record)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(filepath.Join(root, "spec", "Resume.tla"))
		if want, _ := tlanorm.Digest(src); rec.Digest != want || len(rec.Checks) != 1 || rec.Checks[0].Checker != "interpreter (tla/interp)" || len(rec.Checks[0].Models) != 16 {
			t.Errorf("record %+v, want digest %s and the interpreter's 16 models", rec, want)
		}
	})
}
