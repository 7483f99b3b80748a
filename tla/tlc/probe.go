package tlc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// The probe: a module that extends the four standard modules this
// project's specs use, with a 3-state space and an invariant that calls
// an operator of each (Len and Append, Cardinality, ToString). A jar
// whose standard modules are missing or damaged answers -version like a
// whole one, and fails every real run: the probe tells them apart.
const (
	probeModule = `---- MODULE Probe ----
\* tlcrun doctor's probe: can this TLC check a spec that uses the
\* standard modules?
EXTENDS Naturals, Sequences, FiniteSets, TLC
VARIABLE s
Init == s = <<>>
Next == Len(s) < 2 /\ s' = Append(s, Cardinality({Len(s)}))
Inv == Len(s) <= 2 /\ ToString(Len(s)) \in {"0", "1", "2"}
====
`
	probeCfg = "INIT Init\nNEXT Next\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n"
	// ProbeStates is the number of distinct states TLC must find.
	ProbeStates = 3
	// ProbeModules names the modules the probe extends, for messages.
	ProbeModules = "Naturals, Sequences, FiniteSets and TLC"
)

// Probe runs this TLC on a tiny spec extending Naturals, Sequences,
// FiniteSets and TLC, in a temporary folder, and returns nil only if TLC
// checked it completely: no error, and its 3 distinct states. The error
// says what TLC reported and what to do.
func (s *Setup) Probe(ctx context.Context) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "tlcrun-probe-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	spec, cfg := filepath.Join(dir, "Probe.tla"), filepath.Join(dir, "Probe.cfg")
	if err := os.WriteFile(spec, []byte(probeModule), 0o644); err != nil {
		return 0, err
	}
	if err := os.WriteFile(cfg, []byte(probeCfg), 0o644); err != nil {
		return 0, err
	}
	start := time.Now()
	res, err := Run(ctx, Options{Jar: s.Jar, Java: s.Java, Spec: spec, Cfg: cfg, WorkDir: filepath.Join(dir, "work")})
	took := time.Since(start)
	fail := func(what string) error {
		what = strings.ReplaceAll(what, dir+string(filepath.Separator), "")
		return fmt.Errorf("TLC could not check a %d-state spec that extends %s, so no model will run: %s. "+
			"The jar lacks TLC's standard modules or is damaged: get an intact one ('tlcrun install --release V --sha256 H', "+
			"or a release from https://github.com/tlaplus/tlaplus/releases)", ProbeStates, ProbeModules, what)
	}
	if err != nil {
		return took, fail(err.Error())
	}
	if err := res.Err(); err != nil {
		return took, fail(fmt.Sprintf("%v (exit %d)", err, res.ExitCode))
	}
	switch {
	case res.ExitCode != 0:
		return took, fail(fmt.Sprintf("exit %d: %s", res.ExitCode, tlcout.Meaning(res.ExitCode)))
	case len(res.Violations) > 0:
		return took, fail("it reported a violation of an invariant that holds")
	case res.Success == nil || res.Stats == nil || res.Stats.Distinct != ProbeStates:
		found := "no final counts"
		if res.Stats != nil {
			found = fmt.Sprintf("%d distinct states", res.Stats.Distinct)
		}
		if res.Success == nil {
			found += " and no success"
		}
		return took, fail(fmt.Sprintf("it reported %s, want %d", found, ProbeStates))
	}
	return took, nil
}
