package schema

import (
	"embed"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Facts are what neither schema.json nor schema.ts states about a revision
// (which result a request returns when no rule finds it, who sends a method
// no union lists...), one per line of a facts file. mcpgen embeds a
// reviewed file (facts.txt); users add their own with --overrides.
//
// The format is a line per fact, "KIND ARGUMENTS... | WHY", rather than
// JSON: a reviewer reads it as a table, every fact carries its reason
// beside it, comments explain groups of facts, a diff shows one changed
// fact as one changed line, and errors point at a line.
type Facts struct {
	list []Fact
}

// Fact is one line of a facts file.
type Fact struct {
	Kind FactKind
	Args []string
	Why  string
	// Source is file:line.
	Source string
	// User reports a fact from an overrides file, not the embedded table.
	User bool
}

func (f Fact) String() string { return string(f.Kind) + " " + strings.Join(f.Args, " ") }

// FactKind is what a fact states.
type FactKind string

// The kinds of fact.
const (
	FactResult      FactKind = "result"       // METHOD DEFINITION
	FactAlternative FactKind = "alternative"  // METHOD DEFINITION
	FactSender      FactKind = "sender"       // METHOD client|server|both
	FactMethodType  FactKind = "method-type"  // METHOD DEFINITION
	FactMCPName     FactKind = "mcp-name"     // METHOD MEMBER
	FactSenderUnion FactKind = "sender-union" // UNION client|server request|notification
	FactOriginUnion FactKind = "origin-union" // UNION client|server
	FactForbid      FactKind = "forbid"       // UNION MEMBER...
	FactExclude     FactKind = "exclude"      // DECLARATION
	FactMember      FactKind = "member"       // DEFINITION MEMBER TYPE
	FactDefine      FactKind = "define"       // DEFINITION TYPE
	FactRule        FactKind = "rule"         // RULE SINCE
)

// The protocol rules a rule fact dates: behaviours of the runtime that no
// schema states, which hold from one revision on.
const (
	// RuleToolArgumentErrors: arguments that break a tool's inputSchema
	// are a tool execution error (a CallToolResult with isError), not a
	// protocol error (-32602).
	RuleToolArgumentErrors = "tool-argument-errors"
	// RuleRetryOnClose: a server that closes an SSE stream the client did
	// not end first sends an event with the retry interval.
	RuleRetryOnClose = "retry-on-close"
	// RuleResourceNotFoundInvalidParams: a resource that does not exist
	// is answered -32602 (with data.uri), not -32002.
	RuleResourceNotFoundInvalidParams = "resource-not-found-invalid-params"
)

// factSyntax is each kind's arguments: a fixed count (min == max) or, with
// max < 0, at least min. Single reports kinds of which one fact per key
// (the first argument) applies: an override replaces the embedded fact.
var factSyntax = map[FactKind]struct {
	usage    string
	min, max int
	single   bool
	check    func(args []string) string
}{
	FactResult:      {"METHOD DEFINITION", 2, 2, true, nil},
	FactAlternative: {"METHOD DEFINITION", 2, 2, false, nil},
	FactSender:      {"METHOD client|server|both", 2, 2, true, oneOf(1, "client", "server", "both")},
	FactMethodType:  {"METHOD DEFINITION", 2, 2, true, nil},
	FactMCPName:     {"METHOD MEMBER", 2, 2, true, nil},
	FactSenderUnion: {"UNION client|server request|notification", 3, 3, true, both(oneOf(1, "client", "server"), oneOf(2, "request", "notification"))},
	FactOriginUnion: {"UNION client|server", 2, 2, true, oneOf(1, "client", "server")},
	FactForbid:      {"UNION MEMBER...", 2, -1, false, nil},
	FactExclude:     {"DECLARATION", 1, 1, true, nil},
	FactMember:      {"DEFINITION MEMBER string|integer|number|boolean|object", 3, 3, false, oneOf(2, "string", "integer", "number", "boolean", "object")},
	FactDefine:      {"DEFINITION string|integer|number|boolean|object", 2, 2, true, oneOf(1, "string", "integer", "number", "boolean", "object")},
	FactRule:        {"RULE YYYY-MM-DD", 2, 2, true, both(oneOf(0, RuleToolArgumentErrors, RuleRetryOnClose, RuleResourceNotFoundInvalidParams), dateArg(1))},
}

// FactKinds lists the kinds of fact, in the order the format documents them.
func FactKinds() []FactKind { return slices.Clone(factKinds) }

var factKinds = []FactKind{FactResult, FactAlternative, FactSender, FactMethodType, FactMCPName, FactSenderUnion, FactOriginUnion, FactForbid, FactExclude, FactMember, FactDefine, FactRule}

// dateArg checks that argument i is a revision date (YYYY-MM-DD).
func dateArg(i int) func([]string) string {
	return func(args []string) string {
		if !isDate(args[i]) {
			return fmt.Sprintf("%q is not a revision date (YYYY-MM-DD)", args[i])
		}
		return ""
	}
}

// isDate reports a version of the form YYYY-MM-DD: a published revision,
// as opposed to a draft (protocol.Published is the runtime's copy: the
// generator's model does not import the runtime).
func isDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range v {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Holds reports whether the protocol rule (Rule...) holds for the revision
// negotiating version: a revision dated at or after the rule's date, or a
// draft (a version that is not a date), which extends the newest
// revision. A rule the facts do not date holds nowhere.
func (f *Facts) Holds(rule, version string) bool {
	fact, ok := f.lookup(FactRule, rule)
	if !ok {
		return false
	}
	return !isDate(version) || version >= fact.Args[1]
}

func oneOf(i int, values ...string) func([]string) string {
	return func(args []string) string {
		for _, v := range values {
			if args[i] == v {
				return ""
			}
		}
		return fmt.Sprintf("%q is not one of %s", args[i], strings.Join(values, ", "))
	}
}

func both(a, b func([]string) string) func([]string) string {
	return func(args []string) string {
		if msg := a(args); msg != "" {
			return msg
		}
		return b(args)
	}
}

//go:embed facts.txt
var embeddedFacts []byte

//go:embed extensions/*.txt
var extensions embed.FS

// Extension returns the facts of a named extension mcpgen ships
// (schema/extensions/NAME.txt: members a proposal adds to a revision's
// types, such as "resumable"), and the file's bytes for the provenance
// record.
func Extension(name string) (*Facts, []byte, error) {
	src, err := extensions.ReadFile("extensions/" + name + ".txt")
	if err != nil {
		entries, _ := extensions.ReadDir("extensions")
		var names []string
		for _, e := range entries {
			names = append(names, strings.TrimSuffix(e.Name(), ".txt"))
		}
		return nil, nil, fmt.Errorf("unknown extension %q (mcpgen ships %s)", name, strings.Join(names, ", "))
	}
	f, err := ParseFacts("schema/extensions/"+name+".txt", src, true)
	return f, src, err
}

var builtin = sync.OnceValues(func() (*Facts, error) {
	return ParseFacts("schema/facts.txt", embeddedFacts, false)
})

// BuiltinFacts returns the reviewed facts mcpgen is built with.
func BuiltinFacts() *Facts {
	f, err := builtin()
	if err != nil {
		// facts.txt is part of the source; a test parses it.
		panic(err)
	}
	return f
}

// ReadFacts reads an overrides file.
func ReadFacts(path string) (*Facts, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading overrides: %w", err)
	}
	return ParseFacts(path, src, true)
}

// ParseFacts parses a facts file named name; user marks an overrides file.
// Errors name the file and line.
func ParseFacts(name string, src []byte, user bool) (*Facts, error) {
	out := &Facts{}
	seen := map[string]string{}
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, i+1)
		body, why, ok := strings.Cut(line, "|")
		why = strings.TrimSpace(why)
		if !ok || why == "" {
			return nil, fmt.Errorf("%s: a fact needs its reason after \"|\" (KIND ARGUMENTS... | WHY)", at)
		}
		words := strings.Fields(body)
		if len(words) == 0 {
			return nil, fmt.Errorf("%s: no kind before \"|\"", at)
		}
		kind := FactKind(words[0])
		syn, ok := factSyntax[kind]
		if !ok {
			var kinds []string
			for _, k := range factKinds {
				kinds = append(kinds, string(k))
			}
			return nil, fmt.Errorf("%s: unknown kind %q (want one of %s)", at, words[0], strings.Join(kinds, ", "))
		}
		args := words[1:]
		if len(args) < syn.min || syn.max >= 0 && len(args) > syn.max {
			return nil, fmt.Errorf("%s: %s wants %s", at, kind, syn.usage)
		}
		if syn.check != nil {
			if msg := syn.check(args); msg != "" {
				return nil, fmt.Errorf("%s: %s %s: %s", at, kind, syn.usage, msg)
			}
		}
		key := string(kind) + " " + args[0]
		if !syn.single {
			key = string(kind) + " " + strings.Join(args, " ")
		}
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s: %s %s is stated already at %s", at, kind, args[0], prev)
		}
		seen[key] = at
		out.list = append(out.list, Fact{Kind: kind, Args: args, Why: why, Source: at, User: user})
	}
	return out, nil
}

// With returns the facts of f overridden by over: a single-valued fact of
// over (a result, a sender...) replaces f's fact for the same key; the
// others (alternatives, forbidden members) add to f's. Over's facts come
// first, so lookups find them first.
func (f *Facts) With(over *Facts) *Facts {
	if over == nil {
		return f
	}
	replaced := map[string]bool{}
	for _, o := range over.list {
		if factSyntax[o.Kind].single {
			replaced[string(o.Kind)+" "+o.Args[0]] = true
		}
	}
	out := &Facts{list: append([]Fact(nil), over.list...)}
	for _, b := range f.list {
		if !replaced[string(b.Kind)+" "+b.Args[0]] {
			out.list = append(out.list, b)
		}
	}
	return out
}

// Len is the number of facts.
func (f *Facts) Len() int { return len(f.list) }

// lookup returns the first fact of kind whose first argument is key.
func (f *Facts) lookup(kind FactKind, key string) (Fact, bool) {
	for _, x := range f.list {
		if x.Kind == kind && x.Args[0] == key {
			return x, true
		}
	}
	return Fact{}, false
}

// all returns the facts of kind whose first argument is key ("" for all
// of the kind), in order.
func (f *Facts) all(kind FactKind, key string) []Fact {
	var out []Fact
	for _, x := range f.list {
		if x.Kind == kind && (key == "" || x.Args[0] == key) {
			out = append(out, x)
		}
	}
	return out
}

// Extensions lists the names of the extensions mcpgen ships, sorted.
func Extensions() []string {
	entries, _ := extensions.ReadDir("extensions")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".txt"))
	}
	return names
}
