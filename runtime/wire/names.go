package wire

import "unsafe"

// This file holds Name and the table of common member names it returns
// without copying them.

// Name returns an object key passed to an Object callback as a string to
// keep: a view of the input in shared mode (when the key needed no
// unescaping), one shared copy for the member names MCP and JSON Schema use
// most, or else a copy.
//
// Not inlined: generated decoders call it for unknown members, a cold path
// at hundreds of sites.
//
//go:noinline
func (d *Decoder) Name(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	if d.shared && len(d.buf) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(d.buf)))
		p := uintptr(unsafe.Pointer(unsafe.SliceData(key)))
		if p >= base && p+uintptr(len(key)) <= base+uintptr(len(d.buf)) {
			return unsafe.String(unsafe.SliceData(key), len(key))
		}
	}
	if s, ok := commonNames.get(key); ok {
		return s
	}
	return d.keepString(key)
}

// commonNames are the member names Name returns without allocating: the
// JSON Schema keywords tool schemas are made of, and frequent MCP names.
// Read-only after initialization.
var commonNames = func() (t nameTable) {
	names := [...]string{
		"type", "properties", "required", "description", "title", "items", "enum", "const",
		"default", "additionalProperties", "$defs", "definitions", "$ref", "$schema", "$id",
		"$anchor", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "format", "pattern",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
		"minItems", "maxItems", "uniqueItems", "examples", "deprecated", "readOnly", "writeOnly",
		"patternProperties", "propertyNames", "prefixItems", "contains", "dependentRequired",
		"_meta", "name", "text", "uri", "mimeType", "annotations", "x-mcp-header",
	}
	// At most half full, checked when compiling (a negative constant
	// does not convert to uint): the probes below and in get end.
	const _ = uint(len(t)/2 - len(names))
	for _, s := range names {
		i := nameSlot([]byte(s))
		for t[i] != "" {
			i = (i + 1) % len(t)
		}
		t[i] = s
	}
	return t
}()

// nameTable is an open-addressed set of names (linear probing), less than
// half full so that a miss ends at an empty slot within a probe or two. A
// map lookup cost four times as much for the keys of a tool's properties
// ("path", "depth"), which Name looks up for every tool of a tools/list
// result decoded without SetShared.
type nameTable [1 << nameBits]string

const nameBits = 7

// get returns the name in t equal to key, which is not empty.
func (t *nameTable) get(key []byte) (string, bool) {
	for i := nameSlot(key); t[i] != ""; i = (i + 1) % len(t) {
		if t[i] == string(key) {
			return t[i], true
		}
	}
	return "", false
}

// nameSlot is where a non-empty name's probe starts in a nameTable: its
// length and first, middle and last bytes (which tell apart minItems and
// maxItems, minimum and maximum), mixed by a Fibonacci multiplier whose
// top bits pick the slot.
func nameSlot(key []byte) int {
	n := len(key)
	x := uint32(n) | uint32(key[0])<<8 | uint32(key[n/2])<<16 | uint32(key[n-1])<<24
	return int(x * 0x9e3779b1 >> (32 - nameBits))
}
