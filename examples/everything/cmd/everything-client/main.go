// Command everything-client is an MCP client built from mcpgen's generated
// code. With --demo it starts a server (bin/everything by default), or
// reaches one over Streamable HTTP (--url), talks to it in both protocol
// eras and prints what it sees. Run by the official
// conformance suite in client mode, it acts as the scenario named by
// $MCP_CONFORMANCE_SCENARIO against the server URL given as its last
// argument (see conformance.go).
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
)

func main() {
	demo := flag.Bool("demo", false, "start a server and show a session with it in each era")
	server := flag.String("server", "bin/everything", "the server to start with --demo")
	url := flag.String("url", "", "with --demo, talk to the server at this Streamable HTTP `URL` instead of starting one")
	traceDemo := flag.Bool("trace-demo", false, "start the server with OpenTelemetry export to a receiver of this program, call a tool that asks the client for a completion, and print the trace of both processes")
	flag.Parse()
	var err error
	switch {
	case *traceDemo:
		err = runTraceDemo(*server)
	case *demo:
		err = runDemo(*server, *url)
	case os.Getenv("MCP_CONFORMANCE_SCENARIO") != "" && flag.NArg() > 0:
		err = runScenario(os.Getenv("MCP_CONFORMANCE_SCENARIO"), flag.Arg(flag.NArg()-1))
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "everything-client:", err)
		os.Exit(1)
	}
}

// warnings returns the transports' logger: their warnings (a tool excluded
// from tools/list for an invalid x-mcp-header annotation, say) go to
// stderr, which the conformance suite and the demo show.
func warnings() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
