package wire

// An Entry is one member of an object whose member names are data rather
// than schema: what a schema types with additionalProperties alone, such
// as a tool schema's properties, a prompt's arguments or a form's answers.
// Generated code (generated-code version 9) keeps such an object as a
// slice of entries in member order, not as a map: the order of a tool's
// properties or of a form's fields is the order a client shows them in,
// and it survives a decode/encode round trip.
//
// A decoded slice has no two entries of one name: a later member replaces
// the value of an earlier one where that stands, as it would in a map
// (Unique). Generated types have Get, Set and Delete methods; ranging over
// the slice visits the members in order:
//
//	for _, p := range tool.InputSchema.Properties {
//		fmt.Println(p.Name, string(p.Value))
//	}
type Entry[V any] struct {
	Name  string
	Value V
}

// EntryGet returns the value of the entry called name, and whether there
// is one. Lookups are linear: objects of this kind are small, and a scan
// of a few names is faster than hashing them.
//
// EntryGet, EntrySet and EntryDelete are not inlined: generated types
// call them from their Get, Set and Delete methods, which the linker keeps
// whether a program calls them or not, and a copy of their bodies in each
// made binaries bigger.
//
//go:noinline
func EntryGet[S ~[]Entry[V], V any](s S, name string) (V, bool) {
	for i := range s {
		if s[i].Name == name {
			return s[i].Value, true
		}
	}
	var zero V
	return zero, false
}

// EntrySet replaces the value of the entry called name, or appends an entry
// when there is none.
//
//go:noinline
func EntrySet[S ~[]Entry[V], V any](s *S, name string, v V) {
	for i := range *s {
		if (*s)[i].Name == name {
			(*s)[i].Value = v
			return
		}
	}
	*s = append(*s, Entry[V]{Name: name, Value: v})
}

// EntryDelete removes every entry called name, keeping the order of the
// rest.
//
//go:noinline
func EntryDelete[S ~[]Entry[V], V any](s *S, name string) {
	out := (*s)[:0]
	for _, e := range *s {
		if e.Name != name {
			out = append(out, e)
		}
	}
	clear((*s)[len(out):]) // drop references for the GC
	*s = out
}

// Unique removes the entries whose name an earlier entry has, giving the
// earlier entry the later value: the object a JSON parser that keeps the
// last of duplicate members would see, in the order the names first
// appeared. It works in place and returns s shortened; without duplicates
// (the usual case) it only compares names.
func Unique[V any](s []Entry[V]) []Entry[V] {
	if len(s) < 2 || firstRepeat(len(s), func(i int) string { return s[i].Name }) < 0 {
		return s
	}
	return unique(s)
}

// unique is Unique's work once a name repeats.
func unique[V any](s []Entry[V]) []Entry[V] {
	at := make(map[string]int, len(s))
	out := 0
	for i := range s {
		if j, ok := at[s[i].Name]; ok {
			s[j].Value = s[i].Value
			continue
		}
		at[s[i].Name] = out
		s[out] = s[i]
		out++
	}
	clear(s[out:])
	return s[:out]
}

// Duplicate returns a name that two entries of s have, if any: generated
// Validate methods report it, since a program may build such a slice and
// its encoding would repeat a member name.
func Duplicate[V any](s []Entry[V]) (string, bool) {
	if len(s) < 2 {
		return "", false
	}
	if i := firstRepeat(len(s), func(i int) string { return s[i].Name }); i >= 0 {
		return s[i].Name, true
	}
	return "", false
}

// linearRepeat is the number of names up to which firstRepeat compares
// every pair rather than index them.
const linearRepeat = 16

// firstRepeat returns the index of the first of n names that an earlier
// one equals, or -1. Not generic, and not inlined: Unique and Duplicate
// are instantiated for each type of value, and this is most of their code.
//
//go:noinline
func firstRepeat(n int, name func(int) string) int {
	if n <= linearRepeat {
		for i := 1; i < n; i++ {
			ni := name(i)
			for j := 0; j < i; j++ {
				if name(j) == ni {
					return i
				}
			}
		}
		return -1
	}
	seen := make(map[string]struct{}, n)
	for i := range n {
		ni := name(i)
		if _, ok := seen[ni]; ok {
			return i
		}
		seen[ni] = struct{}{}
	}
	return -1
}
