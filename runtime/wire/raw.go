package wire

// Raw is the exact text of one JSON value. Generated code keeps it for
// members a schema leaves open and for `unknown`/any values. An empty Raw
// means "no value" and encodes as null.
type Raw []byte

// Kind returns the kind of the value r holds, judged from its first
// non-whitespace byte; Invalid if r is empty.
func (r Raw) Kind() Kind {
	i := skipSpace(r, 0)
	if i >= len(r) {
		return Invalid
	}
	return kindOf[r[i]]
}

// MarshalJSON implements json.Marshaler: r itself, or null when empty.
func (r Raw) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON implements json.Unmarshaler: it stores a copy of b.
func (r *Raw) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// Member is one object member kept verbatim: an Entry of raw JSON.
type Member = Entry[Raw]

// Members keeps the members of an object that a schema does not name, in
// arrival order, so they survive a decode/encode round trip. Lookups are
// linear: such sets are small.
type Members []Member

// Add appends a member, making room for a few at once: objects that have
// members a schema does not name tend to have several.
//
// Not inlined: generated decoders call it for unknown members, a cold path
// at hundreds of sites.
//
//go:noinline
func (m *Members) Add(name string, value Raw) {
	if *m == nil {
		*m = make(Members, 0, 4)
	}
	*m = append(*m, Member{Name: name, Value: value})
}

// Get returns the value of the first member called name.
func (m Members) Get(name string) (Raw, bool) { return EntryGet(m, name) }

// Set replaces the value of the first member called name, or appends a
// member if there is none.
func (m *Members) Set(name string, v Raw) { EntrySet(m, name, v) }

// Delete removes every member called name, keeping the order of the rest.
func (m *Members) Delete(name string) { EntryDelete(m, name) }

// DecodeJSON implements Unmarshaler: it stores a copy of the next value.
func (r *Raw) DecodeJSON(d *Decoder) error {
	v, err := d.Raw()
	*r = v
	return err
}

// EncodeJSON implements Marshaler: r itself, checked as by
// Encoder.RawValue, or null when empty.
func (r Raw) EncodeJSON(e *Encoder) { e.RawValue(r) }

// CopyMembers writes the members of the object obj to e, which must be
// inside an object, except those named skip: the value of the last of
// those is returned (nil when there is none), as a view of obj. It is how a
// message is re-encoded with one member replaced or merged.
func CopyMembers(e *Encoder, obj Raw, skip string) (Raw, error) {
	var skipped Raw
	d := NewDecoder(obj)
	d.SetShared(true)
	err := d.Object(func(key []byte) error {
		r, err := d.Raw()
		if err != nil {
			return err
		}
		if string(key) == skip {
			skipped = r
			return nil
		}
		e.Field(string(key))
		e.Raw(r)
		return nil
	})
	return skipped, err
}
