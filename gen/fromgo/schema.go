package fromgo

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The JSON Schemas of the modelled types (draft 2020-12, the dialect MCP
// tool schemas default to). Written by hand, members in a fixed order, so
// the output is deterministic and reads like a schema a person wrote.

// obj is a JSON object under construction, members in insertion order.
type obj struct{ b strings.Builder }

func (o *obj) raw(key, value string) {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	o.b.WriteString(strconv.Quote(key))
	o.b.WriteByte(':')
	o.b.WriteString(value)
}

func (o *obj) str(key, v string) { o.raw(key, jsonString(v)) }

func (o *obj) String() string {
	if o.b.Len() == 0 {
		return "{}"
	}
	return o.b.String() + "}"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// schema writes the schema of a value of type t with constraints c.
// nullable adds "null" to its type (a pointer).
func schema(t *typ, c constraints, doc string) string {
	var o obj
	nullable := false
	if t.shape == sPtr {
		nullable, t = true, t.elem
	}
	typeName := func(name string) {
		if nullable {
			o.raw("type", `["`+name+`","null"]`)
		} else {
			o.str("type", name)
		}
	}
	if c.title != "" {
		o.str("title", c.title)
	}
	if d := strings.TrimSpace(firstNonEmpty(c.description, doc)); d != "" {
		o.str("description", d)
	}
	switch t.shape {
	case sString:
		typeName("string")
		enum := c.enum
		if enum == nil {
			enum = t.enum
		}
		if enum != nil {
			vals := make([]string, len(enum))
			for i, v := range enum {
				vals[i] = jsonString(v)
			}
			if nullable {
				vals = append(vals, "null")
			}
			o.raw("enum", "["+strings.Join(vals, ",")+"]")
		}
		if c.minLen > 0 {
			o.raw("minLength", strconv.Itoa(c.minLen))
		}
		if c.maxLen >= 0 {
			o.raw("maxLength", strconv.Itoa(c.maxLen))
		}
		if c.pattern != "" {
			o.str("pattern", c.pattern)
		}
		if c.format != "" {
			o.str("format", c.format)
		}
	case sBool:
		typeName("boolean")
	case sInt, sUint:
		typeName("integer")
		// A 64-bit type's own range is left out: noise to a model, and
		// not exact in JavaScript; the decoder checks it anyway.
		lo, hi := intBounds(t, c)
		tlo, thi := intRange(t)
		if t.bits < 64 || lo != tlo || t.shape == sUint {
			o.raw("minimum", lo)
		}
		if t.bits < 64 || hi != thi {
			o.raw("maximum", hi)
		}
	case sFloat:
		typeName("number")
		lo, hi := floatBounds(t, c)
		if lo != "" {
			o.raw(map[bool]string{true: "exclusiveMinimum", false: "minimum"}[c.exclMin], lo)
		}
		if hi != "" {
			o.raw(map[bool]string{true: "exclusiveMaximum", false: "maximum"}[c.exclMax], hi)
		}
	case sTime:
		typeName("string")
		o.str("format", "date-time")
	case sBytes:
		typeName("string")
		o.str("contentEncoding", "base64")
	case sRaw:
		// any JSON value
	case sStruct:
		typeName("object")
		o.raw("properties", properties(t))
		var req []string
		for _, f := range t.fields {
			if f.required {
				req = append(req, jsonString(f.json))
			}
		}
		if len(req) > 0 {
			o.raw("required", "["+strings.Join(req, ",")+"]")
		}
		o.raw("additionalProperties", "false")
	case sSlice:
		typeName("array")
		item := c
		item.title, item.description, item.minItems, item.maxItems = "", "", 0, -1
		o.raw("items", schema(t.elem, item, ""))
		if c.minItems > 0 {
			o.raw("minItems", strconv.Itoa(c.minItems))
		}
		if c.maxItems >= 0 {
			o.raw("maxItems", strconv.Itoa(c.maxItems))
		}
	case sMap:
		typeName("object")
		o.raw("additionalProperties", schema(t.elem, noConstraints(), ""))
	}
	return o.String()
}

// properties writes a struct's properties. An optional pointer is its
// element's schema (absent when nil); only a required one may be null.
func properties(t *typ) string {
	var props obj
	for _, f := range t.fields {
		doc := withoutGoName(f.doc, f.path[len(f.path)-1])
		if doc == "" && f.t.shape == sStruct {
			doc = f.t.doc
		}
		ft := f.t
		if ft.shape == sPtr && !f.required {
			ft = ft.elem
		}
		props.raw(f.json, schema(ft, f.c, doc))
	}
	return props.String()
}

// withoutGoName drops the Go name a doc comment begins with, as Go
// comments do ("Hourly adds hourly data." describes hourly as "Adds
// hourly data.", "Trace is a trace id." as "A trace id."): the model
// sees the JSON name, not the Go one.
func withoutGoName(doc, name string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(doc), name+" ")
	if !ok || rest == "" {
		return doc
	}
	// "Trace is a trace id." says "A trace id.".
	for _, verb := range []string{"is ", "are "} {
		if r, ok := strings.CutPrefix(rest, verb); ok && r != "" {
			rest = r
			break
		}
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}

// objectSchema is the schema of a tool's arguments or result: the struct's
// schema, described by its type's doc comment.
func objectSchema(t *typ) string {
	if t.shape == sPtr {
		t = t.elem
	}
	return schema(t, noConstraints(), "")
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// intBounds are an integer's inclusive bounds: its type's range, narrowed
// by the declared ones.
func intBounds(t *typ, c constraints) (lo, hi string) {
	lo, hi = intRange(t)
	if c.min != nil {
		m := *c.min
		if c.exclMin {
			m++
		}
		if l, _ := strconv.ParseFloat(lo, 64); m > l {
			lo = strconv.FormatFloat(m, 'f', -1, 64)
		}
	}
	if c.max != nil {
		m := *c.max
		if c.exclMax {
			m--
		}
		if h, _ := strconv.ParseFloat(hi, 64); m < h {
			hi = strconv.FormatFloat(m, 'f', -1, 64)
		}
	}
	return lo, hi
}

// floatBounds are a float's declared bounds ("" when none); a float32 is
// bounded by its range.
func floatBounds(t *typ, c constraints) (lo, hi string) {
	if c.min != nil {
		lo = strconv.FormatFloat(*c.min, 'g', -1, 64)
	} else if t.bits == 32 {
		lo = strconv.FormatFloat(-math.MaxFloat32, 'g', -1, 64)
	}
	if c.max != nil {
		hi = strconv.FormatFloat(*c.max, 'g', -1, 64)
	} else if t.bits == 32 {
		hi = strconv.FormatFloat(math.MaxFloat32, 'g', -1, 64)
	}
	return lo, hi
}
