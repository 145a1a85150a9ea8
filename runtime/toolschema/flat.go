package toolschema

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Most tool input schemas are flat: an object whose properties are scalars
// (with an enum at most), some of them required. For those, arguments are
// checked in place with a wire.Decoder, without allocating and without
// building a value tree for jsonschema. Any keyword this checker does not
// know sends the schema to jsonschema, which stays the reference.

// flatSchema is an input schema the fast checker handles.
type flatSchema struct {
	props    map[string]flatProp
	required []string
	closed   bool // additionalProperties: false
}

type flatProp struct {
	kind string   // JSON Schema type: string, number, integer, boolean, object, array; "" any
	enum []string // allowed strings, when set
}

// annotationKeywords carry no constraint; each maps to the JSON type the
// meta-schema gives its value ("" any), so that a flat schema is one
// jsonschema would compile: a flat schema is never compiled by it.
var annotationKeywords = map[string]string{
	"description": "string", "title": "string", "default": "", "examples": "array",
	"$comment": "string", "deprecated": "boolean", "readOnly": "boolean", "writeOnly": "boolean",
}

// annotation reports whether keyword k with value v is an annotation
// whose value has the type the meta-schema asks.
func annotation(k string, v json.RawMessage) bool {
	want, ok := annotationKeywords[k]
	if !ok {
		return false
	}
	switch want {
	case "":
		return true
	case "string":
		var s string
		return json.Unmarshal(v, &s) == nil
	case "boolean":
		var b bool
		return json.Unmarshal(v, &b) == nil
	default: // array
		var a []json.RawMessage
		return json.Unmarshal(v, &a) == nil && a != nil
	}
}

// compileFlat recognizes a flat schema; nil means "use jsonschema".
func compileFlat(raw []byte) *flatSchema {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	fs := &flatSchema{props: map[string]flatProp{}}
	for k, v := range top {
		switch k {
		case "type":
			var t string
			if json.Unmarshal(v, &t) != nil || t != "object" {
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				fp, ok := flatProperty(p)
				if !ok {
					return nil
				}
				fs.props[name] = fp
			}
		case "required":
			// Unique names, as the meta-schema asks.
			if json.Unmarshal(v, &fs.required) != nil || fs.required == nil || len(slices.Compact(slices.Sorted(slices.Values(fs.required)))) != len(fs.required) {
				return nil
			}
		case "additionalProperties":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return nil
			}
			fs.closed = !b
		case "$schema":
			var s string
			if json.Unmarshal(v, &s) != nil || (s != "" && s != "https://json-schema.org/draft/2020-12/schema" && s != "http://json-schema.org/draft-07/schema#") {
				return nil
			}
		default:
			if !annotation(k, v) {
				return nil
			}
		}
	}
	if _, ok := top["type"]; !ok {
		return nil
	}
	return fs
}

func flatProperty(p map[string]json.RawMessage) (flatProp, bool) {
	var fp flatProp
	for k, v := range p {
		switch k {
		case "type":
			if json.Unmarshal(v, &fp.kind) != nil {
				return fp, false
			}
			switch fp.kind {
			case "string", "number", "integer", "boolean", "object", "array", "null":
			default:
				return fp, false
			}
		case "enum":
			if json.Unmarshal(v, &fp.enum) != nil || len(fp.enum) == 0 {
				return fp, false
			}
		default:
			if !annotation(k, v) {
				return fp, false
			}
		}
	}
	if fp.enum != nil && fp.kind != "string" {
		return fp, false
	}
	return fp, true
}

// check validates args; "" means valid, else the violations (up to
// valid.MaxListed, "; " between them, the rest counted).
func (fs *flatSchema) check(args []byte) string {
	d := wire.NewDecoder(args)
	if d.Peek() != wire.Object {
		return "/: expected object"
	}
	var seen uint64 // bit per required member (first 64)
	var problems []string
	err := d.Object(func(key []byte) error {
		p, ok := fs.props[string(key)]
		if !ok {
			if fs.closed {
				problems = append(problems, "/: additional property '"+string(key)+"' not allowed")
			}
			return d.Skip()
		}
		if i := slices.Index(fs.required, string(key)); i >= 0 && i < 64 {
			seen |= 1 << i
		}
		if msg := p.check(d); msg != "" {
			problems = append(problems, "/"+string(key)+": "+msg)
		}
		return nil
	})
	if err != nil {
		return "/: " + err.Error()
	}
	for i, name := range fs.required {
		if i < 64 && seen&(1<<i) == 0 {
			problems = append(problems, "/: missing properties: '"+name+"'")
		}
	}
	return joinProblems(problems)
}

// joinProblems lists problems as valid.List does.
func joinProblems(problems []string) string {
	if len(problems) > valid.MaxListed {
		n := len(problems) - valid.MaxListed
		return strings.Join(problems[:valid.MaxListed], "; ") + " (and " + strconv.Itoa(n) + " more)"
	}
	return strings.Join(problems, "; ")
}

// check consumes one value and checks it against the property.
func (p flatProp) check(d *wire.Decoder) string {
	k := d.Peek()
	want := ""
	switch p.kind {
	case "":
		return skip(d)
	case "string":
		if k == wire.String {
			if p.enum == nil {
				return skip(d)
			}
			s, err := d.StrBytes()
			if err != nil {
				return err.Error()
			}
			for _, e := range p.enum {
				if string(s) == e {
					return ""
				}
			}
			return "value must be one of the enum values"
		}
		want = "string"
	case "number":
		if k == wire.Number {
			return skip(d)
		}
		want = "number"
	case "integer":
		if k == wire.Number {
			lit, err := d.Number()
			if err != nil {
				return err.Error()
			}
			if !integral(lit) {
				return "expected integer, but got number"
			}
			return ""
		}
		want = "integer"
	case "boolean":
		if k == wire.Bool {
			return skip(d)
		}
		want = "boolean"
	case "object":
		if k == wire.Object {
			return skip(d)
		}
		want = "object"
	case "array":
		if k == wire.Array {
			return skip(d)
		}
		want = "array"
	case "null":
		if k == wire.Null {
			return skip(d)
		}
		want = "null"
	}
	_ = d.Skip()
	return "expected " + want + ", but got " + k.String()
}

func skip(d *wire.Decoder) string {
	if err := d.Skip(); err != nil {
		return err.Error()
	}
	return ""
}

// integral reports whether a JSON number literal is an integer, as JSON
// Schema counts them (1.0 and 1e3 are).
func integral(lit []byte) bool {
	if !bytes.ContainsAny(lit, ".eE") {
		return true
	}
	r, ok := new(big.Rat).SetString(string(lit))
	return ok && r.IsInt()
}
