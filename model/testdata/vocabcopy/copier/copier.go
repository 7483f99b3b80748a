// Package copier is a fixture of TestVocabularyScanCatchesCopies: it
// spells an action and an obligation in literals, as a copy would.
package copier

// Order copies Next's first action.
var Order = []string{"ExecTask"}

// Column copies an obligation's ID.
const Column = `EO`

// Fine spells them inside longer texts, which is not a copy.
var Fine = "EO holds after ExecTask"
