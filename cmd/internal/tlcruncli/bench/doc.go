// Package bench measures the Go engine against TLC: it runs model files
// with each at one worker and at every core, as child processes (so each
// run's peak resident memory is its own), and prints one table with
// distinct states, wall time, distinct states per second, peak RSS and the
// ratio to TLC. It also holds the small helpers tlcrun uses to report
// memory (peak RSS, sizes).
package bench
