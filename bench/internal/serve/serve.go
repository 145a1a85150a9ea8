// Package serve is the command line shared by the black-box echo servers
// (cmd/echo-mcpgen, cmd/echo-go-sdk, cmd/echo-mcp-go, cmd/echo-plain): each
// is a binary of its own, linking only its stack, so that peak RSS compares
// the stacks and not one binary holding them all.
//
//	echo-STACK [--http ADDR [--addr-file FILE]] [--cpuprofile FILE]
//
// Over stdio a server reads newline-delimited JSON on standard input and
// writes on standard output until the end of the input. With --http it
// serves HTTP at /mcp until SIGINT or SIGTERM.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"syscall"
)

// Stack is one server: how it serves stdio, and its HTTP handler.
type Stack struct {
	// Stdio serves standard input and output until their end or ctx's.
	Stdio func(ctx context.Context) error
	// HTTP returns the handler of the endpoint.
	HTTP func() (http.Handler, error)
}

// Main parses the command line, serves s and exits.
func Main(name string, s Stack) {
	addr := flag.String("http", "", "serve HTTP on `ADDR` (at /mcp) instead of stdio; port 0 picks a free one")
	addrFile := flag.String("addr-file", "", "with --http, write the address listened on to `FILE`")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
	mutexProfile := flag.String("mutexprofile", "", "write a profile of the run's contended mutexes to `FILE`")
	blockProfile := flag.String("blockprofile", "", "write a profile of where the run's goroutines blocked to `FILE`")
	stats := flag.Bool("runtime-stats", false, "at exit, print the Go runtime's counters of the run to stderr (goroutines created, GC cycles and CPU, heap bytes and objects allocated)")
	flag.Parse()
	if *stats {
		defer printRuntimeStats(os.Stderr)
	}
	if err := run(s, *addr, *addrFile, *cpuProfile, *mutexProfile, *blockProfile); err != nil {
		log.Printf("%s: %v", name, err)
		os.Exit(1)
	}
}

// runtimeStats are the counters --runtime-stats prints: divided by the
// calls the load driver made, what a call costs the runtime.
var runtimeStats = []string{
	"/sched/goroutines-created:goroutines",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/user:cpu-seconds",
}

// printRuntimeStats prints runtimeStats as name=value pairs on one line.
func printRuntimeStats(w io.Writer) {
	ms := make([]metrics.Sample, len(runtimeStats))
	for i, name := range runtimeStats {
		ms[i].Name = name
	}
	metrics.Read(ms)
	for _, m := range ms {
		switch m.Value.Kind() {
		case metrics.KindUint64:
			fmt.Fprintf(w, "%s=%d ", m.Name, m.Value.Uint64())
		case metrics.KindFloat64:
			fmt.Fprintf(w, "%s=%.6f ", m.Name, m.Value.Float64())
		}
	}
	fmt.Fprintln(w)
}

// run serves s, profiling the run if asked to.
func run(s Stack, addr, addrFile, cpuProfile, mutexProfile, blockProfile string) error {
	for _, p := range []struct {
		file, name string
		on         func(int)
	}{{mutexProfile, "mutex", func(n int) { runtime.SetMutexProfileFraction(n) }}, {blockProfile, "block", runtime.SetBlockProfileRate}} {
		if p.file == "" {
			continue
		}
		p.on(1)
		defer func() {
			if f, err := os.Create(p.file); err != nil {
				log.Print(err)
			} else {
				_ = pprof.Lookup(p.name).WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if addr == "" {
		return s.Stdio(ctx)
	}
	h, err := s.HTTP()
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if addrFile != "" {
		if err := os.WriteFile(addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
			return err
		}
	}
	hs := &http.Server{Handler: mux}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
