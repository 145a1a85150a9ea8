package wire

import (
	"errors"
	"reflect"
	"testing"
)

// tree is a value with arrays of its own type inside: nested lists share
// the decoder's stack for tree.
type tree struct {
	Name string
	Kids []tree
	Tags []string
}

func (v *tree) DecodeJSON(d *Decoder) error {
	*v = tree{}
	return d.Object(func(key []byte) error {
		switch string(key) {
		case "name":
			s, err := d.Str()
			v.Name = s
			return WithField(err, "name")
		case "kids":
			l := ListOf[tree](d)
			err := d.Array(func() error {
				var el tree
				if err := el.DecodeJSON(d); err != nil {
					return WithIndex(err, l.Len())
				}
				l.Push(el)
				return nil
			})
			v.Kids = l.Take()
			return WithField(err, "kids")
		case "tags":
			l := ListOf[string](d)
			err := d.Array(func() error {
				s, err := d.Str()
				if err != nil {
					return WithIndex(err, l.Len())
				}
				l.Push(s)
				return nil
			})
			v.Tags = l.Take()
			return WithField(err, "tags")
		}
		return d.Skip()
	})
}

// TestList: arrays decoded through List come out whole and in order,
// nested ones of the same type included, whether the decoder is pooled
// (stacks kept between decodes) or not; after an error the stacks are
// left as found, holding nothing.
func TestList(t *testing.T) {
	const doc = `{"name":"root","tags":["a","b"],"kids":[
		{"name":"k1","kids":[{"name":"k1.1","tags":[]},{"name":"k1.2","kids":[{"name":"k1.2.1"}]}],"tags":["c"]},
		{"name":"k2"},
		{"name":"k3","kids":[]}]}`
	want := tree{Name: "root", Tags: []string{"a", "b"}, Kids: []tree{
		{Name: "k1", Tags: []string{"c"}, Kids: []tree{{Name: "k1.1", Tags: []string{}}, {Name: "k1.2", Kids: []tree{{Name: "k1.2.1"}}}}},
		{Name: "k2"},
		{Name: "k3", Kids: []tree{}},
	}}
	for _, tc := range []struct {
		name   string
		decode func(b []byte, v *tree) error
	}{
		{"pooled", func(b []byte, v *tree) error { return Unmarshal(b, v) }},
		{"pooled, shared", func(b []byte, v *tree) error { return UnmarshalShared(b, v) }},
		{"not pooled", func(b []byte, v *tree) error { return v.DecodeJSON(NewDecoder(b)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 3 { // again with the stacks a pooled decoder kept
				var got tree
				if err := tc.decode([]byte(doc), &got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got %+v\nwant %+v", got, want)
				}
			}
		})
	}

	// An error inside a nested list: reported at its place; the stacks
	// are empty again and hold no references.
	d := decPool.Get().(*Decoder)
	d.Reset([]byte(`{"kids":[{"name":"a"},{"kids":[{"name":"b"},{"name":1}]}]}`))
	var v tree
	err := v.DecodeJSON(d)
	var pe *PathError
	if !errors.As(err, &pe) || pe.Pointer != "/kids/1/kids/1/name" {
		t.Fatalf("err = %v, want one at /kids/1/kids/1/name", err)
	}
	for _, l := range d.lists {
		st, ok := l.(*stack[tree])
		if !ok {
			continue
		}
		if len(st.s) != 0 {
			t.Errorf("the stack holds %d elements after the decode", len(st.s))
		}
		for _, e := range st.s[:cap(st.s)] {
			if e.Name != "" || e.Kids != nil {
				t.Errorf("the stack still references %+v", e)
			}
		}
	}
}

// TestListPoolLimit: a decoder counts the memory its stacks hold, which
// unmarshal compares with maxPooled before pooling it again, so one huge
// array does not pin its memory.
func TestListPoolLimit(t *testing.T) {
	d := &Decoder{pooled: true}
	l := ListOf[[64]byte](d)
	for range maxPooled/64 + 1 {
		l.Push([64]byte{})
	}
	l.Take()
	if d.releaseLists() <= maxPooled {
		t.Fatalf("stacks of %d bytes, want more than %d", d.releaseLists(), maxPooled)
	}
}
