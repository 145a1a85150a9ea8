//go:build !mcpgen_nojsonschema

package toolschema

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The flat checker must agree with jsonschema on the schemas it accepts.
func TestFlatSchemaAgreesWithJSONSchema(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"text":{"type":"string","description":"d"}},"required":["text"]}`,
		`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]},"o":{"type":"object"},"l":{"type":"array"}},"required":["mode","o"]}`,
		`{"type":"object","properties":{}}`,
	}
	args := []string{`{}`, `{"text":"hi"}`, `{"text":5}`, `{"n":1}`, `{"n":1.5}`, `{"n":1.0}`, `{"n":1e3}`, `{"n":"1"}`, `{"x":-2.5e-3}`,
		`{"b":true}`, `{"b":null}`, `{"extra":1}`, `{"mode":"a","o":{}}`, `{"mode":"c","o":{}}`, `{"mode":"a","o":[]}`, `{"mode":"a","o":{},"l":[1]}`,
		`[]`, `"str"`, `{"text":"x","n":2,"x":1,"b":false,"mode":"b","o":{"deep":[1,{"a":null}]},"l":[]}`}
	for _, sc := range schemas {
		fs := compileFlat([]byte(sc))
		if fs == nil {
			t.Fatalf("schema not recognized as flat: %s", sc)
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("s.json", strings.NewReader(sc)); err != nil {
			t.Fatal(err)
		}
		ref := c.MustCompile("s.json")
		for _, a := range args {
			v, err := decodeAny([]byte(a))
			if err != nil {
				t.Fatal(err)
			}
			want := ref.Validate(v) == nil
			got := fs.check([]byte(a)) == ""
			if got != want {
				t.Errorf("schema %s, args %s: flat %v (%s), jsonschema %v", sc, a, got, fs.check([]byte(a)), want)
			}
		}
	}
	for _, sc := range []string{`{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`, `{"type":"object","oneOf":[]}`, `{"properties":{}}`, `{"type":"object","properties":{"u":{"type":["string","null"]}}}`} {
		if compileFlat([]byte(sc)) != nil {
			t.Errorf("schema with other keywords taken as flat: %s", sc)
		}
	}
}

// TestFlatSchemaCompiles: a flat schema is never compiled by jsonschema
// (Compile), so the flat checker must take only schemas jsonschema
// compiles: annotations of the wrong type, or names required twice, are
// left to jsonschema, which refuses them.
func TestFlatSchemaCompiles(t *testing.T) {
	for _, tc := range []struct {
		schema string
		flat   bool
	}{
		{`{"type":"object","title":"t","description":"d","$comment":"c","examples":[{}],"deprecated":false,"default":{}}`, true},
		{`{"type":"object","properties":{"a":{"type":"string","title":"A","readOnly":true,"writeOnly":false,"default":1}}}`, true},
		{`{"type":"object","description":5}`, false},
		{`{"type":"object","examples":{}}`, false},
		{`{"type":"object","deprecated":"yes"}`, false},
		{`{"type":"object","properties":{"a":{"type":"string","title":["x"]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","a"]}`, false},
		{`{"type":"object","required":null}`, false},
	} {
		got := compileFlat([]byte(tc.schema)) != nil
		if got != tc.flat {
			t.Errorf("%s: flat %v, want %v", tc.schema, got, tc.flat)
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("s.json", strings.NewReader(tc.schema)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile("s.json")
		if tc.flat && err != nil {
			t.Errorf("%s: flat, but jsonschema refuses it: %v", tc.schema, err)
		}
		if _, err := Compile([]byte(tc.schema), true); !tc.flat && err == nil && !compilesWithJSONSchema(tc.schema) {
			t.Errorf("%s: Compile took a schema jsonschema refuses", tc.schema)
		}
	}
}

func compilesWithJSONSchema(schema string) bool {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if c.AddResource("s.json", strings.NewReader(schema)) != nil {
		return false
	}
	_, err := c.Compile("s.json")
	return err == nil
}

// FuzzFlatSchema checks the in-place argument checker against jsonschema
// on arbitrary arguments.
func FuzzFlatSchema(f *testing.F) {
	const schema = `{"type":"object","properties":{"s":{"type":"string","enum":["a","b"]},"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"},"o":{"type":"object"}},"required":["s"],"additionalProperties":false}`
	fs := compileFlat([]byte(schema))
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("s.json", strings.NewReader(schema)); err != nil {
		f.Fatal(err)
	}
	ref := c.MustCompile("s.json")
	for _, seed := range []string{`{"s":"a"}`, `{"s":"c"}`, `{"s":"a","n":1.0}`, `{"s":"a","n":1.5}`, `{"s":"a","z":1}`, `{}`, `[]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		v, err := decodeAny(args)
		if err != nil {
			return
		}
		if d := wire.NewDecoder(args); d.Skip() != nil || d.End() != nil {
			return // not valid JSON for our decoder (invalid UTF-8...): the params decoder rejects it first
		}
		want := ref.Validate(v) == nil
		got := fs.check(args) == ""
		if got != want {
			t.Fatalf("args %s: flat %v (%s), jsonschema %v", args, got, fs.check(args), want)
		}
	})
}

// TestAllViolations: a check lists every violation, the flat checker's
// and jsonschema's alike: a misnamed argument and the required one it
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
		s, err := Compile([]byte(tt.schema), true)
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
