// Package faulty builds the spec's faults (docs/resume-contract.md,
// "Faults") as policies of the reference sequencer, for the tests that
// show the trace check and the ledger check catch them, and for seqctl
// --fault.
//
// Each fault is the reference policy (sequencer.Reference) with the
// answers of one switch changed: a small type that embeds the policy it
// wraps and overrides only the methods of its decision points. The
// reference sequencer itself has no fault branch; it asks its
// sequencer.Policy at each decision point (docs/sequencer.md, "Policies").
package faulty

import (
	"maps"
	"os"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/sequencer"
)

// Options choose the switches of a policy. The zero value is the
// reference.
type Options struct {
	// Faults are the spec's faults to switch on.
	Faults model.FaultSet
	// Unfenced is the sequencer as it was before branch ownership: no
	// driver is fenced out of a branch another process took over, a claim
	// need not be of the task after the frontier, and a driver that finds
	// the task it is about to run already committed claims it again under
	// a fresh key. The concurrency tests run with it to show that they
	// catch the double effects this causes (docs/sequencer.md, "Concurrent
	// processes").
	Unfenced bool
	// Choose picks one of n alternatives where a fault makes recovery
	// nondeterministic (nondetrec, regate). A policy is asked inside a
	// store transaction, so Choose must depend on n only. Default: by
	// process id.
	Choose func(n int) int
}

// New returns the reference policy with the switches of opt on. Where two
// faults answer the same question (a combination, which no test uses),
// the recovery decision is the first that applies in the order
// volatilepark, replay, prefixreplay, nondetrec, regate, rebuild,
// redeliver, and raceeffect wins over raceconsume.
func New(opt Options) sequencer.Policy {
	choose := opt.Choose
	if choose == nil {
		choose = func(n int) int { return os.Getpid() % n }
	}
	var p sequencer.Policy = sequencer.Reference{}
	// Innermost first: an outer wrapper answers before the ones inside.
	for _, f := range wrapOrder {
		if opt.Faults.Has(f) {
			p = wrap(f, p, choose)
		}
	}
	if opt.Unfenced {
		p = unfenced{p}
	}
	if opt.Faults != 0 || opt.Unfenced {
		p = oneStepEach{p}
	}
	return p
}

// oneStepEach: every step in a transaction of its own, as the sequencer
// wrote them before it joined steps (sequencer.Policy.JoinSteps). A
// faulty sequencer keeps the crash points between a commit and the next
// claim or park: the scenarios that expose its fault crash there (a
// recovery that replays or redelivers from a frontier whose next claim
// is not taken yet).
type oneStepEach struct{ sequencer.Policy }

func (oneStepEach) JoinSteps() bool { return false }

// wrapOrder is the order New wraps the faults in, innermost first: every
// fault of the model (TestEveryFault).
var wrapOrder = []model.Fault{
	model.Redeliver, model.Rebuild, model.Regate, model.NondetRec, model.PrefixReplay, model.Replay, model.VolatilePark,
	model.RaceConsume, model.RaceEffect,
	model.ForkIgnore, model.InvalidPersist, model.DoubleConsume, model.NoIntent,
}

// wrap returns p with fault f on.
func wrap(f model.Fault, p sequencer.Policy, choose func(int) int) sequencer.Policy {
	switch f {
	case model.Replay:
		return replay{p}
	case model.PrefixReplay:
		return prefixReplay{p}
	case model.NondetRec:
		return nondetRec{p, choose}
	case model.Regate:
		return regate{p, choose}
	case model.Rebuild:
		return rebuild{p}
	case model.Redeliver:
		return redeliver{p}
	case model.VolatilePark:
		return volatilePark{p}
	case model.ForkIgnore:
		return forkIgnore{p}
	case model.InvalidPersist:
		return invalidPersist{p}
	case model.DoubleConsume:
		return doubleConsume{p}
	case model.RaceConsume:
		return raceConsume{p}
	case model.RaceEffect:
		return raceEffect{p}
	case model.NoIntent:
		return noIntent{p}
	}
	panic("faulty: no switch for fault " + string(f))
}

// skip is the contract's recovery decision: a fault that applies but
// keeps it (nondetrec and regate choosing 0) answers with it, and no
// fault inside it answers.
func skip(v sequencer.RecoveryView) sequencer.Recovery { return sequencer.Reference{}.Recover(v) }

// replay: recovery starts again at task 1 and runs the completed tasks
// again, under fresh claims.
type replay struct{ sequencer.Policy }

func (replay) Reexecute() bool { return true }
func (replay) Recommit() bool  { return true }
func (p replay) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	if v.Parked {
		return p.Policy.Recover(v)
	}
	r := skip(v)
	r.Next, r.Decision = 1, "replay"
	return r
}

// prefixReplay: replay, but a re-run gate takes its output from its
// durable record (a memoized gate).
type prefixReplay struct{ sequencer.Policy }

func (prefixReplay) Reexecute() bool    { return true }
func (prefixReplay) Recommit() bool     { return true }
func (prefixReplay) MemoizedGate() bool { return true }
func (p prefixReplay) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	return replay(p).Recover(v)
}

// nondetRec: at the same durable state, recovery may skip past the
// frontier (choice 0) or run the frontier task again (choice 1).
type nondetRec struct {
	sequencer.Policy
	choose func(int) int
}

func (nondetRec) Reexecute() bool { return true }
func (nondetRec) Recommit() bool  { return true }
func (p nondetRec) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	if v.Parked {
		return p.Policy.Recover(v)
	}
	r := skip(v)
	if p.choose(2) == 1 {
		r.Next, r.Decision = v.Frontier, "reexec"
	}
	return r
}

// regate: at the same durable state, recovery may record "regate" for a
// consumed gate (choice 1).
type regate struct {
	sequencer.Policy
	choose func(int) int
}

func (p regate) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	if v.Parked || !v.GateCommitted {
		return p.Policy.Recover(v)
	}
	r := skip(v)
	if p.choose(2) == 1 {
		r.Decision = "regate"
	}
	return r
}

// rebuild: recovery records "rebuild" (the state rebuilt from the input).
type rebuild struct{ sequencer.Policy }

func (p rebuild) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	if v.Parked {
		return p.Policy.Recover(v)
	}
	r := skip(v)
	r.Decision = "rebuild"
	return r
}

// redeliver: recovery continues at frontier + 1 but fires the frontier
// task's effect again, under a fresh claim (not the gate's).
type redeliver struct{ sequencer.Policy }

func (p redeliver) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	if v.Parked {
		return p.Policy.Recover(v)
	}
	r := skip(v)
	r.Decision = "redeliver"
	if v.Frontier != v.Gate {
		r.Redeliver = v.Frontier
	}
	return r
}

// volatilePark: the park is not written, and a recovery at the gate
// before it was consumed finds nothing to continue: the run is lost.
type volatilePark struct{ sequencer.Policy }

func (volatilePark) DurablePark() bool { return false }
func (p volatilePark) Recover(v sequencer.RecoveryView) sequencer.Recovery {
	if v.Parked || v.Frontier != v.Gate-1 || v.Consumed {
		return p.Policy.Recover(v)
	}
	r := skip(v)
	r.Lost = true
	return r
}

// forkIgnore: a fork is served the value that consumed the gate.
type forkIgnore struct{ sequencer.Policy }

func (forkIgnore) ForkValue(_, consumed string) string { return consumed }

// invalidPersist: the last task's state is persisted unvalidated, and it
// is not what the schema allows.
type invalidPersist struct{ sequencer.Policy }

func (p invalidPersist) Persist(task, n int, st sequencer.State) (sequencer.State, bool) {
	if task != n {
		return p.Policy.Persist(task, n, st)
	}
	bad := maps.Clone(st)
	bad["unchecked"] = "\x00"
	return bad, false
}

// doubleConsume: a stray resume after completion takes a grant and fires
// the gate's effect again.
type doubleConsume struct{ sequencer.Policy }

func (doubleConsume) Stray() sequencer.Consumption { return sequencer.ConsumeAndFire }

// raceConsume: the gate is no compare-and-set: a resume that finds it
// consumed takes a grant too.
type raceConsume struct{ sequencer.Policy }

func (raceConsume) Race() sequencer.Consumption { return sequencer.Consume }

// raceEffect: raceconsume, and the loser fires the gate's effect.
type raceEffect struct{ sequencer.Policy }

func (raceEffect) Race() sequencer.Consumption { return sequencer.ConsumeAndFire }

// noIntent: no fork intent; a second delivery to the consumed checkpoint
// is taken like a first.
type noIntent struct{ sequencer.Policy }

func (noIntent) Intents() bool { return false }

// unfenced: the sequencer before branch ownership (Options.Unfenced).
type unfenced struct{ sequencer.Policy }

func (unfenced) Fenced() bool    { return false }
func (unfenced) Reexecute() bool { return true }
