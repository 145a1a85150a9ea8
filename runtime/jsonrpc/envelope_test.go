package jsonrpc

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestParseIntLiteral(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"7", 7, true}, {"-7", -7, true},
		{"9223372036854775807", 1<<63 - 1, true}, {"-9223372036854775808", -1 << 63, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false}, {"1.0", 0, false}, {"1e2", 0, false}, {"-", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseIntLiteral([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseIntLiteral(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

var benchRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)

// BenchmarkEnvelope parses a request envelope and looks up its method: no
// allocation.
func BenchmarkEnvelope(b *testing.B) {
	p := NewParser([]string{"tools/call", "ping"}, 0)
	var m Message
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if err := p.Parse(benchRequest, &m); err != nil {
			b.Fatal(err)
		}
		if m.Kind != KindRequest {
			b.Fatal(m.Kind)
		}
		if m.Method != "tools/call" {
			b.Fatal("method")
		}
	}
}

// BenchmarkEnvelopeParams adds the params copy a dispatched request owns.
func BenchmarkEnvelopeParams(b *testing.B) {
	p := NewParser([]string{"tools/call"}, 0)
	var m Message
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if err := p.Parse(benchRequest, &m); err != nil {
			b.Fatal(err)
		}
		if p := append(wire.Raw(nil), m.Params...); len(p) == 0 {
			b.Fatal("params")
		}
	}
}
