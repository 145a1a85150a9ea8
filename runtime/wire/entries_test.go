package wire

import (
	"fmt"
	"slices"
	"testing"
)

type labels []Entry[int]

func entries(names ...string) []Entry[int] {
	out := make([]Entry[int], len(names))
	for i, n := range names {
		out[i] = Entry[int]{Name: n, Value: i}
	}
	return out
}

// many is n distinct names and then the first again: past linearRepeat,
// so Unique and Duplicate index the names.
func many(n int) []string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprint("k", i))
	}
	return append(names, "k0")
}

// TestUnique: a repeated name keeps its first place and its last value,
// the rest keep their order, with few names and with many.
func TestUnique(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []string
		names []string
		vals  []int
	}{
		{"empty", nil, nil, nil},
		{"one", []string{"a"}, []string{"a"}, []int{0}},
		{"distinct", []string{"b", "a", "c"}, []string{"b", "a", "c"}, []int{0, 1, 2}},
		{"repeated", []string{"a", "b", "a", "c", "b"}, []string{"a", "b", "c"}, []int{2, 4, 3}},
		{"all one name", []string{"x", "x", "x"}, []string{"x"}, []int{2}},
		{"many", many(40), many(40)[:40], append([]int{40}, seq(1, 40)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := entries(tc.in...)
			got := Unique(in)
			var names []string
			var vals []int
			for _, e := range got {
				names = append(names, e.Name)
				vals = append(vals, e.Value)
			}
			if !slices.Equal(names, tc.names) || !slices.Equal(vals, tc.vals) {
				t.Errorf("Unique = %v %v, want %v %v", names, vals, tc.names, tc.vals)
			}
			for _, e := range in[len(got):] {
				if e != (Entry[int]{}) {
					t.Errorf("the tail past the result is not cleared: %v", in[len(got):])
				}
			}
			if name, dup := Duplicate(got); dup {
				t.Errorf("Duplicate after Unique = %q", name)
			}
		})
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestDuplicate names a repeated name, with few names and with many.
func TestDuplicate(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		name string
		dup  bool
	}{
		{nil, "", false},
		{[]string{"a", "b"}, "", false},
		{[]string{"a", "b", "a"}, "a", true},
		{many(40)[:40], "", false},
		{many(40), "k0", true},
	} {
		name, dup := Duplicate(entries(tc.in...))
		if name != tc.name || dup != tc.dup {
			t.Errorf("Duplicate(%d names) = %q, %v; want %q, %v", len(tc.in), name, dup, tc.name, tc.dup)
		}
	}
}

// TestEntryMethods: Get, Set and Delete on a named slice of entries, the
// way generated types call them.
func TestEntryMethods(t *testing.T) {
	var l labels
	EntrySet(&l, "b", 1)
	EntrySet(&l, "a", 2)
	EntrySet(&l, "b", 3)
	if v, ok := EntryGet(l, "b"); !ok || v != 3 || len(l) != 2 || l[0].Name != "b" {
		t.Errorf("after Set: %v", l)
	}
	if _, ok := EntryGet(l, "z"); ok {
		t.Error("Get of a missing name found one")
	}
	EntryDelete(&l, "b")
	if len(l) != 1 || l[0].Name != "a" {
		t.Errorf("after Delete: %v", l)
	}
}
