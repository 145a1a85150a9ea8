//go:build !unix

package stdio

import (
	"os/exec"
	"syscall"
)

// newGroup does nothing where process groups are not supported: Close
// ends the server's process only.
func newGroup(*exec.Cmd) {}

// signalGroup reports that no group is left.
func signalGroup(int, syscall.Signal) bool { return false }

const (
	sigInterrupt = syscall.Signal(0)
	sigKill      = syscall.Signal(0)
	sigProbe     = syscall.Signal(0)
)
