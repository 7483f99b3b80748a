// Command testsum runs go test -json with its arguments and prints what
// go test prints without -json, then the skipped tests grouped by reason
// (package internal/testing/testsum). It exits with go test's status. make test
// and make test-short use it:
//
//	go run ./internal/tools/testsum ./...
//	go run ./internal/tools/testsum -short ./...
package main

import (
	"os"

	"github.com/resumecontract/resumecheck/internal/testing/testsum"
)

func main() {
	os.Exit(testsum.Main(os.Args[1:], os.Stdout, os.Stderr))
}
