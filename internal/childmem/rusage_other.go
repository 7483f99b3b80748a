//go:build !unix

package childmem

import "os"

// maxRSS is unknown where the system has no getrusage.
func maxRSS(*os.ProcessState) int64 { return 0 }
