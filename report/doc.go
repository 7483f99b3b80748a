// Package report draws the project's results as self-contained HTML pages:
// the fault matrix as a grid whose cells open their counterexamples, a
// model check with its counterexamples, a trace's verdict from tracecheck,
// and the conformance table of the harness's profiles.
//
// A counterexample or a trace is drawn as a timeline, one row per step:
// the action and its parameter, the variables it changed, the effect
// ledger per task (an effect that fired twice is red), and marks for
// crashes, recoveries and broken obligations. Beside it, the model's whole
// state graph (59 states at the reference bounds) is laid out in layers
// by breadth-first depth and drawn as inline SVG, the path highlighted;
// (*Graph).WriteDOT exports the same graph for Graphviz.
//
// A page carries its styles, its small script and its data (as JSON, in a
// script element of type application/json): it loads nothing, works opened
// as a file, and its Content-Security-Policy forbids any request. Pages
// are built from results and written to an io.Writer; the file I/O is in
// thin wrappers (Page.WritePath, Site); profiles are read by their owner,
// harness.ReadProfiles. The package runs no
// TLC and fetches nothing (internal/testing/layers tests it), and draws any spec
// the toolkit mirrors through package tlaspec (CheckSpec).
//
//	res, err := matrix.Build(ctx, "spec", matrix.Options{})
//	page, err := report.Matrix(res, report.Options{})
//	err = page.WritePath("matrix.html")
package report
