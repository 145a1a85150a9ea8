package streamhttp

import (
	"bytes"
	"errors"
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
		`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"}]`, `[]`,
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

// FuzzParseBatch: batch bodies (2025-03-26). parseBatch never returns more
// elements than its limit, nor a nil or unexplained invalid element; a
// message alone and the same message in a batch of one parse alike; and
// parseMessages reads what parseBatch and parseMessage read.
func FuzzParseBatch(f *testing.F) {
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`,
		`[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}]`,
		`[]`, ` [ ] `, `[1,"x",null,[],{}]`, `[[{"jsonrpc":"2.0","method":"n"}]]`,
		`[{"jsonrpc":"2.0","id":0,"method":"initialize"}]`, `[{`, `[1,]`, `[1]x`,
		`{"jsonrpc":"2.0","method":"n"}`, `"s"`,
	} {
		f.Add([]byte(s))
	}
	const limit = 8
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := parseBatch(b, limit)
		if err == nil {
			if !isBatch(b) {
				t.Fatal("a batch that is not an array")
			}
			if len(msgs) > limit {
				t.Fatalf("%d elements over the limit %d", len(msgs), limit)
			}
			for i, m := range msgs {
				if m == nil || (m.kind == kindInvalid && m.problem == "") {
					t.Fatalf("element %d: %+v", i, m)
				}
			}
		} else if !errors.Is(err, errBatchTooLarge) && !errors.As(err, new(errParse)) {
			t.Fatalf("unexpected error %v", err)
		}
		all, err := parseMessages(b)
		if isBatch(b) {
			if want, werr := parseBatch(b, 0); (err == nil) != (werr == nil) || len(all) != len(want) {
				t.Fatalf("parseMessages: %d, %v; parseBatch: %d, %v", len(all), err, len(want), werr)
			}
			return
		}
		one, oerr := parseMessage(b)
		if (err == nil) != (oerr == nil) || (err == nil && (len(all) != 1 || all[0].kind != one.kind)) {
			t.Fatalf("parseMessages differs from parseMessage: %v, %v", err, oerr)
		}
		if oerr != nil {
			return
		}
		in, err := parseBatch(append(append([]byte("["), b...), ']'), 0)
		if err != nil {
			return // one level deeper than allowed
		}
		if len(in) != 1 || in[0].kind != one.kind || in[0].hasID != one.hasID || (one.hasID && in[0].id.String() != one.id.String()) {
			t.Fatalf("in a batch of one: %+v, alone: %+v", in, one)
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
