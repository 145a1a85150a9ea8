package schema_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
)

// The embedded table parses, and every fact in it says why.
func TestBuiltinFacts(t *testing.T) {
	if n := schema.BuiltinFacts().Len(); n < 20 {
		t.Errorf("%d builtin facts, want the reviewed table", n)
	}
}

// A malformed facts file is an error naming the file and line and what
// is expected.
func TestParseFactsErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no reason", "result ping EmptyResult", `f.txt:1: a fact needs its reason after "|" (KIND ARGUMENTS... | WHY)`},
		{"empty reason", "result ping EmptyResult |  ", `f.txt:1: a fact needs its reason`},
		{"no kind", "# c\n | why", `f.txt:2: no kind before "|"`},
		{"unknown kind", "resutl ping EmptyResult | why", `f.txt:1: unknown kind "resutl" (want one of result, alternative, sender, method-type, mcp-name, sender-union, origin-union, forbid, exclude, member, define, rule)`},
		{"too few", "result ping | why", "f.txt:1: result wants METHOD DEFINITION"},
		{"too many", "exclude A B | why", "f.txt:1: exclude wants DECLARATION"},
		{"bad side", "sender frob nobody | why", `f.txt:1: sender METHOD client|server|both: "nobody" is not one of client, server, both`},
		{"bad kind", "sender-union U client message | why", `"message" is not one of request, notification`},
		{"stated twice", "sender frob client | a\n\nsender frob server | b", "f.txt:3: sender frob is stated already at f.txt:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := schema.ParseFacts("f.txt", []byte(tt.src), true)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// Comments, blank lines and several facts of a multi-valued kind parse.
func TestParseFacts(t *testing.T) {
	src := "# a comment\n\nalternative tools/call A | x\nalternative tools/call B | y\nforbid U id jsonrpc | z\n"
	f, err := schema.ParseFacts("f.txt", []byte(src), true)
	if err != nil || f.Len() != 3 {
		t.Fatalf("%v, %d facts", err, f.Len())
	}
}

// An override replaces the embedded fact of the same key and adds to the
// multi-valued ones; the embedded ones it does not touch remain.
func TestFactsWith(t *testing.T) {
	base, err := schema.ParseFacts("base", []byte("result ping EmptyResult | a\nalternative x A | b\nmcp-name tools/call name | c\n"), false)
	if err != nil {
		t.Fatal(err)
	}
	over, err := schema.ParseFacts("over", []byte("result ping Result | d\nalternative x B | e\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if n := base.With(over).Len(); n != 4 {
		t.Errorf("%d facts, want 4 (ping's result replaced, one alternative added)", n)
	}
	if base.With(nil) != base {
		t.Error("With(nil) should be the facts themselves")
	}
}

// The official revisions derive every fact: no warning, and strict
// loading succeeds.
func TestOfficialRevisionsHaveNoWarnings(t *testing.T) {
	for _, rev := range specdir.Revisions {
		t.Run(rev, func(t *testing.T) {
			s := specdir.Load(t, rev)
			for _, w := range s.Warnings {
				t.Errorf("warning: %s", w)
			}
			if _, err := schema.LoadWith(specdir.Dir(t, rev), schema.Options{Strict: true}); err != nil {
				t.Errorf("strict: %v", err)
			}
		})
	}
}

// The upgrading guide's example overrides file parses and shows every
// kind of fact.
func TestREADMEOverridesExample(t *testing.T) {
	readme, err := os.ReadFile("../docs/upgrading.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "One example per\nkind:\n\n```\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/upgrading.md has no example overrides file")
	}
	f, err := schema.ParseFacts("docs/upgrading.md", []byte(block), true)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 && !strings.HasPrefix(fields[0], "#") {
			kinds[fields[0]] = true
		}
	}
	// Every kind but member and rule (which extensions and mcpgen state).
	if want := len(schema.FactKinds()) - 2; len(kinds) != want || f.Len() != want {
		t.Errorf("%d kinds in %d facts, want one of each of the %d kinds", len(kinds), f.Len(), want)
	}
}
