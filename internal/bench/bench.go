package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
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
	// Repeat runs each Go measurement this many times, TLCRepeat each TLC
	// one, and the fastest run counts.
	Repeat, TLCRepeat int
	// Mem is the Go engine's --mem budget ("" = its default).
	Mem string
	// Log receives a line as each run starts and ends.
	Log io.Writer
}

// Run is one measurement.
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
	Err     error
}

// Rate is distinct states per second of wall time.
func (r Run) Rate() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Distinct) / r.Wall.Seconds()
}

// Measure runs every configuration.
func Measure(ctx context.Context, c Config) []Run {
	var out []Run
	logf := func(format string, args ...any) {
		if c.Log != nil {
			fmt.Fprintf(c.Log, format+"\n", args...)
		}
	}
	best := func(runs []Run) Run {
		b := runs[0]
		for _, r := range runs[1:] {
			if b.Err != nil || (r.Err == nil && r.Wall < b.Wall) {
				b = r
			}
		}
		return b
	}
	for _, cfg := range c.Cfgs {
		for _, engine := range []string{"go", "tlc"} {
			if engine == "tlc" && (c.TLC == nil || c.TLCSkip[cfg]) {
				continue
			}
			repeat := max(c.Repeat, 1)
			if engine == "tlc" {
				repeat = max(c.TLCRepeat, 1)
			}
			for _, w := range c.Workers {
				var runs []Run
				for i := range repeat {
					if ctx.Err() != nil {
						return out
					}
					logf("bench: %s %s, %d workers (run %d of %d) ...", cfg, engine, w, i+1, repeat)
					var r Run
					if engine == "go" {
						r = c.goRun(ctx, cfg, w)
					} else {
						r = c.TLC.Run(ctx, cfg, c.Spec, w)
					}
					if r.Err != nil {
						logf("bench:   failed: %v", r.Err)
					} else {
						logf("bench:   %d distinct in %s, peak RSS %s", r.Distinct, r.Wall.Round(time.Millisecond), Bytes(r.PeakRSS))
					}
					runs = append(runs, r)
				}
				out = append(out, best(runs))
			}
		}
	}
	return out
}

// goRun runs "tlcrun check --json" as a child process, so that its peak
// RSS is measured alone.
func (c Config) goRun(ctx context.Context, cfg string, workers int) Run {
	r := Run{Cfg: cfg, Engine: "go", Workers: workers}
	args := []string{"check", "--json", "--progress", "0", "--workers", fmt.Sprint(workers), "--spec", c.Spec}
	if c.Mem != "" {
		args = append(args, "--mem", c.Mem)
	}
	args = append(args, cfg)
	stdout, wall, cpu, rss, err := runChild(ctx, exec.CommandContext(ctx, c.Tlcrun, args...))
	r.Wall, r.CPU, r.PeakRSS = wall, cpu, rss
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
func runChild(ctx context.Context, cmd *exec.Cmd) ([]byte, time.Duration, time.Duration, int64, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var rss int64
	var cpu time.Duration
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss << 10 // kilobytes on Linux
		}
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil {
		return stdout.Bytes(), wall, cpu, rss, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
	}
	return stdout.Bytes(), wall, cpu, rss, nil
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

// WriteTable prints the runs as a Markdown table: per cfg, Go and TLC at
// each worker count, with the Go engine's throughput over TLC's at the same
// worker count. It returns the disagreements between Go and TLC counts.
func WriteTable(w io.Writer, runs []Run) []string {
	fmt.Fprintln(w, "| model | engine | workers | distinct states | generated | depth | wall time | CPU time | distinct states/s | peak RSS | Go / TLC |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	find := func(cfg, engine string, workers int) *Run {
		for i := range runs {
			r := &runs[i]
			if r.Cfg == cfg && r.Engine == engine && r.Workers == workers && r.Err == nil {
				return r
			}
		}
		return nil
	}
	var disagree []string
	for _, r := range runs {
		name := strings.TrimSuffix(filepath.Base(r.Cfg), ".cfg")
		if r.Err != nil {
			fmt.Fprintf(w, "| %s | %s | %d | failed: %v | | | | | | | |\n", name, r.Engine, r.Workers, r.Err)
			continue
		}
		ratio := ""
		if r.Engine == "go" {
			if t := find(r.Cfg, "tlc", r.Workers); t != nil && t.Rate() > 0 {
				ratio = fmt.Sprintf("%.1fx", r.Rate()/t.Rate())
			}
		} else if g := find(r.Cfg, "go", r.Workers); g != nil &&
			(g.Distinct != r.Distinct || g.Generated != r.Generated || g.Depth != r.Depth) {
			disagree = append(disagree, fmt.Sprintf("%s at %d workers: Go %d/%d/%d, TLC %d/%d/%d (generated/distinct/depth)",
				name, r.Workers, g.Generated, g.Distinct, g.Depth, r.Generated, r.Distinct, r.Depth))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %d | %s | %s | %s | %s | %s |\n", name, r.Engine, r.Workers,
			Count(uint64(r.Distinct)), Count(uint64(r.Generated)), r.Depth, seconds(r.Wall), seconds(r.CPU),
			Count(uint64(r.Rate())), Bytes(r.PeakRSS), ratio)
	}
	return disagree
}

func seconds(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
