package wire

import (
	"reflect"
	"testing"
)

// TestValueRoundTrip: what ValueOf encodes, ValueFrom decodes back.
func TestValueRoundTrip(t *testing.T) {
	for _, v := range []any{"a\"b", int64(-7), 2.5, true, []string{"x", "y"}, []string{}} {
		raw, err := ValueOf(v)
		if err != nil {
			t.Fatalf("ValueOf(%v): %v", v, err)
		}
		back := reflect.New(reflect.TypeOf(v))
		if err := ValueFrom(raw, back.Interface()); err != nil {
			t.Fatalf("ValueFrom(%s): %v", raw, err)
		}
		if !reflect.DeepEqual(back.Elem().Interface(), v) {
			t.Errorf("%s: got %#v, want %#v", raw, back.Elem().Interface(), v)
		}
	}
	if _, err := ValueOf(struct{}{}); err == nil {
		t.Error("ValueOf(struct{}{}) succeeded")
	}
	var s string
	for _, bad := range []string{`1`, `"a" 1`, ``, `"\x"`} {
		if ValueFrom(Raw(bad), &s) == nil {
			t.Errorf("ValueFrom(%q) into a string succeeded", bad)
		}
	}
}

// FuzzValueFrom: ValueFrom never panics, and what it accepts as a string
// list re-encodes to JSON that decodes to the same list.
func FuzzValueFrom(f *testing.F) {
	for _, s := range []string{`["a","b"]`, `"x"`, `[1]`, `[`, `["\u00e9"]`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var list []string
		if ValueFrom(Raw(s), &list) != nil {
			return
		}
		raw, err := ValueOf(list)
		if err != nil {
			t.Fatal(err)
		}
		var again []string
		if err := ValueFrom(raw, &again); err != nil || !reflect.DeepEqual(list, again) && len(list)+len(again) > 0 {
			t.Fatalf("%q -> %v -> %s -> %v (%v)", s, list, raw, again, err)
		}
	})
}
