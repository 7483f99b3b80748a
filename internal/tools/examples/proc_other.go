//go:build !unix

package main

import "os/exec"

// killGroup leaves exec's default: the timeout kills the process itself.
func killGroup(*exec.Cmd) {}
