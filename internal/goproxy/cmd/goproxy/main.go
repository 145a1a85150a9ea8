// Command goproxy writes a Go module proxy of this checkout (package
// internal/goproxy) and prints the environment that installs from it:
//
//	go run ./internal/goproxy/cmd/goproxy -out bin/goproxy   # make goproxy
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/goproxy"
)

func main() {
	out := flag.String("out", "bin/goproxy", "the proxy's directory")
	flag.Parse()
	abs, err := filepath.Abs(*out)
	if err == nil {
		var version string
		if version, err = goproxy.Write(".", abs, time.Now()); err == nil {
			upstream, _ := exec.Command("go", "env", "GOPROXY").Output()
			fmt.Fprintf(os.Stderr, "goproxy: %s at %s\n", version, abs)
			fmt.Printf("export GOPROXY=file://%s,%s GONOSUMDB=%s\n", abs, strings.TrimSpace(string(upstream)), goproxy.Root)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "goproxy:", err)
	os.Exit(1)
}
