package schema_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
)

// The analysis in ../shared/notes/tables is the truth these tests check the
// model against.

func notesDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(specdir.Root(t)), "notes", "tables")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("analysis tables not found: %v", err)
	}
	return dir
}

// tableSections splits a table file into its "######## <rev>" sections.
func tableSections(t *testing.T, name string) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(notesDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "######## "); ok {
			cur = rest
			continue
		}
		if cur != "" {
			out[cur] = append(out[cur], line)
		}
	}
	return out
}

func TestDefinitionCounts(t *testing.T) {
	want := map[string]int{"2024-11-05": 79, "2025-03-26": 83, "2025-06-18": 91, "2025-11-25": 145, "2026-07-28": 155, "draft": 155}
	for _, rev := range specdir.Revisions {
		t.Run(rev, func(t *testing.T) {
			s := specdir.Load(t, rev)
			if got := len(s.Defs); got != want[rev] {
				t.Errorf("definitions = %d, want %d", got, want[rev])
			}
		})
	}
}

var listRE = regexp.MustCompile(`'([^']*)'`)

func quotedList(s string) []string {
	var out []string
	for _, m := range listRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestMethodTablesMatchPairing(t *testing.T) {
	sections := tableSections(t, "pairing.txt")
	for _, rev := range specdir.Revisions {
		t.Run(rev, func(t *testing.T) {
			s := specdir.Load(t, rev)
			lines := sections[rev]
			if len(lines) == 0 {
				t.Fatalf("no pairing section for %s", rev)
			}
			mode := ""
			requests, notifications := 0, 0
			seen := map[string]bool{}
			for _, line := range lines {
				line = strings.TrimSpace(line)
				switch {
				case strings.HasPrefix(line, "REQUEST |"):
					mode = "request"
					continue
				case strings.HasPrefix(line, "NOTIFICATION |"):
					mode = "notification"
					continue
				case strings.Contains(line, "ClientNotification is an inlined copy"):
					// The table counts 2026's ClientNotification, an inlined
					// copy of CancelledNotification, as a notification of its
					// own; the model folds it into notifications/cancelled
					// (sent by client and server).
					notifications--
					continue
				case strings.HasPrefix(line, "TS @category"), strings.HasPrefix(line, "requests="):
					if strings.HasPrefix(line, "requests=") {
						if _, err := fmt.Sscanf(line, "requests=%d notifications=%d", &requests, &notifications); err != nil {
							t.Fatalf("bad counts line %q", line)
						}
					}
					mode = ""
					continue
				}
				cols := strings.Split(line, " | ")
				if mode == "" || len(cols) < 3 {
					continue
				}
				typ, method := cols[0], cols[1]
				m := s.Method(method)
				if m == nil {
					t.Errorf("method %s (%s) missing from model", method, typ)
					continue
				}
				seen[method] = true
				if m.Type != typ {
					t.Errorf("%s: type = %s, want %s", method, m.Type, typ)
				}
				if got, want := strings.Join(m.SenderUnions, "+"), cols[2]; !sameUnordered(got, want) {
					t.Errorf("%s: senders = %s, want %s", method, got, want)
				}
				if mode == "notification" {
					if m.Kind != schema.Notification {
						t.Errorf("%s: kind = %s, want notification", method, m.Kind)
					}
					continue
				}
				if m.Kind != schema.Request {
					t.Errorf("%s: kind = %s, want request", method, m.Kind)
				}
				if m.Result != cols[5] {
					t.Errorf("%s: result = %s, want %s", method, m.Result, cols[5])
				}
				if alt := quotedList(cols[6]); !slices.Equal(m.Alternatives, alt) && !(len(alt) == 0 && len(m.Alternatives) == 0) {
					t.Errorf("%s: alternatives = %v, want %v", method, m.Alternatives, alt)
				}
				hasEnvelope := cols[3] == "True"
				d := s.Def(typ)
				if got := hasProp(d.Type, "id") && hasProp(d.Type, "jsonrpc"); got != hasEnvelope {
					t.Errorf("%s: has id/jsonrpc = %v, want %v", typ, got, hasEnvelope)
				}
				if len(cols) > 8 && strings.TrimSpace(cols[8]) != "" {
					if m.ResultResponse == "" {
						t.Errorf("%s: no ResultResponse, want one (%s)", method, cols[8])
					}
				} else if m.ResultResponse != "" {
					t.Errorf("%s: ResultResponse = %s, want none", method, m.ResultResponse)
				}
			}
			nreq, nnot := 0, 0
			for _, m := range s.Methods {
				if !seen[m.Name] {
					t.Errorf("model has method %s that the table lacks", m.Name)
				}
				if m.Kind == schema.Request {
					nreq++
				} else {
					nnot++
				}
			}
			if nreq != requests || nnot != notifications {
				t.Errorf("requests=%d notifications=%d, want %d and %d", nreq, nnot, requests, notifications)
			}
		})
	}
}

func sameUnordered(a, b string) bool {
	x, y := strings.Split(a, "+"), strings.Split(b, "+")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func hasProp(t *schema.Type, name string) bool {
	for _, p := range t.Props {
		if p.Name == name {
			return true
		}
	}
	return false
}

// tableUnionPath turns the table's "CompleteRequest.params.ref" and
// "ReadResourceResult.contents/items" into a JSON pointer suffix.
func tableUnionPath(name string) string {
	head, tail, _ := strings.Cut(name, "/")
	parts := strings.Split(head, ".")
	p := parts[0]
	for _, q := range parts[1:] {
		p += "/properties/" + q
	}
	if tail != "" {
		p += "/" + tail
	}
	return p
}

var anyOfRE = regexp.MustCompile(`/anyOf/\d+`)

var discRE = regexp.MustCompile(`DISCRIMINATED by "([^"]+)" \((required in all|OPTIONAL in some: \[([^\]]*)\])\) values=(\[.*\])`)

func TestUnionDiscriminatorsMatchTable(t *testing.T) {
	sections := tableSections(t, "discriminators.txt")
	for _, rev := range specdir.Revisions {
		t.Run(rev, func(t *testing.T) {
			s := specdir.Load(t, rev)
			lines := sections[rev]
			if rev == "draft" {
				// The table has no draft section: draft's schema.json is
				// byte-identical to 2026-07-28's today.
				lines = sections["2026-07-28"]
			}
			if len(lines) == 0 {
				t.Fatalf("no discriminators section for %s", rev)
			}
			defsKey := "/$defs/"
			if s.Dialect == schema.Draft07 {
				defsKey = "/definitions/"
			}
			matched := map[*schema.Union]bool{}
			for i := 0; i+1 < len(lines); i++ {
				head := strings.TrimSpace(lines[i])
				verdict := strings.TrimSpace(lines[i+1])
				if !strings.HasPrefix(verdict, "->") {
					continue
				}
				name, members, ok := strings.Cut(head, ": ")
				if !ok {
					continue
				}
				wantRefs := nonInline(quotedList(members))
				path := defsKey + tableUnionPath(name)
				var u *schema.Union
				for _, cand := range s.Unions {
					// "JSONRPCMessage/items" names the items of either batch member.
					if anyOfRE.ReplaceAllString(cand.Path, "") == path && !matched[cand] && slices.Equal(refMembers(cand), wantRefs) {
						u = cand
						break
					}
				}
				if u == nil {
					t.Errorf("union %s (%s) with members %v not in model", name, path, wantRefs)
					continue
				}
				matched[u] = true
				if m := discRE.FindStringSubmatch(verdict); m != nil {
					values := quotedList(m[4])
					if u.Rule != schema.ByConst || u.Root == nil || strings.Join(u.Root.Property, ".") != m[1] {
						t.Errorf("%s: rule %s on %v, want const on %q", name, u.Rule, rootProp(u), m[1])
						continue
					}
					for j, c := range u.Root.Cases {
						if j >= len(values) || !slices.Contains(c.Values, values[c.Then.Member]) {
							t.Errorf("%s: case %v does not match table values %v", name, c.Values, values)
						}
					}
					if m[3] != "" {
						absent := quotedList(m[3])
						if u.Root.Absent == nil || memberName(u, u.Root.Absent.Member) != absent[0] {
							t.Errorf("%s: absent %q should pick %v", name, m[1], absent)
						}
					}
					continue
				}
				if !strings.Contains(verdict, "NOT discriminated") {
					t.Fatalf("unparsed verdict %q", verdict)
				}
				if u.Rule == schema.ByConst {
					t.Errorf("%s: the table says no single const tells members apart, model says const on %v", name, rootProp(u))
				}
			}
			for _, u := range s.Unions {
				if !matched[u] && !isTypeArray(u) {
					t.Errorf("model union %s (%s, %s) is not in the table", u.Name, u.Path, u.Rule)
				}
			}
		})
	}
}

func nonInline(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "inline" {
			out = append(out, n)
		}
	}
	return out
}

func refMembers(u *schema.Union) []string {
	var out []string
	for _, m := range u.Members {
		if m.Kind == schema.Ref {
			out = append(out, m.Ref)
		}
	}
	return out
}

func rootProp(u *schema.Union) []string {
	if u.Root == nil {
		return nil
	}
	return u.Root.Property
}

func memberName(u *schema.Union, i int) string {
	if m := u.Members[i]; m.Kind == schema.Ref {
		return m.Ref
	}
	return "inline"
}

// isTypeArray reports a union that comes from a JSON type array
// (RequestId's ["string","integer"]), which the table does not list.
func isTypeArray(u *schema.Union) bool {
	for _, m := range u.Members {
		switch m.Kind {
		case schema.Object, schema.Ref, schema.Array:
			return false
		}
	}
	return true
}
