package history_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/history"
	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/history.golden")

// envVar names the archive to check; "1" means the one beside the
// checkout (../shared/mcp-schema-history/draft-history.tgz).
const envVar = "MCPGEN_HISTORY"

// notSchemas are the archive's versions that are not valid schemas, with
// what their error must say. Every other version must generate, compile
// and serve.
var notSchemas = map[string]string{
	// An upstream commit left schema.json (and schema.ts) empty.
	"2025-03-26-55d8e5c2": "schema.json:1:1: malformed JSON: the file is empty; expected a JSON Schema document",
	// (2025-05-30-ace88165's CallToolResult refers to ResourceReference,
	// which that version renamed: the dangling $ref degrades to raw JSON
	// with a dangling-ref warning, and the version generates.)
}

// TestHistory generates, compiles and serves every version of the spec's
// history (make test-history; it takes minutes, so it runs only when
// MCPGEN_HISTORY is set). It also mounts the official 2026-07-28 and the
// official draft, renamed DRAFT-2026-v1 with --protocol-version, on one
// server: the draft declares 2026-07-28 as its LATEST_PROTOCOL_VERSION.
func TestHistory(t *testing.T) {
	archive := os.Getenv(envVar)
	if archive == "" {
		t.Skipf("set %s=1 (make test-history) to check every version of the spec's history", envVar)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if archive == "1" {
		archive = filepath.Join(root, "..", "shared", "mcp-schema-history", "draft-history.tgz")
	}
	specRoot := specdir.Root(t)
	work := t.TempDir()
	cfg := history.Config{
		Archive: archive, Work: work, Root: root, Logf: t.Logf,
		Extra: []history.Extra{
			{Name: "2026-07-28", Spec: filepath.Join(specRoot, "2026-07-28"), Package: "xpublished"},
			{Name: "draft as DRAFT-2026-v1", Spec: filepath.Join(specRoot, "draft"), Package: "xdraft", ProtocolVersion: "DRAFT-2026-v1"},
		},
	}
	rep, err := history.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := report(rep, filepath.Join(work, "specs"))
	fmt.Print(text)

	for _, v := range rep.Versions {
		want, expected := notSchemas[v.Name]
		switch {
		case v.Stage == "" && expected:
			t.Errorf("%s generates, compiles and serves, but is listed as not a valid schema", v.Name)
		case v.Stage != "" && !expected:
			t.Errorf("%s fails to %s: %v", v.Name, v.Stage, v.Err)
		case expected && (v.Stage != history.StageGenerate || !strings.Contains(v.Err.Error(), want)):
			t.Errorf("%s: %s: %v; want generation to fail with %q", v.Name, v.Stage, v.Err, want)
		}
	}
	for _, e := range rep.Extras {
		if e.Stage != "" {
			t.Errorf("%s fails to %s: %v", e.Name, e.Stage, e.Err)
		}
	}
	if rep.SideBySide != nil {
		t.Errorf("side by side: %v", rep.SideBySide)
	}
	for _, br := range rep.Bridges {
		if br.Stage != "" {
			t.Errorf("the bridge %s -> %s fails to %s: %v", br.From.Name, br.To.Name, br.Stage, br.Err)
		}
	}
	golden(t, "testdata/history.golden", []byte(text))
}

// report is the summary: the summary line, the warnings by class, the
// versions that fail, and the side-by-side check. It names files relative
// to the unpacked archive, so it is the same on every machine.
func report(rep *history.Report, specs string) string {
	var b strings.Builder
	fmt.Fprintln(&b, rep.Summary())
	fmt.Fprintln(&b, "warnings by class:")
	for _, c := range schema.CountByClass(rep.Warnings()) {
		fmt.Fprintf(&b, "  %-22s %d\n", c.Class, c.Count)
	}
	fmt.Fprintln(&b, "versions that fail:")
	for _, v := range rep.Versions {
		if v.Stage != "" {
			msg := strings.ReplaceAll(v.Err.Error(), specs+string(filepath.Separator), "")
			fmt.Fprintf(&b, "  %s %s: %s\n", v.Name, v.Stage, msg)
		}
	}
	side := "ok"
	if rep.SideBySide != nil {
		side = rep.SideBySide.Error()
	}
	var names []string
	for _, e := range rep.Extras {
		names = append(names, e.Name)
	}
	fmt.Fprintf(&b, "side by side on one server (%s): %s\n", strings.Join(names, ", "), side)
	fmt.Fprintln(&b, rep.BridgeSummary())
	for _, br := range rep.Bridges {
		if br.Stage != "" {
			fmt.Fprintf(&b, "  %s -> %s %s: %v\n", br.From.Name, br.To.Name, br.Stage, br.Err)
		}
	}
	return b.String()
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != string(got) {
		t.Errorf("the history report differs from %s (run make test-history UPDATE=-update and review the diff):\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}
