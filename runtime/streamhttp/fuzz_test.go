package streamhttp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
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

func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`,
		`[{"jsonrpc":"2.0"}]`, `{"id":1.5}`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMessage(b)
		if err == nil && m == nil {
			t.Fatal("no message and no error")
		}
	})
}

func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"echo", "", " padded ", "Hello, 世界", "line1\nline2", "=?base64?SGVsbG8=?=", "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		// What we decode never panics; what we encode decodes back to the
		// value (for valid UTF-8, the only values the spec carries).
		_, _ = decodeHeaderValue(v)
		if !utf8.ValidString(v) {
			return
		}
		enc := encodeHeaderValue(v)
		if strings.ContainsAny(enc, "\r\n") {
			t.Fatalf("encoded value %q breaks the header", enc)
		}
		got, err := decodeHeaderValue(enc)
		if err != nil {
			t.Fatalf("decode(encode(%q)) = %v", v, err)
		}
		if got != strings.Trim(v, " \t") && got != v {
			t.Fatalf("decode(encode(%q)) = %q", v, got)
		}
	})
}
