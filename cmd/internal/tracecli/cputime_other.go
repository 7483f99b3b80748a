//go:build !unix

package tracecli

import "time"

// cpuTime is not measured here: the bench command prints wall times only.
func cpuTime() time.Duration { return 0 }
