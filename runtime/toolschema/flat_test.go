//go:build !mcpgen_nojsonschema

package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
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
		`{"type":"object","properties":{"text":{"type":"string","minLength":2,"maxLength":3},"mode":{"type":"string","enum":["ab","abcd"],"minLength":1}}}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":-1,"maximum":1e1},"x":{"type":"number","exclusiveMinimum":0.1,"exclusiveMaximum":2.5e0}}}`,
		`{"type":"object","properties":{"x":{"type":"number","minimum":0.30000000000000004,"maximum":1e400}}}`,
		`{"type":"object","required":["text","extra"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}},"required":["n","b"],"additionalProperties":false}`,
	}
	args := []string{`{}`, `{"text":"hi"}`, `{"text":5}`, `{"n":1}`, `{"n":1.5}`, `{"n":1.0}`, `{"n":1e3}`, `{"n":"1"}`, `{"x":-2.5e-3}`,
		`{"b":true}`, `{"b":null}`, `{"extra":1}`, `{"mode":"a","o":{}}`, `{"mode":"c","o":{}}`, `{"mode":"a","o":[]}`, `{"mode":"a","o":{},"l":[1]}`,
		`{"text":""}`, `{"text":"é\u00e9"}`, `{"text":"a\ud83d\ude00b"}`, `{"text":"abcd"}`, `{"text":"日本語"}`, `{"mode":"abcd"}`, `{"mode":"ab"}`,
		`{"n":-1}`, `{"n":-2}`, `{"n":10}`, `{"n":10.0}`, `{"n":11}`, `{"n":1e1}`, `{"n":-1.5}`, `{"x":0.1}`, `{"x":0.10000000000000001}`, `{"x":2.5}`, `{"x":2.4999}`,
		`{"x":0.3}`, `{"x":0.30000000000000004}`, `{"x":1e399}`, `{"x":1e401}`, `{"x":-0}`,
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
	for _, sc := range []string{`{"type":"object","properties":{"s":{"type":"string","minLength":1.0}}}`, `{"type":"object","properties":{"s":{"type":"integer","minLength":1}}}`,
		`{"type":"object","properties":{"s":{"type":"string","minimum":1}}}`, `{"type":"object","properties":{"s":{"type":"number","maximum":"1"}}}`, `{"type":"object","oneOf":[]}`, `{"properties":{}}`, `{"type":"object","properties":{"u":{"type":["string","null"]}}}`} {
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
		// The last member of a name wins, as in jsonschema's reading.
		{`{"type":"string","type":"object","properties":{"a":{"type":5,"type":"string"}}}`, true},
		{`{"type":"object","type":"string"}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"properties":{"a":{"type":"string","oneOf":[]}}}`, false},
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
		// Not flat: this binary registers no full validator, so Compile
		// says it does not check it (a program with one compiles it there).
		if _, err := Compile([]byte(tc.schema), true); !tc.flat && !errors.Is(err, ErrNotChecked) {
			t.Errorf("%s: Compile: %v, want ErrNotChecked", tc.schema, err)
		}
	}
}

// TestFlatSchemaNulls: null is no string, boolean, array or schema, so a
// keyword whose value is null makes a schema jsonschema refuses, and one
// the flat checker must not take (encoding/json, which read schemas
// before, reads null into a string, a boolean or a slice as its zero value
// without an error).
func TestFlatSchemaNulls(t *testing.T) {
	for _, sc := range []string{
		`{"type":null}`,
		`{"type":"object","description":null}`,
		`{"type":"object","deprecated":null}`,
		`{"type":"object","$schema":null}`,
		`{"type":"object","properties":null}`,
		`{"type":"object","properties":{"a":null}}`,
		`{"type":"object","properties":{"a":{"type":null}}}`,
		`{"type":"object","properties":{"a":{"type":"string","title":null}}}`,
		`{"type":"object","required":["a",null]}`,
		`{"type":"object","additionalProperties":null}`,
	} {
		if compileFlat([]byte(sc)) != nil {
			t.Errorf("%s: taken as flat", sc)
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("s.json", strings.NewReader(sc)); err != nil {
			continue // refused as it is read
		}
		if _, err := c.Compile("s.json"); err == nil {
			t.Errorf("%s: jsonschema compiles it", sc)
		}
	}
}

// TestFlatEnumOfStringsOnly: an enum with a value that is not a string is
// left to the full validator (read as "", a null among the values made the
// flat checker accept "", which jsonschema refuses).
func TestFlatEnumOfStringsOnly(t *testing.T) {
	for _, sc := range []string{
		`{"type":"object","properties":{"a":{"type":"string","enum":["a",null]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["a",1]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":null}}}`,
	} {
		if compileFlat([]byte(sc)) != nil {
			t.Errorf("%s: taken as flat", sc)
		}
	}
}

// TestCompileNotJSON: a schema that is not JSON is an error saying where,
// not "not flat" (ErrNotChecked), whether or not a full validator is
// registered.
func TestCompileNotJSON(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object"`, "offset 16"},
		{"{\"type\":\"object\",\"title\":\"\xff\"}", "invalid UTF-8"},
		{`{"type":"object"} {}`, "offset 18"},
	} {
		_, err := Compile([]byte(tc.schema), true)
		if err == nil || errors.Is(err, ErrNotChecked) || !strings.Contains(err.Error(), "not JSON") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying it is not JSON (%s)", tc.schema, err, tc.want)
		}
	}
}

// FuzzFlatSchema checks the in-place argument checker against jsonschema
// on arbitrary arguments.
func FuzzFlatSchema(f *testing.F) {
	const schema = `{"type":"object","properties":{"s":{"type":"string","enum":["a","b"]},"n":{"type":"integer","minimum":-3,"exclusiveMaximum":1e2},"x":{"type":"number","exclusiveMinimum":-0.5,"maximum":7.25},"t":{"type":"string","minLength":1,"maxLength":4},"b":{"type":"boolean"},"o":{"type":"object"}},"required":["s"],"additionalProperties":false}`
	fs := compileFlat([]byte(schema))
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("s.json", strings.NewReader(schema)); err != nil {
		f.Fatal(err)
	}
	ref := c.MustCompile("s.json")
	for _, seed := range []string{`{"s":"a"}`, `{"s":"c"}`, `{"s":"a","n":1.0}`, `{"s":"a","n":1.5}`, `{"s":"a","z":1}`, `{}`, `[]`, `{"s":"a","n":-3,"x":7.25,"t":"日本"}`, `{"s":"a","n":100,"x":-0.5,"t":""}`} {
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
		var want bool
		func() {
			// jsonschema v5 panics on exponents beyond ±1e6 (a nil
			// big.Rat); the flat checker answers them.
			defer func() {
				if recover() != nil {
					want = fs.check(args) == ""
				}
			}()
			want = ref.Validate(v) == nil
		}()
		got := fs.check(args) == ""
		if got != want {
			t.Fatalf("args %s: flat %v (%s), jsonschema %v", args, got, fs.check(args), want)
		}
	})
}

// decodeAny decodes JSON as jsonschema wants it: numbers as json.Number.
func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// FuzzCompileFlat: a schema the flat checker takes is one jsonschema
// compiles, and the two agree on arguments; no schema makes it panic.
func FuzzCompileFlat(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"type":"string","enum":["x","y"],"minLength":1}},"required":["a"],"additionalProperties":false}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":-1,"exclusiveMaximum":1e1,"description":"d"}},"$schema":"https://json-schema.org/draft/2020-12/schema"}`,
		`{"type":"object","title":"t","examples":[{}],"deprecated":false,"x-mcp-header":5}`,
		`{"type":"object","type":"object","properties":{"a":{"type":5,"type":"boolean"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["a",null]}}}`,
		`{"type":"object","description":null}`,
	} {
		f.Add([]byte(seed))
	}
	args := []string{`{}`, `{"a":"x"}`, `{"a":""}`, `{"a":1}`, `{"a":true}`, `{"a":null}`, `{"n":0}`, `{"n":10}`, `{"n":-1.5}`, `{"b":1}`, `[]`}
	f.Fuzz(func(t *testing.T, schema []byte) {
		fs := compileFlat(schema)
		if fs == nil {
			return
		}
		var ref *jsonschema.Schema
		func() {
			// jsonschema v5 panics on exponents beyond ±1e6 (a nil
			// big.Rat) in a schema too.
			defer func() {
				if recover() != nil {
					ref = nil
				}
			}()
			c := jsonschema.NewCompiler()
			c.Draft = jsonschema.Draft2020
			if err := c.AddResource("s.json", bytes.NewReader(schema)); err != nil {
				t.Fatalf("flat, but jsonschema does not read it: %v\n%s", err, schema)
			}
			var err error
			if ref, err = c.Compile("s.json"); err != nil {
				t.Fatalf("flat, but jsonschema does not compile it: %v\n%s", err, schema)
			}
		}()
		if ref == nil {
			return
		}
		for _, a := range args {
			v, _ := decodeAny([]byte(a))
			want := ref.Validate(v) == nil
			if got := fs.check([]byte(a)) == ""; got != want {
				t.Fatalf("schema %s, args %s: flat %v (%s), jsonschema %v", schema, a, got, fs.check([]byte(a)), want)
			}
		}
	})
}
