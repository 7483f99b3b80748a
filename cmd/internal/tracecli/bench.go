package tracecli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/tracecheck"
)

func newBench(stdout, stderr io.Writer) *cobra.Command {
	var (
		events, runs int
		keep, shapes string
	)
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Measure trace replay end to end, from files of long traces",
		Long: `bench writes long traces (a million events each by default) of several
shapes into a folder, then replays each file the way tracecheck does
(reading, decoding and checking, streaming) --runs times, the shapes
interleaved so that a change in the machine's load touches them alike, and
prints for each shape the events per second of wall time and of CPU time
(user and system, the garbage collector's included: on a shared machine the
better measure of one core), the CPU time per event, and the bytes
allocated per event. The load average is printed before and after.

Shapes (each accepted by the reference semantics, observing what the
reference sequencer observes at that action unless said otherwise):
` + shapeList(),
		Example: `  tracecheck bench
  tracecheck bench --events 4000000 --runs 5 --shapes strays,racers
  tracecheck bench --keep /tmp/traces     # keep the files, e.g. for /usr/bin/time -v tracecheck FILE`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var chosen []longShape
			for _, s := range longShapes {
				if shapes == "" || slices.Contains(strings.Split(shapes, ","), s.name) {
					chosen = append(chosen, s)
				}
			}
			if len(chosen) == 0 || events < 10 || runs < 1 {
				return clibase.Usage(fmt.Errorf("want --events >= 10, --runs >= 1 and --shapes among %s", shapeNames()))
			}
			dir := keep
			if dir == "" {
				tmp, err := os.MkdirTemp("", "tracecheck-bench-")
				if err != nil {
					return clibase.Exit(ExitFailure, err)
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return clibase.Exit(ExitFailure, err)
			}
			return runBench(cmd.OutOrStdout(), dir, chosen, events, runs)
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f := cmd.Flags()
	f.IntVar(&events, "events", 1_000_000, "events per trace")
	f.IntVar(&runs, "runs", 3, "replays of each trace")
	f.StringVar(&shapes, "shapes", "", "shapes to run, comma-separated (default: all)")
	f.StringVar(&keep, "keep", "", "write the traces into this folder and keep them (default: a temporary folder)")
	return cmd
}

func shapeList() string {
	var sb strings.Builder
	for _, s := range longShapes {
		fmt.Fprintf(&sb, "  %-11s %s\n", s.name, s.doc)
	}
	return sb.String()
}

func shapeNames() string {
	names := make([]string, len(longShapes))
	for i, s := range longShapes {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// benchRun is one replay of one file.
type benchRun struct {
	wall, cpu time.Duration
	alloc     uint64
}

// replayFile reads, decodes and checks the trace at path as tracecheck
// does, and measures it.
func replayFile(path string) (*tracecheck.Result, benchRun, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc
	cpu, start := cpuTime(), time.Now()
	res, err := checkFile(path)
	r := benchRun{wall: time.Since(start), cpu: cpuTime() - cpu}
	runtime.ReadMemStats(&ms)
	r.alloc = ms.TotalAlloc - alloc
	return res, r, err
}

func runBench(w io.Writer, dir string, shapes []longShape, events, runs int) error {
	fmt.Fprintf(w, "load average before: %s (%d CPUs, GOMAXPROCS %d)\n", loadAverage(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	paths := make([]string, len(shapes))
	sizes := make([]int64, len(shapes))
	counts := make([]int, len(shapes))
	for i, s := range shapes {
		paths[i] = filepath.Join(dir, s.name+".ndjson")
		// Through a temporary: a bench stopped midway leaves no shorter
		// trace under the shape's name in --keep's folder.
		err := atomicfile.WriteFile(paths[i], func(w io.Writer) error { return s.write(w, events) })
		if err != nil {
			return clibase.Exit(ExitFailure, fmt.Errorf("writing %s: %w", paths[i], err))
		}
		st, err := os.Stat(paths[i])
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		sizes[i] = st.Size()
	}
	results := make([][]benchRun, len(shapes))
	for range runs {
		for i := range shapes {
			runtime.GC()
			res, r, err := replayFile(paths[i])
			if err != nil {
				return inputError(err)
			}
			if res.Verdict != tracecheck.Accepted {
				return clibase.Exit(ExitFailure, fmt.Errorf("%s: %s, want accepted:\n%s", paths[i], res.Verdict, res.Text()))
			}
			counts[i] = res.Matched
			results[i] = append(results[i], r)
		}
	}
	fmt.Fprintf(w, "%s of each file, interleaved; the median run and the fastest (by CPU time)\n", plural(runs, "replay"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tevents\tbytes/event\twall events/s\tCPU events/s\tCPU ns/event\tfastest CPU events/s\tallocated B/event\t")
	for i, s := range shapes {
		rs := slices.Clone(results[i])
		slices.SortFunc(rs, func(a, b benchRun) int { return int(a.cpu - b.cpu) })
		med, best := rs[len(rs)/2], rs[0]
		n := float64(counts[i])
		perSec := func(d time.Duration) string {
			if d <= 0 {
				return "-"
			}
			return thousands(n / d.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%.0f\t%s\t%.1f\t\n", s.name, thousands(n), float64(sizes[i])/n,
			perSec(med.wall), perSec(med.cpu), float64(med.cpu.Nanoseconds())/n, perSec(best.cpu), float64(med.alloc)/n)
	}
	tw.Flush()
	fmt.Fprintf(w, "load average after: %s\n", loadAverage())
	return nil
}

// loadAverage is the first three fields of /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// thousands prints n rounded, with commas.
func thousands(n float64) string {
	s := fmt.Sprintf("%.0f", n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
