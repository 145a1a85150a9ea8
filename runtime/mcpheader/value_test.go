package mcpheader_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

func TestHeaderValueEncoding(t *testing.T) {
	// The examples of 2026-07-28 "Value Encoding", and the edges.
	for _, tc := range []struct{ in, out string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"", "=?base64??="},
		{"a\tb", "=?base64?YQli?="},
		{"inner space", "inner space"},
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8="},
	} {
		if got := mcpheader.EncodeValue(tc.in); got != tc.out {
			t.Errorf("encode %q = %q, want %q", tc.in, got, tc.out)
		}
		if back, err := mcpheader.DecodeValue(tc.out); err != nil || back != tc.in {
			t.Errorf("decode %q = %q, %v", tc.out, back, err)
		}
	}
	for _, tc := range []struct {
		in, out string
		bad     bool
	}{
		{"=?base64?SGVsbG8=?=", "Hello", false},
		{"=?base64?SGVsbG8?=", "", true},     // bad padding
		{"=?base64?SGVs!!!bG8=?=", "", true}, // bad characters
		{"SGVsbG8=", "SGVsbG8=", false},      // no wrapper: literal
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", false},
		{"  x  ", "x", false},
		{"=?base64?/w==?=", "", true},     // not UTF-8
		{"=?base64?SGVsbG9=?=", "", true}, // non-zero padding bits
		{"h\xc3\xa9", "", true},           // raw non-ASCII
		{"a\x00b", "", true},
	} {
		got, err := mcpheader.DecodeValue(tc.in)
		if (err != nil) != tc.bad || got != tc.out {
			t.Errorf("decode %q = %q, %v", tc.in, got, err)
		}
	}
}

func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"echo", "", " padded ", "Hello, 世界", "line1\nline2", "=?base64?SGVsbG8=?=", "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		// What we decode never panics; what we encode decodes back to the
		// value (for valid UTF-8, the only values the spec carries).
		_, _ = mcpheader.DecodeValue(v)
		if !utf8.ValidString(v) {
			return
		}
		enc := mcpheader.EncodeValue(v)
		if strings.ContainsAny(enc, "\r\n") {
			t.Fatalf("encoded value %q breaks the header", enc)
		}
		got, err := mcpheader.DecodeValue(enc)
		if err != nil {
			t.Fatalf("decode(encode(%q)) = %v", v, err)
		}
		if got != strings.Trim(v, " \t") && got != v {
			t.Fatalf("decode(encode(%q)) = %q", v, got)
		}
	})
}
