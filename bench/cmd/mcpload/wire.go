package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// clientMeta is what a 2026-07-28 (stateless) request carries in _meta.
const clientMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}`

// initialize is the 2025-11-25 handshake's first request (id 0).
const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}}`

// initialized is the handshake's notification.
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// call builds echo tools/call requests: the bytes before and after the id.
type call struct{ head, tail []byte }

// newCall returns the request of era with text as the argument.
func newCall(era, text string) call {
	meta := ""
	if era == "2026-07-28" {
		meta = "," + clientMeta
	}
	return call{
		head: []byte(`{"jsonrpc":"2.0","id":`),
		tail: []byte(`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}` + meta + "}}"),
	}
}

// append appends the request with id to b.
func (c call) append(b []byte, id int64) []byte {
	b = append(b, c.head...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, c.tail...)
}

// checker verifies responses: the id is a number, there is no error, and
// the one text block is the echoed text.
type checker struct{ want []byte }

// newChecker returns a checker for echoes of text.
func newChecker(text string) checker {
	return checker{want: []byte(`"text":"` + text + `"`)}
}

var (
	idKey      = []byte(`"id":`)
	errorKey   = []byte(`"error":`)
	isErrorKey = []byte(`"isError":true`)
)

// check verifies one response and returns its id. The server's JSON is
// compact (every stack writes it so), and the texts need no escaping, so
// byte searches suffice and cost the driver little next to the server.
func (c checker) check(msg []byte) (int64, error) {
	i := bytes.Index(msg, idKey)
	if i < 0 {
		return 0, fmt.Errorf("no id in %.200s", msg)
	}
	j := i + len(idKey)
	for j < len(msg) && msg[j] == ' ' {
		j++
	}
	k := j
	for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
		k++
	}
	id, err := strconv.ParseInt(string(msg[j:k]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("id is not a number in %.200s", msg)
	}
	if bytes.Contains(msg, errorKey) || bytes.Contains(msg, isErrorKey) {
		return id, fmt.Errorf("error response: %.300s", msg)
	}
	if !bytes.Contains(msg, c.want) {
		return id, errors.New("the response does not echo the text")
	}
	return id, nil
}
