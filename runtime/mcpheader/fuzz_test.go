package mcpheader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzParams: Params reads any schema without a panic, and as a schema
// read by encoding/json (into a tree of any) reads: the same annotations,
// or an error for both.
func FuzzParams(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"},"p":{"type":["integer","null"],"x-mcp-header":"Priority"}}}`,
		`{"properties":{"c":{"type":"object","properties":{"z":{"type":"boolean","x-mcp-header":"Z"}}}},"anyOf":[{"x-mcp-header":"A"}]}`,
		`{"properties":{"s":{"type":"string","x-mcp-header":"A","x-mcp-header":"B"}}}`,
		`{"properties":{"s":{"type":"string","x-mcp-header":5,"default":{"x-mcp-header":"D"}}}}`,
		`null`, `[]`, `{"properties":{"n":{"type":"integer","maximum":1e400,"x-mcp-header":"N"}}}`, `{"properties":[{"type":"string"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		got, err := Params(schema)
		if d := wire.NewDecoder(schema); len(schema) == 0 || d.Skip() != nil || d.End() != nil {
			return // not JSON the wire decoder takes (invalid UTF-8 ...): Params said so
		}
		// Numbers as literals: encoding/json refuses a number beyond
		// float64 into an any (Params used to fail on a "maximum": 1e400).
		dec := json.NewDecoder(bytes.NewReader(schema))
		dec.UseNumber()
		var root any
		if dec.Decode(&root) != nil {
			t.Fatalf("wire reads %q, encoding/json does not", schema)
		}
		want, werr := paramsOf(root)
		if (err == nil) != (werr == nil) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: %v, %v; encoding/json's reading: %v, %v", schema, got, err, want, werr)
		}
	})
}
