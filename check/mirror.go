package check

import (
	"errors"
	"fmt"
	"os"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/spec"
	"github.com/resumecontract/resumecheck/tla/tlanorm"
)

// ErrNotMirrored is wrapped when the Go engine is asked to check a spec
// whose text is not the one model/ mirrors (package spec): its verdict
// would be that of the recorded text, not of this one.
var ErrNotMirrored = errors.New("check: the Go engine does not mirror this spec")

// NotMirroredError says which spec was refused and why, and what to do.
type NotMirroredError struct {
	Spec string
	// Digest is the spec's digest, "" when it could not be normalised
	// (Err says why).
	Digest string
	Err    error
	// Record is what this build mirrors.
	Record spec.Mirror
}

func (e *NotMirroredError) Is(target error) bool { return target == ErrNotMirrored }

func (e *NotMirroredError) Error() string {
	what := "its digest, comments and whitespace aside, is " + short(e.Digest)
	if e.Digest == "" {
		what = fmt.Sprintf("its text cannot be normalised, %s:%v", e.Spec, e.Err)
	}
	rec := "model/ mirrors " + short(e.Record.Digest)
	if e.Record.Compared != "" {
		rec += fmt.Sprintf(", compared %s by %s", e.Record.Compared, e.Record.Command)
	}
	return fmt.Sprintf("%s is not the spec the Go engine mirrors (%s; %s).\n"+
		"The compiled mirror would give the verdict of that text, not of this one. 'tlcrun check' checks this spec with "+
		"the TLA+ interpreter (or TLC, --engine tlc); 'tlcrun mirror' names the first state where model/ and this spec "+
		"differ: bring model/ in line with it and run 'tlcrun mirror --update' (it records the new digest only if they "+
		"agree; then rebuild tlcrun).",
		e.Spec, what, rec)
}

// short is a digest cut to 16 hex digits, enough to tell texts apart in a
// message.
func short(d string) string {
	if len(d) > len("sha256:")+16 {
		return d[:len("sha256:")+16] + "..."
	}
	return d
}

// VerifySpec checks that the spec at path is the text the Go model
// mirrors: that the digest of its normal form is the recorded one (for a
// module other than Resume that this build mirrors, the one its own
// record names).
func VerifySpec(path string) error {
	rec, err := spec.Recorded()
	if err != nil {
		return err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return inputf("spec %s does not exist (give its path with --spec)", path)
		}
		return inputf("%v", err)
	}
	if mod := moduleRE.FindSubmatch(src); mod != nil {
		if mi, ok := mirrored(string(mod[1])); ok {
			return verifyRecord(path, mi.Record)
		}
	}
	if err := isModule(path, src); err != nil {
		return err
	}
	if rec.Normalisation != tlanorm.Version {
		return fmt.Errorf("check: %s records a digest of normal form %q, this build computes %q: run tlcrun mirror --update",
			spec.MirrorFile, rec.Normalisation, tlanorm.Version)
	}
	d, err := tlanorm.Digest(src)
	if err != nil {
		return &NotMirroredError{Spec: path, Err: err, Record: rec}
	}
	if d != rec.Digest {
		return &NotMirroredError{Spec: path, Digest: d, Record: rec}
	}
	return nil
}

// VerifyMirror checks that the job's spec is the text its Go mirror
// mirrors (VerifySpec for Resume, the spec's own record for another),
// unless the job is Unverified.
func (j *Job) VerifyMirror() error { return j.verified() }

// verified is VerifySpec for the job's spec, unless the job is part of
// the comparison that decides whether model/ mirrors it (Unverified).
func (j *Job) verified() error {
	if j.Unverified || j.interp != nil {
		return nil
	}
	if j.record != nil {
		return verifyRecord(j.SpecPath, j.record)
	}
	return VerifySpec(j.SpecPath)
}

// Machine is the job's Go model over unpacked states, with the job's
// Mutate applied: what the differential comparisons explore.
type Machine struct {
	*model.Model
	mutate func(from model.State, l model.Label, to model.State) (model.Label, model.State)
}

// Machine returns the job's model (see Machine). Like Run, it refuses a
// spec the model does not mirror, unless the job is Unverified.
func (j *Job) Machine() (Machine, error) {
	if j.other != nil {
		return Machine{}, fmt.Errorf("check: %s is module %s, not %s", j.SpecPath, j.Module, Module)
	}
	if err := j.verified(); err != nil {
		return Machine{}, err
	}
	m, err := model.New(j.Params)
	if err != nil {
		return Machine{}, err
	}
	return Machine{Model: m, mutate: j.Mutate}, nil
}

// Next calls emit with every successor of s.
func (m Machine) Next(s model.State, emit func(model.Label, model.State)) {
	if m.mutate == nil {
		m.Model.Next(s, emit)
		return
	}
	m.Model.Next(s, func(l model.Label, t model.State) { emit(m.mutate(s, l, t)) })
}

// nextPacked is NextPacked with the mutation applied.
func (m Machine) nextPacked(s model.Packed, emit func(model.Label, model.Packed)) {
	if m.mutate == nil {
		m.NextPacked(s, emit)
		return
	}
	from := m.Unpack(s)
	m.NextPacked(s, func(l model.Label, t model.Packed) {
		l, to := m.mutate(from, l, m.Unpack(t))
		p, err := m.Pack(to)
		if err != nil {
			panic(fmt.Sprintf("check: a mutated successor does not pack: %v", err))
		}
		emit(l, p)
	})
}
