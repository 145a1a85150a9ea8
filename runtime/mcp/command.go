package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// CommandTransport runs a server as a child process and talks to it over
// its stdin and stdout (the stdio transport, client side).
type CommandTransport struct {
	// Path and Args name the program; Dir and Env are as in exec.Cmd.
	Path string
	Args []string
	Dir  string
	Env  []string
	// Stderr receives the server's logs (default: os.Stderr).
	Stderr io.Writer
	// Conn configures the JSON-RPC connection.
	Conn jsonrpc.Options
	// ShutdownTimeout is how long Close waits for the server to exit after
	// closing its stdin before killing it (default 5s).
	ShutdownTimeout time.Duration
}

// Dial starts the process.
func (t *CommandTransport) Dial(ctx context.Context, h jsonrpc.Handler) (ClientConn, error) {
	cmd := exec.Command(t.Path, t.Args...)
	cmd.Dir, cmd.Env = t.Dir, t.Env
	cmd.Stderr = t.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mcp: starting %s: %w", t.Path, err)
	}
	st := stdio.NewStream(stdout, stdin, stdio.Options{})
	conn := jsonrpc.NewConn(st, h, t.Conn)
	c := &commandConn{Conn: conn, cmd: cmd, stdin: stdin, served: make(chan error, 1), timeout: t.ShutdownTimeout}
	if c.timeout == 0 {
		c.timeout = 5 * time.Second
	}
	go func() { c.served <- conn.Serve(context.Background()) }()
	return c, nil
}

type commandConn struct {
	*jsonrpc.Conn
	cmd     *exec.Cmd
	stdin   io.Closer
	served  chan error
	timeout time.Duration
}

// Close shuts the server down as the stdio transport asks: close its
// stdin, wait for it to exit, then terminate it, then kill it.
func (c *commandConn) Close() error {
	_ = c.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(c.timeout):
		_ = c.cmd.Process.Signal(os.Interrupt)
		select {
		case err = <-exited:
		case <-time.After(c.timeout):
			_ = c.cmd.Process.Kill()
			err = <-exited
		}
	}
	_ = c.Conn.Close()
	<-c.served
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // the server's exit status is its business
	}
	return err
}
