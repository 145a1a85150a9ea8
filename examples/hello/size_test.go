package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoMethodLookupByName: nothing in the server — the runtime, the
// generated packages, the standard library it uses — calls reflect's
// Method or MethodByName with a name the linker cannot see. One such call
// makes the linker keep every exported method of every type in the
// program, called or not: 2.65 MB of this server (docs/size.md).
// The linker marks such functions <ReflectMethod> in -dumpdep's output.
func TestNoMethodLookupByName(t *testing.T) {
	out := goBuild(t, "-ldflags=-dumpdep")
	var culprits []string
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// "from <ReflectMethod> -> to" or "from -> to <ReflectMethod>":
		// a function of package reflect itself is only a candidate (its
		// Method and MethodByName are kept when something calls them).
		from, _, ok := strings.Cut(sc.Text(), " -> ")
		if !ok || !strings.HasSuffix(from, " <ReflectMethod>") {
			continue
		}
		fn := strings.TrimSuffix(from, " <ReflectMethod>")
		if strings.HasPrefix(fn, "reflect.") || strings.HasPrefix(fn, "type:reflect.") {
			continue
		}
		culprits = append(culprits, fn)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(culprits) > 0 {
		slices.Sort(culprits)
		t.Errorf("functions that make the linker keep every exported method (reflect's Method or MethodByName by a name it cannot see): %s", strings.Join(slices.Compact(culprits), ", "))
	}
}

// goBuild builds the server with flag (into a temporary directory) and
// returns what go build printed: the linker's and compiler's reports.
func goBuild(t *testing.T, flag string) *bytes.Buffer {
	t.Helper()
	cmd := exec.Command("go", "build", flag, "-o", filepath.Join(t.TempDir(), "hello"), ".")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build %s: %v\n%.2000s", flag, err, out.Bytes())
	}
	return &out
}

// TestNoFullSchemaValidator: a server whose tools are typed declarations
// links no full JSON Schema validator (jsonschema, with the regular
// expressions it links, and the megabyte of heap it builds while
// initializing):
// runtime/toolschema/fullschema is imported only by the programs that ask
// for it (docs/size.md).
func TestNoFullSchemaValidator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/santhosh-tekuri/jsonschema") || strings.HasSuffix(pkg, "/runtime/toolschema/fullschema") {
			t.Errorf("the hello server links %s", pkg)
		}
	}
}

// TestServerLinksNoClientSide: a server links none of what only a client
// receives (elicitation/create, sampling/createMessage, roots/list and the
// server's notifications): the generated packages give it behind
// protocol.Protocol.ClientTable, which only mcp.Connect asks for, so the
// default build is as small as one generated with --side server
// (docs/size.md).
func TestServerLinksNoClientSide(t *testing.T) {
	syms := codeSymbols(t)
	var linked []string
	for _, sym := range syms {
		for _, s := range []string{".clientTable.ClientMethods", ".serveElicit", ".serveCreateMessage", ".serveListRoots", ".serveLoggingMessage"} {
			if strings.HasSuffix(sym, s) {
				linked = append(linked, sym)
			}
		}
	}
	if len(linked) > 0 {
		t.Errorf("the server links the client side: %s", strings.Join(linked, ", "))
	}
	// The test sees the symbols it looks for when they are linked.
	if !slices.Contains(syms, "github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125.serveCallTool") {
		t.Errorf("no v20251125.serveCallTool in the server's symbols: the test's names are stale")
	}
}

// TestNoJSONDecoder: a server links no encoding/json decoder unless it asks
// for one. Once it is reachable, the linker keeps the UnmarshalJSON method
// of every generated type stored in an interface (each calls wire.Unmarshal)
// and what they reach: 0.33 MB of this server (docs/size.md). The runtime
// reads what it decodes (tool schemas included) with wire.
func TestNoJSONDecoder(t *testing.T) {
	syms := codeSymbols(t)
	var linked []string
	for _, sym := range syms {
		if strings.HasPrefix(sym, "encoding/json.(*decodeState).") || strings.HasSuffix(sym, ").UnmarshalJSON") {
			linked = append(linked, sym)
		}
	}
	if len(linked) > 0 {
		if len(linked) > 10 {
			linked = append(linked[:10], "…")
		}
		t.Errorf("the server links encoding/json's decoder or UnmarshalJSON methods (go build -ldflags=-dumpdep says from where): %s", strings.Join(linked, ", "))
	}
	// The test sees the symbols it looks for when they are linked.
	if !slices.Contains(syms, "github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125.(*CallToolRequestParams).DecodeJSON") {
		t.Errorf("no v20251125.(*CallToolRequestParams).DecodeJSON in the server's symbols: the test's names are stale")
	}
}

// TestDecodersByUse: the server links the decoders and validators of the
// types it decodes and serves, not every one of the revisions it mounts. A
// call of DecodeJSON or Validate through an interface (wire.Unmarshal's
// body, the protocol.Params of protocol.DecodeParams, wire.To, result
// validation by a type assertion to a Validate method) makes the linker
// keep that method of every type the program stores in an interface:
// 0.42 MB of this server (docs/size.md). Generated code and the runtime
// call them through method values and the types' own methods (wire.Into,
// protocol.DecodeParamsWith, protocol.Method.ValidateResult).
func TestDecodersByUse(t *testing.T) {
	syms := codeSymbols(t)
	for _, sym := range []string{
		"github.com/mcpgen/mcpgen/runtime/wire.unmarshal",
		"github.com/mcpgen/mcpgen/runtime/wire.To",
		"github.com/mcpgen/mcpgen/runtime/protocol.DecodeParams",
		// The answer to a task-augmented request, which this server never
		// sends (linked, with 58 other decoders of 2025-11-25, while
		// wire.Unmarshal was reachable).
		"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125.(*CreateTaskResult).DecodeJSON",
		// A result only a client returns (sampling/createMessage).
		"github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125.(*CreateMessageResult).Validate",
	} {
		if slices.Contains(syms, sym) {
			t.Errorf("the server links %s (go build -ldflags=-dumpdep says from where)", sym)
		}
	}
	if !slices.Contains(syms, "github.com/mcpgen/mcpgen/examples/hello/mcp/v20251125.(*CallToolRequestParams).DecodeJSON") {
		t.Errorf("no v20251125.(*CallToolRequestParams).DecodeJSON in the server's symbols: the test's names are stale")
	}
}

// codeSymbols builds the server (into a temporary directory) and returns
// the names of its functions (go tool nm's T symbols).
func codeSymbols(t *testing.T) []string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	var syms []string
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) >= 3 && f[len(f)-2] == "T" {
			syms = append(syms, f[len(f)-1])
		}
	}
	return syms
}
