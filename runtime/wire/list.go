package wire

import (
	"reflect"
	"unsafe"
)

// A List collects the elements of an array (or the members of an object
// whose names are data) being decoded, each decoded in place, in the slice
// the list returns (Take): no element is copied after it is decoded. A
// Decoder remembers how many elements the last list of each type held and
// makes the next one's slice that long to start with, so decoding the same
// shapes again — with a pooled decoder (Unmarshal, UnmarshalShared) or one
// a connection keeps (jsonrpc.Parser) — allocates each slice once, at its
// final length, rather than growing it (which allocates about twice the
// final size in all and copies every element once or more); a short list
// (up to blockBytes/4) is cut from a block the decoder keeps for the type,
// as New's values are, so the short arrays of each element of a page (the
// required members of each tool's input schema) cost no allocation each.
// The first list of a type grows as append grows a slice, and so does
// every list of a decoder's first input (a decoder used once remembers
// nothing; see Reset).
//
// Generated decoders decode so the arrays a list method's result pages
// through (the tools of tools/list: the longest arrays peers send; since
// generated-code version 8), the members of an object whose names are
// data (entries, see Entry; since version 9) and arrays of strings,
// numbers and booleans (since version 13: one List per underlying type
// serves them all); other arrays grow, as each type a List is instantiated
// with adds a few hundred bytes of code. Since version 12 they decode each
// element in place (Next); earlier versions decode it into a variable and
// Push it:
//
//	l := wire.ListOf[Tool](d)
//	err := d.Array(func() error {
//		if err := l.Next().DecodeJSON(d); err != nil {
//			return wire.WithIndex(err, l.Len()-1)
//		}
//		return nil
//	})
//	v.Tools = l.Take() // also after an error
//
// Take returns a slice whose capacity is its length: appending to it
// copies it, never reaching the block it may have been cut from. The zero
// List is ready to use: it keeps no hint and grows as append does.
type List[T any] struct {
	s    []T
	hint *typeMemory // the decoder's for T; nil in a zero List
}

// ListOf starts a list of T.
func ListOf[T any](d *Decoder) List[T] {
	// Each element takes at least two bytes of what is left ("1,"), so a
	// hint left by a longer list allocates no more than the input can use.
	l := List[T]{hint: d.memory(typeKey[T]())}
	if l.hint == nil {
		return l
	}
	n := min(l.hint.n, (len(d.buf)-d.pos)/2+1)
	if size := unsafe.Sizeof(*new(T)); uintptr(n)*size > blockBytes/4 {
		l.s = make([]T, 0, n)
	} else if n > 0 {
		l.s = unsafe.Slice((*T)(l.hint.cut(typeKey[T](), n, size)), n)[:0]
	}
	return l
}

// New returns a pointer to a new zero T, for a decoder to decode a member
// of pointer type into (generated-code version 13). It is cut from a block
// of Ts the decoder keeps (see typeMemory): the pointer members of the
// elements of a long list — the input schema and annotations of each tool
// of a tools/list page — cost an allocation per block rather than one
// each.
//
// A decoder allocates each value on its own until it remembers types (from
// its second input on, see Reset). New inlines to a call of a function
// that does not depend on T, so the hundreds of types generated code calls
// it with cost no code each.
func New[T any](d *Decoder) *T {
	return (*T)(d.alloc(typeKey[T](), unsafe.Sizeof(*new(T))))
}

// alloc is New for the type key identifies, of size bytes.
func (d *Decoder) alloc(key unsafe.Pointer, size uintptr) unsafe.Pointer {
	if m := d.memory(key); m != nil {
		return m.cut(key, 1, size)
	}
	return reflect.New(typeOf(key)).UnsafePointer()
}

// Len is the number of elements so far.
func (l *List[T]) Len() int { return len(l.s) }

// Next appends a zero element and returns it, to be decoded in place. The
// pointer is good until the next call of Next, Push or Take.
func (l *List[T]) Next() *T {
	if len(l.s) == cap(l.s) {
		l.grow()
	}
	l.s = l.s[:len(l.s)+1]
	return &l.s[len(l.s)-1]
}

// Push appends an element (generated-code versions 8 to 11).
func (l *List[T]) Push(v T) {
	if len(l.s) == cap(l.s) {
		l.grow()
	}
	l.s = append(l.s, v)
}

// grow makes room for one more element, as append grows a slice.
func (l *List[T]) grow() {
	l.s = append(l.s, *new(T))[:len(l.s)]
}

// Take returns the elements, in a slice of their number (empty, not nil,
// for none), and remembers that number for the next list of T. A slice
// started long by a hint from a longer list is copied to one of the right
// length, so a result does not hold much more memory than it uses.
func (l *List[T]) Take() []T {
	s := l.s
	l.s = nil
	if l.hint != nil {
		l.hint.took(unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s), unsafe.Sizeof(*new(T)))
	}
	if len(s) == 0 {
		return []T{}
	}
	var zero T
	if cap(s) > 2*len(s)+4 && uintptr(cap(s)-len(s))*unsafe.Sizeof(zero) > 256 {
		return append([]T(nil), s...)
	}
	return s[:len(s):len(s)] // what follows in a block is not the caller's to append to
}

// A typeMemory is what a decoder remembers about one type T (keyed by
// typeKey; see Decoder.memory): the length of the last List of T taken,
// and a block of zero Ts that New and short lists are cut from.
//
// A block is made when one is needed and is twice as long as the one
// before (the first holds what was asked for), up to blockBytes; what is
// cut is never handed out again. A value kept alive keeps its block
// alive: at most blockBytes, which a reused (pooled) decoder may have cut
// for the values of inputs it decoded before, as with copied strings (see
// keep). Lists longer than blockBytes/4 get a slice of their own.
type typeMemory struct {
	n         int            // the length of the last list of T taken
	block     unsafe.Pointer // the block's first element
	next, end int            // block elements [next, end) are free
	made      int            // the length of the last block made
}

// blockBytes bounds a block of typeMemory; lists of more than a quarter of
// it get a slice of their own.
const blockBytes = 4096

// cut returns n zero elements of the type key identifies, of size bytes
// each, that nothing else uses.
func (m *typeMemory) cut(key unsafe.Pointer, n int, size uintptr) unsafe.Pointer {
	if n <= m.end-m.next {
		p := unsafe.Add(m.block, uintptr(m.next)*size)
		m.next += n
		return p
	}
	return m.refill(key, n, size)
}

// refill is cut when the block has too few elements left: it makes a new
// block, twice as long as the last up to blockBytes. Blocks are made with
// reflect, from the type key identifies, so that no code is generated per
// type (generic code would be: a few hundred bytes and their debug
// information for each of the hundreds of types of a revision).
//
//go:noinline
func (m *typeMemory) refill(key unsafe.Pointer, n int, size uintptr) unsafe.Pointer {
	t := typeOf(key)
	if size == 0 {
		return reflect.New(t).UnsafePointer()
	}
	m.made = max(min(2*m.made, blockBytes/int(size)), n)
	m.block = reflect.MakeSlice(reflect.SliceOf(t), m.made, m.made).UnsafePointer()
	m.next, m.end = n, m.made
	return m.block
}

// typeOf is the type T of the key a *T gives (typeKey).
func typeOf(key unsafe.Pointer) reflect.Type {
	var e any
	(*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] = key // a nil *T
	return reflect.TypeOf(e).Elem()
}

// took remembers the length n of a list taken and gives back to the
// block the elements the list was cut (c, from p) but did not use, when
// they are the last cut from it (they are still zero: a list hands out
// only the elements below its length).
//
//go:noinline
func (m *typeMemory) took(p unsafe.Pointer, n, c int, size uintptr) {
	m.n = n
	if c > n && m.block != nil && uintptr(p)+uintptr(c)*size == uintptr(m.block)+uintptr(m.next)*size {
		m.next -= c - n
	}
}

// typeKey identifies T: the type word of a *T in an interface.
func typeKey[T any]() unsafe.Pointer {
	e := any((*T)(nil))
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0]
}

// A typeTable is what a reused decoder remembers of the types it decoded
// lists (List), pointer members (New) and unknown members (Decoder.Extra)
// of: an open-addressed table
// (linear probing) keyed by typeKey for the types a decoder sees most,
// a list for more.
type typeTable struct {
	slots [1 << typeSlotBits]typeSlot
	more  []*typeSlot
	// extras is how many unknown members the last object kept (see
	// Decoder.Extra): the room the next one is given.
	extras int
}

// typeSlotBits sizes typeTable: 16 types (a tools/list page needs 5).
const typeSlotBits = 4

// typeSlot is an entry of typeTable.
type typeSlot struct {
	key unsafe.Pointer
	m   typeMemory
}

// memory returns the decoder's typeMemory for the type key identifies, or
// nil while the decoder remembers no types (its first input, see Reset):
// then lists grow as append grows a slice and New allocates each value.
func (d *Decoder) memory(key unsafe.Pointer) *typeMemory {
	t := d.types
	if t == nil {
		return nil
	}
	s := &t.slots[typeSlot0(key)]
	if s.key != key {
		return t.memory(key)
	}
	return &s.m
}

// typeSlot0 is the first slot of a typeTable to look for key in.
func typeSlot0(key unsafe.Pointer) uint64 {
	return uint64(uintptr(key)) * 0x9E3779B97F4A7C15 >> (64 - typeSlotBits)
}

// memory is Decoder.memory past the first slot.
//
//go:noinline
func (t *typeTable) memory(key unsafe.Pointer) *typeMemory {
	i := typeSlot0(key)
	for range t.slots {
		s := &t.slots[i]
		if s.key == key {
			return &s.m
		}
		if s.key == nil {
			s.key = key
			return &s.m
		}
		i = (i + 1) % uint64(len(t.slots))
	}
	for _, s := range t.more {
		if s.key == key {
			return &s.m
		}
	}
	s := &typeSlot{key: key}
	t.more = append(t.more, s)
	return &s.m
}
