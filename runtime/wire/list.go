package wire

import "unsafe"

// A List collects the elements of an array (or the members of an object
// whose names are data) being decoded, each decoded in place, in the slice
// the list returns (Take): no element is copied after it is decoded. A
// Decoder remembers how many elements the last list of each type held and
// makes the next one's slice that long to start with, so decoding the same
// shapes again — with a pooled decoder (Unmarshal, UnmarshalShared) or one
// a connection keeps (jsonrpc.Parser) — allocates each slice once, at its
// final length, rather than growing it (which allocates about twice the
// final size in all and copies every element once or more). The first
// list of a type grows as append grows a slice.
//
// Generated decoders decode so the arrays a list method's result pages
// through (the tools of tools/list: the longest arrays peers send; since
// generated-code version 8) and the members of an object whose names are
// data (entries, see Entry; since version 9); other arrays grow, as each
// type a List is instantiated with adds a few hundred bytes of code. Since
// version 12 they decode each element in place (Next); earlier versions
// decode it into a variable and Push it:
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
// The zero List is ready to use: it keeps no hint and grows as append does.
type List[T any] struct {
	s    []T
	hint *lengthHint[T] // the decoder's for T; nil in a zero List
	max  int            // the most elements the rest of the input can hold
}

// lengthHint is a decoder's memory of the length of the last list of
// T it took (Decoder.lists holds one per type). It holds no memory of the
// list: each list's slice is its result.
type lengthHint[T any] struct{ n int }

// ListOf starts a list of T.
func ListOf[T any](d *Decoder) List[T] {
	// Each element takes at least two bytes of what is left ("1,"), so a
	// hint left by a longer list allocates no more than the input can use.
	l := List[T]{max: (len(d.buf)-d.pos)/2 + 1}
	for i, r := range d.lists {
		if h, ok := r.(*lengthHint[T]); ok {
			if i > 0 {
				// The types decoded often move to the front.
				d.lists[i-1], d.lists[i] = d.lists[i], d.lists[i-1]
			}
			l.hint = h
			return l
		}
	}
	l.hint = new(lengthHint[T])
	d.lists = append(d.lists, l.hint)
	return l
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

// grow makes room for one more element: the first time for as many as the
// hint remembers, no more than the input can hold; otherwise as append
// grows a slice.
func (l *List[T]) grow() {
	if l.s == nil && l.hint != nil && l.hint.n > 0 {
		l.s = make([]T, 0, min(l.hint.n, l.max))
		return
	}
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
		l.hint.n = len(s)
	}
	if len(s) == 0 {
		return []T{}
	}
	var zero T
	if cap(s) > 2*len(s)+4 && uintptr(cap(s)-len(s))*unsafe.Sizeof(zero) > 256 {
		return append([]T(nil), s...)
	}
	return s
}
