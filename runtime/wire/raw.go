package wire

import "unsafe"

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

// membersRoom is how many members Add makes room for at once: objects
// that have members a schema does not name tend to have several.
const membersRoom = 4

// Add appends a member, making room for a few at once (membersRoom).
// Code generated before version 15 calls it for each unknown member it
// decodes; later versions call Decoder.Extra.
//
// Not inlined: a cold path at hundreds of sites.
//
//go:noinline
func (m *Members) Add(name string, value Raw) {
	if *m == nil {
		*m = make(Members, 0, membersRoom)
	}
	*m = append(*m, Member{Name: name, Value: value})
}

// Extra decodes the value of the member called key, which the schema of
// the object being decoded does not name, and appends it to m (the
// object's Extra); an error names key. Generated decoders call it for
// unknown members (generated-code version 15).
//
// A decoder that remembers types (from its second input on, see Reset)
// makes room for an object's members in a block it keeps, as New does for
// pointer members: as many as the last object it kept such members for
// had (membersRoom for the first; at most extraRoomMax). So the members
// each element of a long list leaves unnamed — the properties and
// required of each tool's input schema in revisions whose schema names
// only its type — cost no allocation each. Appending to m beyond that
// room copies it, never reaching the rest of the block.
//
// Not inlined: a cold path at hundreds of sites.
//
//go:noinline
func (d *Decoder) Extra(m *Members, key []byte) error {
	r, err := d.Raw()
	if err != nil {
		return WithField(err, string(key))
	}
	name := d.Name(key)
	t := d.types
	if t == nil {
		m.Add(name, r)
		return nil
	}
	if *m == nil {
		room := t.extras
		if room == 0 {
			room = membersRoom
		}
		room = min(room, extraRoomMax)
		p := d.memory(typeKey[Member]()).cut(typeKey[Member](), room, unsafe.Sizeof(Member{}))
		*m = unsafe.Slice((*Member)(p), room)[:0]
	}
	*m = append(*m, Member{Name: name, Value: r})
	t.extras = len(*m)
	return nil
}

// extraRoomMax bounds the room Decoder.Extra makes for an object's
// members from a block: an object with more grows its own slice.
const extraRoomMax = 16

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
