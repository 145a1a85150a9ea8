package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpgen/mcpgen/gen"
)

// Bridge is the bridge from one version of the history to the next (the
// older one's clients served by handlers of the newer one), and what
// became of it.
type Bridge struct {
	From, To *Result
	Package  string
	// Stage is generate or compile when that failed ("" when both
	// passed); Err says why.
	Stage string
	Err   error
	// Losses and Severe count what the conversions cannot carry, and of
	// that what leaves a method or definition unconverted.
	Losses, Severe int
}

// bridges generates the bridge of every two consecutive versions that
// generated, into module/<package>, and compiles them with one go build.
func bridges(ctx context.Context, rs []*Result, module string) []*Bridge {
	var out []*Bridge
	var prev *Result
	for _, r := range rs {
		if r.Stage != "" || r.spec == nil {
			continue
		}
		if prev != nil {
			b := &Bridge{From: prev, To: r, Package: "b" + r.Package}
			if err := generateBridge(b, module); err != nil {
				b.Stage, b.Err = StageGenerate, err
			}
			out = append(out, b)
		}
		prev = r
	}
	args := []string{"build", "-trimpath", "-gcflags=" + modulePath + "/...=-N -l"}
	n := 0
	for _, b := range out {
		if b.Stage == "" {
			args = append(args, "./"+b.Package)
			n++
		}
	}
	if n == 0 {
		return out
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if bout, err := cmd.CombinedOutput(); err != nil {
		failed := failedPackages(bout)
		for _, b := range out {
			if msg := failed[b.Package]; b.Stage == "" && msg != "" {
				b.Stage, b.Err = StageCompile, fmt.Errorf("%s", msg)
			}
		}
		if len(failed) == 0 {
			for _, b := range out {
				if b.Stage == "" {
					b.Stage, b.Err = StageCompile, fmt.Errorf("go build: %v: %s", err, bout)
				}
			}
		}
	}
	return out
}

func generateBridge(b *Bridge, module string) error {
	side := func(r *Result) gen.BridgeSide {
		return gen.BridgeSide{Spec: r.spec, Path: modulePath + "/" + r.Package, Name: r.Package}
	}
	files, report, err := gen.GenerateBridge(gen.BridgeOptions{Package: b.Package, Version: "history", Client: side(b.From), Handlers: side(b.To)})
	if err != nil {
		return err
	}
	b.Losses = len(report.Losses)
	for _, l := range report.Losses {
		if l.Severe() {
			b.Severe++
		}
	}
	return writePackage(filepath.Join(module, b.Package), files)
}

// BridgeSummary is the one-line summary of the bridges.
func (r *Report) BridgeSummary() string {
	ok, losses, severe := 0, 0, 0
	for _, b := range r.Bridges {
		if b.Stage == "" {
			ok++
		}
		losses += b.Losses
		severe += b.Severe
	}
	return fmt.Sprintf("bridges: %d/%d consecutive versions generate and compile; losses %d, of them leaving something unconverted %d", ok, len(r.Bridges), losses, severe)
}
