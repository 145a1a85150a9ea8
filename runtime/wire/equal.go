package wire

import (
	"slices"
	"strings"
)

// Equal reports whether two JSON texts hold equal values: objects with the
// same members regardless of order, arrays with equal elements in order,
// equal strings (after unescaping), and numbers with the same value whatever
// their spelling (1, 1.0 and 10e-1 are equal; a number never equals a
// string). Objects with duplicate member names are equal only if the
// duplicates appear in the same relative order. Invalid JSON in either text
// is an error. Equal is meant for tests and tools, not the hot path.
func Equal(a, b []byte) (bool, error) {
	va, err := parseTree(a)
	if err != nil {
		return false, err
	}
	vb, err := parseTree(b)
	if err != nil {
		return false, err
	}
	return va.equal(&vb), nil
}

// node is a decoded JSON value for Equal.
type node struct {
	kind    Kind
	str     string // string value, or canonical number (canonicalNumber)
	b       bool
	elems   []node
	members []treeMember // sorted by name, stable
}

type treeMember struct {
	name string
	val  node
}

func parseTree(b []byte) (node, error) {
	d := NewDecoder(b)
	n, err := parseNode(d)
	if err != nil {
		return node{}, err
	}
	return n, d.End()
}

func parseNode(d *Decoder) (node, error) {
	n := node{kind: d.Peek()}
	var err error
	switch n.kind {
	case Object:
		err = d.Object(func(key []byte) error {
			v, err := parseNode(d)
			n.members = append(n.members, treeMember{name: string(key), val: v})
			return err
		})
		slices.SortStableFunc(n.members, func(x, y treeMember) int { return strings.Compare(x.name, y.name) })
	case Array:
		err = d.Array(func() error {
			v, err := parseNode(d)
			n.elems = append(n.elems, v)
			return err
		})
	case String:
		n.str, err = d.Str()
	case Number:
		var lit []byte
		if lit, err = d.Number(); err == nil {
			n.str = canonicalNumber(lit)
		}
	case Bool:
		n.b, err = d.Bool()
	case Null:
		err = d.Null()
	default:
		err = d.Skip() // reports the syntax error
	}
	return n, err
}

func (x *node) equal(y *node) bool {
	if x.kind != y.kind || x.str != y.str || x.b != y.b ||
		len(x.elems) != len(y.elems) || len(x.members) != len(y.members) {
		return false
	}
	for i := range x.elems {
		if !x.elems[i].equal(&y.elems[i]) {
			return false
		}
	}
	for i := range x.members {
		if x.members[i].name != y.members[i].name || !x.members[i].val.equal(&y.members[i].val) {
			return false
		}
	}
	return true
}
