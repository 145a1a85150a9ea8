package bench

import (
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// pipeEnd is one end of a duplex in-process connection: what a stdio MCP
// peer sees as its standard input (R) and standard output (W). Every stack
// is given the same kind of ends, so each pays the same transport cost and
// does its own newline-delimited JSON framing on top.
type pipeEnd struct {
	// R reads what the other end writes.
	R *io.PipeReader
	// W writes what the other end reads.
	W *io.PipeWriter
}

// Close closes both directions of this end: the peer's reads see EOF and
// its writes fail.
func (p pipeEnd) Close() error {
	return errors.Join(p.W.Close(), p.R.Close())
}

// newPipes returns the client's and the server's ends of one connection:
// two io.Pipes, one per direction, as a client's pipes to a child
// process's stdin and stdout would be, but without a process. io.Pipe is
// synchronous and unbuffered: a write returns once the peer has read it.
func newPipes() (client, server pipeEnd) {
	c2s, clientW := io.Pipe() // client -> server: the server's stdin
	s2c, serverW := io.Pipe() // server -> client: the server's stdout
	return pipeEnd{R: s2c, W: clientW}, pipeEnd{R: c2s, W: serverW}
}

// echoArgs is the JSON of the echo tool's arguments for text:
// {"text": text}. Every stack sends exactly these bytes.
func echoArgs(tb testing.TB, text string) json.RawMessage {
	tb.Helper()
	b, err := json.Marshal(struct {
		Text string `json:"text"`
	}{text})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
