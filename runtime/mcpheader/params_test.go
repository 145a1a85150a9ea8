package mcpheader_test

import (
	"fmt"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

func TestParamHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string
		bad                bool
	}{
		{name: "none", schema: `{"type":"object","properties":{"a":{"type":"string"}}}`, want: "[]"},
		{name: "primitives", schema: `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"},"p":{"type":"integer","x-mcp-header":"Priority"},"v":{"type":"boolean","x-mcp-header":"Verbose"}}}`,
			want: "[{Priority [p] integer} {Region [r] string} {Verbose [v] boolean}]"},
		{name: "nested properties", schema: `{"type":"object","properties":{"c":{"type":"object","properties":{"z":{"type":["string","null"],"x-mcp-header":"Zone"}}}}}`, want: "[{Zone [c z] string}]"},
		{name: "data that looks like an annotation", schema: `{"properties":{"s":{"type":"object","default":{"x-mcp-header":"D"},"examples":[{"x-mcp-header":"E"}]}}}`, want: "[]"},
		{name: "a property named x-mcp-header", schema: `{"properties":{"x-mcp-header":{"type":"string","x-mcp-header":"X"}}}`, want: "[{X [x-mcp-header] string}]"},
		{name: "number type", schema: `{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, bad: true},
		{name: "object type", schema: `{"properties":{"o":{"type":"object","x-mcp-header":"O"}}}`, bad: true},
		{name: "empty name", schema: `{"properties":{"s":{"type":"string","x-mcp-header":""}}}`, bad: true},
		{name: "name with space", schema: `{"properties":{"s":{"type":"string","x-mcp-header":"My Header"}}}`, bad: true},
		{name: "name with colon", schema: `{"properties":{"s":{"type":"string","x-mcp-header":"a:b"}}}`, bad: true},
		{name: "non-ASCII name", schema: `{"properties":{"s":{"type":"string","x-mcp-header":"Régión"}}}`, bad: true},
		{name: "duplicate names", schema: `{"properties":{"a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"string","x-mcp-header":"dup"}}}`, bad: true},
		{name: "under items", schema: `{"properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`, bad: true},
		{name: "under anyOf", schema: `{"anyOf":[{"properties":{"s":{"type":"string","x-mcp-header":"S"}}}]}`, bad: true},
		{name: "under $defs", schema: `{"$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`, bad: true},
		{name: "on the root", schema: `{"type":"string","x-mcp-header":"Root"}`, bad: true},
		{name: "not a string", schema: `{"properties":{"s":{"type":"string","x-mcp-header":5}}}`, bad: true},
		{name: "null annotation", schema: `{"properties":{"s":{"type":"string","x-mcp-header":null}}}`, bad: true},
		{name: "null schema", schema: `null`, want: "[]"},
		{name: "a number among the types", schema: `{"properties":{"s":{"type":["string",1],"x-mcp-header":"S"}}}`, bad: true},
		{name: "the last of a name wins", schema: `{"properties":{"s":{"type":"number","x-mcp-header":"A","type":"string","x-mcp-header":"B"}}}`, want: "[{B [s] string}]"},
		{name: "an escaped name", schema: `{"properties":{"s\u00e9":{"type":"boolean","x-mcp-he\u0061der":"E"}}}`, want: "[{E [sé] boolean}]"},
		{name: "a number beyond float64", schema: `{"properties":{"n":{"type":"integer","maximum":1e400,"x-mcp-header":"N"}}}`, want: "[{N [n] integer}]"},
		{name: "not JSON", schema: `{"properties":{"s":{"type":"string","x-mcp-header":"S"}}`, bad: true},
		{name: "trailing data", schema: `{} {}`, bad: true},
		{name: "invalid UTF-8", schema: "{\"properties\":{\"s\xff\":{\"type\":\"string\",\"x-mcp-header\":\"S\"}}}", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mcpheader.Params([]byte(tc.schema))
			if tc.bad {
				if err == nil {
					t.Fatalf("accepted: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := fmt.Sprint(got)
			if got == nil {
				s = "[]"
			}
			if s != tc.want {
				t.Fatalf("%s, want %s", s, tc.want)
			}
		})
	}
}
