package tlcruncli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/internal/netns"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// asTlcrun is the variable that makes this test binary be tlcrun (TestMain):
// the distributed test runs its workers in other network namespaces, as
// processes of their own.
const asTlcrun = "RESUMECHECK_TEST_AS_TLCRUN"

func TestMain(m *testing.M) {
	if os.Getenv(asTlcrun) == "1" {
		os.Exit(Program.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// workerRun is one tlcrun tlc-worker process's end.
type workerRun struct {
	code           int
	stdout, stderr string
	Threads        int   `json:"threads"`
	Computed       int64 `json:"computed"`
	Advertised     string
}

// TestDistributedAcrossNamespaces runs TLC's distributed mode the way a
// user spreads it over hosts: tlcrun check --distributed here, two tlcrun
// tlc-workers each in a network namespace of its own (another host, as
// far as the network goes: they reach the server over a veth pair, and
// the server calls them back at their own addresses), and checks that it
// finds what TLC finds on one machine: on R0 the same distinct states,
// the same states generated (the initial states plus what the workers
// computed) and the verdict; on a fault model the same violated
// invariant. Where there is no TLC, or namespaces cannot be made (not
// root, no ip command), it says so and skips.
func TestDistributedAcrossNamespaces(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("needs TLC: set TLA2TOOLS_JAR to the path of tla2tools.jar (and have java 11+ with javac) to run this case")
	}
	if err := netns.Available(); err != nil {
		t.Skipf("%v: skipping TLC's distributed mode across network namespaces", err)
	}
	// The server needs its plug-in, built with the JDK's javac.
	setup, err := tlc.Find(context.Background(), jar, "")
	if err != nil {
		t.Skipf("needs TLC: %v", err)
	}
	if _, err := setup.Plugin(context.Background()); errors.Is(err, tlc.ErrNoJavac) {
		t.Skipf("TLC's distributed server needs javac (a JDK) for its plug-in: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	spaces, err := netns.New("rcd", 215, 2)
	if err != nil {
		t.Skipf("cannot make network namespaces (%v): skipping TLC's distributed mode across them", err)
	}
	t.Cleanup(spaces.Close)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Port 10997 may be another server's: a free one.
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	server := net.JoinHostPort(spaces.Spaces[0].Here, strconv.Itoa(port))

	for _, tc := range []struct {
		cfg      string
		exit     int
		violated string
	}{
		{cfg: "R0.cfg", exit: ExitOK},
		{cfg: "fault-forkignore.cfg", exit: ExitSafety, violated: "FD"},
	} {
		t.Run(tc.cfg, func(t *testing.T) {
			cfg := "../../../spec/" + tc.cfg
			local, err := tlc.Run(context.Background(), tlc.Options{Jar: jar, Spec: "../../../spec/Resume.tla", Cfg: cfg})
			if err != nil {
				t.Fatal(err)
			}
			if err := local.Err(); err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			// The workers first: they wait for the server.
			workers := make([]workerRun, len(spaces.Spaces))
			var wg sync.WaitGroup
			for i, sp := range spaces.Spaces {
				wg.Add(1)
				go func() {
					defer wg.Done()
					args := append(append([]string{}, sp.Wrap[1:]...), self, "tlc-worker", "--server", server,
						"--tlc-workers", "1", "--wait", "3m", "--json", "--jar", jar)
					cmd := exec.CommandContext(ctx, sp.Wrap[0], args...)
					cmd.Env = append(os.Environ(), asTlcrun+"=1")
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					err := cmd.Run()
					w := &workers[i]
					w.code, w.stdout, w.stderr = cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
					if err == nil {
						if jerr := json.Unmarshal(stdout.Bytes(), w); jerr != nil {
							w.code = -1
							w.stderr += "\n(the test could not read the JSON: " + jerr.Error() + ")"
						}
					}
				}()
			}
			// Workers end after the server; should they all fail instead,
			// the server would wait for them until --worker-wait.
			go func() {
				wg.Wait()
				select {
				case <-ctx.Done():
				case <-time.After(30 * time.Second):
					cancel()
				}
			}()
			var stdout, stderr bytes.Buffer
			code := Program.MainContext(ctx, []string{"check", "--distributed", server, "--worker-wait", "3m",
				"--insecure-network", "--progress", "0", "--json", "--jar", jar, cfg}, &stdout, &stderr)
			wg.Wait()
			if code != tc.exit {
				t.Fatalf("server exit %d, want %d\nstdout:\n%s\nstderr:\n%s\nworkers: %+v", code, tc.exit, stdout.String(), stderr.String(), workers)
			}
			var rep distReport
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("%v\n%s", err, stdout.String())
			}

			// Every worker either worked to the end of the run, or came
			// too late (a short run can end while a worker is still
			// reading the spec), and at least one worked.
			var computed int64
			worked := 0
			for i, w := range workers {
				switch {
				case w.code == 0:
					computed += w.Computed
					worked++
					if w.Advertised != spaces.Spaces[i].There {
						t.Errorf("worker %d was reached back at %s, want its namespace's address %s", i, w.Advertised, spaces.Spaces[i].There)
					}
				case strings.Contains(w.stderr, "went away at "+server+" while this worker was starting"):
					t.Logf("worker %d came after the run had ended (the run is short)", i)
				default:
					t.Errorf("worker %d in %s: exit %d\nstdout:\n%s\nstderr:\n%s", i, spaces.Spaces[i].Name, w.code, w.stdout, w.stderr)
				}
			}
			if worked == 0 {
				t.Fatalf("no worker worked: %+v", workers)
			}
			t.Logf("%s: %d workers worked, %d worker threads registered; the local run: %d generated, %d distinct",
				tc.cfg, worked, rep.WorkerThreads, local.Stats.Generated, local.Stats.Distinct)

			if tc.violated == "" {
				if rep.Verdict != "ok" || len(local.Violations) != 0 {
					t.Fatalf("verdict %q here, locally %d violations", rep.Verdict, len(local.Violations))
				}
				if int64(rep.Distinct) != local.Stats.Distinct {
					t.Errorf("distinct states: %d distributed, %d locally", rep.Distinct, local.Stats.Distinct)
				}
				if got := int64(rep.Initial) + computed; got != local.Stats.Generated {
					t.Errorf("states generated: %d distributed (%d initial + %d from the workers), %d locally",
						got, rep.Initial, computed, local.Stats.Generated)
				}
				if rep.Queue != 0 {
					t.Errorf("%d states left on the queue", rep.Queue)
				}
				return
			}
			if len(local.Violations) == 0 || strings.Join(local.Violations[0].Names, " ") != tc.violated {
				t.Fatalf("locally TLC found %+v, want %s", local.Violations, tc.violated)
			}
			v := rep.Violation
			if rep.Verdict != "violation" || v == nil || v.Kind != "invariant" || v.Property != tc.violated {
				t.Fatalf("distributed: verdict %q, violation %+v; want invariant %s", rep.Verdict, v, tc.violated)
			}
			if len(v.Trace) < 2 {
				t.Errorf("a counterexample of %d states", len(v.Trace))
			}
		})
	}
}

// TestNameStop: TLC's distributed server prints a counterexample without
// saying what it violates (testdata recorded from a run of
// fault-forkignore.cfg, where FD fails); the Go mirror names it from the
// last state, and names nothing where nothing is violated or where the
// spec is not the text it mirrors.
func TestNameStop(t *testing.T) {
	f, err := os.Open("../../../tla/tlc/testdata/distributed/server-forkignore.out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := tlcout.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var tr *tlcout.Trace
	for _, is := range res.Errors {
		if is.Code == tlcout.CodeBehaviorUpToThisPoint {
			tr = is.Trace
		}
	}
	if tr == nil || len(tr.States) != 5 {
		t.Fatalf("no counterexample of 5 states in the sample: %+v", res.Errors)
	}
	const cfg, spec = "../../../spec/fault-forkignore.cfg", "../../../spec/Resume.tla"
	if kind, name, ok := nameStop(cfg, spec, tr); !ok || kind != "invariant" || name != "FD" {
		t.Errorf("named %q %q %v, want invariant FD", kind, name, ok)
	}
	short := &tlcout.Trace{States: tr.States[:4]}
	if kind, name, ok := nameStop(cfg, spec, short); ok {
		t.Errorf("a behaviour that violates nothing was named %s %s", kind, name)
	}
	// The same spec with one more definition is not the text the Go
	// mirror mirrors: it must not name anything.
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	edited := strings.Replace(string(src), "\n====", "\nExtraDefinition == TRUE\n====", 1)
	if edited == string(src) {
		t.Fatal("the spec has no end line ====")
	}
	os.WriteFile(dir+"/Resume.tla", []byte(edited), 0o644)
	cfgText, _ := os.ReadFile(cfg)
	os.WriteFile(dir+"/fault-forkignore.cfg", cfgText, 0o644)
	if kind, name, ok := nameStop(dir+"/fault-forkignore.cfg", dir+"/Resume.tla", tr); ok {
		t.Errorf("an edited spec's counterexample was named %s %s by the mirror of the original", kind, name)
	}

	s := &tlc.Served{Result: res, Address: "10.0.0.1:10997", Registered: 2, Stopped: &tlcout.Issue{Code: tlcout.CodeBehaviorUpToThisPoint, Trace: tr}}
	conf, err := tlacfg.ParseFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep := distributedReport(s, conf, cfg, spec)
	if rep.Verdict != "violation" || rep.Violation == nil || rep.Violation.Property != "FD" || rep.NamedBy == "" ||
		len(rep.Violation.Trace) != 5 || strings.Join(rep.NotChecked, " ") != "Liveness" {
		t.Errorf("%+v", rep)
	}
	var out bytes.Buffer
	rep.writeText(&out)
	for _, want := range []string{"Error: Invariant FD is violated.", "State 5: <ForkResume(vb)>", "Not checked: Liveness", "Depth: not known"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}
