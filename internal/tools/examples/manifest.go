package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxRuntime bounds the suite: models the manifest records as taking at
// least this long are left out (TLC's runtime on the Examples CI).
const maxRuntime = 5 * time.Minute

// manifest is the part of a tlaplus/Examples specifications/*/manifest.json
// this program reads (its schema is manifest-schema.json there).
type manifest struct {
	Modules []struct {
		Path     string   `json:"path"`
		Features []string `json:"features"`
		Models   []struct {
			Path           string          `json:"path"`
			Runtime        string          `json:"runtime"`
			Mode           json.RawMessage `json:"mode"`
			Result         string          `json:"result"`
			DistinctStates *int64          `json:"distinctStates"`
			TotalStates    *int64          `json:"totalStates"`
			StateDepth     *int64          `json:"stateDepth"`
		} `json:"models"`
	} `json:"modules"`
}

// Model is one model of the manifests: a cfg checked against a module,
// with what the manifest recorded of TLC's run.
type Model struct {
	// Name is the cfg's path from the Examples root, slash-separated (the
	// manifest's "path"); it names the model everywhere.
	Name string
	// Spec is the module's path from the Examples root.
	Spec string
	// Features are the module's manifest features ("action composition",
	// "pluscal").
	Features []string
	// Mode is the manifest's mode: "exhaustive search", "symbolic",
	// "generate", or "simulate" for the object form.
	Mode string
	// Runtime is TLC's recorded runtime; RuntimeKnown is false for "unknown".
	Runtime      time.Duration
	RuntimeKnown bool
	// Result is the recorded outcome ("success", "safety failure", ...).
	Result string
	// Distinct, Generated and Depth are TLC's recorded counts; nil where
	// the manifest has none.
	Distinct, Generated, Depth *int64
}

// Dir is the model's folder from the Examples root: the runs' working
// directory.
func (m Model) Dir() string { return path.Dir(m.Name) }

// Exclusion says why a model is not in the suite; "" means it is.
func (m Model) Exclusion() string {
	switch {
	case m.Mode != "exhaustive search":
		return "mode is " + m.Mode + ", not exhaustive search"
	case m.Distinct == nil:
		return "no recorded distinctStates"
	case !m.RuntimeKnown:
		return "runtime unknown"
	case m.Runtime >= maxRuntime:
		return fmt.Sprintf("runtime %v min or more", maxRuntime.Minutes())
	}
	return ""
}

// Selection is the suite and why the other models are not in it.
type Selection struct {
	Suite []Model
	// Left maps each reason to how many models it left out.
	Left map[string]int
	// Total counts every model of every manifest.
	Total int
}

// Select splits models into the suite (exhaustive search, distinct states
// recorded, recorded runtime under five minutes) and the rest, counted by
// reason. The suite keeps the order of models.
func Select(models []Model) Selection {
	s := Selection{Left: map[string]int{}, Total: len(models)}
	for _, m := range models {
		if why := m.Exclusion(); why != "" {
			s.Left[why]++
			continue
		}
		s.Suite = append(s.Suite, m)
	}
	return s
}

// LeftSummary lists the reasons, most frequent first: "50 no recorded
// distinctStates, 42 mode is symbolic, ...".
func (s Selection) LeftSummary() string {
	type kv struct {
		why string
		n   int
	}
	var l []kv
	for why, n := range s.Left {
		l = append(l, kv{why, n})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].n != l[j].n {
			return l[i].n > l[j].n
		}
		return l[i].why < l[j].why
	})
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = fmt.Sprintf("%d %s", e.n, e.why)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// LoadModels reads every specifications/*/manifest.json under the
// Examples root, sorted by manifest path, models in manifest order.
func LoadModels(root string) ([]Model, error) {
	paths, err := fs.Glob(os.DirFS(root), "specifications/*/manifest.json")
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no specifications/*/manifest.json under %s (is it a tlaplus/Examples checkout?)", root)
	}
	sort.Strings(paths)
	var models []Model
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		ms, err := parseManifest(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		models = append(models, ms...)
	}
	return models, nil
}

func parseManifest(data []byte) ([]Model, error) {
	var mf manifest
	if err := json.Unmarshal(data, &mf); err != nil {
		return nil, err
	}
	var models []Model
	for _, mod := range mf.Modules {
		for i, mo := range mod.Models {
			mode, err := parseMode(mo.Mode)
			if err != nil {
				return nil, fmt.Errorf("module %s, model %d (%s): %w", mod.Path, i, mo.Path, err)
			}
			rt, known, err := parseRuntime(mo.Runtime)
			if err != nil {
				return nil, fmt.Errorf("module %s, model %s: %w", mod.Path, mo.Path, err)
			}
			models = append(models, Model{
				Name: mo.Path, Spec: mod.Path, Features: mod.Features, Mode: mode,
				Runtime: rt, RuntimeKnown: known, Result: mo.Result,
				Distinct: mo.DistinctStates, Generated: mo.TotalStates, Depth: mo.StateDepth,
			})
		}
	}
	return models, nil
}

// parseMode reads a manifest mode: a string, or {"simulate": {...}}.
func parseMode(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) != 1 {
		return "", fmt.Errorf("mode %s: neither a string nor an object with one key", raw)
	}
	for k := range obj {
		return k, nil
	}
	panic("unreachable")
}

// parseRuntime reads "HH:MM:SS" or "unknown".
func parseRuntime(s string) (time.Duration, bool, error) {
	if s == "unknown" {
		return 0, false, nil
	}
	f := strings.Split(s, ":")
	if len(f) != 3 {
		return 0, false, fmt.Errorf("runtime %q: want HH:MM:SS or unknown", s)
	}
	var d time.Duration
	for i, unit := range []time.Duration{time.Hour, time.Minute, time.Second} {
		n, err := strconv.Atoi(f[i])
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("runtime %q: want HH:MM:SS or unknown", s)
		}
		d += time.Duration(n) * unit
	}
	return d, true, nil
}
