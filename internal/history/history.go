// Package history checks mcpgen against the specification's own history:
// every version of the upstream draft schema in an archive
// (../shared/mcp-schema-history/draft-history.tgz) is generated, compiled
// and served, as a user feeding mcpgen a new revision would.
//
// Run generates the packages in parallel, in process; lays them out as one
// temporary module beside a generated driver program that imports them
// all; builds it with one go build; and runs it. The driver mounts each
// package on a runtime/mcp server and, over the in-process transport,
// opens a session (initialize or server/discover, whichever the revision
// has), lists tools and calls a method the handler does not implement
// (-32601).
package history

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

// The stages a version goes through.
const (
	StageGenerate = "generate"
	StageCompile  = "compile"
	StageServe    = "serve"
)

// Config says what to check and where to work.
type Config struct {
	// Archive is the .tgz of versions (<top>/<version>/schema.json, .ts).
	Archive string
	// Work is an empty directory for the unpacked archive and the module.
	Work string
	// Root is the mcpgen module root the generated code imports.
	Root string
	// Extra are further packages to generate into the module (the official
	// revisions the side-by-side check mounts together).
	Extra []Extra
	// Logf, if set, receives progress.
	Logf func(format string, args ...any)
}

// Extra is a package generated from a spec directory outside the archive.
type Extra struct {
	Name, Spec, Package, ProtocolVersion string
}

// Result is one version (or Extra) and what became of it.
type Result struct {
	Name    string
	Package string
	// Stage is the first stage that failed ("" when all passed); Err says
	// why.
	Stage string
	Err   error
	// Warnings are the loader's warnings for the version.
	Warnings []schema.Warning

	stateless bool
	protocol  string
	handlers  []gen.Handler
	spec      *schema.Spec
}

// Report is the outcome of a run.
type Report struct {
	Versions []*Result // the archive's, sorted by name
	Extras   []*Result
	// SideBySide is the error of the check that mounts the extras on one
	// server (nil when it passed or there were no extras).
	SideBySide error
	// Bridges are the bridges between consecutive versions.
	Bridges []*Bridge
	// Timings of the stages.
	Generate, Compile, Serve, Bridge time.Duration
}

// Passed counts the versions that passed every stage.
func (r *Report) Passed() int {
	n := 0
	for _, v := range r.Versions {
		if v.Stage == "" {
			n++
		}
	}
	return n
}

// Warnings lists every warning of the archive's versions.
func (r *Report) Warnings() []schema.Warning {
	var out []schema.Warning
	for _, v := range r.Versions {
		out = append(out, v.Warnings...)
	}
	return out
}

// Summary is the one-line summary.
func (r *Report) Summary() string {
	return fmt.Sprintf("history: %d/%d generate, compile, serve; warnings %d", r.Passed(), len(r.Versions), len(r.Warnings()))
}

// modulePath is the temporary module's path.
const modulePath = "mcpgen.test/history"

// Run checks every version of the archive.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	specs := filepath.Join(cfg.Work, "specs")
	module := filepath.Join(cfg.Work, "module")
	names, err := unpack(cfg.Archive, specs)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, n := range names {
		rep.Versions = append(rep.Versions, &Result{Name: filepath.Base(n), Package: packageName(filepath.Base(n))})
	}
	for _, e := range cfg.Extra {
		rep.Extras = append(rep.Extras, &Result{Name: e.Name, Package: e.Package, protocol: e.ProtocolVersion})
	}
	dirs := append(append([]string(nil), names...), extraSpecs(cfg.Extra)...)
	all := append(append([]*Result(nil), rep.Versions...), rep.Extras...)

	start := time.Now()
	generate(all, dirs, module)
	rep.Generate = time.Since(start)
	logf("generated %d packages in %v", len(all), rep.Generate.Round(time.Millisecond))

	if err := writeModule(cfg.Root, module, all, rep.Extras); err != nil {
		return nil, err
	}
	start = time.Now()
	bin := filepath.Join(cfg.Work, "serve")
	if err := build(ctx, module, bin, all, rep.Extras); err != nil {
		return nil, err
	}
	rep.Compile = time.Since(start)
	logf("compiled in %v", rep.Compile.Round(time.Millisecond))

	start = time.Now()
	if err := serve(ctx, bin, all, rep); err != nil {
		return nil, err
	}
	rep.Serve = time.Since(start)
	logf("served in %v", rep.Serve.Round(time.Millisecond))

	start = time.Now()
	rep.Bridges = bridges(ctx, rep.Versions, module)
	rep.Bridge = time.Since(start)
	logf("bridged in %v", rep.Bridge.Round(time.Millisecond))
	return rep, nil
}

func extraSpecs(es []Extra) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Spec)
	}
	return out
}

// packageName is the Go package of a version: h + its name without dashes.
func packageName(version string) string {
	var b strings.Builder
	b.WriteString("h")
	for _, r := range version {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unpack extracts the archive into dir and returns the directories of
// the versions in it, sorted. Entries may not leave dir.
func unpack(archive, dir string) ([]string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, fmt.Errorf("history archive: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("history archive %s: %w", archive, err)
	}
	tr := tar.NewReader(zr)
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("history archive %s: %w", archive, err)
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("history archive %s: entry %q leaves the directory", archive, h.Name)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		base := filepath.Base(name)
		if base != "schema.json" && base != "schema.ts" {
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(tr, 64<<20))
		if err != nil {
			return nil, fmt.Errorf("history archive %s: %s: %w", archive, h.Name, err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		seen[filepath.Dir(path)] = true
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return filepath.Base(out[i]) < filepath.Base(out[j]) })
	if len(out) == 0 {
		return nil, fmt.Errorf("history archive %s: no schema.json in it", archive)
	}
	return out, nil
}

// generate loads and generates every package, in parallel, into
// module/<package>.
func generate(rs []*Result, dirs []string, module string) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := generateOne(rs[i], dirs[i], module); err != nil {
					rs[i].Stage, rs[i].Err = StageGenerate, err
				}
			}
		}()
	}
	for i := range rs {
		work <- i
	}
	close(work)
	wg.Wait()
}

func generateOne(r *Result, dir, module string) error {
	spec, err := schema.Load(dir)
	if err != nil {
		return err
	}
	r.Warnings, r.stateless, r.spec = spec.Warnings, spec.Era() == schema.Stateless, spec
	files, err := gen.Generate(spec, gen.Options{Package: r.Package, Version: "history", ProtocolVersion: r.protocol})
	if err != nil {
		return err
	}
	if r.handlers, err = gen.Handlers(spec); err != nil {
		return err
	}
	return writePackage(filepath.Join(module, r.Package), files)
}

// writePackage writes a generated package into dir.
func writePackage(dir string, files []gen.File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeModule writes go.mod, go.sum and the driver.
func writeModule(root, module string, rs, extras []*Result) error {
	goVersion := "1.26"
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		for _, line := range strings.Split(string(mod), "\n") {
			if v, ok := strings.CutPrefix(line, "go "); ok {
				goVersion = strings.TrimSpace(v)
			}
		}
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => %s\n", modulePath, goVersion, root)
	if err := os.MkdirAll(filepath.Join(module, "serve"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(module, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return fmt.Errorf("history module: %w", err)
	}
	if err := os.WriteFile(filepath.Join(module, "go.sum"), sum, 0o644); err != nil {
		return err
	}
	src, err := driver(rs, extras)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(module, "serve", "main.go"), src, 0o644)
}

// build compiles every package and the driver with one go build. A package
// that does not compile is left out (its Stage becomes compile) and the
// driver is built again without it.
func build(ctx context.Context, module, bin string, rs, extras []*Result) error {
	for {
		out, err := goBuild(ctx, module, bin)
		if err == nil {
			return nil
		}
		failed := failedPackages(out)
		dropped := false
		for _, r := range rs {
			if r.Stage == "" && failed[r.Package] != "" {
				r.Stage, r.Err = StageCompile, errors.New(failed[r.Package])
				dropped = true
			}
		}
		if !dropped {
			return fmt.Errorf("building the history module: %v\n%s", err, out)
		}
		src, err := driver(rs, extras)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(module, "serve", "main.go"), src, 0o644); err != nil {
			return err
		}
	}
}

// goBuild builds the driver. -trimpath keeps the build cache valid across
// temporary directories; the generated packages are compiled without
// optimizations (-N -l): the check is that they type-check and behave,
// and that halves the compile time.
func goBuild(ctx context.Context, module, bin string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-gcflags="+modulePath+"/...=-N -l", "-o", bin, "./serve")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	return cmd.CombinedOutput()
}

// failedPackages reads go build's "# mcpgen.test/history/<pkg>" headers
// and the first error under each.
func failedPackages(out []byte) map[string]string {
	failed := map[string]string{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "# "+modulePath+"/"); ok {
			cur = p
			continue
		}
		if cur != "" && failed[cur] == "" && strings.TrimSpace(line) != "" {
			failed[cur] = strings.TrimSpace(line)
		}
	}
	return failed
}

// serve runs the driver and reads one line per package: name, then "ok"
// or the failure, tab-separated.
func serve(ctx context.Context, bin string, rs []*Result, rep *Report) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin).Output()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("running the history driver: %w", err)
		}
		return fmt.Errorf("the history driver failed: %v\n%s", err, ee.Stderr)
	}
	byPkg := map[string]*Result{}
	for _, r := range rs {
		byPkg[r.Package] = r
	}
	reported := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, status, _ := strings.Cut(line, "\t")
		reported[pkg] = true
		if pkg == sideBySide {
			if status != "ok" {
				rep.SideBySide = errors.New(status)
			}
			continue
		}
		if r := byPkg[pkg]; r != nil && status != "ok" {
			r.Stage, r.Err = StageServe, errors.New(status)
		}
	}
	for _, r := range rs {
		if r.Stage == "" && !reported[r.Package] {
			r.Stage, r.Err = StageServe, errors.New("the driver did not report it")
		}
	}
	return nil
}
