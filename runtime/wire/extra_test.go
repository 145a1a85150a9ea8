package wire

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestExtra: Decoder.Extra keeps unknown members in order, verbatim and
// under their names, whether the decoder remembers types or not; a reused
// decoder makes room for them in a block, so a page of objects with a few
// unknown members each costs a few allocations, not one per object; no
// object's members share memory with another's, whatever the caller
// appends; an object with more members than the room grows past it; an
// error names the member.
func TestExtra(t *testing.T) {
	doc := jsonArray(101, func(b *strings.Builder, i int) {
		if i == 100 {
			// More unknown members than the room the others leave.
			b.WriteString(`{"a":1,"b":2,"c":3,"d\u0031":4,"e":5,"f":[6],"notes":"last"}`)
			return
		}
		fmt.Fprintf(b, `{"type":"object","notes":"n%d","properties":{"p%d":{}},"required":["p%d"]}`, i, i, i)
	})
	check := func(t *testing.T, got []info) {
		t.Helper()
		if len(got) != 101 {
			t.Fatalf("len %d, want 101", len(got))
		}
		for i, o := range got[:100] {
			want := Members{
				{Name: "type", Value: Raw(`"object"`)},
				{Name: "properties", Value: Raw(fmt.Sprintf(`{"p%d":{}}`, i))},
				{Name: "required", Value: Raw(fmt.Sprintf(`["p%d"]`, i))},
			}
			if o.Notes != fmt.Sprintf("n%d", i) || !reflect.DeepEqual(o.Extra, want) {
				t.Fatalf("element %d: %q %s, want %s", i, o.Notes, o.Extra, want)
			}
		}
		last := got[100]
		want := Members{{"a", Raw("1")}, {"b", Raw("2")}, {"c", Raw("3")}, {"d1", Raw("4")}, {"e", Raw("5")}, {"f", Raw("[6]")}}
		if last.Notes != "last" || !reflect.DeepEqual(last.Extra, want) {
			t.Fatalf("last: %q %s, want %s", last.Notes, last.Extra, want)
		}
	}
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			d := new(Decoder)
			d.SetShared(shared)
			d.Reset(doc) // a reused decoder, as a pool's or a connection's
			first, err := page[info](d)
			if err != nil {
				t.Fatal(err)
			}
			check(t, first)
			// Appending to one object's members must not reach another's,
			// nor what the next decode is handed.
			for i := range first[:100] {
				first[i].Extra.Add("more", Raw("true"))
			}
			for i := range first[:99] {
				if n := len(first[i].Extra); n != 4 || first[i+1].Extra[0].Name != "type" {
					t.Fatalf("element %d: %d members after one append, next starts %q", i, n, first[i+1].Extra[0].Name)
				}
			}
			d.Reset(doc)
			second, err := page[info](d)
			if err != nil {
				t.Fatal(err)
			}
			check(t, second)
			for i := range first[:100] {
				if m := first[i].Extra; len(m) != 4 || m[3].Name != "more" {
					t.Fatalf("first decode's element %d changed by the second: %s", i, m)
				}
			}
			if !shared {
				return
			}
			if n := testing.AllocsPerRun(20, func() {
				d.Reset(doc)
				if _, err := page[info](d); err != nil {
					t.Fatal(err)
				}
			}); n > 10 {
				// 100 objects of 3 members: 12 KiB of members, in blocks of up to 4 KiB.
				t.Errorf("%v allocations for a page of 101 objects with unknown members, want at most 10 (a slice of 101, blocks of members, the last object's growth, its unescaped name); 8 when measured", n)
			}
		})
	}
	// A decoder used once allocates each object's members itself.
	var o info
	if err := o.DecodeJSON(NewDecoder([]byte(`{"x":{"y":[1]},"notes":"n"}`))); err != nil ||
		!reflect.DeepEqual(o.Extra, Members{{"x", Raw(`{"y":[1]}`)}}) || o.Notes != "n" {
		t.Fatalf("one-off decode: %+v, %v", o, err)
	}
	// A broken value is reported at its member.
	err := o.DecodeJSON(NewDecoder([]byte(`{"notes":"n","bad":{"y":tru}}`)))
	var pe *PathError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Pointer, "/bad") {
		t.Fatalf("broken member: %v, want a *PathError at /bad", err)
	}
}
