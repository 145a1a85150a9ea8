package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// tree is a value with arrays of its own type inside, decoded in place
// (List.Next, generated-code version 12), and arrays of strings pushed
// (List.Push, versions 8 to 11).
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
				if err := l.Next().DecodeJSON(d); err != nil {
					return WithIndex(err, l.Len()-1)
				}
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
// or made for the one input; an error inside a nested list
// is reported at its place.
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
		{"NewDecoder", func(b []byte, v *tree) error { return v.DecodeJSON(NewDecoder(b)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 3 { // again with the hints a pooled decoder kept
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

	var v tree
	err := Unmarshal([]byte(`{"kids":[{"name":"a"},{"kids":[{"name":"b"},{"name":1}]}]}`), &v)
	var pe *PathError
	if !errors.As(err, &pe) || pe.Pointer != "/kids/1/kids/1/name" {
		t.Fatalf("err = %v, want one at /kids/1/kids/1/name", err)
	}
}

// TestListLength: a decoder starts a list at the length of the last
// list of its type, so the same shape again allocates its slice once, at
// its length; a hint left by a longer list costs no more than the input
// can hold, and the result is cut to about its length.
func TestListLength(t *testing.T) {
	d := new(Decoder) // as a connection's parser keeps one
	decode := func(doc []byte) []string {
		t.Helper()
		d.Reset(doc)
		d.shared = true // strings are views: the list is all that allocates
		l := ListOf[string](d)
		err := d.Array(func() error {
			s, err := d.Str()
			*l.Next() = s
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return l.Take()
	}
	long := []byte("[" + strings.Repeat(`"x",`, 999) + `"x"]`)
	if got := decode(long); len(got) != 1000 {
		t.Fatalf("len %d, want 1000", len(got))
	}
	if got := decode(long); len(got) != 1000 || cap(got) != 1000 {
		t.Errorf("again: len %d cap %d, want one slice of 1000", len(got), cap(got))
	}
	if n := testing.AllocsPerRun(10, func() { decode(long) }); n != 1 {
		t.Errorf("%v allocations for the same list again, want 1", n)
	}
	// After the long list, a short one: the hint is bounded by the input
	// (9 bytes hold at most 5 elements).
	if got := decode([]byte(`["a","b"]`)); len(got) != 2 || cap(got) > 5 {
		t.Errorf("short after long: len %d cap %d", len(got), cap(got))
	}
	decode(long)
	if got := decode([]byte(`[` + strings.Repeat(`"a",`, 99) + `"a"]`)); len(got) != 100 || cap(got) > 2*100+4 {
		t.Errorf("100 after 1000: len %d cap %d, want the slice cut to about its length", len(got), cap(got))
	}
}

// TestListZero: a List not made by ListOf keeps no hint and works as a
// slice grown by append.
func TestListZero(t *testing.T) {
	var l List[string]
	if got := l.Take(); got == nil || len(got) != 0 {
		t.Fatalf("empty zero List: %#v, want an empty slice", got)
	}
	for i := range 5 {
		*l.Next() = strings.Repeat("x", i)
	}
	l.Push("pushed")
	got := l.Take()
	want := []string{"", "x", "xx", "xxx", "xxxx", "pushed"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
