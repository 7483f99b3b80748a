// Package syntax parses TLA+ modules into the tree of ast.go and loads
// a root module with the modules it EXTENDS and INSTANCEs.
//
//	m, err := syntax.ParseModule("Spec.tla", src)
//	spec, err := (&syntax.Loader{}).Load("spec/Resume.tla")
//
// Errors are *Error values that print as "file:line:col: message".
//
// # Layout rules
//
// A bulleted list of /\ or \/ is read by column, as SANY does: the first
// bullet fixes the column, every item ends at the first token at or left
// of that column, and a bullet of the same kind exactly there starts the
// next item. Inside parentheses and brackets no column is in force. An
// infix chain "a /\ b /\ c" is one Junction with Bullets false; mixing
// /\ and \/ without parentheses is a precedence conflict.
//
// # Operator spellings
//
// OpApp.Op holds one spelling per operator, whatever synonym the source
// used (Canon maps them):
//
//	spelled in the source               OpApp.Op
//	\cup \union                         \cup
//	\cap \intersect                     \cap
//	~ \lnot \neg                        ~
//	<=> \equiv                          <=>
//	# /=                                #
//	<= =< \leq                          <=
//	>= \geq                             >=
//	\o \circ                            \o
//	\X \times                           \X   (a chain A \X B \X C is one 3-ary OpApp)
//	(+) \oplus, (-) \ominus, (.) \odot  (+) (-) (.)
//	(/) \oslash, (\X) \otimes           (/) (\X)
//	\ (set difference)                  \    (Go "\\")
//	- (prefix)                          -.
//	/\ \land, \/ \lor                   a Junction, never an OpApp
//
// The other operators keep their one spelling: \in \notin \subseteq
// \subset \supseteq \supset \div % ^ .. + - * < > = => ~> -+-> \cdot :>
// @@ DOMAIN SUBSET UNION, the postfix ^+ ^* ^#, and the user-definable
// symbols (++ \prec | || %% ## $ ...). Prime, [], <>, ENABLED and
// UNCHANGED have their own nodes. An operator passed as an argument,
// F(+, 0, s), is an Ident named by its canonical spelling.
//
// # Precedence
//
// Operators have the precedence ranges of Specifying Systems, section
// 15.2.1 (see ops.go). Operators whose ranges overlap need parentheses
// unless they are the same left-associative operator, so "a = b = c" is
// an error. A prefix operator's operand takes in an infix operator whose
// lowest precedence is above the prefix's lowest ([]x = 1 is [](x = 1));
// otherwise the prefix applies first (UNION S \cup T is (UNION S) \cup T,
// as SANY reads it).
//
// # What is skipped
//
// Theorem proofs, top-level USE and HIDE are skipped up to the next
// unit; a theorem statement this parser cannot read and @ outside
// EXCEPT become Unsupported nodes.
// Nested modules are an error; modules written after a file's first one
// (after its "====") are found by name when a module extends or
// instantiates them, as SANY finds them, and parsed only then.
package syntax
