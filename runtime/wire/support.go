package wire

// This file holds what generated decoders need beyond plain decoding:
// errors for schema rules that decoding enforces, and looking ahead into
// the next value to pick a union member before decoding it.

import "slices"

var errMissing = &ValueError{Msg: "required member is missing"}

// Missing is the error for a required object member that is absent; its
// pointer names the member.
func Missing(name string) error {
	return &PathError{Pointer: "/" + escapeToken(name), Err: errMissing}
}

// ConstMismatch is the error for a member whose value must be want (a JSON
// literal such as "2.0" or -32602).
//
// Not inlined, like the other error constructors generated code calls on
// cold paths at many sites.
//
//go:noinline
func ConstMismatch(want string) error {
	return &ValueError{Msg: "must be " + want}
}

// NotAllowed is the error for a member an object's schema forbids
// (additionalProperties: false).
func NotAllowed() error {
	return &ValueError{Msg: "member not allowed"}
}

// RawObject is Raw for a value that must be an object.
func (d *Decoder) RawObject() (Raw, error) {
	i := d.ws()
	if i >= len(d.buf) || d.buf[i] != '{' {
		return nil, d.mismatch(i, "object")
	}
	return d.Raw()
}

// PeekMember looks into the next value without consuming it: following
// path through nested objects, it returns the kind of the value found
// there and, for a string, its unescaped bytes (valid until the next call
// on d). The kind is Invalid when the next value is not an object or a
// member on the path is absent. Only malformed JSON is an error.
func (d *Decoder) PeekMember(path ...string) (Kind, []byte, error) {
	buf := d.buf
	i := skipSpace(buf, d.pos)
	for _, name := range path {
		if i >= len(buf) || buf[i] != '{' {
			return Invalid, nil, nil
		}
		found := false
		i = skipSpace(buf, i+1)
		if i < len(buf) && buf[i] == '}' {
			return Invalid, nil, nil
		}
		for !found {
			if i >= len(buf) || buf[i] != '"' {
				return Invalid, nil, errExpected(buf, i, "string for object key")
			}
			end, escaped, err := scanString(buf, i+1)
			if err != nil {
				return Invalid, nil, err
			}
			key := buf[i+1 : end]
			if escaped {
				d.scratch = unescape(d.scratch[:0], key)
				key = d.scratch
			}
			i = skipSpace(buf, end+1)
			if i >= len(buf) || buf[i] != ':' {
				return Invalid, nil, errExpected(buf, i, "':' after object key")
			}
			i = skipSpace(buf, i+1)
			if string(key) == name {
				found = true
				break
			}
			depth := d.depth
			next, err := d.skip(i)
			d.depth = depth
			if err != nil {
				return Invalid, nil, err
			}
			i = skipSpace(buf, next)
			if i < len(buf) && buf[i] == ',' {
				i = skipSpace(buf, i+1)
				continue
			}
			if i < len(buf) && buf[i] == '}' {
				return Invalid, nil, nil
			}
			return Invalid, nil, errExpected(buf, i, "',' or '}' after object member")
		}
	}
	if i >= len(buf) {
		return Invalid, nil, nil
	}
	k := kindOf[buf[i]]
	if k != String {
		return k, nil, nil
	}
	end, escaped, err := scanString(buf, i+1)
	if err != nil {
		return Invalid, nil, err
	}
	if !escaped {
		return String, buf[i+1 : end], nil
	}
	d.scratch = unescape(d.scratch[:0], buf[i+1:end])
	return String, d.scratch, nil
}

// Fork returns an independent cursor at d's position, for looking ahead;
// what it reads does not move d.
func (d *Decoder) Fork() Decoder {
	f := *d
	f.scratch, f.keys = nil, nil
	return f
}

// EnterFirstItem moves past the '[' of the next value, to its first
// element, reporting false when the value is not an array or is empty.
// Use it on a Fork.
func (d *Decoder) EnterFirstItem() (bool, error) {
	i := d.ws()
	if i >= len(d.buf) || d.buf[i] != '[' {
		return false, nil
	}
	i = skipSpace(d.buf, i+1)
	if i >= len(d.buf) {
		return false, syntaxErr(i, "unexpected end of input in array")
	}
	if d.buf[i] == ']' {
		return false, nil
	}
	d.pos = i
	return true, nil
}

// MemberOf returns the value of the member name of the object obj (the first,
// if it repeats) as a view of obj; false when obj is not an object, has no
// such member, or is malformed.
func MemberOf(obj Raw, name string) (Raw, bool) {
	if obj.Kind() != Object {
		return nil, false
	}
	var out Raw
	found := false
	d := NewDecoder(obj)
	d.SetShared(true)
	_ = d.Object(func(key []byte) error {
		if found || string(key) != name {
			return d.Skip()
		}
		v, err := d.Raw()
		out, found = v, err == nil
		return err
	})
	return out, found
}

// SortedKeys appends the keys of m to buf, sorted, and returns the result:
// generated encoders write a map's members in key order (deterministic
// output) and pass a buffer on their stack, so a map of up to its length
// is encoded without allocating.
func SortedKeys[V any](m map[string]V, buf []string) []string {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}
