//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// killGroup makes the run its own process group and the timeout kill the
// whole group: a JVM or a script's children die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
