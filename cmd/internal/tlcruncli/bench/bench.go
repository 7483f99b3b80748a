package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/internal/childmem"
	"github.com/resumecontract/resumecheck/internal/english"
)

// Config says what to measure.
type Config struct {
	// Cfgs are the model files; each is checked against Spec.
	Cfgs []string
	Spec string
	// Workers are the worker counts, e.g. 1 and runtime.NumCPU().
	Workers []int
	// Tlcrun is the tlcrun binary that runs the Go engine (normally the
	// running one).
	Tlcrun string
	// TLC, when set, also runs TLC at each worker count.
	TLC *TLC
	// TLCSkip lists cfgs TLC is not run on (too long for it).
	TLCSkip map[string]bool
	// Pairs is how many times each measurement is taken: a Go run, then
	// (with TLC) a TLC run right after it on the same model and workers,
	// so that both meet the same load. At least 1; 3 or more for a
	// median worth the name.
	Pairs int
	// Mem is the Go engine's --mem budget ("" = its default).
	Mem string
	// Interp runs the Go side with the TLA+ interpreter (check --engine
	// interp), which reads the spec's text, instead of the compiled mirror.
	Interp bool
	// Log receives a line as each run starts and ends.
	Log io.Writer
}

// Run is one run of one engine.
type Run struct {
	Cfg       string
	Engine    string // "go" or "tlc"
	Workers   int
	Verdict   string
	Generated int64
	Distinct  int64
	Depth     int
	Wall      time.Duration
	// CPU is the child's user and system time: under load from other
	// processes it grows less than Wall, so it tells a busy machine apart.
	CPU     time.Duration
	PeakRSS int64 // bytes, of the child process
	// PeakRSSAtMost: PeakRSS is only an upper bound (package childmem).
	PeakRSSAtMost bool
	// Load is the one-minute load average when the run started.
	Load float64
	Err  error
}

// PeakText is the peak resident size as people read it, "at most" when
// it is only a bound.
func (r Run) PeakText() string {
	if r.PeakRSSAtMost {
		return "at most " + Bytes(r.PeakRSS)
	}
	return Bytes(r.PeakRSS)
}

// Rate is distinct states per second of wall time.
func (r Run) Rate() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Distinct) / r.Wall.Seconds()
}

// Measurement is one engine on one model at one worker count: its runs,
// interleaved with the other engine's.
type Measurement struct {
	Cfg     string
	Engine  string
	Workers int
	Runs    []Run
}

// ok returns the runs that did not fail.
func (m Measurement) ok() []Run {
	var out []Run
	for _, r := range m.Runs {
		if r.Err == nil {
			out = append(out, r)
		}
	}
	return out
}

// Err is the first failure, if every run failed.
func (m Measurement) Err() error {
	if len(m.ok()) > 0 || len(m.Runs) == 0 {
		return nil
	}
	return m.Runs[0].Err
}

// First is the first run that did not fail (its counts stand for all:
// they are checked to agree).
func (m Measurement) First() Run {
	if ok := m.ok(); len(ok) > 0 {
		return ok[0]
	}
	return Run{}
}

// Stat is the minimum and the median of a figure over the runs that did
// not fail.
func (m Measurement) Stat(f func(Run) float64) (lo, med float64) {
	var v []float64
	for _, r := range m.ok() {
		v = append(v, f(r))
	}
	if len(v) == 0 {
		return 0, 0
	}
	slices.Sort(v)
	n := len(v)
	med = v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return v[0], med
}

// Measure runs every configuration: for each model and worker count,
// Pairs times a Go run followed by a TLC run.
func Measure(ctx context.Context, c Config) []Measurement {
	var out []Measurement
	logf := func(format string, args ...any) {
		if c.Log != nil {
			fmt.Fprintf(c.Log, format+"\n", args...)
		}
	}
	pairs := max(c.Pairs, 1)
	for _, cfg := range c.Cfgs {
		for _, w := range c.Workers {
			g := Measurement{Cfg: cfg, Engine: "go", Workers: w}
			t := Measurement{Cfg: cfg, Engine: "tlc", Workers: w}
			withTLC := c.TLC != nil && !c.TLCSkip[cfg]
			for i := range pairs {
				for _, m := range []*Measurement{&g, &t} {
					if m.Engine == "tlc" && !withTLC {
						continue
					}
					if ctx.Err() != nil {
						return append(out, g, t)
					}
					logf("bench: %s %s, %s (pair %d of %d) ...", cfg, m.Engine, english.Count(w, "worker"), i+1, pairs)
					load := LoadAverage()
					var r Run
					if m.Engine == "go" {
						r = c.goRun(ctx, cfg, w)
					} else {
						r = c.TLC.Run(ctx, cfg, c.Spec, w)
					}
					r.Load = load
					if r.Err != nil {
						logf("bench:   failed: %v", r.Err)
					} else {
						logf("bench:   %d distinct in %s (CPU %s), peak RSS %s, load %.2f", r.Distinct,
							r.Wall.Round(time.Millisecond), r.CPU.Round(time.Millisecond), r.PeakText(), load)
					}
					m.Runs = append(m.Runs, r)
				}
			}
			out = append(out, g)
			if withTLC {
				out = append(out, t)
			}
		}
	}
	return out
}

// LoadAverage is the one-minute load average (0 where unknown).
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}

// goRun runs "tlcrun check --json" as a child process, so that its peak
// RSS is measured alone.
func (c Config) goRun(ctx context.Context, cfg string, workers int) Run {
	r := Run{Cfg: cfg, Engine: "go", Workers: workers}
	args := []string{"check", "--json", "--progress", "0", "--workers", fmt.Sprint(workers), "--spec", c.Spec}
	if c.Interp {
		args = append(args, "--engine", "interp")
	}
	if c.Mem != "" {
		args = append(args, "--mem", c.Mem)
	}
	args = append(args, cfg)
	stdout, wall, cpu, rss, err := runChild(ctx, exec.CommandContext(ctx, c.Tlcrun, args...))
	r.Wall, r.CPU, r.PeakRSS, r.PeakRSSAtMost = wall, cpu, rss.bytes, rss.atMost
	var rep struct {
		Verdict   string `json:"verdict"`
		Generated int64  `json:"generated"`
		Distinct  int64  `json:"distinct"`
		Depth     int    `json:"depth"`
	}
	if jerr := json.Unmarshal(stdout, &rep); jerr != nil {
		r.Err = errors.Join(err, fmt.Errorf("tlcrun check: %v", jerr))
		return r
	}
	r.Verdict, r.Generated, r.Distinct, r.Depth = rep.Verdict, rep.Generated, rep.Distinct, rep.Depth
	return r
}

// runChild runs cmd and returns its standard output, wall time, CPU time
// and peak resident memory. A non-zero exit is not an error: checkers exit
// non-zero when a property is violated.
func runChild(ctx context.Context, cmd *exec.Cmd) ([]byte, time.Duration, time.Duration, childPeak, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Start()
	var watch *childmem.Watch
	if err == nil {
		// ru_maxrss alone may be this process's peak, not the child's
		// (package childmem).
		watch = childmem.Start(cmd.Process)
		err = cmd.Wait()
	}
	wall := time.Since(start)
	var rss childPeak
	var cpu time.Duration
	if cmd.ProcessState != nil {
		rss.bytes, rss.atMost = watch.Peak(cmd.ProcessState)
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil {
		return stdout.Bytes(), wall, cpu, rss, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
	}
	return stdout.Bytes(), wall, cpu, rss, nil
}

// childPeak is a child's peak resident size, and whether it is only a
// bound.
type childPeak struct {
	bytes  int64
	atMost bool
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Machine describes the machine the table was measured on.
func Machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s, %d cores, %s RAM, %s/%s, %s%s", cpu, runtime.NumCPU(), Bytes(TotalMemory()),
		runtime.GOOS, runtime.GOARCH, runtime.Version(), load)
}

// WriteTable prints the measurements as a Markdown table: per model and
// worker count, Go and TLC, each figure as the minimum and the median of
// its runs, the load average the runs started at, and the Go engine's
// speed over TLC's (TLC's wall time over Go's, of the minima and of the
// medians; and of the CPU time minima, which load disturbs less). It
// returns the disagreements: between Go and TLC counts, and
// between the runs of one engine.
func WriteTable(w io.Writer, ms []Measurement) []string {
	fmt.Fprintln(w, "| model | engine | workers | runs | distinct states | generated | depth | wall time min / median | CPU time min / median | distinct states/s (median) | CPU per generated state (median) | peak RSS (max) | load at start | Go / TLC min / median |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	find := func(cfg, engine string, workers int) *Measurement {
		for i := range ms {
			m := &ms[i]
			if m.Cfg == cfg && m.Engine == engine && m.Workers == workers && len(m.ok()) > 0 {
				return m
			}
		}
		return nil
	}
	wall := func(r Run) float64 { return r.Wall.Seconds() }
	var disagree []string
	for _, m := range ms {
		name := strings.TrimSuffix(filepath.Base(m.Cfg), ".cfg")
		if len(m.Runs) == 0 {
			continue
		}
		if err := m.Err(); err != nil {
			fmt.Fprintf(w, "| %s | %s | %d | %d | failed: %v | | | | | | | | | |\n", name, m.Engine, m.Workers, len(m.Runs), err)
			continue
		}
		r := m.First()
		for _, o := range m.ok()[1:] {
			if o.Distinct != r.Distinct || o.Generated != r.Generated || o.Depth != r.Depth {
				disagree = append(disagree, fmt.Sprintf("%s %s at %s: runs gave %d/%d/%d and %d/%d/%d (generated/distinct/depth)",
					name, m.Engine, english.Count(m.Workers, "worker"), r.Generated, r.Distinct, r.Depth, o.Generated, o.Distinct, o.Depth))
			}
		}
		wlo, wmed := m.Stat(wall)
		clo, cmed := m.Stat(func(r Run) float64 { return r.CPU.Seconds() })
		llo, _ := m.Stat(func(r Run) float64 { return r.Load })
		var rss int64
		for _, o := range m.ok() {
			rss = max(rss, o.PeakRSS)
		}
		ratio := ""
		if m.Engine == "go" {
			if t := find(m.Cfg, "tlc", m.Workers); t != nil && wlo > 0 && wmed > 0 {
				tlo, tmed := t.Stat(wall)
				ratio = fmt.Sprintf("%.1fx / %.1fx", tlo/wlo, tmed/wmed)
				if tc, _ := t.Stat(func(r Run) float64 { return r.CPU.Seconds() }); clo > 0 {
					ratio += fmt.Sprintf(" (CPU %.1fx)", tc/clo)
				}
			}
		} else if g := find(m.Cfg, "go", m.Workers); g != nil {
			if gr := g.First(); gr.Distinct != r.Distinct || gr.Generated != r.Generated || gr.Depth != r.Depth {
				disagree = append(disagree, fmt.Sprintf("%s at %s: Go %d/%d/%d, TLC %d/%d/%d (generated/distinct/depth)",
					name, english.Count(m.Workers, "worker"), gr.Generated, gr.Distinct, gr.Depth, r.Generated, r.Distinct, r.Depth))
			}
		}
		rate := 0.0
		if wmed > 0 {
			rate = float64(r.Distinct) / wmed
		}
		loads := fmt.Sprintf("%.1f", llo)
		if hi := maxLoad(m); hi-llo >= 0.05 {
			loads = fmt.Sprintf("%.1f–%.1f", llo, hi)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %d | %s / %s | %s / %s | %s | %s | %s | %s | %s |\n", name, m.Engine, m.Workers,
			len(m.ok()), Count(uint64(r.Distinct)), Count(uint64(r.Generated)), r.Depth,
			secs(wlo), secs(wmed), secs(clo), secs(cmed), Count(uint64(rate)), perState(cmed, r.Generated), Bytes(rss), loads, ratio)
	}
	return disagree
}

// perState is CPU time per generated state, in nanoseconds: the cost of
// a state, comparable across models of different sizes.
func perState(cpu float64, generated int64) string {
	if generated <= 0 || cpu <= 0 {
		return ""
	}
	return Count(uint64(math.Round(cpu*1e9/float64(generated)))) + " ns"
}

func maxLoad(m Measurement) float64 {
	var hi float64
	for _, r := range m.ok() {
		hi = max(hi, r.Load)
	}
	return hi
}

func secs(s float64) string { return seconds(time.Duration(s * float64(time.Second))) }

func seconds(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// WriteScaling prints, for each model and engine measured at more than
// one worker count, the wall time at the fewest workers and at each
// larger count (minimum / median) and the speed-up of the medians: the
// figure that says whether more workers pay on this machine at this
// load. It prints nothing when no model was measured at two counts.
func WriteScaling(w io.Writer, ms []Measurement) {
	type key struct{ cfg, engine string }
	var order []key
	by := map[key][]Measurement{}
	for _, m := range ms {
		if len(m.ok()) == 0 {
			continue
		}
		k := key{m.Cfg, m.Engine}
		if _, seen := by[k]; !seen {
			order = append(order, k)
		}
		by[k] = append(by[k], m)
	}
	wall := func(r Run) float64 { return r.Wall.Seconds() }
	header := false
	for _, k := range order {
		group := by[k]
		slices.SortFunc(group, func(a, b Measurement) int { return a.Workers - b.Workers })
		base := group[0]
		blo, bmed := base.Stat(wall)
		for _, m := range group[1:] {
			if m.Workers == base.Workers {
				continue
			}
			if !header {
				fmt.Fprintln(w, "| model | engine | workers | wall time min / median | workers | wall time min / median | speed-up (medians) |")
				fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
				header = true
			}
			lo, med := m.Stat(wall)
			speedup := ""
			if med > 0 {
				speedup = fmt.Sprintf("%.2fx", bmed/med)
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s / %s | %d | %s / %s | %s |\n", strings.TrimSuffix(filepath.Base(k.cfg), ".cfg"),
				k.engine, base.Workers, secs(blo), secs(bmed), m.Workers, secs(lo), secs(med), speedup)
		}
	}
}

// Report is a whole benchmark, for WriteJSON.
type Report struct {
	Machine       string
	Pairs         int
	Note          string // why TLC did not run, if it did not
	Measurements  []Measurement
	Disagreements []string
	Took          time.Duration
}

// WriteJSON writes the report as one JSON object: every run with its
// counts, times in seconds, peak RSS in bytes and the load it started
// at, and per measurement the minimum and median the tables print.
func WriteJSON(w io.Writer, rep Report) error {
	type run struct {
		Verdict   string  `json:"verdict,omitempty"`
		Generated int64   `json:"generated"`
		Distinct  int64   `json:"distinct"`
		Depth     int     `json:"depth"`
		WallS     float64 `json:"wall_seconds"`
		CPUS      float64 `json:"cpu_seconds"`
		PeakRSS   int64   `json:"peak_rss_bytes"`
		AtMost    bool    `json:"peak_rss_at_most,omitempty"`
		Load      float64 `json:"load"`
		Error     string  `json:"error,omitempty"`
	}
	type stat struct {
		Min    float64 `json:"min"`
		Median float64 `json:"median"`
	}
	type meas struct {
		Model    string `json:"model"`
		Engine   string `json:"engine"`
		Workers  int    `json:"workers"`
		Runs     []run  `json:"runs"`
		WallS    *stat  `json:"wall_seconds,omitempty"`
		CPUS     *stat  `json:"cpu_seconds,omitempty"`
		CPUPerNs *stat  `json:"cpu_ns_per_generated,omitempty"`
	}
	out := struct {
		Machine       string   `json:"machine"`
		Pairs         int      `json:"pairs"`
		Note          string   `json:"note,omitempty"`
		Measurements  []meas   `json:"measurements"`
		Disagreements []string `json:"disagreements"`
		TookS         float64  `json:"took_seconds"`
	}{Machine: rep.Machine, Pairs: rep.Pairs, Note: rep.Note, Disagreements: rep.Disagreements, TookS: rep.Took.Seconds(),
		Measurements: []meas{}}
	if out.Disagreements == nil {
		out.Disagreements = []string{}
	}
	for _, m := range rep.Measurements {
		if len(m.Runs) == 0 {
			continue
		}
		jm := meas{Model: m.Cfg, Engine: m.Engine, Workers: m.Workers}
		for _, r := range m.Runs {
			jr := run{Verdict: r.Verdict, Generated: r.Generated, Distinct: r.Distinct, Depth: r.Depth, WallS: r.Wall.Seconds(),
				CPUS: r.CPU.Seconds(), PeakRSS: r.PeakRSS, AtMost: r.PeakRSSAtMost, Load: r.Load}
			if r.Err != nil {
				jr.Error = r.Err.Error()
			}
			jm.Runs = append(jm.Runs, jr)
		}
		if len(m.ok()) > 0 {
			var s stat
			s.Min, s.Median = m.Stat(func(r Run) float64 { return r.Wall.Seconds() })
			jm.WallS = &s
			c := stat{}
			c.Min, c.Median = m.Stat(func(r Run) float64 { return r.CPU.Seconds() })
			jm.CPUS = &c
			if g := m.First().Generated; g > 0 {
				p := stat{Min: c.Min * 1e9 / float64(g), Median: c.Median * 1e9 / float64(g)}
				jm.CPUPerNs = &p
			}
		}
		out.Measurements = append(out.Measurements, jm)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
