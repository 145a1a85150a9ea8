package streamhttp

import (
	"bytes"
	"io"
	"testing"
)

// Fuzz targets for what the transport decodes from the network: SSE
// streams, POST bodies and header values.

func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"id: p1_1\nretry: 500\ndata:\n\n",
		"data: {\"jsonrpc\":\"2.0\"}\r\n\r\n",
		": keep-alive\n\nevent: message\ndata: a\ndata: b\n\n",
		"data:x", "\n\n\n", "id\nretry: x\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newSSEReader(bytes.NewReader(b), 1<<10)
		for range len(b) + 1 {
			ev, err := r.next()
			if err != nil {
				return
			}
			if len(ev.data) > len(b) {
				t.Fatalf("event data longer than the input")
			}
		}
		if _, err := r.next(); err != io.EOF && err != errLineTooLong {
			t.Fatalf("more events than input lines: %v", err)
		}
	})
}
