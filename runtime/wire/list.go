package wire

import "unsafe"

// A List collects the elements of an array being decoded on a stack the
// Decoder keeps for their type, so that the array is allocated once, at
// its final length, when it ends (Take) — not grown element by element,
// which allocates about twice the final size in all and copies elements
// several times. A pooled decoder (Unmarshal, UnmarshalShared) keeps its
// stacks, so decoding the same shapes again allocates only the results.
// Arrays of the same type nested in one another share a stack: each takes
// its own elements off it when it ends.
//
// Generated decoders decode so the arrays a list method's result pages
// through (the tools of tools/list: the longest arrays peers send; since
// generated-code version 8) and the members of an object whose names are
// data (entries, see Entry; since version 9); other arrays grow, as each
// type a List is instantiated with adds a few hundred bytes of code:
//
//	l := wire.ListOf[Tool](d)
//	err := d.Array(func() error {
//		var el Tool
//		if err := el.DecodeJSON(d); err != nil {
//			return wire.WithIndex(err, l.Len())
//		}
//		l.Push(el)
//		return nil
//	})
//	v.Tools = l.Take() // also after an error: the stack is left as found
type List[T any] struct {
	st   *stack[T] // the decoder's stack for T; nil: own is the list
	own  []T
	base int
}

// stack is a decoder's stack of elements of one type.
type stack[T any] struct{ s []T }

// release empties the stack of what a list that was never taken left
// (none, with generated decoders) and returns the memory it holds, in
// bytes.
func (s *stack[T]) release() int {
	if len(s.s) > 0 {
		clear(s.s)
		s.s = s.s[:0]
	}
	var zero T
	return cap(s.s) * int(unsafe.Sizeof(zero))
}

// releaser is what every stack is to the decoder.
type releaser interface{ release() int }

// ListOf starts a list of T on d's stack for T. A decoder that is not
// pooled (NewDecoder) keeps no stacks: its lists grow as they go.
func ListOf[T any](d *Decoder) List[T] {
	if !d.pooled {
		return List[T]{own: []T{}}
	}
	for i, l := range d.lists {
		if st, ok := l.(*stack[T]); ok {
			if i > 0 {
				// The types decoded often move to the front.
				d.lists[i-1], d.lists[i] = d.lists[i], d.lists[i-1]
			}
			return List[T]{st: st, base: len(st.s)}
		}
	}
	st := new(stack[T])
	d.lists = append(d.lists, st)
	return List[T]{st: st}
}

// Len is the number of elements pushed so far.
func (l *List[T]) Len() int {
	if l.st == nil {
		return len(l.own)
	}
	return len(l.st.s) - l.base
}

// Push appends an element.
func (l *List[T]) Push(v T) {
	if l.st == nil {
		l.own = append(l.own, v)
		return
	}
	l.st.s = append(l.st.s, v)
}

// Take returns the elements pushed, in a slice of their number (empty, not
// nil, for none), and takes them off the stack, clearing their places so
// that the stack holds no references.
func (l *List[T]) Take() []T {
	if l.st == nil {
		return l.own
	}
	s := l.st.s
	out := make([]T, len(s)-l.base)
	copy(out, s[l.base:])
	clear(s[l.base:])
	l.st.s = s[:l.base]
	return out
}

// releaseLists empties d's stacks (see release) and returns the memory
// they hold, in bytes: a pooled decoder whose stacks hold more than
// maxPooled is dropped.
func (d *Decoder) releaseLists() int {
	n := 0
	for _, l := range d.lists {
		n += l.release()
	}
	return n
}
