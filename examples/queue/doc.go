// Package queue is the third spec of the repository, Queue.tla: a
// bounded FIFO queue between a producer and a consumer, written to show
// that a spec joins every tool by one folder (docs/spec.md, "A third spec
// in one folder"). It has no Go mirror: tlcrun check and explore,
// tracecheck and tlcrun report trace read Queue.tla with the TLA+
// interpreter. The folder holds the spec, its cfgs, a manifest of their
// expected results, an accepted and a rejected trace, and the command
// lines that run them (testdata/*.txtar, run with every spec folder's by
// TestSpecFolders in cmd/internal/tlcruncli).
package queue
