package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Serve serves srv on r and w (a process's standard input and output)
// until r ends or ctx is done; either drains the connection first (see
// jsonrpc.Options.DrainTimeout): the requests already read are answered.
// It returns nil at the end of r and ctx.Err() when ctx ended it. Both
// eras share the connection (mcp.Server.ServeConn).
func Serve(ctx context.Context, srv *mcp.Server, r io.Reader, w io.Writer, o Options) error {
	if o.Principal != "" {
		ctx = mcp.WithPrincipal(ctx, o.Principal)
	}
	st := NewStream(r, w, o)
	defer st.Close()
	return srv.ServeConn(ctx, st, o.Conn)
}

// CommandTransport runs a server as a child process and talks to it over
// its standard input and output (the stdio transport, client side).
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
	// ShutdownTimeout is how long Close waits at each step of the
	// shutdown (default 5s): for the server to exit after its standard
	// input is closed, then after an interrupt, before it kills it; and,
	// on Unix, for the processes the server started to end after an
	// interrupt, before it kills them. It also bounds how long Close
	// copies the server's stderr into a Stderr that is not a file once
	// the server has exited (a process it started may hold the pipe).
	ShutdownTimeout time.Duration
}

var _ mcp.ClientTransport = (*CommandTransport)(nil)

// TransportName names the transport to middleware (mcp.TransportStdio).
func (t *CommandTransport) TransportName() string { return mcp.TransportStdio }

// Dial starts the process.
func (t *CommandTransport) Dial(ctx context.Context, h jsonrpc.Handler) (mcp.ClientConn, error) {
	cmd := exec.Command(t.Path, t.Args...)
	cmd.Dir, cmd.Env = t.Dir, t.Env
	cmd.Stderr = t.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	timeout := t.ShutdownTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	// Once the server has exited, Wait gives up on copying its stderr (to
	// a Stderr that is no file) after the timeout: a process it started
	// may hold the pipe open, and Close must not wait for that one.
	cmd.WaitDelay = timeout
	newGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("stdio: starting %s: %w", t.Path, err)
	}
	conn := jsonrpc.NewConn(NewStream(stdout, stdin, Options{}), h, t.Conn)
	c := &commandConn{Conn: conn, cmd: cmd, stdin: stdin, done: make(chan struct{}), timeout: timeout}
	go func() {
		_ = conn.Serve(context.Background())
		close(c.done)
	}()
	return c, nil
}

type commandConn struct {
	*jsonrpc.Conn
	cmd     *exec.Cmd
	stdin   io.Closer
	done    chan struct{} // closed when the server's output ends
	timeout time.Duration
	once    sync.Once
	err     error
}

// Done is closed when the connection ends: the server closed its
// standard output (it exited, most likely) or Close was called. Pending
// calls have failed with jsonrpc.ErrClosed by then (ClientSession.Done).
func (c *commandConn) Done() <-chan struct{} { return c.done }

// Close shuts the server down as the stdio transport asks: close its
// standard input, wait for it to exit, then interrupt it, then kill it.
// On Unix the server runs in a process group of its own, and Close ends
// the whole group the same way (interrupt, then kill after the timeout):
// the processes a server started do not outlive the session.
func (c *commandConn) Close() error {
	c.once.Do(func() { c.err = c.close() })
	return c.err
}

// close is Close, once: the process and its group are gone after it
// (their ids may be another's), so Close does not signal them again.
func (c *commandConn) close() error {
	_ = c.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	pid := c.cmd.Process.Pid
	var err error
	select {
	case err = <-exited:
	case <-time.After(c.timeout):
		_ = c.cmd.Process.Signal(os.Interrupt)
		signalGroup(pid, sigInterrupt)
		select {
		case err = <-exited:
		case <-time.After(c.timeout):
			_ = c.cmd.Process.Kill()
			err = <-exited
		}
	}
	endGroup(pid, c.timeout)
	_ = c.Conn.Close()
	<-c.done
	var ee *exec.ExitError
	if errors.As(err, &ee) || errors.Is(err, exec.ErrWaitDelay) {
		return nil // the server's exit status (and its children's stderr) is its business
	}
	return err
}

// endGroup ends what is left of the server's process group: an
// interrupt, then, after timeout, a kill.
func endGroup(pid int, timeout time.Duration) {
	if !signalGroup(pid, sigInterrupt) {
		return
	}
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !signalGroup(pid, sigProbe) {
			return
		}
	}
	signalGroup(pid, sigKill)
}

// InProcessTransport connects a client to a Server in the same process
// over a pair of pipes carrying the stdio framing: what tests and
// benchmarks use, and a way to embed a server.
type InProcessTransport struct {
	Server *mcp.Server
	// Options configure the server side.
	Options Options
	// Conn configures the client side.
	Conn jsonrpc.Options
}

var _ mcp.ClientTransport = (*InProcessTransport)(nil)

// TransportName names the transport to middleware (mcp.TransportStdio).
func (t *InProcessTransport) TransportName() string { return mcp.TransportStdio }

// Dial starts serving one connection and returns the client's end.
func (t *InProcessTransport) Dial(ctx context.Context, h jsonrpc.Handler) (mcp.ClientConn, error) {
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), t.Server, sr, sw, t.Options)
		_ = sw.Close()
	}()
	conn := jsonrpc.NewConn(NewStream(cr, cw, Options{}), h, t.Conn)
	done := make(chan error, 1)
	go func() { done <- conn.Serve(context.Background()) }()
	return &inProcessConn{Conn: conn, w: cw, served: served, done: done}, nil
}

type inProcessConn struct {
	*jsonrpc.Conn
	w      io.Closer
	served chan error
	done   chan error
	once   sync.Once
	err    error
}

// Close ends the connection as a stdio client does: the server sees EOF.
// Closing again returns what the first Close did.
func (c *inProcessConn) Close() error {
	c.once.Do(func() {
		_ = c.w.Close()
		c.err = <-c.served
		_ = c.Conn.Close()
		<-c.done
	})
	return c.err
}
