package apidiff_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/apidiff"
	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
)

// churn is one section of notes/tables/churn.txt: what changed between two
// revisions in terms of schema.json definitions and their properties.
type churn struct {
	from, to       string
	added, removed []string
	kindChanged    []string
	// props maps a definition to its property changes.
	props map[string]propChurn
}

type propChurn struct{ added, removed, newlyRequired, noLongerRequired []string }

var (
	sectionRE = regexp.MustCompile(`^=== (\S+) -> (\S+):`)
	listRE    = regexp.MustCompile(`'([^']*)'`)
	propRE    = regexp.MustCompile(`^    (\w+): \+\[(.*?)\] -\[(.*?)\] newly-required\[(.*?)\] no-longer-required\[(.*?)\]$`)
)

func names(s string) []string {
	var out []string
	for _, m := range listRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

func readChurn(t *testing.T, path string) []*churn {
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no churn table: %v", err)
	}
	defer f.Close()
	var out []*churn
	var cur *churn
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			cur = &churn{from: m[1], to: m[2], props: map[string]propChurn{}}
			out = append(out, cur)
			continue
		}
		switch {
		case cur == nil:
		case strings.HasPrefix(line, "  added:"):
			cur.added = names(line)
		case strings.HasPrefix(line, "  removed:"):
			cur.removed = names(line)
		case strings.HasPrefix(line, "  same name, KIND changed"):
			for _, n := range listRE.FindAllStringSubmatch(line, -1) {
				cur.kindChanged = append(cur.kindChanged, strings.SplitN(n[1], ":", 2)[0])
			}
			sort.Strings(cur.kindChanged)
		default:
			if m := propRE.FindStringSubmatch(line); m != nil {
				cur.props[m[1]] = propChurn{names(m[2]), names(m[3]), names(m[4]), names(m[5])}
			}
		}
	}
	return out
}

// sameChurn restates a report in churn.txt's terms: definitions added,
// removed and changed in kind, and their members added, removed, newly
// required and no longer required.
func sameChurn(r *apidiff.Report) *churn {
	c := &churn{props: map[string]propChurn{}}
	for _, ch := range r.Changes {
		switch {
		case ch.Kind == apidiff.Type && !ch.Inline && ch.Op == apidiff.Added:
			c.added = append(c.added, ch.Name)
		case ch.Kind == apidiff.Type && !ch.Inline && ch.Op == apidiff.Removed:
			c.removed = append(c.removed, ch.Name)
		case ch.Kind == apidiff.Type && !ch.Inline && ch.Op == apidiff.Changed && kindOf(ch.Old) != kindOf(ch.New):
			c.kindChanged = append(c.kindChanged, ch.Name)
		case (ch.Kind == apidiff.Field || ch.Kind == apidiff.Capability) && ch.JSON != "":
			p := c.props[ch.Type]
			oldReq, newReq := strings.HasSuffix(ch.Old, ", required"), strings.HasSuffix(ch.New, ", required")
			switch ch.Op {
			case apidiff.Added:
				p.added = append(p.added, ch.JSON)
				if newReq {
					p.newlyRequired = append(p.newlyRequired, ch.JSON)
				}
			case apidiff.Removed:
				p.removed = append(p.removed, ch.JSON)
				if oldReq {
					p.noLongerRequired = append(p.noLongerRequired, ch.JSON)
				}
			case apidiff.Changed:
				if !oldReq && newReq {
					p.newlyRequired = append(p.newlyRequired, ch.JSON)
				}
				if oldReq && !newReq {
					p.noLongerRequired = append(p.noLongerRequired, ch.JSON)
				}
			default:
				continue
			}
			c.props[ch.Type] = p
		}
	}
	for name, p := range c.props {
		for _, l := range [][]string{p.added, p.removed, p.newlyRequired, p.noLongerRequired} {
			sort.Strings(l)
		}
		c.props[name] = p
	}
	sort.Strings(c.added)
	sort.Strings(c.removed)
	sort.Strings(c.kindChanged)
	return c
}

// kindOf is the declaration kind in a type change's Old/New ("alias
// Result" is an alias).
func kindOf(desc string) string { return strings.Fields(desc)[0] }

// loadAPI loads a revision directory and describes its Go API.
func loadAPI(t *testing.T, dir string) *gen.API {
	t.Helper()
	spec, err := schema.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	api, err := gen.APIOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// The diff of each pair of consecutive official revisions agrees with our
// analysis of the schemas (notes/tables/churn.txt): the same definitions
// added and removed, the same kind changes, and the same members added,
// removed, newly required and no longer required in every definition
// whose kind stayed.
func TestOfficialRevisionsAgreeWithChurn(t *testing.T) {
	root := specdir.Root(t)
	table := readChurn(t, filepath.Join(filepath.Dir(root), "notes", "tables", "churn.txt"))
	if len(table) != len(specdir.Revisions)-1 {
		t.Fatalf("churn.txt has %d sections", len(table))
	}
	apis := map[string]*gen.API{}
	for _, rev := range specdir.Revisions {
		apis[rev] = loadAPI(t, filepath.Join(root, rev))
	}
	for _, want := range table {
		t.Run(want.from+"→"+want.to, func(t *testing.T) {
			from, to := apis[want.from], apis[want.to]
			r := apidiff.Compare(from, to)
			got := sameChurn(r)
			// A definition that was an inline type of the same Go name
			// before (CallToolRequestParams in 2025-06-18) is no new type
			// in Go terms, and vice versa: churn.txt sees definitions only.
			moved := map[string]bool{}
			wantAdded := slices.DeleteFunc(slices.Clone(want.added), func(n string) bool {
				moved[n] = isInline(from, n)
				return moved[n]
			})
			wantRemoved := slices.DeleteFunc(slices.Clone(want.removed), func(n string) bool {
				moved[n] = isInline(to, n)
				return moved[n]
			})
			if !slices.Equal(got.added, wantAdded) {
				t.Errorf("added definitions:\n got %v\nwant %v", got.added, wantAdded)
			}
			if !slices.Equal(got.removed, wantRemoved) {
				t.Errorf("removed definitions:\n got %v\nwant %v", got.removed, wantRemoved)
			}
			gotKinds := slices.DeleteFunc(slices.Clone(got.kindChanged), func(n string) bool { return moved[n] })
			if !slices.Equal(gotKinds, want.kindChanged) {
				t.Errorf("kind changes:\n got %v\nwant %v", gotKinds, want.kindChanged)
			}
			for _, def := range unionKeys(got.props, want.props) {
				if slices.Contains(want.kindChanged, def) || !isDef(from, def) || !isDef(to, def) {
					// churn.txt lists the members of what became an object,
					// where we report the kind change, and knows nothing of
					// inline types.
					continue
				}
				g, w := got.props[def], want.props[def]
				if !slices.Equal(g.added, w.added) || !slices.Equal(g.removed, w.removed) ||
					!slices.Equal(g.newlyRequired, w.newlyRequired) || !slices.Equal(g.noLongerRequired, w.noLongerRequired) {
					t.Errorf("%s members:\n got +%v -%v newly-required%v no-longer-required%v\nwant +%v -%v newly-required%v no-longer-required%v",
						def, g.added, g.removed, g.newlyRequired, g.noLongerRequired, w.added, w.removed, w.newlyRequired, w.noLongerRequired)
				}
			}
			t.Logf("%s → %s: %d changes, %d breaking; %d definitions moved between inline and named", want.from, want.to, r.Summary.Changes, r.Summary.Breaking, len(moved)-countFalse(moved))
			if want.to == "draft" && r.Summary.Changes != 0 {
				t.Errorf("2026-07-28 and draft differ in %d ways, want none", r.Summary.Changes)
			}
		})
	}
}

func typeNamed(api *gen.API, name string) (gen.APIType, bool) {
	i := slices.IndexFunc(api.Types, func(t gen.APIType) bool { return t.Name == name })
	if i < 0 {
		return gen.APIType{}, false
	}
	return api.Types[i], true
}

func isInline(api *gen.API, name string) bool {
	t, ok := typeNamed(api, name)
	return ok && !t.Def
}

func isDef(api *gen.API, name string) bool {
	t, ok := typeNamed(api, name)
	return ok && t.Def
}

func countFalse(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if !v {
			n++
		}
	}
	return n
}

// unionKeys lists the definitions either side names, sorted, skipping
// inline types (churn.txt lists definitions only).
func unionKeys(a, b map[string]propChurn) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
