// Package specdir finds the official MCP schemas for tests: the directory
// named by $MCPGEN_SPEC_ROOT, else ../shared/mcp-schema beside the module.
package specdir

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

// Revisions are the official revisions the project is tested against.
var Revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft"}

// EnvVar overrides the spec root.
const EnvVar = "MCPGEN_SPEC_ROOT"

// Find returns the spec root, or "" when there is none.
func Find() string {
	if dir := os.Getenv(EnvVar); dir != "" {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil || filepath.Base(filepath.Dir(dir)) != "" {
				cand := filepath.Join(dir, "..", "shared", "mcp-schema")
				if _, err := os.Stat(cand); err == nil {
					return filepath.Clean(cand)
				}
			}
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Root returns the spec root or skips the test.
func Root(t testing.TB) string {
	t.Helper()
	dir := Find()
	if dir == "" {
		t.Skipf("official MCP schemas not found: set %s or put shared/ beside the checkout", EnvVar)
	}
	return dir
}

// Dir returns the directory of one revision.
func Dir(t testing.TB, rev string) string {
	return filepath.Join(Root(t), rev)
}

var cache sync.Map // rev dir -> *schema.Spec

// Load loads a revision once per test binary.
func Load(t testing.TB, rev string) *schema.Spec {
	t.Helper()
	dir := Dir(t, rev)
	if s, ok := cache.Load(dir); ok {
		return s.(*schema.Spec)
	}
	s, err := schema.Load(dir)
	if err != nil {
		t.Fatalf("loading %s: %v", rev, err)
	}
	cache.Store(dir, s)
	return s
}
