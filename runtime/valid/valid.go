// Package valid is the runtime support of generated Validate methods: it
// collects violations with their JSON pointers and checks the string
// formats the MCP schema uses.
package valid

import (
	"sort"
	"strconv"
	"strings"
)

// Violation is one way a value breaks its schema.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value,
	// relative to the validated value; "" is the value itself.
	Pointer string
	// Rule is the broken rule: required, const, enum, minimum, maximum,
	// maxItems, format, union, type.
	Rule string
	// Message says what is wrong.
	Message string
}

func (v Violation) String() string {
	if v.Pointer == "" {
		return v.Message
	}
	return v.Pointer + ": " + v.Message
}

// Error lists every violation found in one value. Use errors.As to get it.
type Error struct {
	Violations []Violation
}

// Error lists the violations, up to MaxListed ("; " between them), and
// counts the others.
func (e *Error) Error() string {
	if len(e.Violations) == 0 {
		return "invalid value"
	}
	return List(e.Violations)
}

// MaxListed is how many violations an error message lists; the rest are
// counted ("(and 3 more)"). An error's data (a -32602's violations)
// holds up to MaxData.
const (
	MaxListed = 8
	MaxData   = 100
)

// List writes vs as one line: each violation, up to MaxListed, separated
// by "; ", and a count of the others.
func List(vs []Violation) string {
	var b strings.Builder
	for i, v := range vs {
		if i == MaxListed {
			b.WriteString(" (and " + strconv.Itoa(len(vs)-i) + " more)")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Prefixed returns a copy of e whose pointers start with prefix ("/params").
func (e *Error) Prefixed(prefix string) *Error {
	out := &Error{Violations: make([]Violation, len(e.Violations))}
	for i, v := range e.Violations {
		v.Pointer = prefix + v.Pointer
		out.Violations[i] = v
	}
	return out
}

// segment is one step of the path to the value being checked: a member
// name, or an array index when index >= 0.
type segment struct {
	name  string
	index int
}

// Collector gathers violations while generated code walks a value. The
// path is kept as a stack of segments and turned into a pointer only when
// a violation is recorded, so a valid value costs no allocation. The first
// levels live in the Collector itself (no pointer into itself, so a
// Collector on the stack stays there); deeper ones spill into a slice.
type Collector struct {
	depth int
	fixed [16]segment
	deep  []segment // levels past len(fixed)
	errs  []Violation
}

// push is not inlined (nor Fail and FailMember): generated validators
// call Enter, Fail and FailMember at thousands of sites, and a copy of their
// bodies at each made binaries much bigger.
//
//go:noinline
func (c *Collector) push(s segment) {
	if c.depth < len(c.fixed) {
		c.fixed[c.depth] = s
	} else {
		c.deep = append(c.deep[:c.depth-len(c.fixed)], s)
	}
	c.depth++
}

func (c *Collector) at(i int) segment {
	if i < len(c.fixed) {
		return c.fixed[i]
	}
	return c.deep[i-len(c.fixed)]
}

// Enter descends into member name.
func (c *Collector) Enter(name string) { c.push(segment{name: name, index: -1}) }

// EnterIndex descends into array element i.
func (c *Collector) EnterIndex(i int) { c.push(segment{index: i}) }

// Leave undoes the last Enter or EnterIndex.
func (c *Collector) Leave() { c.depth-- }

// Fail records a violation of the current value.
//
//go:noinline
func (c *Collector) Fail(rule, msg string) {
	c.errs = append(c.errs, Violation{Pointer: c.pointer(""), Rule: rule, Message: msg})
}

// FailMember records a violation of member name of the current value.
//
//go:noinline
func (c *Collector) FailMember(name, rule, msg string) {
	c.errs = append(c.errs, Violation{Pointer: c.pointer(name), Rule: rule, Message: msg})
}

func (c *Collector) pointer(member string) string {
	var b strings.Builder
	for i := range c.depth {
		s := c.at(i)
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(escape(s.name))
		}
	}
	if member != "" {
		b.WriteByte('/')
		b.WriteString(escape(member))
	}
	return b.String()
}

func escape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// Mark returns the number of violations recorded so far, for SortSince.
func (c *Collector) Mark() int { return len(c.errs) }

// SortSince puts the violations recorded after mark in pointer order (for
// values walked in random order: maps).
func (c *Collector) SortSince(mark int) {
	if len(c.errs)-mark > 1 {
		sort.SliceStable(c.errs[mark:], func(i, j int) bool { return c.errs[mark+i].Pointer < c.errs[mark+j].Pointer })
	}
}

// Failed reports whether any violation was recorded.
func (c *Collector) Failed() bool { return len(c.errs) > 0 }

// Err returns the violations as an *Error, or nil. It is not inlined:
// every generated Validate method calls it, and a copy of its body in each
// made binaries bigger (30 KB in a two-revision server).
//
//go:noinline
func (c *Collector) Err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return &Error{Violations: c.errs}
}
