package model

import (
	"fmt"
	"strings"
)

// This file is the contract's vocabulary, written once: the names of the
// obligations, of the spec's properties that check them and of their
// clauses, a sentence that teaches each, what a fault switch changes, and
// the order of the actions. Every other package (the fault matrix, the
// pages, the trace decoder, the stories) takes its names and texts from
// here; TestNoVocabularyCopies fails when a string literal outside this
// package spells one of them.

// The obligations' IDs (Obligation.ID), the spec's property names that are
// not an ID, and the named clauses. A name of the spec is also the name of
// the invariant or temporal property that checks it.
const (
	EO = "EO"
	PC = "PC"
	FD = "FD"
	CV = "CV"
	CO = "CO"
	RD = "RD"
	FI = "FI"
	LV = "LV"
	// Liveness is the temporal property that checks LV: the fault matrix
	// and the cfgs say Liveness, the conformance tables LV.
	Liveness = "Liveness"
	// PCPrefix and PCLineage are PC's clauses, COEffect and COCount CO's.
	PCPrefix  = "PCPrefix"
	PCLineage = "PCLineage"
	COEffect  = "COEffect"
	COCount   = "COCount"
)

// Term is one property of the contract as the pages teach it: an
// obligation checked by the spec (the six safety obligations and
// liveness) or one of the named clauses.
type Term struct {
	// Property is the spec's name of it (EO, Liveness, PCPrefix).
	Property string
	// Obligation is the obligation's ID (LV for Liveness); for a clause,
	// the ID of the obligation it is a clause of.
	Obligation string
	Clause     bool
	// Gloss is the few words a grid's column is glossed with.
	Gloss string
	// Meaning says in one sentence, without its final stop, what holds.
	Meaning string
	// Kept and Broken say what a run shows when the property holds and
	// when it fails: the end of a cell's sentence.
	Kept, Broken string
	// Lesson and Stake teach an obligation at length (docs/contract.md):
	// what it asks, and what goes wrong without it. A clause has none.
	Lesson, Stake string
}

// Terms are the properties of the fault matrix in its column order: the
// six safety obligations, liveness, then the clauses of CO and PC.
var Terms = []Term{
	{EO, EO, false, "effect exactly-once", "every task's external effect fires at most once",
		"no task's effect fires more than once", "a task's effect fires more than once",
		"Every task's external effect (the email, the card charge) fires at most once, however often the run crashes, recovers or is resumed.",
		"An effect that fires twice is the failure users notice first: the customer is charged twice."},
	{PC, PC, false, "prefix continuation", "after a crash, no task whose completion is durable runs again",
		"no task at or below the frontier runs again and no recovery rebuilds from the initial input",
		"execution re-enters the durable prefix or rebuilds it from the initial input",
		"After a crash, execution continues after the durable prefix: it never re-executes a task whose completion is durable, and recovery continues from the durable log, not from a rebuild of the run's initial input.",
		"Re-entering the prefix is how duplicate effects and lost updates start; a rebuild may reach the same place by a different path, which the lineage clause catches even when no effect fires twice."},
	{FD, FD, false, "fork determinism", "every resume aimed at the interrupt observes the outcome of its own value",
		"every resume observes its own value's outcome", "a resume observes an outcome that is not its own value's",
		"Every resume aimed at the interrupt checkpoint observes the outcome of its own value.",
		"A human who forks a run with a new answer must see that answer's consequences, not the first answer's."},
	{CV, CV, false, "checkpoint validity", "every durable record is valid",
		"every durable record is valid", "an invalid record becomes durable",
		"Every durable record is valid: state that fails its schema is refused, never persisted.",
		"An invalid record persisted silently poisons every later recovery that reads it."},
	{CO, CO, false, "consume-once", "a parked interrupt is consumed at most once and the gated effect fires at most once",
		"the interrupt is consumed at most once and the gated effect fires at most once",
		"the interrupt is consumed twice or the gated effect fires twice",
		"A parked interrupt is consumed at most once (the count clause), and the gated effect fires at most once (the effect clause, which EO already implies).",
		"When several processes resume one parked run, exactly one may pass the gate; the others must get an explicit conflict."},
	{RD, RD, false, "recovery determinism", "two recoveries from the same durable state decide the same",
		"recoveries at the same frontier decide alike", "two recoveries at the same frontier decide differently",
		"Two recoveries from the same durable state make the same decision.",
		"Recovery must be a function of what is durable, not of which process recovers or when; otherwise the same crash has different outcomes."},
	{Liveness, LV, false, "every fair run completes", "every fair run eventually completes",
		"every fair run still completes", "a fair run can stop short of completion for ever",
		"Every fair run eventually completes.",
		"Safety alone is satisfied by a system that refuses every resume; liveness rules that out."},
	{COEffect, CO, true, "the gated effect fired at most once", "the gated effect fired at most once",
		"the gated effect fires at most once", "the gated effect fires twice", "", ""},
	{COCount, CO, true, "the parked interrupt was consumed at most once", "the parked interrupt was consumed at most once",
		"the parked interrupt is consumed at most once", "the parked interrupt is consumed twice", "", ""},
	{PCPrefix, PC, true, "no task at or below the frontier re-executed", "no task at or below the frontier re-executed",
		"no task at or below the frontier is re-run", "a task at or below the frontier is re-run", "", ""},
	{PCLineage, PC, true, "no recovery rebuilt from the initial input", "no recovery rebuilt from the initial input",
		"no recovery rebuilds from the initial input", "a recovery rebuilds from the initial input", "", ""},
}

// TermOf returns the term of a property or obligation name: Liveness and
// LV are the same term; FI, which no property checks, has none.
func TermOf(name string) (Term, bool) {
	for _, t := range Terms {
		if t.Property == name || (!t.Clause && t.Obligation == name) {
			return t, true
		}
	}
	return Term{}, false
}

// ObligationByID returns the obligation of an ID; the property's name
// (Liveness) names its obligation too.
func ObligationByID(id string) (Obligation, bool) {
	for _, o := range Obligations {
		if o.ID == id || (o.Property != "" && o.Property == id) {
			return o, true
		}
	}
	return Obligation{}, false
}

// ObligationMeaning is the one-sentence meaning (no final stop) of an
// obligation or property, led by its name: "effect exactly-once: every
// task's external effect fires at most once". Where the spec's property
// has another name than the obligation it says so ("liveness (called
// Liveness in the fault matrix): ..."). "" for a name of neither.
func ObligationMeaning(id string) string {
	o, ok := ObligationByID(id)
	if !ok {
		if t, ok := TermOf(id); ok {
			return t.Meaning
		}
		return ""
	}
	name := o.Name
	if o.Property != "" && o.Property != o.ID {
		name = fmt.Sprintf("%s (called %s in the fault matrix)", name, o.Property)
	}
	if o.ID == FI {
		return name + ": " + fiMeaning
	}
	t, _ := TermOf(o.ID)
	return name + ": " + t.Meaning
}

const fiMeaning = "the resume interface tells an ordinary resume (a retry) from a fork; without it FD and CO cannot both hold"

// Teach is a term's one sentence for a reader meeting its name: "EO
// (effect exactly-once): every task's external effect fires at most
// once." A clause names its obligation; Liveness and LV name each other.
// "" for a name of neither.
func Teach(name string) string {
	q, meaning := explain(name)
	if meaning == "" {
		return ""
	}
	return fmt.Sprintf("%s (%s): %s.", name, q, meaning)
}

// Explain is Teach without the name and the final stop, for a table
// whose row shows the name: "effect exactly-once: every task's external
// effect fires at most once".
func Explain(name string) string {
	q, meaning := explain(name)
	if meaning == "" {
		return ""
	}
	return q + ": " + meaning
}

// explain returns what qualifies a name (the obligation's name, "a
// clause of CO") and its one-sentence meaning.
func explain(name string) (string, string) {
	if o, ok := ObligationByID(name); ok && o.ID == FI {
		return o.Name, fiMeaning
	}
	t, ok := TermOf(name)
	if !ok {
		return "", ""
	}
	if t.Clause {
		return "a clause of " + t.Obligation, t.Meaning
	}
	o, _ := ObligationByID(t.Obligation)
	switch {
	case o.ID == t.Property:
		return o.Name, t.Meaning
	case name == o.ID:
		return o.Name + ", the property " + t.Property, t.Meaning
	}
	return o.Name + ", the obligation " + o.ID, t.Meaning
}

// Mutation says what the fault's one switch changes in the reference
// semantics, in the words of the spec's actions.
func (f Fault) Mutation() string { return faultTexts[f][0] }

// Class is the fault's real-world class (docs/resume-contract.md,
// "Faults"): its mutation, and where it was met, if it was.
func (f Fault) Class() string {
	if t := faultTexts[f]; t[1] != "" {
		return t[0] + " (" + t[1] + ")"
	}
	return faultTexts[f][0]
}

// faultTexts are each fault's mutation and where it was met.
var faultTexts = map[Fault][2]string{
	Replay:         {"recovery restarts at task 1 and re-executes the completed prefix", "CrewAI @persist / from_checkpoint"},
	ForkIgnore:     {"a fork resume is served the first resume's outcome", "LangGraph issue 6663"},
	InvalidPersist: {"the last task's record is persisted invalid, silently", "LangGraph issue 6491 class"},
	NondetRec:      {"at equal durable state, recovery either skips past the frontier or re-executes it", "LangGraph issue 8039"},
	DoubleConsume:  {"a stray resume after completion re-fires the gated effect", ""},
	PrefixReplay:   {"recovery restarts at task 1 but serves the gated effect from its record", "LangGraph 1.2.9 crash path"},
	Regate:         {"at equal durable state, recovery may re-park the consumed gate", ""},
	Rebuild:        {"recovery rebuilds from the initial input and memo-replays the durable prefix", ""},
	Redeliver:      {"recovery continues at frontier+1 but re-fires the frontier task's effect", ""},
	RaceConsume:    {"a second racer also consumes the parked interrupt, without firing the effect", ""},
	RaceEffect:     {"the second racer also fires the gated effect", ""},
	VolatilePark:   {"a crash while parked loses the interrupt", ""},
	NoIntent:       {"the resume interface has no fork intent: a second delivery is served as a fresh consumption", ""},
}

// Extensions name the reference semantics' optional behaviours (the
// matrix's reference+NAME rows) and say what each adds.
var Extensions = []struct{ Name, Adds string }{
	{"race", "losing racers reach the consumed gate, which refuses them"},
	{"parked", "a crash may strike while the run is parked, and recovery parks it again"},
}

// Because says in one sentence why a model breaks, or leaves intact, a
// property: the fault's mutation (or the reference semantics, with the
// extension named by ext on) and the property's clause. It is what a
// cell of the fault matrix teaches.
func Because(fault Fault, ext, property string, violated bool) string {
	t, ok := TermOf(property)
	if !ok {
		return ""
	}
	var why string
	switch {
	case fault != "":
		why = fmt.Sprintf("Under %s, %s", fault, fault.Mutation())
	case ext != "":
		why = "In the reference semantics with the " + ext + " extension, " + extensionAdds(ext)
	default:
		why = "The reference semantics has no fault switched on"
	}
	if violated {
		return fmt.Sprintf("%s; this breaks %s: %s.", why, t.Property, t.Broken)
	}
	return fmt.Sprintf("%s; %s still holds: %s.", why, t.Property, t.Kept)
}

func extensionAdds(ext string) string {
	for _, e := range Extensions {
		if e.Name == ext {
			return e.Adds
		}
	}
	return "nothing the contract names changes"
}

// ActionOrder is the position in Next of the action a transition's label
// starts with ("Consume(v1)" is Consume's); len(Actions) for a label of
// none. Longer names are tried first, so that no action's name is taken
// for another's prefix.
func ActionOrder(label string) int {
	best, at := -1, len(Actions)
	for _, a := range Actions {
		n := a.String()
		if strings.HasPrefix(label, n) && len(n) > best {
			best, at = len(n), int(a)
		}
	}
	return at
}
