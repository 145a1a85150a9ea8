//go:build !mcpgen_nojsonschema

package fullschema_test

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/toolschema"
	_ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"
)

// TestEverySchemaChecked: with the package imported, the schemas the
// in-place checker cannot check (nested, combined, patterns, output
// schemas) are compiled and checked, violations listed with their
// locations; a schema that does not compile says why.
func TestEverySchemaChecked(t *testing.T) {
	if !toolschema.Registered() {
		t.Fatal("importing fullschema registered no validator")
	}
	for _, tc := range []struct {
		schema string
		input  bool
		value  string
		want   string // a substring of the violations; "" conforms
	}{
		{`{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"type":"string","pattern":"^x"}]}}}`, true, `{"n":"xy"}`, ""},
		{`{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"type":"string","pattern":"^x"}]}}}`, true, `{"n":"yy"}`, "/n"},
		{`{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"array","items":{"type":"integer"}}}}}}`, true, `{"p":{"q":[1,"2"]}}`, "/p/q/1"},
		{`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`, false, `{"sum":3}`, ""},
		{`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`, false, `{}`, "sum"},
	} {
		s, err := toolschema.Compile([]byte(tc.schema), tc.input)
		if err != nil || s == nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		got := s.Check([]byte(tc.value))
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s, %s: %q, want %q", tc.schema, tc.value, got, tc.want)
		}
	}
	if _, err := toolschema.Compile([]byte(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`), true); err == nil || !strings.Contains(err.Error(), "not fetched") {
		t.Errorf("a remote reference: %v, want an error saying it is not fetched", err)
	}
}

// TestAllViolations: a check lists every violation, the flat checker's
// and the full validator's alike: a misnamed argument and the required one it
// should have been.
func TestAllViolations(t *testing.T) {
	const closed = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`
	const nested = `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}},"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`
	tests := []struct {
		schema, args string
		want         []string
	}{
		{closed, `{"message":"hi"}`, []string{"/: additional property 'message' not allowed", "missing properties: 'text'"}},
		{nested, `{"message":"hi","a":{"b":"x"}}`, []string{"'message'", "/a/b:", "'text'"}},
	}
	for _, tt := range tests {
		s, err := toolschema.Compile([]byte(tt.schema), true)
		if err != nil {
			t.Fatal(err)
		}
		got := s.Check([]byte(tt.args))
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s against %s: %q lacks %q", tt.args, tt.schema, got, w)
			}
		}
	}
}

// TestHugeNumbers: a peer's number beyond what jsonschema parses (it panics
// on exponents past ±1e6) is a violation, not a crash.
func TestHugeNumbers(t *testing.T) {
	s, err := toolschema.Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"p":{"type":"object","properties":{"q":{"type":"string"}}}}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Check([]byte(`{"n":1e9999999}`)); !strings.Contains(got, "too large") {
		t.Errorf("an exponent past 1e6: %q", got)
	}
	if got := s.Check([]byte(`{"n":2}`)); got != "" {
		t.Errorf("a small integer: %q", got)
	}
}
