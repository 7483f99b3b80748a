// Package layers holds the test of the repository's import rules: which
// packages may depend on which (docs/spec.md, "Layers"). Dependencies
// point down; a renderer does not pull in the code that finds, installs
// and runs TLC, and the pure core does no I/O of its own.
package layers
