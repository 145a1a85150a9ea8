package wire

import (
	"bytes"
	"slices"
	"strings"
)

// Canonical returns obj, a JSON object, in a canonical form without its
// members omit: the members of every object sorted by name (at every
// depth), strings re-escaped as Encoder writes them, numbers as written,
// no whitespace. Two encodings of the same value have the same canonical
// form, so a digest of it binds a value however a client encodes it
// (resume tokens and requestState bind the params of their request so).
// An empty obj is the empty object.
func Canonical(obj Raw, omit ...string) ([]byte, error) {
	var e Encoder
	if len(bytes.TrimSpace(obj)) == 0 {
		return []byte("{}"), nil
	}
	d := NewDecoder(obj)
	if err := canonical(d, &e, omit); err != nil {
		return nil, err
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return e.Bytes(), e.Err()
}

// canonical copies the value at d to e in canonical form; omit applies to
// the members of the outermost object only.
func canonical(d *Decoder, e *Encoder, omit []string) error {
	switch d.Peek() {
	case Object:
		type member struct {
			name string
			val  Encoder
		}
		var ms []member
		err := d.Object(func(key []byte) error {
			name := d.Name(key)
			if slices.Contains(omit, name) {
				return d.Skip()
			}
			m := member{name: name}
			if err := canonical(d, &m.val, nil); err != nil {
				return err
			}
			ms = append(ms, m)
			return nil
		})
		if err != nil {
			return err
		}
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
		e.ObjectStart()
		for i := range ms {
			e.Field(ms[i].name)
			e.Raw(ms[i].val.Bytes())
		}
		e.ObjectEnd()
		return nil
	case Array:
		e.ArrayStart()
		err := d.Array(func() error { return canonical(d, e, nil) })
		e.ArrayEnd()
		return err
	case String:
		s, err := d.Str()
		e.Str(s)
		return err
	case Number:
		n, err := d.Number()
		e.Raw(n)
		return err
	}
	r, err := d.Raw() // true, false, null
	e.Raw(r)
	return err
}
