//go:build !linux

package engine

// defaultSampler: without Linux's /proc/stat the idle time of the machine
// is not known, and every worker runs throughout.
var defaultSampler func() cpuSample
