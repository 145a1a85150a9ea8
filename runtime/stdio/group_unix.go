//go:build unix

package stdio

import (
	"errors"
	"os/exec"
	"syscall"
)

// newGroup starts the server in a process group of its own, so that
// closing the session can end the processes it started too.
func newGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to every process of the server's group (whose id
// is the server's pid); it reports false when none is left.
func signalGroup(pid int, sig syscall.Signal) bool {
	err := syscall.Kill(-pid, sig)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// Signals Close sends the group: first an interrupt, then a kill.
const (
	sigInterrupt = syscall.SIGINT
	sigKill      = syscall.SIGKILL
	sigProbe     = syscall.Signal(0)
)
