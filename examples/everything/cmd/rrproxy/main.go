// Command rrproxy is a round-robin reverse proxy without stickiness in
// front of several bin/everything --http instances (make demo-cluster,
// scripts/cluster.sh):
//
//	rrproxy --addr 127.0.0.1:0 --addr-file F http://127.0.0.1:A/mcp http://127.0.0.1:B/mcp ...
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpgen/mcpgen/examples/everything/internal/rrproxy"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `ADDR`")
	addrFile := flag.String("addr-file", "", "write the address listened on to `FILE`")
	verbose := flag.Bool("v", false, "log each request's backend to stderr")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "rrproxy: name the backends' URLs")
		os.Exit(2)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rrproxy:", err)
		os.Exit(1)
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile+".tmp", []byte(ln.Addr().String()+"\n"), 0o644); err == nil {
			err = os.Rename(*addrFile+".tmp", *addrFile)
		}
	}
	if err := streamhttp.Serve(ctx, ln, rrproxy.New(flag.Args(), log)); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "rrproxy:", err)
		os.Exit(1)
	}
}
