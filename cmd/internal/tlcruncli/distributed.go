package tlcruncli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/bench"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"github.com/resumecontract/resumecheck/tla/tlcout"
	"github.com/resumecontract/resumecheck/tlaspec"
)

// distReport is what check --distributed reports: TLC's distributed
// server's findings, with what that mode cannot say said plainly.
type distReport struct {
	Engine string `json:"engine"` // "tlc-distributed"
	Spec   string `json:"spec"`
	Config string `json:"config"`
	// Server is the address the workers reached the server at.
	Server string `json:"server"`
	// Checked are the cfg's invariants, then "deadlock" when checked;
	// NotChecked its temporal properties, which this mode does not check.
	Checked    []string `json:"checked"`
	NotChecked []string `json:"not_checked,omitempty"`
	// Verdict is "ok", "violation" or "unknown".
	Verdict string `json:"verdict"`
	// Violation is the counterexample the server printed. TLC's
	// distributed server does not say what its last state violates:
	// Property and Kind are named by the Go mirror of the spec
	// (NamedBy "go mirror") where there is one and it finds the
	// violation, and empty otherwise.
	Violation *check.Violation `json:"violation,omitempty"`
	NamedBy   string           `json:"named_by,omitempty"`
	Distinct  uint64           `json:"distinct"`
	Queue     uint64           `json:"queue"`
	// Initial is the distinct initial states. The states generated are
	// they plus the successors every worker computed, which each worker
	// reports (tlcrun tlc-worker); TLCGenerated is the server's own
	// figure, which is not that (docs/engine.md, "Past one machine").
	Initial      uint64 `json:"initial"`
	TLCGenerated uint64 `json:"tlc_generated"`
	// TLCDepth is the server's "depth": the level of the last state it
	// stored, not the depth of the search.
	TLCDepth      int      `json:"tlc_depth"`
	WorkerThreads int      `json:"worker_threads"`
	LostWorkers   []string `json:"lost_workers,omitempty"`
	Seconds       float64  `json:"seconds"`
}

// checkDistributed is check --distributed: TLC's distributed server here,
// its workers on other hosts (tlcrun tlc-worker).
func checkDistributed(cmd *cobra.Command, cfgPath, specPath, address string, wait, progress time.Duration, asJSON, insecure bool, tf tlcFlags) error {
	host, port, err := tlc.HostPort(address)
	if err != nil {
		return clibase.Usage(fmt.Errorf("--distributed %q: %v; give the address the workers reach this host at, HOST or HOST:PORT", address, err))
	}
	if !insecure && !tlc.IsLoopback(cmd.Context(), host) {
		return clibase.Usage(fmt.Errorf("--distributed %q: not a loopback address, and TLC's distributed server speaks Java RMI, "+
			"which has no authentication and deserializes what any host that reaches it sends (anyone who can connect can join "+
			"as a worker, or attack the JVM); give --insecure-network to listen there anyway, on a network where every host is "+
			"trusted (docs/engine.md, \"Past one machine\")", address))
	}
	specPath = check.SpecFor(cfgPath, specPath)
	cfg, err := tlacfg.ParseFile(cfgPath)
	if err != nil {
		return clibase.Usage(err)
	}
	stderr := cmd.ErrOrStderr()
	opt := tlc.ServerOptions{Jar: tf.jar, Java: tf.java, JavaOptions: tf.javaOpts, Spec: specPath, Cfg: cfgPath,
		Address: host, Port: port, WorkerWait: wait, Report: progress}
	opt.Progress = func(m tlcout.Message) {
		text := strings.Join(strings.Fields(m.Text()), " ")
		switch m.Code {
		case tlcout.CodeDistributedServerRunning:
			fmt.Fprintf(stderr, "tlcrun: TLC's distributed server is ready for workers: on each worker host run\n  tlcrun tlc-worker --server %s\n", serverArg(host, port))
		case tlcout.CodeDistributedWorkerRegistered, tlcout.CodeDistributedWorkerLeft, tlcout.CodeDistributedWorkerLost:
			fmt.Fprintf(stderr, "tlc: %s\n", text)
		case tlcout.CodeInitGenerated1, tlcout.CodeProgressStats:
			if progress > 0 {
				fmt.Fprintf(stderr, "tlc: %s\n", text)
			}
		}
	}
	served, err := tlc.Serve(cmd.Context(), opt)
	if err != nil {
		if errors.Is(err, tlc.ErrNoWorkers) {
			return clibase.Exit(ExitFailure, err)
		}
		return runError(err)
	}
	if err := served.Err(); err != nil {
		return runError(err)
	}
	rep := distributedReport(served, cfg, cfgPath, specPath)
	out := cmd.OutOrStdout()
	if asJSON {
		err = writeJSON(out, rep)
	} else {
		err = rep.writeText(out)
	}
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	if progress > 0 {
		fmt.Fprintf(stderr, "Summary: TLC's distributed server, %s, %s wall time; the server's CPU time %s, peak RSS %s.\n",
			english.Count(served.Registered, "worker thread"), served.Wall.Round(time.Millisecond), served.CPU.Round(time.Millisecond), bench.Bytes(served.PeakRSS))
	}
	switch {
	case rep.Verdict == "unknown":
		return clibase.Exit(ExitFailure, errors.New("TLC's distributed server ended without a result"+served.StderrTail()))
	case rep.Violation == nil:
		return clibase.Status(ExitOK)
	case rep.Violation.Kind == "deadlock":
		return clibase.Status(ExitDeadlock)
	case rep.Violation.Kind == "invariant":
		return clibase.Status(ExitSafety)
	}
	return clibase.Exit(ExitFailure, errors.New("TLC's distributed server stopped at the counterexample above without saying what its last "+
		"state violates (an invariant, an implied action, deadlock) or whether evaluating it failed, and no Go mirror of the spec "+
		"names it: check the cfg with --engine tlc on one machine to find out"))
}

// serverArg is the --server argument that reaches host:port.
func serverArg(host string, port int) string {
	if port == tlc.DefaultPort && !strings.Contains(host, ":") {
		return host
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("%s:%d", host, port)
}

// distributedReport reads the server's findings.
func distributedReport(s *tlc.Served, cfg *tlacfg.Config, cfgPath, specPath string) *distReport {
	rep := &distReport{Engine: "tlc-distributed", Spec: specPath, Config: cfgPath, Server: s.Address,
		Checked: cfg.Invariants, NotChecked: cfg.Properties, TLCDepth: s.ReportedDepth,
		WorkerThreads: s.Registered, LostWorkers: s.Lost, Seconds: s.Wall.Seconds(),
		Initial: uint64(max(s.InitialDistinct, 0))}
	if cfg.DeadlockChecked() {
		rep.Checked = append(append([]string{}, rep.Checked...), "deadlock")
	}
	if s.Stats != nil {
		rep.TLCGenerated, rep.Distinct, rep.Queue = uint64(max(s.Stats.Generated, 0)), uint64(max(s.Stats.Distinct, 0)), uint64(max(s.Stats.Queue, 0))
	}
	switch {
	case s.Stopped != nil:
		rep.Verdict = "violation"
		// Read as an invariant's trace, then named (or not) below.
		is := *s.Stopped
		is.Kind = tlcout.KindInvariant
		v, _ := crosscheck.Violation(is, cfg, nil)
		v.Kind, v.Property = "", ""
		if kind, name, ok := nameStop(cfgPath, specPath, is.Trace); ok {
			v.Kind, v.Property, rep.NamedBy = kind, name, "go mirror"
		}
		rep.Violation = &v
	case s.Success != nil && s.Finished && s.Stats != nil:
		rep.Verdict = "ok"
	default:
		rep.Verdict = "unknown"
	}
	return rep
}

// nameStop names what the last state of the server's counterexample
// violates, with the Go mirror of the spec: the first of the cfg's
// invariants, in the cfg's order as TLC checks them, that is false there,
// else deadlock when it has no successor and deadlock is checked. ok is
// false where the spec is not the text a Go mirror mirrors, the state does
// not convert, or the mirror finds nothing.
func nameStop(cfgPath, specPath string, tr *tlcout.Trace) (kind, name string, ok bool) {
	if tr == nil || len(tr.States) == 0 {
		return "", "", false
	}
	job, err := goLoad(cfgPath, specPath)
	if err != nil || job.VerifyMirror() != nil {
		return "", "", false
	}
	last := tr.States[len(tr.States)-1].Vars
	if other := job.Other(); other != nil {
		sp := other.Any()
		s, err := sp.FromVars(last)
		if err != nil {
			return "", "", false
		}
		for _, inv := range job.Cfg.Invariants {
			if !sp.Holds(inv, s) {
				return "invariant", inv, true
			}
		}
		n := 0
		sp.Next(s, func(tlaspec.Label, tlaspec.State) { n++ })
		if job.CheckDeadlock && n == 0 {
			return "deadlock", "", true
		}
		return "", "", false
	}
	m, err := model.New(job.Params)
	if err != nil {
		return "", "", false
	}
	s, err := m.StateFromVars(last.Map())
	if err != nil {
		return "", "", false
	}
	for _, inv := range job.Invariants {
		if !inv.Holds(m, s) {
			return "invariant", inv.Name, true
		}
	}
	if job.CheckDeadlock && len(m.Successors(s)) == 0 {
		return "deadlock", "", true
	}
	return "", "", false
}

func (r *distReport) writeText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Checking %s (spec %s) with TLC's distributed mode, the server at %s\n", r.Config, r.Spec, r.Server)
	fmt.Fprintf(&sb, "Properties: %s\n", strings.Join(r.Checked, " "))
	if len(r.NotChecked) > 0 {
		fmt.Fprintf(&sb, "Not checked: %s (TLC's distributed mode checks no temporal property)\n", strings.Join(r.NotChecked, " "))
	}
	if v := r.Violation; v != nil {
		sb.WriteString("\n")
		switch v.Kind {
		case "deadlock":
			sb.WriteString("Error: Deadlock reached.\n")
		case "invariant":
			fmt.Fprintf(&sb, "Error: Invariant %s is violated.\n", v.Property)
		default:
			sb.WriteString("Error: TLC's distributed server stopped at the last state below without saying why.\n")
		}
		if r.NamedBy != "" {
			fmt.Fprintf(&sb, "(TLC's distributed server names no property: the %s named it, evaluating the last state.)\n", r.NamedBy)
		}
		sb.WriteString("Error: The behavior up to this point is:\n")
		sb.WriteString(v.TraceText())
	}
	sb.WriteString("\n")
	if r.Verdict == "ok" {
		sb.WriteString("Model checking completed. No error has been found.\n")
	}
	fmt.Fprintf(&sb, "%d distinct states found, %d states left on queue.\n", r.Distinct, r.Queue)
	fmt.Fprintf(&sb, "States generated: %d initial, plus the successor states each worker reports at its end (tlcrun tlc-worker). "+
		"TLC's distributed server's own figure, %d, counts them wrongly.\n", r.Initial, r.TLCGenerated)
	fmt.Fprintf(&sb, "Depth: not known in this mode (the server's figure, %d, is the level of the last state it stored).\n", r.TLCDepth)
	fmt.Fprintf(&sb, "%s registered", english.Count(r.WorkerThreads, "worker thread"))
	if len(r.LostWorkers) > 0 {
		fmt.Fprintf(&sb, ", %d lost (their states were given to the others)", len(r.LostWorkers))
	}
	fmt.Fprintf(&sb, ". Finished in %.2fs.\n", r.Seconds)
	_, err := io.WriteString(w, sb.String())
	return err
}

// workerOptions are tlcrun tlc-worker's flags.
type workerOptions struct {
	server    string
	advertise string
	threads   int
	wait      time.Duration
	asJSON    bool
	tf        tlcFlags
}

func newTLCWorkerCmd() *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "tlc-worker --server HOST[:PORT]",
		Short: "Work for TLC's distributed server on another host (tlcrun check --distributed)",
		Long: `Run one of TLC's distributed workers for the server that tlcrun check
--distributed runs on another host, until the server's search ends.

The worker needs tla2tools.jar (the server's: the same file on every host)
and Java, but neither the spec nor the cfg: it fetches them from the
server. It waits up to --wait for the server to accept connections, so
workers may be started first. The server must reach the worker back: at
--advertise, by default the address this host reaches the server from.
The server listens on two ports (PORT and PORT+1); the worker on one of
RMI's choosing, on every interface. RMI has no authentication: run
workers on a trusted network only (docs/engine.md, "Past one machine").

At the end the worker prints the successor states its threads computed:
the server's states generated are its initial states plus every worker's
figure (TLC's distributed server counts them wrongly itself).`,
		Example: `  # on the server host, 10.0.0.1:
  tlcrun check --distributed 10.0.0.1 --insecure-network spec/R8.cfg
  # on each worker host:
  tlcrun tlc-worker --server 10.0.0.1 --tlc-workers 8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.server, "server", "", "the server's address, HOST or HOST:PORT (port 10997 by default), as given to its --distributed")
	f.StringVar(&o.advertise, "advertise", "", "the address the server reaches this worker at (default: the one this host reaches the server from)")
	f.IntVar(&o.threads, "tlc-workers", 0, "TLC's worker threads on this host (0 = every core)")
	f.IntVar(&o.threads, "threads", 0, "the old name of --tlc-workers")
	_ = f.MarkDeprecated("threads", "use --tlc-workers")
	f.DurationVar(&o.wait, "wait", 10*time.Minute, "how long to wait for the server to accept connections")
	f.BoolVar(&o.asJSON, "json", false, "print the worker's figures as JSON")
	f.StringVar(&o.tf.jar, "jar", "", "tla2tools.jar, the server's (default: $TLA2TOOLS_JAR, else the default location; see tlcrun doctor)")
	f.StringVar(&o.tf.java, "java", "", "the java to run TLC with (default: $JAVA_HOME/bin/java, else java on PATH)")
	f.StringArrayVar(&o.tf.javaOpts, "java-opt", nil, "an option for the worker's JVM, e.g. --java-opt=-Xmx8g (repeatable)")
	return cmd
}

// validate checks the server's address and the thread count.
func (o *workerOptions) validate() error {
	if o.server == "" {
		return clibase.Usage(errors.New("--server: the address of the host running tlcrun check --distributed is required"))
	}
	if _, _, err := tlc.HostPort(o.server); err != nil {
		return clibase.Usage(fmt.Errorf("--server %q: %v; give the server's address, HOST or HOST:PORT", o.server, err))
	}
	if o.threads < 0 {
		return clibase.Usage(fmt.Errorf("--tlc-workers %d: want 1 or more (0: every core)", o.threads))
	}
	return nil
}

// run works for the server until its search ends and prints the worker's
// figures.
func (o *workerOptions) run(cmd *cobra.Command) error {
	stderr := cmd.ErrOrStderr()
	opt := tlc.WorkerOptions{Jar: o.tf.jar, Java: o.tf.java, JavaOptions: o.tf.javaOpts, Server: o.server,
		Advertise: o.advertise, Threads: o.threads, Wait: o.wait}
	opt.Log = func(line string) {
		// SANY's log of the spec the worker fetched is noise here.
		for _, p := range []string{"Parsing file ", "Semantic processing of module ", "Linting of module ", "Starting... "} {
			if strings.HasPrefix(line, p) {
				return
			}
		}
		if strings.TrimSpace(line) != "" {
			fmt.Fprintln(stderr, line)
		}
	}
	w, err := tlc.Work(cmd.Context(), opt)
	if err != nil {
		return runError(err)
	}
	out := cmd.OutOrStdout()
	if o.asJSON {
		err = writeJSON(out, struct {
			Server     string  `json:"server"`
			Advertised string  `json:"advertised"`
			Threads    int     `json:"threads"`
			Computed   int64   `json:"computed"`
			Seconds    float64 `json:"seconds"`
			CPUSeconds float64 `json:"cpu_seconds"`
			PeakRSS    int64   `json:"peak_rss"`
		}{w.Server, w.Advertised, w.Threads, w.Computed, w.Wall.Seconds(), w.CPU.Seconds(), w.PeakRSS})
	} else {
		_, err = fmt.Fprintf(out, "TLC worker for the server at %s (reached back at %s): %s computed %d successor states in %s (CPU %s, peak RSS %s).\n",
			w.Server, w.Advertised, english.Count(w.Threads, "thread"), w.Computed, w.Wall.Round(time.Millisecond),
			w.CPU.Round(time.Millisecond), bench.Bytes(w.PeakRSS))
	}
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	return nil
}

// distributedFlags refuses the flags check --distributed has no use for.
func distributedFlags(cmd *cobra.Command, engine string) error {
	f := cmd.Flags()
	if f.Changed("engine") && engine != "tlc" {
		return clibase.Usage(fmt.Errorf("--distributed runs TLC's distributed mode: it takes --engine tlc (or no --engine), not %q", engine))
	}
	for _, c := range []struct{ flag, why string }{
		{"continue", "TLC's distributed mode stops at the first violation"},
		{"tlc-workers", "the workers run on their own hosts: tlcrun tlc-worker --tlc-workers N there"},
		{"workers", "--workers is the Go engine's; the workers run on their own hosts: tlcrun tlc-worker --tlc-workers N there"},
		{"mem", "--mem is the Go engine's budget"},
		{"spill-dir", "--spill-dir is the Go engine's"},
		{"property", "--property edits the cfg for the Go engine"},
		{"bounds", "--bounds edits the cfg for the Go engine"},
		{"compare-states", "--compare-states is --engine both's"},
		{"html", "--html draws the Go engine's report"},
		{"dot", "--dot draws the Go engine's report"},
	} {
		if f.Changed(c.flag) {
			return clibase.Usage(fmt.Errorf("--%s does not go with --distributed: %s", c.flag, c.why))
		}
	}
	return nil
}

// writeJSON writes v as indented JSON, as every --json of tlcrun does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
