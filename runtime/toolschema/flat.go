package toolschema

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Most tool schemas, input and output, are flat: an object whose
// properties are scalars (with an enum, a string's length bounds or a
// number's bounds at most), some of them required. For those, arguments and
// structured results are checked in place with a wire.Decoder, without
// building a value tree. Any keyword this checker does not know leaves the
// schema to the full validator (package fullschema), which stays the
// reference: the tests hold the two to the same verdicts.

// flatSchema is a schema the fast checker handles.
type flatSchema struct {
	props    map[string]flatProp
	required []string
	reqIndex map[string]int // index in required, by name
	closed   bool           // additionalProperties: false
}

type flatProp struct {
	kind string   // JSON Schema type: string, number, integer, boolean, object, array; "" any
	enum []string // allowed strings, when set
	// minLen and maxLen bound a string's length in code points (-1: none).
	minLen, maxLen int
	// min, max, xmin and xmax bound a number (minimum, maximum,
	// exclusiveMinimum, exclusiveMaximum): number literals, compared
	// exactly (wire.CompareNumbers); nil: none.
	min, max, xmin, xmax []byte
}

// annotationKeywords carry no constraint; each maps to the JSON type the
// meta-schema gives its value ("" any), so that a flat schema is one
// jsonschema would compile: a flat schema is never compiled by it.
var annotationKeywords = map[string]string{
	"description": "string", "title": "string", "default": "", "examples": "array",
	"$comment": "string", "deprecated": "boolean", "readOnly": "boolean", "writeOnly": "boolean",
	// MCP's own annotation (2026-07-28), a keyword JSON Schema ignores.
	"x-mcp-header": "",
}

// annotation reports whether keyword k with value v is an annotation
// whose value has the type the meta-schema asks.
func annotation(k string, v wire.Raw) bool {
	want, ok := annotationKeywords[k]
	if !ok {
		return false
	}
	switch want {
	case "":
		return true
	case "string":
		_, ok := str(v)
		return ok
	case "boolean":
		_, ok := boolean(v)
		return ok
	default: // array
		return kind(v) == wire.Array
	}
}

// compileFlat recognizes a flat schema; nil means "leave it to the full
// validator". The schema is read with wire, as JSON Schema validators read
// one: the last member of a name wins. A keyword's value must have the
// type the meta-schema asks (null is no string, boolean, array or
// schema), so that a flat schema is one jsonschema compiles.
func compileFlat(raw []byte) *flatSchema {
	top, ok := members(raw)
	if !ok {
		return nil
	}
	fs := &flatSchema{props: map[string]flatProp{}}
	for k, v := range top {
		switch k {
		case "type":
			if t, ok := str(v); !ok || t != "object" {
				return nil
			}
		case "properties":
			props, ok := members(v)
			if !ok {
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
			// Unique names, as the meta-schema asks; no more than check
			// tracks.
			if fs.required, ok = strs(v); !ok || len(fs.required) > 64 ||
				len(slices.Compact(slices.Sorted(slices.Values(fs.required)))) != len(fs.required) {
				return nil
			}
		case "additionalProperties":
			b, ok := boolean(v)
			if !ok {
				return nil
			}
			fs.closed = !b
		case "$schema":
			if s, ok := str(v); !ok || (s != "" && s != "https://json-schema.org/draft/2020-12/schema" && s != "http://json-schema.org/draft-07/schema#") {
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
	fs.reqIndex = make(map[string]int, len(fs.required))
	for i, name := range fs.required {
		fs.reqIndex[name] = i
	}
	return fs
}

// flatProperty reads the schema of one property (raw JSON); false when it
// is not one the flat checker handles.
func flatProperty(raw wire.Raw) (flatProp, bool) {
	fp := flatProp{minLen: -1, maxLen: -1}
	p, ok := members(raw)
	if !ok {
		return fp, false
	}
	for k, v := range p {
		switch k {
		case "type":
			if fp.kind, ok = str(v); !ok {
				return fp, false
			}
			switch fp.kind {
			case "string", "number", "integer", "boolean", "object", "array", "null":
			default:
				return fp, false
			}
		case "enum":
			if fp.enum, ok = strs(v); !ok || len(fp.enum) == 0 {
				return fp, false
			}
		case "minLength", "maxLength":
			// A non-negative integer literal (1.0 and 1e0 are left to the
			// full validator).
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil || n < 0 {
				return fp, false
			}
			if k == "minLength" {
				fp.minLen = n
			} else {
				fp.maxLen = n
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			r, ok := numberLiteral(v)
			if !ok {
				return fp, false
			}
			switch k {
			case "minimum":
				fp.min = r
			case "maximum":
				fp.max = r
			case "exclusiveMinimum":
				fp.xmin = r
			default:
				fp.xmax = r
			}
		default:
			if !annotation(k, v) {
				return fp, false
			}
		}
	}
	lengths := fp.minLen >= 0 || fp.maxLen >= 0
	bounds := fp.min != nil || fp.max != nil || fp.xmin != nil || fp.xmax != nil
	if fp.enum != nil && fp.kind != "string" || lengths && fp.kind != "string" ||
		bounds && fp.kind != "number" && fp.kind != "integer" {
		return fp, false
	}
	return fp, true
}

// members reads a JSON object's members by name, the last of a name
// winning; false when raw is not one object.
func members(raw []byte) (map[string]wire.Raw, bool) {
	d := wire.NewDecoder(raw)
	if d.Peek() != wire.Object {
		return nil, false
	}
	m := map[string]wire.Raw{}
	err := d.Object(func(key []byte) error {
		v, err := d.Raw()
		m[string(key)] = v
		return err
	})
	if err != nil || d.End() != nil {
		return nil, false
	}
	return m, true
}

// kind is the kind of the JSON value v (one valid value: members read it).
func kind(v wire.Raw) wire.Kind { return wire.NewDecoder(v).Peek() }

// str is the string v holds; false when v is not a string.
func str(v wire.Raw) (string, bool) {
	d := wire.NewDecoder(v)
	if d.Peek() != wire.String {
		return "", false
	}
	s, err := d.Str()
	return s, err == nil
}

// boolean is the boolean v holds; false when v is not one.
func boolean(v wire.Raw) (b, ok bool) {
	d := wire.NewDecoder(v)
	if d.Peek() != wire.Bool {
		return false, false
	}
	b, err := d.Bool()
	return b, err == nil
}

// strs are the strings of v, an array of strings (not nil when empty);
// false when v is anything else.
func strs(v wire.Raw) ([]string, bool) {
	d := wire.NewDecoder(v)
	if d.Peek() != wire.Array {
		return nil, false
	}
	out := []string{}
	err := d.Array(func() error {
		if d.Peek() != wire.String {
			return errNotString
		}
		s, err := d.Str()
		out = append(out, s)
		return err
	})
	return out, err == nil
}

// errNotString stops strs at a member that is not a string.
var errNotString = errors.New("toolschema: not a string")

// numberLiteral is v's literal when v is a JSON number; false for anything
// else.
func numberLiteral(v []byte) ([]byte, bool) {
	d := wire.NewDecoder(bytes.TrimSpace(v))
	if d.Peek() != wire.Number {
		return nil, false
	}
	lit, err := d.Number()
	if err != nil || d.End() != nil {
		return nil, false
	}
	return bytes.Clone(lit), true
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
		if i, ok := fs.reqIndex[string(key)]; ok {
			seen |= 1 << i
		}
		p, ok := fs.props[string(key)]
		if !ok {
			if fs.closed {
				problems = append(problems, "/: additional property '"+string(key)+"' not allowed")
			}
			return d.Skip()
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
		if seen&(1<<i) == 0 {
			problems = append(problems, "/: missing properties: '"+name+"'")
		}
	}
	return ListViolations(problems)
}

// ListViolations joins violations, "/location: message" each, as Check
// reports them: "; " between them, up to valid.MaxListed (the rest are
// counted). A Full validator's FullSchema.Check lists its own with it.
func ListViolations(problems []string) string {
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
			if p.enum == nil && p.minLen < 0 && p.maxLen < 0 {
				return skip(d)
			}
			s, err := d.StrBytes()
			if err != nil {
				return err.Error()
			}
			if p.minLen >= 0 || p.maxLen >= 0 {
				n := utf8.RuneCount(s)
				if p.minLen >= 0 && n < p.minLen {
					return "length must be >= " + strconv.Itoa(p.minLen) + ", but got " + strconv.Itoa(n)
				}
				if p.maxLen >= 0 && n > p.maxLen {
					return "length must be <= " + strconv.Itoa(p.maxLen) + ", but got " + strconv.Itoa(n)
				}
			}
			if p.enum == nil {
				return ""
			}
			for _, e := range p.enum {
				if string(s) == e {
					return ""
				}
			}
			return "value must be one of the enum values"
		}
		want = "string"
	case "number", "integer":
		if k == wire.Number {
			lit, err := d.Number()
			if err != nil {
				return err.Error()
			}
			if p.kind == "integer" && !wire.IsIntegral(lit) {
				return "expected integer, but got number"
			}
			return p.checkBounds(lit)
		}
		want = p.kind
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

// checkBounds checks a number literal against the property's bounds,
// exactly and in time linear in the literals (wire.CompareNumbers: a peer's
// 1e999999 costs what 1e9 does).
func (p flatProp) checkBounds(lit []byte) string {
	switch {
	case p.min != nil && wire.CompareNumbers(lit, p.min) < 0:
		return "must be >= " + string(p.min) + " but found " + shortLiteral(lit)
	case p.xmin != nil && wire.CompareNumbers(lit, p.xmin) <= 0:
		return "must be > " + string(p.xmin) + " but found " + shortLiteral(lit)
	case p.max != nil && wire.CompareNumbers(lit, p.max) > 0:
		return "must be <= " + string(p.max) + " but found " + shortLiteral(lit)
	case p.xmax != nil && wire.CompareNumbers(lit, p.xmax) >= 0:
		return "must be < " + string(p.xmax) + " but found " + shortLiteral(lit)
	}
	return ""
}

// shortLiteral is a number literal for a message, cut when absurdly long.
func shortLiteral(lit []byte) string {
	if len(lit) > 40 {
		return string(lit[:37]) + "..."
	}
	return string(lit)
}

func skip(d *wire.Decoder) string {
	if err := d.Skip(); err != nil {
		return err.Error()
	}
	return ""
}
