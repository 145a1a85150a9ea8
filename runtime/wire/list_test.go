package wire

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// tree is a value with arrays of its own type inside, decoded in place
// (List.Next, generated-code version 12), and arrays of strings pushed
// (List.Push, versions 8 to 11).
type tree struct {
	Name string
	Info *info // New (version 13)
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
		case "info":
			v.Info = New[info](d)
			return WithField(v.Info.DecodeJSON(d), "info")
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

// info is the type of tree's pointer member. It keeps the members it
// does not name, the way generated code keeps them since version 15.
type info struct {
	Size  int64
	Notes string
	Extra Members
}

func (v *info) DecodeJSON(d *Decoder) error {
	*v = info{}
	return d.Object(func(key []byte) error {
		switch string(key) {
		case "size":
			n, err := d.Int64()
			v.Size = n
			return WithField(err, "size")
		case "notes":
			s, err := d.Str()
			v.Notes = s
			return WithField(err, "notes")
		default:
			return d.Extra(&v.Extra, key)
		}
	})
}

// page decodes an array of T the way a list method's page is.
func page[T any, P interface {
	*T
	DecodeJSON(*Decoder) error
}](d *Decoder) ([]T, error) {
	l := ListOf[T](d)
	err := d.Array(func() error { return P(l.Next()).DecodeJSON(d) })
	return l.Take(), err
}

// jsonArray is a JSON array of n elements, element i written by elem.
func jsonArray(n int, elem func(b *strings.Builder, i int)) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		elem(&b, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// TestNew: values New returns and short lists are cut from blocks a
// reused decoder keeps per type, so a page of elements with a pointer
// member and a short array each costs a few allocations, not two per
// element; every value is zero when handed out and none shares memory
// with another, whatever the caller does with it afterwards; a decoder
// used once remembers nothing and allocates each value.
func TestNew(t *testing.T) {
	doc := jsonArray(100, func(b *strings.Builder, i int) {
		fmt.Fprintf(b, `{"name":"n%d","info":{"size":%d,"notes":"note %d"},"tags":["a%d","b%d"]}`, i, i, i, i, i)
	})
	check := func(t *testing.T, got []tree) {
		t.Helper()
		if len(got) != 100 {
			t.Fatalf("len %d, want 100", len(got))
		}
		seen := map[*info]bool{}
		for i, n := range got {
			if n.Info == nil || n.Info.Size != int64(i) || n.Info.Notes != fmt.Sprintf("note %d", i) || seen[n.Info] {
				t.Fatalf("element %d: info %+v (shared: %v)", i, n.Info, seen[n.Info])
			}
			seen[n.Info] = true
			if want := []string{fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)}; !reflect.DeepEqual(n.Tags, want) || cap(n.Tags) != 2 {
				t.Fatalf("element %d: tags %q cap %d, want %q cap 2", i, n.Tags, cap(n.Tags), want)
			}
		}
	}
	d := new(Decoder)
	d.Reset(doc) // a reused decoder, as a pool's or a connection's
	first, err := page[tree](d)
	if err != nil {
		t.Fatal(err)
	}
	check(t, first)
	// Appending to a taken list or writing through a pointer must not
	// reach what the next decode is handed.
	for i := range first {
		first[i].Tags = append(first[i].Tags, "more")
		*first[i].Info = info{Size: -1, Notes: "changed"}
	}
	d.Reset(doc)
	second, err := page[tree](d)
	if err != nil {
		t.Fatal(err)
	}
	check(t, second)
	for i := range first {
		if first[i].Info.Size != -1 || len(first[i].Tags) != 3 {
			t.Fatalf("first decode's element %d changed by the second: %+v", i, first[i])
		}
	}
	d.SetShared(true) // strings are views: only the lists and New allocate
	if n := testing.AllocsPerRun(20, func() {
		d.Reset(doc)
		if _, err := page[tree](d); err != nil {
			t.Fatal(err)
		}
	}); n > 6 {
		t.Errorf("%v allocations a page of 100 elements, want at most 6 (a slice of 100, blocks of New and of the short lists; 3 when measured)", n)
	}
	// A decoder used once allocates each value itself.
	one := NewDecoder([]byte(`{"name":"x","info":{"size":1},"tags":["t"]}`))
	var n tree
	if err := n.DecodeJSON(one); err != nil || n.Info == nil || n.Info.Size != 1 || !reflect.DeepEqual(n.Tags, []string{"t"}) {
		t.Fatalf("one-off decode: %+v, %v", n, err)
	}
	if one.types != nil {
		t.Error("a decoder used once remembers types")
	}
}

// TestNewBlocks: blocks grow from what the first value needs to
// blockBytes, and a list that is shorter than the length it was started
// at gives the rest back when it is the last cut from the block.
func TestNewBlocks(t *testing.T) {
	d := new(Decoder)
	d.Reset([]byte("{}"))
	d.Reset([]byte(strings.Repeat(" ", 1<<16))) // the second input: d remembers types
	var last *info
	size := int(unsafe.Sizeof(info{}))
	for i := range 3 * blockBytes / size {
		p := New[info](d)
		if p.Size != 0 || p.Notes != "" || p.Extra != nil {
			t.Fatalf("value %d not zero: %+v", i, *p)
		}
		if p == last {
			t.Fatalf("value %d handed out twice", i)
		}
		last = p
	}
	m := d.memory(typeKey[info]())
	if m.made != blockBytes/size {
		t.Errorf("block length %d, want %d (blockBytes)", m.made, blockBytes/size)
	}
	d.Reset([]byte(`["a","b","c","d","e","f","g","h"]`))
	l := ListOf[string](d)
	for range 8 {
		*l.Next() = "x"
	}
	l.Take() // remembers 8
	d.Reset([]byte(`["a","b","c","d","e","f","g","h"]`))
	sm := d.memory(typeKey[string]())
	before := sm.next
	l = ListOf[string](d)
	*l.Next() = "only"
	if got := l.Take(); len(got) != 1 || cap(got) != 1 {
		t.Fatalf("short list: len %d cap %d, want 1 1", len(got), cap(got))
	}
	if sm.next != before+1 {
		t.Errorf("block after a list of 1 cut at 8: next %d, want %d (the 7 unused given back)", sm.next, before+1)
	}
	if p := New[struct{}](d); p == nil {
		t.Error("New of a zero-size type is nil")
	}
}
