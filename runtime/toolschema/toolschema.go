// Package toolschema checks a tool's arguments against its inputSchema
// and its structuredContent against its outputSchema, as MCP servers must:
// arguments that break the schema are a tool execution error the model
// can correct, a result that breaks it a server bug. A schema is compiled
// once. Most schemas are flat — an object whose properties are scalars
// (with an enum, a string's length bounds or a number's bounds at most),
// some of them required, maybe closed to others — and those are checked in
// place, without building a value tree.
//
// Any other schema needs a full JSON Schema validator, which a program links
// only when it asks for one: importing package
// github.com/mcpgen/mcpgen/runtime/toolschema/fullschema for its effect
// registers jsonschema (JSON Schema 2020-12 unless a schema says otherwise;
// references are never fetched). Without it, Compile answers such a schema
// with ErrNotChecked: the server logs the tool's name and the import when it
// learns its tools, and package features refuses a hand-built tool whose
// arguments it would then not check. The validator's code, and the megabyte
// of memory it takes when it starts, are paid only by the programs whose
// tools need it.
package toolschema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Schema is a compiled tool schema.
type Schema struct {
	flat *flatSchema // the fast checker, for a flat schema
	full FullSchema  // the registered full validator, for the rest
}

// ErrNotChecked is Compile's answer for a schema the program cannot check:
// one that is not flat, in a program that registered no full validator
// (see Register; package fullschema registers one).
var ErrNotChecked = errors.New("toolschema: only flat schemas are checked: the program does not import github.com/mcpgen/mcpgen/runtime/toolschema/fullschema (or is built with -tags mcpgen_nojsonschema)")

// Full is a full JSON Schema validator: what checks the schemas the
// in-place checker cannot. Package fullschema provides one.
type Full interface {
	// Compile compiles raw, a tool's schema known by url (references must
	// not be fetched); its error says why the schema does not compile.
	Compile(url string, raw []byte) (FullSchema, error)
}

// FullSchema is a schema a Full validator compiled.
type FullSchema interface {
	// Check checks value, one JSON value: "" when it conforms (or is not
	// JSON: what decodes it reports that), else its violations,
	// "/location: message" each, "; " between them (ListViolations).
	Check(value []byte) string
}

// full is the validator Register registered: set while packages
// initialize, only read after.
var full atomic.Pointer[Full]

// Register makes f the validator of every schema the in-place checker
// cannot check. It is meant for the init function of the package that
// provides f (fullschema), so that importing that package is all a program
// does; registering a second one panics, as two imports that disagree are
// a mistake to see at once.
func Register(f Full) {
	if f == nil {
		panic("toolschema: Register of a nil validator")
	}
	if !full.CompareAndSwap(nil, &f) {
		panic("toolschema: Register called twice")
	}
}

// Registered reports whether a full validator is registered: whether every
// schema is checked, or flat schemas only.
func Registered() bool { return full.Load() != nil }

// Compile compiles a tool's input schema (input) or output schema: nil and
// no error for an empty or null one (nothing to check), an error naming
// where for one that is not JSON, ErrNotChecked for one that is not flat
// when no full validator is registered.
func Compile(raw []byte, input bool) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	if err := wire.CheckJSON(raw); err != nil {
		return nil, fmt.Errorf("toolschema: the schema is not JSON: %w", err)
	}
	s := &Schema{}
	// A flat schema, input or output (structuredContent is an object as
	// arguments are), is checked in place, and only there: compiling it
	// with the full validator too would cost memory and start-up time for
	// nothing (compileFlat takes only schemas jsonschema compiles, and
	// TestFlatSchemaAgreesWithJSONSchema holds them to it).
	if s.flat = compileFlat(raw); s.flat != nil {
		return s, nil
	}
	f := full.Load()
	if f == nil {
		return nil, ErrNotChecked
	}
	sum := sha256.Sum256(raw)
	kind := "output"
	if input {
		kind = "input"
	}
	fs, err := (*f).Compile("mcp-tool:///"+hex.EncodeToString(sum[:8])+"/"+kind+".json", raw)
	if err != nil {
		return nil, err
	}
	if fs == nil {
		return nil, errors.New("toolschema: the registered full validator compiled the schema to nothing")
	}
	s.full = fs
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
	return s.full.Check(value)
}
