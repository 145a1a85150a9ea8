// Package goproxy writes a Go module proxy — the GOPROXY file layout —
// holding the modules of an mcpgen checkout a user may import: the root
// module and the optional runtime/telemetry and runtime/store/redis. With
// GOPROXY=file://DIR,<the usual proxy> a user's module installs them with
// the go get lines the README shows for the published modules, before
// they are published; TestDownstream installs them that way.
//
// The three modules get one version, a pseudo-version whose hash is a
// digest of their files (so that a changed checkout never reuses a module
// cache entry), and the nested modules require the root at that version,
// as a release does: their replace lines, which serve development in the
// checkout, are dropped (the go command ignores them in dependencies).
package goproxy

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Root is the root module's path.
const Root = "github.com/mcpgen/mcpgen"

// Published are the directories, relative to the checkout, of the modules
// a user may import: the root and the optional modules.
var Published = []string{".", "runtime/telemetry", "runtime/store/redis"}

// Write writes the proxy of the checkout at repo into out (created if
// needed; earlier versions there are kept) and returns the version it
// gave the modules. The files are the checkout's as git sees them:
// tracked, and untracked but not ignored.
func Write(repo, out string, now time.Time) (string, error) {
	files, err := gitFiles(repo)
	if err != nil {
		return "", err
	}
	roots := map[string]bool{}
	for _, f := range files {
		if path.Base(f) == "go.mod" {
			roots[path.Dir(f)] = true
		}
	}
	byModule := map[string][]string{}
	for _, f := range files {
		owner := ownerOf(f, roots)
		if strings.Contains("/"+f, "/vendor/") {
			continue
		}
		byModule[owner] = append(byModule[owner], f)
	}
	h := sha256.New()
	for _, dir := range Published {
		if !roots[dir] {
			return "", fmt.Errorf("goproxy: %s has no go.mod", dir)
		}
		for _, f := range byModule[dir] {
			data, err := os.ReadFile(filepath.Join(repo, f))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s %d\n", f, len(data))
			h.Write(data)
		}
	}
	version := "v0.0.0-" + now.UTC().Format("20060102150405") + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	for _, dir := range Published {
		if err := writeModule(repo, out, dir, byModule[dir], version, now); err != nil {
			return "", err
		}
	}
	return version, nil
}

// ownerOf is the module directory a file belongs to: the deepest module
// root above it.
func ownerOf(f string, roots map[string]bool) string {
	for d := path.Dir(f); ; d = path.Dir(d) {
		if roots[d] {
			return d
		}
		if d == "." || d == "/" {
			return "."
		}
	}
}

// gitFiles lists the files of the checkout, relative and slash-separated.
func gitFiles(repo string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("goproxy: listing the files of %s: %w", repo, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(repo, f)); err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		files = append(files, f)
	}
	sort.Strings(files)
	return files, nil
}

// modulePath is the path of the module in dir.
func modulePath(dir string) string {
	if dir == "." {
		return Root
	}
	return Root + "/" + dir
}

var (
	replaceRoot = regexp.MustCompile(`(?m)^replace ` + regexp.QuoteMeta(Root) + ` => .*\n`)
	requireRoot = regexp.MustCompile(`(?m)^(\s*(?:require\s+)?` + regexp.QuoteMeta(Root) + `) v\S+`)
)

// writeModule writes one module's .info, .mod, .zip, (empty) list and
// @latest.
func writeModule(repo, out, dir string, files []string, version string, now time.Time) error {
	mp := modulePath(dir)
	gomod, err := os.ReadFile(filepath.Join(repo, dir, "go.mod"))
	if err != nil {
		return err
	}
	if dir != "." {
		gomod = replaceRoot.ReplaceAll(gomod, nil)
		gomod = requireRoot.ReplaceAll(gomod, []byte("${1} "+version))
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	prefix := mp + "@" + version + "/"
	for _, f := range files {
		rel := f
		if dir != "." {
			rel = strings.TrimPrefix(f, dir+"/")
		}
		data := gomod
		if rel != "go.mod" {
			if data, err = os.ReadFile(filepath.Join(repo, f)); err != nil {
				return err
			}
		}
		w, err := zw.Create(prefix + rel)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(mp), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    string
	}{version, now.UTC().Format(time.RFC3339)})
	// list names release versions only, none here: @latest answers
	// go get …@latest.
	for name, data := range map[string][]byte{
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  zbuf.Bytes(),
		"list":            nil,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(out, filepath.FromSlash(mp), "@latest"), info, 0o644)
}
