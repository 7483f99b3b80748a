//go:build !unix

package tlc

import "os"

// peakRSS is unknown where the system has no getrusage.
func peakRSS(*os.ProcessState) int64 { return 0 }
