// Package toolschema checks a tool's arguments against its inputSchema
// and its structuredContent against its outputSchema, as MCP servers must:
// arguments that break the schema are a tool execution error the model
// can correct, a result that breaks it a server bug. A schema is compiled
// once. Most input schemas are flat — an object whose properties are
// scalars (with an enum at most), some of them required — and those are
// checked in place, without allocating and without building a value tree;
// any other schema goes to jsonschema (JSON Schema 2020-12 unless it says
// otherwise; references are never fetched), which stays the reference.
//
// Built with -tags mcpgen_nojsonschema, a program leaves jsonschema (and
// what it links: regexp, math/big, …) out: only flat input schemas are
// then checked, and Compile reports the others with ErrNotChecked.
package toolschema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// Schema is a compiled tool schema.
type Schema struct {
	flat *flatSchema     // the fast checker, for a flat input schema
	full schemaValidator // jsonschema, for the rest
}

// ErrNotChecked is Compile's answer for a schema this build cannot check
// (built with -tags mcpgen_nojsonschema, a schema that is not a flat input
// schema).
var ErrNotChecked = errors.New("toolschema: the program is built with -tags mcpgen_nojsonschema: only flat input schemas are checked")

// errNoJSONSchema is compileSchema's error in a build without jsonschema.
var errNoJSONSchema = ErrNotChecked

// Compile compiles a tool's input schema (input) or output schema: nil and
// no error for an empty or null one (nothing to check).
func Compile(raw []byte, input bool) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	s := &Schema{}
	if input {
		// A flat schema is checked in place, and only there: compiling
		// it with jsonschema too would cost memory and start-up time for
		// nothing (compileFlat takes only schemas jsonschema compiles,
		// and TestFlatSchemaAgreesWithJSONSchema holds them to it).
		if s.flat = compileFlat(raw); s.flat != nil {
			return s, nil
		}
	}
	sum := sha256.Sum256(raw)
	kind := "output"
	if input {
		kind = "input"
	}
	full, err := compileSchema("mcp-tool:///"+hex.EncodeToString(sum[:8])+"/"+kind+".json", raw)
	if err != nil {
		return nil, err
	}
	s.full = full
	return s, nil
}

// Check checks value (JSON) against the schema: "" when it conforms, else
// its violations, "/location: message" each, "; " between them (up to
// valid.MaxListed; the rest are counted). Value that is not JSON is
// left to the decoder of what it is ("").
func (s *Schema) Check(value []byte) string {
	if s.flat != nil {
		return s.flat.check(value)
	}
	v, err := decodeAny(value)
	if err != nil {
		return ""
	}
	if err := s.full.Validate(v); err != nil {
		return describeViolation(err)
	}
	return ""
}

// schemaValidator checks a value decoded by decodeAny against one
// compiled schema.
type schemaValidator interface {
	Validate(v any) error
}

// decodeAny decodes JSON the way jsonschema wants it: numbers as
// json.Number.
func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("toolschema: %w", err)
	}
	return v, nil
}
