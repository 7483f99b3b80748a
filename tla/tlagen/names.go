package tlagen

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/tlavalue"
)

// Everything trace2tla writes comes from one of three places: its own
// templates, numbers and names the trace format has already checked
// (actions, decisions, faults, variables, integers), and text a trace or
// a user chose (the producer's name and version, the trace file's name,
// the model values' names, the module name). The third kind is never
// written as it is:
//   - free text (producer, file name) goes into comments only, through
//     commentText, which lets through a small set of printable ASCII
//     characters and writes every other byte as %XX, so no text can end a
//     comment, start one, or start a new line of a cfg;
//   - a model value is written as an identifier only when it is one that
//     cannot mean anything else (see valueIdents), and otherwise replaced
//     by a generated identifier;
//   - the module name must be an identifier that names no module TLC could
//     load instead of, or besides, the trace module (checkModule).

// reservedWords are TLA+'s reserved words, the proof language's included.
var reservedWords = strings.Fields(`ASSUME ASSUMPTION AXIOM BOOLEAN CASE CHOOSE CONSTANT CONSTANTS
	DOMAIN ELSE ENABLED EXCEPT EXTENDS FALSE IF IN INSTANCE LAMBDA LET LOCAL MODULE OTHER
	RECURSIVE STRING SUBSET THEN THEOREM TRUE UNCHANGED UNION VARIABLE VARIABLES WITH
	ACTION COROLLARY BY DEF DEFINE DEFS HAVE HIDE LEMMA NEW OBVIOUS OMITTED ONLY PICK
	PROOF PROPOSITION PROVE QED STATE SUFFICES TAKE TEMPORAL USE WITNESS`)

// cfgKeywords are the section keywords of TLC's cfg files.
var cfgKeywords = strings.Fields(`CONSTANT CONSTANTS INIT NEXT SPECIFICATION INVARIANT INVARIANTS
	PROPERTY PROPERTIES CONSTRAINT CONSTRAINTS ACTION_CONSTRAINT ACTION_CONSTRAINTS SYMMETRY VIEW
	ALIAS POSTCONDITION POSTCONDITIONS CHECK_DEADLOCK TYPE TYPE_CONSTRAINT`)

// libraryModules are the modules TLC finds without being told: those in
// tla2tools.jar, the TLA+ community modules (CommunityModules-deps.jar,
// which RunTLC puts on the class path when it is beside the jar), the
// proof system's and Apalache's. A trace module with one of these names
// would shadow the library module, or be shadowed by it.
var libraryModules = strings.Fields(`Bags FiniteSets Integers Json Naturals Randomization RealTime
	Reals Sequences TLC TLCExt Toolbox
	BagsExt Bitwise CSV Combinatorics DifferentialEquations DyadicRationals FiniteSetsExt Folds
	Functions GraphViz Graphs HTML IOUtils Relation SequencesExt ShiViz Statistics SVG
	UndirectedGraphs VectorClocks Strings Variants Apalache TLAPS NaturalsInduction
	SequenceTheorems FiniteSetTheorems WellFoundedInduction FunctionTheorems`)

// SpecModule is the module the trace module extends and trace2tla copies
// beside it.
const SpecModule = "Resume"

// maxModuleBytes bounds a module name (it is a file name too).
const maxModuleBytes = 128

// IsIdentifier reports whether name can be written into a module and a cfg
// as an identifier that means nothing else: a TLA+ identifier, not a
// reserved word, not a cfg keyword.
func IsIdentifier(name string) bool { return identError("", name) == nil }

func identError(what, name string) error {
	if !tlavalue.IsName(name) {
		return fmt.Errorf("%s %s is not a TLA+ identifier (letters, digits and _, with at least one letter)", what, quoteText(name))
	}
	for _, w := range reservedWords {
		if name == w {
			return fmt.Errorf("%s %s is a TLA+ reserved word", what, quoteText(name))
		}
	}
	for _, w := range cfgKeywords {
		if name == w {
			return fmt.Errorf("%s %s is a keyword of TLC's cfg files", what, quoteText(name))
		}
	}
	return nil
}

// CheckModule reports whether name may be the trace module's name: an
// identifier (IsIdentifier), not the spec's module, not a module of TLC's
// library or of the community modules, and not starting with '_' (TLC's
// own trace modules). Names are compared without regard to case, because
// on a case-insensitive file system Resume.tla and resume.tla are one
// file.
func CheckModule(name string) error {
	if name == "" {
		return fmt.Errorf("tlagen: the module name is empty")
	}
	if len(name) > maxModuleBytes {
		return fmt.Errorf("tlagen: module name %s... is longer than %d bytes", quoteText(name[:20]), maxModuleBytes)
	}
	if err := identError("module name", name); err != nil {
		return fmt.Errorf("tlagen: %w", err)
	}
	if strings.HasPrefix(name, "_") {
		return fmt.Errorf("tlagen: module name %s starts with '_', like TLC's own trace modules", name)
	}
	if strings.EqualFold(name, SpecModule) {
		return fmt.Errorf("tlagen: module name %s is the spec's: trace2tla copies %s.tla beside the trace module, which must have another name", name, SpecModule)
	}
	for _, lib := range libraryModules {
		if strings.EqualFold(name, lib) {
			return fmt.Errorf("tlagen: module name %s is the name of TLC's library module %s, which the trace module would shadow; choose another name", name, lib)
		}
	}
	return nil
}

// commentSafe are the bytes commentText writes as they are: letters,
// digits, the space and punctuation that means nothing in a TLA+ comment
// or a cfg line comment. Not among them: '(', ')' and '*' (which open and
// close comments), '\' (which starts a line comment), '"', '%' (the
// escape), '=' and '-' (which make module delimiters), and every control
// character and non-ASCII byte.
var commentSafe = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range []byte(" .,:;/+@#!?_'[]{}<>~^&|$") {
		t[c] = true
	}
	return t
}()

// maxCommentText bounds the escaped text of one field in a comment.
const maxCommentText = 200

// commentText is s written so that it can be put anywhere inside a TLA+
// block comment or a cfg line comment without ending it: safe bytes as they
// are, every other byte as %XX (its hex value). Longer text is cut, and
// the cut marked with "...".
func commentText(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if sb.Len() >= maxCommentText {
			sb.WriteString("...")
			break
		}
		c := s[i]
		if commentSafe[c] {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

// quoteText is s for an error message: Go-quoted, ASCII only, so that
// a name with control characters cannot disturb a terminal.
func quoteText(s string) string {
	if len(s) > 60 {
		s = s[:60]
	}
	return fmt.Sprintf("%+q", s)
}
