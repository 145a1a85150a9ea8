package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/goproxy"
)

// TestDownstream is the workflow of a user's repository, end to end:
// testdata/downstream is a module of its own (go.mod names only the
// module) whose server uses the optional telemetry and Redis modules. In
// a copy of it, the install lines of the README's Install section run as
// they are, against a module proxy built from this checkout
// (internal/goproxy) in front of the usual one: mcpgen becomes a tool of
// the module, the optional modules requirements. Then, with no spec root
// and an empty cache, go generate downloads both revisions (from a local
// upstream), checks and caches them, and writes the packages; the CI
// drift check passes without network; then go mod vendor, go build
// -mod=vendor, go vet, and the server it built answers the generated
// typed clients in both eras.
func TestDownstream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	install := readmeInstall(t, filepath.Join(repo, "README.md"))
	proxy := t.TempDir()
	version, err := goproxy.Write(repo, proxy, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	upstream := strings.TrimSpace(goCmd(t, repo, "env", "GOPROXY"))
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy)+","+upstream)
	t.Setenv("GONOSUMDB", goproxy.Root)
	srv, _ := offlineEnv(t)
	mod := copyModule(t, filepath.Join(repo, "testdata", "downstream"))
	// -trimpath keeps the build cache valid across temporary directories.
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))
	for _, line := range install {
		t.Logf("$ %s", line)
		args := strings.Fields(line)
		run1(t, mod, args[0], args[1:]...)
	}
	gomod, _ := os.ReadFile(filepath.Join(mod, "go.mod"))
	for _, want := range []string{"tool " + goproxy.Root + "/cmd/mcpgen", goproxy.Root + " " + version,
		goproxy.Root + "/runtime/telemetry " + version, goproxy.Root + "/runtime/store/redis " + version} {
		if !strings.Contains(string(gomod), want) {
			t.Errorf("go.mod after the install lines has no %q:\n%s", want, gomod)
		}
	}

	goCmd(t, mod, "generate", "./...")
	goCmd(t, mod, "mod", "tidy") // the imports of the server: go-redis beside the modules installed
	want := []string{}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		for _, f := range []string{"schema.json", "schema.ts"} {
			want = append(want, "/"+pinnedCommit+"/schema/"+rev+"/"+f)
		}
	}
	if got := srv.Requests(); !slices.Equal(got, want) {
		t.Errorf("downloads %v, want %v", got, want)
	}
	for _, pkg := range []string{"v20251125", "v20260728"} {
		prov, err := os.ReadFile(filepath.Join(mod, "mcp", pkg, "provenance.gen.go"))
		if err != nil || !strings.Contains(string(prov), "commit       "+pinnedCommit) {
			t.Errorf("%s provenance: %v\n%s", pkg, err, prov)
		}
	}

	// The drift check of CI: from the cache, no network.
	srv.Close()
	goCmd(t, mod, "tool", "mcpgen", "--revision", "2025-11-25", "--out", "mcp/v20251125", "--check")
	goCmd(t, mod, "tool", "mcpgen", "--revision", "2026-07-28", "--out", "mcp/v20260728", "--check")

	goCmd(t, mod, "mod", "vendor")
	goCmd(t, mod, "build", "-mod=vendor", "-o", "bin/", "./...")
	goCmd(t, mod, "vet", "-mod=vendor", "./...")
	out := run1(t, mod, filepath.Join(mod, "bin", "client"), "--server", filepath.Join(mod, "bin", "server"))
	if out != "2025-11-25: Hello, gopher!\n2026-07-28: Hello, gopher!\n" {
		t.Errorf("client said %q", out)
	}
}

// readmeInstall returns the install lines of the README: the go commands
// of the sh block in its "Install" section that installs the published
// modules (the one with go get -tool), without their comments.
func readmeInstall(t *testing.T, readme string) []string {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no ## Install section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for block := range strings.SplitSeq(section, "```sh\n") {
		code, _, _ := strings.Cut(block, "```")
		if !strings.Contains(code, "go get -tool") {
			continue
		}
		var lines []string
		for l := range strings.SplitSeq(code, "\n") {
			l, _, _ = strings.Cut(l, "#")
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "go ") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	t.Fatal("README.md's Install section has no sh block with go get -tool")
	return nil
}

// copyModule copies the committed files of a module (not what a developer
// may have generated, vendored or built in place) into a temporary
// directory.
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == "mcp" || rel == "vendor" || rel == "bin" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return run1(t, dir, "go", args...)
}

// run1 runs a command in dir and returns its output, failing the test
// with the output when it fails.
func run1(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
