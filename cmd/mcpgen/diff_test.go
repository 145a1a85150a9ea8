package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/apidiff"
	"github.com/mcpgen/mcpgen/internal/specdir"
)

// mcpgen diff takes revision names (resolved like --revision, here by
// download) or directories, and prints text or JSON.
func TestDiff(t *testing.T) {
	offlineEnv(t)
	status, stdout, stderr := runCLI("diff", "--from", "2025-11-25", "--to", "2026-07-28")
	if status != 0 {
		t.Fatalf("%d %s", status, stderr)
	}
	for _, want := range []string{
		"mcpgen diff 2025-11-25 → 2026-07-28: ",
		"! removed  initialize (Initialize)",
		"! removed     Tool.Execution (\"execution\")",
		"~ added       CallToolResult.ResultType (\"resultType\")",
		"  added    CodeHeaderMismatch                   -32020",
		"! removed  ClientRequest ∋ InitializeRequest",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	dir := filepath.Join(specdir.Root(t), "2026-07-28")
	status, stdout, stderr = runCLI("diff", "--from", "2025-11-25", "--to", dir, "--json", "--breaking")
	if status != 0 {
		t.Fatalf("%d %s", status, stderr)
	}
	var r apidiff.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.From.Revision != "2025-11-25" || r.To.Revision != "2026-07-28" || r.Summary.Breaking == 0 || r.Summary.Breaking != r.Summary.Changes {
		t.Errorf("summary %+v %+v %+v", r.From, r.To, r.Summary)
	}
	status, _, stderr = runCLI("diff", "--from", "2025-11-25", "--to", "2026-07-29")
	if status != 1 || !strings.Contains(stderr, "did you mean 2026-07-28?") {
		t.Errorf("unknown --to: %d %q", status, stderr)
	}
	status, _, stderr = runCLI("diff", "--from", "./nowhere", "--to", "draft")
	if status != 1 || !strings.Contains(stderr, "--from: spec ./nowhere") {
		t.Errorf("missing directory: %d %q", status, stderr)
	}
}
