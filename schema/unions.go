package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Union is an anyOf (or a type array of several kinds) and how its members
// are told apart.
type Union struct {
	// Name is the definition's name, or the synthesized name of an inline
	// union.
	Name string
	// Path is the JSON pointer of the union in schema.json.
	Path string
	// Members are the alternatives, in schema order: references to
	// definitions or inline types.
	Members []*Type
	// Rule summarizes how members are told apart.
	Rule Rule
	// Root is the decision tree that picks a member from a JSON value; nil
	// for ByOrigin unions.
	Root *Decision
}

// Rule is how a union's members are told apart.
type Rule int

// The discrimination rules.
const (
	// Single: the union has one member.
	Single Rule = iota + 1
	// ByConst: the value of one member (method, type, mode) whose value is
	// const (or a closed enum) in every union member.
	ByConst
	// ByJSONType: the JSON type of the value (string vs integer, object vs
	// array).
	ByJSONType
	// ByPresence: which members are present (text vs blob; id, method,
	// result, error), possibly after a ByConst split.
	ByPresence
	// ByResultType: the value of resultType: "input_required" picks
	// InputRequiredResult, anything else (or absence) the other member.
	ByResultType
	// ByOrigin: only the request a result answers tells the member.
	ByOrigin
)

var ruleNames = [...]string{"", "single", "const", "json-type", "presence", "resultType", "origin"}

func (r Rule) String() string {
	if r <= 0 || int(r) >= len(ruleNames) {
		return "rule?"
	}
	return ruleNames[r]
}

// Test is what a decision node looks at.
type Test int

// The tests of a decision node.
const (
	// Leaf: no test; the node picks Member.
	Leaf Test = iota
	// TestKind switches on the JSON type of the value.
	TestKind
	// TestValue switches on the string value of object member Property.
	TestValue
	// TestPresent asks whether object member Property is present.
	TestPresent
	// TestFirstItem decides between array members by the first element;
	// Cases[0].Then decides on the element. An empty array takes Else.
	TestFirstItem
)

// Decision is a node of a union's decision tree.
type Decision struct {
	Test Test
	// Member is the index in Union.Members picked by a Leaf.
	Member int
	// Property is the object member TestValue and TestPresent look at: a
	// member name, or a path of names into nested objects
	// (items, anyOf).
	Property []string
	// Cases are tried in order. TestPresent has one case: present.
	Cases []Case
	// Absent is taken by TestValue when Property is missing.
	Absent *Decision
	// Else is taken when no case applies; nil means the value matches no
	// member (it decodes into the union's Unknown member).
	Else *Decision
}

// Case is one branch of a decision.
type Case struct {
	// Kinds (TestKind) or Values (TestValue) that select this case.
	Kinds  []Kind
	Values []string
	Then   *Decision
}

// Leaves returns the member indices the tree can pick, in order.
func (d *Decision) Leaves() []int {
	var out []int
	var walk func(d *Decision)
	walk = func(d *Decision) {
		if d == nil {
			return
		}
		if d.Test == Leaf {
			if !slices.Contains(out, d.Member) {
				out = append(out, d.Member)
			}
			return
		}
		for _, c := range d.Cases {
			walk(c.Then)
		}
		walk(d.Absent)
		walk(d.Else)
	}
	walk(d)
	return out
}

// analyzeUnions finds every union and decides how to tell its members apart.
// A union the rules cannot discriminate is an error naming it and its
// members.
func analyzeUnions(spec *Spec) error {
	a := &analyzer{spec: spec}
	// A union (only an AnyOf has one) is analyzed before its members.
	err := spec.walk(func(t *Type) error {
		if t.Union == nil {
			return nil
		}
		if err := a.analyze(t.Union); err != nil {
			// Fallback: any JSON value, kept raw.
			w := Warning{Class: UndiscriminableUnion, Where: spec.at(t.Path), What: err.Error(),
				Fallback: "any JSON value, kept raw: Validate checks nothing inside"}
			*t = Type{Kind: Any, Path: t.Path, Doc: t.Doc}
			return spec.warn(w)
		}
		spec.Unions = append(spec.Unions, t.Union)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(spec.Unions, func(i, j int) bool { return spec.Unions[i].Path < spec.Unions[j].Path })
	return nil
}

type analyzer struct {
	spec *Spec
}

// cand is a union member under consideration, its type resolved through
// references.
type cand struct {
	idx int
	t   *Type
}

func (a *analyzer) resolve(t *Type) *Type {
	for hops := 0; t.Kind == Ref && hops <= len(a.spec.Defs); hops++ {
		d := a.spec.Def(t.Ref)
		if d == nil {
			return t
		}
		t = d.Type
	}
	return t
}

func (a *analyzer) memberName(t *Type) string {
	if t.Kind == Ref {
		return t.Ref
	}
	if t.Name != "" {
		return t.Name
	}
	return t.Kind.String()
}

func (a *analyzer) analyze(u *Union) error {
	var cands []cand
	for i, m := range u.Members {
		cands = append(cands, cand{i, a.resolve(m)})
	}
	switch {
	case len(u.Members) == 1:
		u.Rule, u.Root = Single, &Decision{Test: Leaf, Member: 0}
		return nil
	case a.isOrigin(u.Name):
		u.Rule = ByOrigin
		return nil
	}
	if irr := a.indexOfRef(u, inputRequiredResult); irr >= 0 && len(u.Members) == 2 {
		other := 1 - irr
		u.Rule = ByResultType
		u.Root = &Decision{
			Test:     TestValue,
			Property: []string{resultTypeMember},
			Cases: []Case{
				{Values: []string{inputRequiredValue}, Then: &Decision{Member: irr}},
				{Values: []string{completeValue}, Then: &Decision{Member: other}},
			},
			// Absent means "complete" (legacy servers); extension values
			// are the other member's business.
			Absent: &Decision{Member: other},
			Else:   &Decision{Member: other},
		}
		return nil
	}
	root, err := a.decide(cands)
	if err != nil {
		var names []string
		for _, m := range u.Members {
			names = append(names, a.memberName(m))
		}
		return fmt.Errorf("union %s cannot be discriminated (members %s): %v", u.Name, strings.Join(names, ", "), err)
	}
	u.Root = root
	switch root.Test {
	case TestKind, TestFirstItem:
		u.Rule = ByJSONType
	case TestValue:
		u.Rule = ByConst
		for _, c := range root.Cases {
			if c.Then.Test != Leaf {
				u.Rule = ByPresence
			}
		}
	case TestPresent:
		u.Rule = ByPresence
	}
	return nil
}

// isOrigin reports a union the facts say only the originating request
// tells apart (ServerResult).
func (a *analyzer) isOrigin(name string) bool {
	_, ok := a.spec.facts.lookup(FactOriginUnion, name)
	return ok
}

// inputRequiredResult names the 2026 result that asks the client for input.
// A union of it and another result is told apart by the VALUE of
// resultType ("input_required"): InputRequiredResult requires nothing but
// resultType, so trying members in order would swallow every complete
// result (basic/index prose: absent resultType means "complete").
const (
	inputRequiredResult = "InputRequiredResult"
	resultTypeMember    = "resultType"
	inputRequiredValue  = "input_required"
	completeValue       = "complete"
)

func (a *analyzer) indexOfRef(u *Union, name string) int {
	for i, m := range u.Members {
		if m.Kind == Ref && m.Ref == name {
			return i
		}
	}
	return -1
}

// kindGroup puts integer and number together: 5 is valid for both.
func kindGroup(k Kind) Kind {
	if k == Integer {
		return Number
	}
	return k
}

func (a *analyzer) decide(cands []cand) (*Decision, error) {
	same := true
	for _, c := range cands {
		same = same && c.idx == cands[0].idx
	}
	if same {
		// One member (or several element types of one array member).
		return &Decision{Test: Leaf, Member: cands[0].idx}, nil
	}
	var order []Kind
	groups := map[Kind][]cand{}
	for _, c := range cands {
		k := kindGroup(c.t.Kind)
		if k == Any || k == AnyOf || k == Ref {
			return nil, fmt.Errorf("member %d is %s, which overlaps every other member", c.idx, c.t.Kind)
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	if len(order) > 1 {
		d := &Decision{Test: TestKind}
		for _, k := range order {
			then, err := a.decide(groups[k])
			if err != nil {
				return nil, err
			}
			kinds := []Kind{k}
			if k == Number {
				kinds = []Kind{Integer, Number}
			}
			d.Cases = append(d.Cases, Case{Kinds: kinds, Then: then})
		}
		return d, nil
	}
	switch order[0] {
	case Object:
		return a.objects(cands)
	case Array:
		return a.arrays(cands)
	}
	return nil, fmt.Errorf("%d members are all of JSON type %s", len(cands), order[0])
}

// objects decides between object members: by a const (or enum) member's
// value, else by the presence of a member some require and the others do
// not declare, else (looser) some declare and the others do not. Members
// are looked for at the top level, then inside nested objects that every
// candidate requires.
func (a *analyzer) objects(cands []cand) (*Decision, error) {
	paths := a.paths(cands)
	for _, p := range paths {
		if d, ok, err := a.byValue(cands, p); ok || err != nil {
			return d, err
		}
	}
	for _, strict := range []bool{true, false} {
		for _, p := range paths {
			var with, without []cand
			for _, c := range cands {
				prop := a.findPath(c.t, p)
				switch {
				case prop == nil:
					without = append(without, c)
				case prop.Required || !strict:
					with = append(with, c)
				}
			}
			if len(with) == 0 || len(without) == 0 || len(with)+len(without) != len(cands) {
				continue
			}
			then, err := a.decide(with)
			if err != nil {
				return nil, err
			}
			els, err := a.decide(without)
			if err != nil {
				return nil, err
			}
			return &Decision{Test: TestPresent, Property: p, Cases: []Case{{Then: then}}, Else: els}, nil
		}
	}
	return nil, fmt.Errorf("no const member, JSON type or member presence tells them apart")
}

// paths lists candidate discriminating members: the conventional ones
// first, then every other member name in order, then members of nested
// objects that every candidate requires.
func (a *analyzer) paths(cands []cand) [][]string {
	var out [][]string
	seen := map[string]bool{}
	add := func(p []string) {
		k := strings.Join(p, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	for _, p := range []string{"method", "type", "mode"} {
		for _, c := range cands {
			if findProp(c.t, p) != nil {
				add([]string{p})
			}
		}
	}
	var names []string
	for _, c := range cands {
		for _, p := range c.t.Props {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		add([]string{n})
	}
	for _, n := range names {
		all := true
		for _, c := range cands {
			p := findProp(c.t, n)
			all = all && p != nil && p.Required && a.resolve(p.Type).Kind == Object
		}
		if !all {
			continue
		}
		var inner []string
		for _, c := range cands {
			for _, q := range a.resolve(findProp(c.t, n).Type).Props {
				inner = append(inner, q.Name)
			}
		}
		sort.Strings(inner)
		for _, q := range inner {
			add([]string{n, q})
		}
	}
	return out
}

// findPath finds the property at path p, through nested objects.
func (a *analyzer) findPath(t *Type, p []string) *Prop {
	var prop *Prop
	for i, name := range p {
		if i > 0 {
			if t = a.resolve(prop.Type); t.Kind != Object {
				return nil
			}
		}
		if prop = findProp(t, name); prop == nil {
			return nil
		}
	}
	return prop
}

// byValue tries to split the candidates by the string value of member p.
// Each candidate must declare p as a const or a closed enum; at most one
// may declare it optional, and takes the value's absence (as
// ElicitRequestFormParams.mode does).
func (a *analyzer) byValue(cands []cand, p []string) (*Decision, bool, error) {
	type group struct {
		values []string
		cands  []cand
	}
	var groups []*group
	var absent *cand
	for _, c := range cands {
		prop := a.findPath(c.t, p)
		if prop == nil {
			return nil, false, nil
		}
		var values []string
		switch pt := a.resolve(prop.Type); {
		case pt.Kind == String && pt.Const != nil:
			values = []string{pt.Const.Str}
		case pt.Kind == String && len(pt.Enum) > 0 && !pt.EnumOpen:
			values = pt.Enum
		default:
			return nil, false, nil
		}
		if !prop.Required {
			if absent != nil {
				return nil, false, nil
			}
			cc := c
			absent = &cc
		}
		placed := false
		for _, g := range groups {
			switch {
			case sameSet(g.values, values):
				g.cands = append(g.cands, c)
				placed = true
			case overlaps(g.values, values):
				return nil, false, nil
			}
		}
		if !placed {
			groups = append(groups, &group{values: values, cands: []cand{c}})
		}
	}
	if len(groups) < 2 {
		return nil, false, nil
	}
	d := &Decision{Test: TestValue, Property: p}
	for _, g := range groups {
		then, err := a.decide(g.cands)
		if err != nil {
			return nil, true, err
		}
		d.Cases = append(d.Cases, Case{Values: g.values, Then: then})
	}
	if absent != nil {
		d.Absent = &Decision{Test: Leaf, Member: absent.idx}
	}
	return d, true, nil
}

// arrays decides between array members by their first element.
func (a *analyzer) arrays(cands []cand) (*Decision, error) {
	var elems []cand
	for _, c := range cands {
		it := a.resolve(c.t.Items)
		if it.Kind == AnyOf {
			for _, m := range it.Union.Members {
				elems = append(elems, cand{c.idx, a.resolve(m)})
			}
			continue
		}
		elems = append(elems, cand{c.idx, it})
	}
	// Element decisions pick element types; map them back to members.
	sub, err := a.decide(elems)
	if err != nil {
		return nil, fmt.Errorf("array members: %v", err)
	}
	return &Decision{Test: TestFirstItem, Cases: []Case{{Then: sub}}, Else: &Decision{Member: cands[0].idx}}, nil
}

func findProp(t *Type, name string) *Prop {
	for _, p := range t.Props {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
