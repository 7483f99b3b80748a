// Package tlachecker explores the Resume spec with tla-checker, an
// independent TLA+ model checker compiled to WebAssembly (the npm package
// tla-checker, pinned in js/package.json), and compares the state graph it
// finds with the Go mirror's, state by state.
//
// Both graphs are kept in one canonical encoding: a state is the record of
// all spec variables, printed by tlavalue (Canonical). tla-checker's JSON
// states are decoded with tlavalue.FromCheckerJSON and the Go model's
// states with model.Vars, so neither side is read through the other's
// code. Compare then checks the distinct-state counts, the initial states
// and, for every reachable state, that the two successor sets are equal.
//
// The whole breadth-first search on the tla-checker side runs in one node
// process (js/explore.mjs, embedded here and written to a temporary folder
// at run time); node finds the package in js/node_modules, installed with
//
//	npm ci --prefix tla/tlachecker/js
package tlachecker

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlavalue"
)

//go:embed js/explore.mjs
var driver []byte

// ErrNotInstalled is wrapped when node or the pinned tla-checker package is
// missing, so that callers (tests) can skip rather than fail.
var ErrNotInstalled = errors.New("tlachecker: tla-checker not installed")

// DefaultMaxStates bounds a run when Options.MaxStates is zero. The driver
// takes tens of milliseconds per state, so larger models are out of reach.
const DefaultMaxStates = 20000

// Options say where node and the package are. Dir is required; the rest
// may be zero.
type Options struct {
	// Dir is the folder whose node_modules holds tla-checker and whose
	// package.json pins its version (tla/tlachecker/js in the repo).
	Dir string
	// Node is the node executable; "" looks up "node" on PATH.
	Node string
	// MaxStates stops a run that finds more distinct states; 0 means
	// DefaultMaxStates.
	MaxStates int
}

func (o Options) node() string {
	if o.Node == "" {
		return "node"
	}
	return o.Node
}

// Available reports whether node and the pinned package can be used; the
// error wraps ErrNotInstalled when something is missing and says what. An
// installed package whose version differs from the pin is an error that
// does not wrap ErrNotInstalled: a stale install must not pass for a skip.
func Available(o Options) error {
	if o.Dir == "" {
		return errors.New("tlachecker: Options.Dir is not set")
	}
	if _, err := exec.LookPath(o.node()); err != nil {
		return fmt.Errorf("%w: no %s executable: %v", ErrNotInstalled, o.node(), err)
	}
	want, err := pinnedVersion(filepath.Join(o.Dir, "package.json"))
	if err != nil {
		return err
	}
	installed := filepath.Join(o.Dir, "node_modules", "tla-checker", "package.json")
	got, err := packageVersion(installed)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s is missing", ErrNotInstalled, installed)
	}
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("tlachecker: %s is tla-checker %s, but %s pins %s (run npm ci again)",
			installed, got, filepath.Join(o.Dir, "package.json"), want)
	}
	return nil
}

// Version is the version of the installed (and pinned) tla-checker.
func Version(o Options) (string, error) {
	if err := Available(o); err != nil {
		return "", err
	}
	return packageVersion(filepath.Join(o.Dir, "node_modules", "tla-checker", "package.json"))
}

func pinnedVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("tlachecker: %w", err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("tlachecker: %s: %v", path, err)
	}
	v, ok := pkg.Dependencies["tla-checker"]
	if !ok {
		return "", fmt.Errorf("tlachecker: %s does not depend on tla-checker", path)
	}
	return v, nil
}

func packageVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("tlachecker: %s: %v", path, err)
	}
	return pkg.Version, nil
}

// StepCfg turns a model file into the form tla-checker's stepping API
// accepts: INIT Init / NEXT Next instead of SPECIFICATION (it refuses
// FairSpec), and no PROPERTIES, which concern behaviours, not the state
// graph. Constants, invariants and the rest are kept as they are.
func StepCfg(cfg *tlacfg.Config) (string, error) {
	c := *cfg
	c.Specification, c.Init, c.Next = "", "Init", "Next"
	c.Properties = nil
	var sb strings.Builder
	if err := c.Write(&sb); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// rawGraph is the driver's output (see js/explore.mjs).
type rawGraph struct {
	Vars   []string `json:"vars"`
	Init   []int    `json:"init"`
	States []struct {
		JSON json.RawMessage `json:"json"`
		Next []struct {
			Action string `json:"action"`
			To     int    `json:"to"`
		} `json:"next"`
	} `json:"states"`
	Millis int64 `json:"millis"`
}

// Run is one exploration by tla-checker: the graph and what it cost.
type Run struct {
	Graph *Graph
	// Explore is the time the driver spent in explore_init/explore_next;
	// Wall also counts starting node, loading the wasm module and decoding.
	Explore, Wall time.Duration
	// CPU is the node process's user and system time, which unlike the
	// other two does not grow when the machine is busy with other work.
	CPU time.Duration
}

// Explore runs the breadth-first search of the spec at specPath under the
// cfg text (which must use INIT/NEXT; see StepCfg) in one node process
// and returns its graph in the canonical encoding.
func Explore(ctx context.Context, specPath, cfg string, o Options) (*Run, error) {
	start := time.Now()
	if err := Available(o); err != nil {
		return nil, err
	}
	spec, err := os.ReadFile(specPath)
	if err != nil {
		return nil, fmt.Errorf("tlachecker: %w", err)
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("tlachecker: %w", err)
	}
	max := o.MaxStates
	if max == 0 {
		max = DefaultMaxStates
	}
	input, err := json.Marshal(map[string]any{"dir": dir, "spec": string(spec), "cfg": cfg, "maxStates": max})
	if err != nil {
		return nil, fmt.Errorf("tlachecker: %w", err)
	}
	tmp, err := os.MkdirTemp("", "tlachecker-")
	if err != nil {
		return nil, fmt.Errorf("tlachecker: %w", err)
	}
	defer os.RemoveAll(tmp)
	script := filepath.Join(tmp, "explore.mjs")
	if err := os.WriteFile(script, driver, 0o644); err != nil {
		return nil, fmt.Errorf("tlachecker: %w", err)
	}
	cmd := exec.CommandContext(ctx, o.node(), script)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tlachecker: %s: %w", specPath, ctx.Err())
		}
		return nil, fmt.Errorf("tlachecker: %s: node: %v: %s", specPath, err, strings.TrimSpace(stderr.String()))
	}
	var raw rawGraph
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		return nil, fmt.Errorf("tlachecker: %s: driver output: %v", specPath, err)
	}
	g, err := raw.graph()
	if err != nil {
		return nil, fmt.Errorf("tlachecker: %s: %w", specPath, err)
	}
	return &Run{
		Graph:   g,
		Explore: time.Duration(raw.Millis) * time.Millisecond,
		Wall:    time.Since(start),
		CPU:     cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
	}, nil
}

// graph decodes every state and relabels the driver's indexes by canonical
// strings. Distinct stays the driver's count, so that two JSON forms of
// one state would show up as a count difference rather than vanish.
func (raw *rawGraph) graph() (*Graph, error) {
	g := newGraph(SourceChecker, raw.Vars)
	g.OneActionPerTarget = true
	names := make([]string, len(raw.States))
	for i, s := range raw.States {
		vars, err := DecodeCheckerState(s.JSON)
		if err != nil {
			return nil, fmt.Errorf("state %d: %w", i, err)
		}
		names[i] = g.add(vars)
	}
	name := func(i int) (string, error) {
		if i < 0 || i >= len(names) {
			return "", fmt.Errorf("driver refers to state %d of %d", i, len(names))
		}
		return names[i], nil
	}
	for _, i := range raw.Init {
		n, err := name(i)
		if err != nil {
			return nil, err
		}
		g.addInit(n)
	}
	for i, s := range raw.States {
		for _, e := range s.Next {
			to, err := name(e.To)
			if err != nil {
				return nil, err
			}
			g.addEdge(names[i], e.Action, to)
		}
	}
	g.Distinct = len(raw.States)
	return g, nil
}

// DecodeCheckerState converts one state in tla-checker's JSON form (an
// object from variable name to value) to TLA+ values.
func DecodeCheckerState(raw json.RawMessage) (map[string]tlavalue.Value, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("a state must be a JSON object: %v", err)
	}
	vars := make(map[string]tlavalue.Value, len(obj))
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		v, err := tlavalue.FromCheckerJSON(obj[name])
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", name, err)
		}
		vars[name] = v
	}
	return vars, nil
}
