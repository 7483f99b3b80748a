package tlcruncli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// hostileDir is the corpus of hostile inputs (testdata/hostile/README.md).
const hostileDir = "../../../testdata/hostile"

// TestHostileInputs runs every file of testdata/hostile through the tool
// that reads it, as a user would hand it over, and compares the outcome
// with want.txt: cfgs (tlcrun check), specs (tlcrun check --spec),
// manifests (tlcrun verify) by exit code and message, TLC's outputs
// (tlcout.Parse, then the report tlcrun would print) and TLC's state dumps
// (the state comparison) by error or verdict. Nothing may panic, every
// refusal names the file, and no file may pass for a verdict it does not
// carry. Every file has a line in want.txt and every line a file.
func TestHostileInputs(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	want := readHostileWant(t)
	var files []string
	for _, dir := range []string{"cfg", "spec", "manifest", "tlc", "dump"} {
		entries, err := os.ReadDir(filepath.Join(hostileDir, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, dir+"/"+e.Name())
		}
	}
	for _, f := range files {
		if _, ok := want[f]; !ok {
			t.Errorf("%s has no line in want.txt", f)
		}
	}
	for f := range want {
		if !slices.Contains(files, f) {
			t.Errorf("want.txt names %s, which is not in the corpus", f)
		}
	}
	t.Chdir(hostileDir)
	root := filepath.Join("..", "..")
	for _, f := range files {
		w, ok := want[f]
		if !ok {
			continue
		}
		t.Run(f, func(t *testing.T) {
			got := hostileOutcome(t, root, f)
			if got.result != w.result || !strings.Contains(got.text, w.text) {
				t.Errorf("%s: got %s: %s\nwant %s and a message containing %q", f, got.result, got.text, w.result, w.text)
			}
			if strings.HasPrefix(got.result, "exit ") && got.result != "exit 0" && !strings.Contains(got.text, filepath.Base(f)) {
				t.Errorf("%s: the message does not name the file: %s", f, got.text)
			}
		})
	}
}

type hostileWant struct{ result, text string }

// readHostileWant reads want.txt: "FILE | RESULT | TEXT" a line, where
// RESULT is "exit N" for the commands, "error" or a verdict (ok,
// violation, unknown) for TLC's output, "error" or "differ" for a dump,
// and TEXT a part of the message.
func readHostileWant(t *testing.T) map[string]hostileWant {
	t.Helper()
	f, err := os.Open(filepath.Join(hostileDir, "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]hostileWant{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 {
			t.Fatalf("want.txt:%d: want FILE | RESULT | TEXT", n)
		}
		if _, dup := out[parts[0]]; dup {
			t.Fatalf("want.txt:%d: %s twice", n, parts[0])
		}
		out[parts[0]] = hostileWant{result: parts[1], text: parts[2]}
	}
	return out
}

func hostileOutcome(t *testing.T, root, f string) hostileWant {
	spec, r0 := filepath.Join(root, "spec", "Resume.tla"), filepath.Join(root, "spec", "R0.cfg")
	cli := func(args ...string) hostileWant {
		var stdout, stderr bytes.Buffer
		code := Program.Main(args, &stdout, &stderr)
		text := strings.TrimSpace(stderr.String())
		if code == 0 {
			text = strings.TrimSpace(stdout.String())
		}
		return hostileWant{result: fmt.Sprint("exit ", code), text: strings.ReplaceAll(text, "\n", " ")}
	}
	switch filepath.Dir(f) {
	case "cfg":
		return cli("check", "--progress", "0", "--spec", spec, f)
	case "spec":
		return cli("check", "--progress", "0", "--spec", f, r0)
	case "manifest":
		return cli("verify", f)
	case "tlc":
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tlcout.Parse(bytes.NewReader(b))
		if err != nil {
			return hostileWant{"error", err.Error()}
		}
		if err := res.Err(); err != nil {
			return hostileWant{"error", err.Error()}
		}
		cfg, err := tlacfg.ParseFile(filepath.Join(root, "spec", "fault-replay.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		job, err := check.FromConfig(cfg, spec)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.New(job.Params)
		if err != nil {
			t.Fatal(err)
		}
		rep := crosscheck.Report(res, cfg, spec, m)
		text := rep.Summary()
		if v := rep.FirstViolation(); v != nil {
			text += fmt.Sprintf(" (%d states)", len(v.Trace))
		}
		return hostileWant{rep.Verdict, text}
	case "dump":
		job, err := check.Load(r0, spec)
		if err != nil {
			t.Fatal(err)
		}
		d, err := crosscheck.CompareStates(context.Background(), job, f, 1)
		if err != nil {
			return hostileWant{"error", err.Error()}
		}
		if d.Equal() {
			return hostileWant{"equal", fmt.Sprint(d.Go, " states")}
		}
		var sb strings.Builder
		d.Write(&sb)
		return hostileWant{"differ", strings.ReplaceAll(sb.String(), "\n", " ")}
	}
	t.Fatalf("%s: no reader for this folder", f)
	return hostileWant{}
}
