package apidiff_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/apidiff"
	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
)

// unpack extracts the history archive into a temporary directory and
// returns the version directories, oldest first.
func unpack(t *testing.T, archive string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Skipf("no history archive: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(gz)
	versions := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) == "schema.json" {
			versions[filepath.Dir(path)] = true
		}
	}
	var out []string
	for v := range versions {
		out = append(out, v)
	}
	sort.Strings(out) // <date>-<commit>: chronological
	return out
}

// rawDefs reads the definitions of a schema.json: for each, its property
// names when it is a plain object (properties, no allOf or $ref), else nil.
func rawDefs(t *testing.T, dir string) map[string][]string {
	data, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs        map[string]map[string]json.RawMessage `json:"$defs"`
		Definitions map[string]map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc.Defs
	if defs == nil {
		defs = doc.Definitions
	}
	out := map[string][]string{}
	for name, node := range defs {
		out[name] = nil
		_, allOf := node["allOf"]
		_, ref := node["$ref"]
		if p, ok := node["properties"]; ok && !allOf && !ref {
			var props map[string]json.RawMessage
			json.Unmarshal(p, &props)
			names := []string{}
			for k := range props {
				names = append(names, k)
			}
			sort.Strings(names)
			out[name] = names
		}
	}
	return out
}

// Every pair of consecutive versions of the spec's own history that the
// generator loads is diffed, and the diff agrees with the schema.json
// files themselves: the definitions added and removed, and the members
// added and removed in every plain object definition.
func TestHistory(t *testing.T) {
	if raceDetector {
		t.Skip("loads 112 revisions: run without -race (make test-go does)")
	}
	root := specdir.Root(t)
	versions := unpack(t, filepath.Join(filepath.Dir(root), "mcp-schema-history", "draft-history.tgz"))
	if len(versions) == 0 {
		t.Fatal("empty archive")
	}
	apis := make([]*gen.API, len(versions))
	errs := make([]error, len(versions))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, dir := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			spec, err := schema.Load(dir)
			if err == nil {
				apis[i], err = gen.APIOf(spec)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	loaded, pairs, changes, breaking := 0, 0, 0, 0
	for i, dir := range versions {
		if errs[i] == nil {
			loaded++
		}
		if i == 0 || apis[i-1] == nil || apis[i] == nil {
			continue
		}
		pairs++
		r := apidiff.Compare(apis[i-1], apis[i])
		changes += r.Summary.Changes
		breaking += r.Summary.Breaking
		checkAgainstFiles(t, filepath.Base(versions[i-1])+"→"+filepath.Base(dir), apis[i-1], apis[i], rawDefs(t, versions[i-1]), rawDefs(t, dir), sameChurn(r))
	}
	t.Logf("history: %d/%d versions load; %d/%d consecutive pairs diffed; %d changes, %d breaking", loaded, len(versions), pairs, len(versions)-1, changes, breaking)
	if pairs == 0 {
		t.Fatal("no pair diffed")
	}
}

func checkAgainstFiles(t *testing.T, pair string, from, to *gen.API, a, b map[string][]string, got *churn) {
	t.Helper()
	var added, removed []string
	for name := range b {
		if _, ok := a[name]; !ok && !isInline(from, name) {
			added = append(added, name)
		}
	}
	for name := range a {
		if _, ok := b[name]; !ok && !isInline(to, name) {
			removed = append(removed, name)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	if !slices.Equal(got.added, added) || !slices.Equal(got.removed, removed) {
		t.Errorf("%s: definitions\n got +%v -%v\nwant +%v -%v", pair, got.added, got.removed, added, removed)
	}
	for name, propsB := range b {
		propsA, ok := a[name]
		if !ok || propsA == nil || propsB == nil || slices.Contains(got.kindChanged, name) {
			continue
		}
		var plus, minus []string
		for _, p := range propsB {
			if !slices.Contains(propsA, p) {
				plus = append(plus, p)
			}
		}
		for _, p := range propsA {
			if !slices.Contains(propsB, p) {
				minus = append(minus, p)
			}
		}
		g := got.props[name]
		if !slices.Equal(g.added, plus) || !slices.Equal(g.removed, minus) {
			t.Errorf("%s: %s members\n got +%v -%v\nwant +%v -%v", pair, name, g.added, g.removed, plus, minus)
		}
	}
}
