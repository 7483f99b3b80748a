module github.com/resumecontract/resumecheck

go 1.26.0

require (
	github.com/google/go-cmp v0.6.0
	github.com/spf13/cobra v1.10.2
	golang.org/x/tools v0.52.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
