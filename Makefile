# mcpgen — see README.md. `make demo` runs the main job, `make test` every test.

SPEC_ROOT ?= ../shared/mcp-schema
GO        ?= go
# go test, repeating at the end of its output what failed (scripts/gotest).
GOTEST    := GO=$(GO) $(CURDIR)/scripts/gotest
EXAMPLE   := examples/everything
HELLO     := examples/hello

# Tests and go generate find the official schemas here.
export MCPGEN_SPEC_ROOT := $(abspath $(SPEC_ROOT))

# The spec's own history: 112 versions of the upstream draft schema.
HISTORY   ?= ../shared/mcp-schema-history/draft-history.tgz

.PHONY: all build generate demo goproxy test test-fresh test-go test-history test-spec test-example test-hello test-goclients test-registry test-redis test-telemetry test-bench test-gateway vet interop-deps conformance bench bench-compare bench-blackbox bench-gateway bench-size demo-cluster bench-cluster fuzz clean

all: build

## build: bin/mcpgen, the example's generated packages, bin/everything, bin/everything-client, bin/mcpgateway
build: generate
	$(GO) build -o bin/mcpgen ./cmd/mcpgen
	cd $(EXAMPLE) && $(GO) build -o ../../bin/everything . && $(GO) build -o ../../bin/everything-client ./cmd/everything-client && $(GO) build -o ../../bin/rrproxy ./cmd/rrproxy
	cd $(HELLO) && $(GO) build -o ../../bin/hello .
	cd gateway && $(GO) build -o ../bin/mcpgateway ./cmd/mcpgateway

## generate: the example's packages of the five published revisions, its bridges to 2026-07-28 (mcpgen convert) and features, hello's, and the gateway's (go generate, as a user would)
generate:
	cd $(EXAMPLE) && $(GO) generate ./...
	cd $(HELLO) && $(GO) generate ./...
	cd gateway && $(GO) generate ./...

## demo: generate, build, and show a Go client and the official TypeScript client talking to bin/everything, over stdio and Streamable HTTP, and one traced call as a span tree
demo: build interop-deps
	bin/everything-client --demo --server bin/everything
	@echo
	@echo "== the same over Streamable HTTP: bin/everything --http 127.0.0.1:0 (both eras on one endpoint)"
	scripts/with-http-server.sh bin/everything-client --demo --url
	@echo
	@echo "== the official TypeScript client (@modelcontextprotocol/client), stateless era"
	interop/node.sh interop/ts-client.mjs --era modern --stdio bin/everything --script smoke
	@echo
	@echo "== the same client, stateful era"
	interop/node.sh interop/ts-client.mjs --era legacy --stdio bin/everything --script smoke
	@echo
	@echo "== the TypeScript client over Streamable HTTP, auto-negotiating the era"
	scripts/with-http-server.sh interop/node.sh interop/ts-client.mjs --era auto --script smoke --http
	@echo
	@echo "== OpenTelemetry: a call whose tool asks the client for a completion, traced across both processes (OTLP/HTTP to a receiver of the client's)"
	bin/everything-client --trace-demo --server bin/everything

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

## goproxy: a Go module proxy of this checkout in bin/goproxy (the root, telemetry and Redis modules), for installing them before they are published; prints the GOPROXY to export
goproxy:
	$(GO) run ./internal/goproxy/cmd/goproxy -out bin/goproxy

## test-fresh: a fresh clone with no spec directory beside it: make demo through the download path (a local mirror), and the error with neither
test-fresh:
	SPEC_ROOT=$(abspath $(SPEC_ROOT)) scripts/fresh-clone.sh

## test: every test — the root module, the spec's history, the generated packages of all six revisions, the example with its interop peers, and the conformance suite
test: vet test-go test-history test-spec test-example test-hello test-goclients test-registry test-redis test-telemetry test-bench test-gateway conformance test-fresh

test-go:
	$(GOTEST) -race ./...
	# Generator logic that needs no race detector and takes ten times longer with it.
	$(GOTEST) -run '^(TestRuntimeAPI|TestHistory)$$' -v ./gen/...
	# The engine without a full JSON Schema validator, as in a program that does not import
	# runtime/toolschema/fullschema (the tag makes that package register nothing): only flat tool schemas are checked.
	$(GO) vet -tags mcpgen_nojsonschema ./runtime/mcp ./runtime/toolschema/... && $(GOTEST) -tags mcpgen_nojsonschema ./runtime/mcp ./runtime/toolschema/...

## test-history: generate, compile and serve every version of the spec's history (prints "history: N/112 generate, compile, serve; warnings W"); UPDATE=-update rewrites its golden report
test-history:
	MCPGEN_HISTORY=$(abspath $(HISTORY)) $(GOTEST) -count=1 -timeout 30m -v -run '^TestHistory$$' ./internal/history $(UPDATE)

# The generated packages of every official revision: round trips, the
# differential test against jsonschema, validation of the strict examples.
test-spec:
	cd spectest && $(GO) generate ./... && $(GO) vet ./... && $(GOTEST) -race ./...

## test-hello: examples/hello, a server declared with mcpgen tools, generated and talked to in both eras over stdio and HTTP
test-hello:
	cd $(HELLO) && $(GO) generate ./... && $(GO) vet ./... && $(GOTEST) -race ./...

## test-goclients: bin/everything with the official go-sdk client and mcp-go's, every published revision, over stdio and HTTP (interop/goclients, a module of its own), directly and through bin/mcpgateway; and npm server-memory through bin/mcpgateway
test-goclients: build
	cd interop/goclients && $(GO) vet ./... && MCPGEN_EVERYTHING=$(abspath bin/everything) $(GOTEST) -race -count=1 -skip 'ToNPMServer' ./...
	cd interop/goclients && MCPGEN_EVERYTHING=$(abspath bin/everything) MCPGEN_THROUGH_GATEWAY=1 $(GOTEST) -race -count=1 ./...

## test-gateway: bin/mcpgateway's module: bin/everything of each revision behind the gateway, reached by a client of each revision over stdio and Streamable HTTP
test-gateway: build
	cd gateway && $(GO) vet ./... && $(GOTEST) -race -count=1 ./...

## test-bench: the comparison module's own tests (bench: the three stacks answer alike; mcpload against each echo server)
test-bench:
	cd bench && $(GO) generate ./... && $(GO) vet ./... && $(GOTEST) -race -count=1 ./...

## test-registry: the server.json mcpgen tools --server-json writes, checked against the MCP registry's published schema and Go types (interop/registry, a module of its own, pinning github.com/modelcontextprotocol/registry)
test-registry: generate
	cd interop/registry && $(GO) vet ./... && $(GOTEST) -race -count=1 ./...

## test-telemetry: the OpenTelemetry instrumentation (runtime/telemetry, a module of its own: its dependencies stay out of the root module); its end-to-end tests (bin/everything exporting OTLP to a receiver the test runs) are in test-example
test-telemetry:
	cd runtime/telemetry && $(GO) vet ./... && $(GOTEST) -race ./...

## test-redis: the Redis stores (runtime/store/redis, a module of its own) against a real redis-server the tests start; it must be installed (.ci/run installs it)
test-redis:
	cd runtime/store/redis && $(GO) vet ./... && MCPGEN_REQUIRE_REDIS=1 $(GOTEST) -race ./...

test-example: generate interop-deps
	cd $(EXAMPLE) && $(GO) vet ./... && MCPGEN_REQUIRE_INTEROP=1 MCPGEN_REQUIRE_REDIS=1 $(GOTEST) -race ./...

## interop-deps: the pinned JavaScript peers (node 22, the TS client, the inspector CLI, the conformance suite)
interop-deps: interop/node_modules/.package-lock.json

interop/node_modules/.package-lock.json: interop/package.json interop/package-lock.json
	cd interop && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## conformance: the official conformance suite (pinned in interop/): bin/everything in server mode, bin/everything-client in client mode, both eras; then its server scenarios through bin/mcpgateway (scripts/conformance-gateway.sh); raw results in out/conformance, out/conformance-gateway
conformance: build interop-deps
	scripts/conformance.sh out/conformance
	scripts/conformance-gateway.sh out/conformance-gateway

## bench: benchmarks of the hot path (see README for benchstat)
bench: generate
	cd spectest && $(GO) generate ./... && $(GO) test -run '^$$' -bench . -benchmem ./mcp/mcp20251125 ./mcp/mcp20260728
	$(GO) test -run '^$$' -bench . -benchmem ./runtime/...
	cd $(EXAMPLE) && $(GO) test -run '^$$' -bench . -benchmem .

## bench-compare: one echo tools/call round trip over the stdio framing, mcpgen vs the official go-sdk vs mcp-go (a separate module: bench/README.md)
bench-compare:
	cd bench && $(GO) generate ./...
	cd bench && $(GO) test -run '^$$' -bench . -benchmem ./...

## bench-blackbox: the black-box comparison (separate server processes, bench/cmd/mcpload driving them; medians and per-rep ratios in out/blackbox). Not part of make test.
bench-blackbox:
	bench/blackbox.sh

## bench-gateway: what bin/mcpgateway costs per call: calls/s and latency through it vs bin/everything directly, stdio and HTTP, both eras (out/gateway). Not part of make test.
bench-gateway: build
	bench/gateway.sh

## bench-size: the binary size of examples/hello on mcpgen (per build option) beside the same server on go-sdk and mcp-go, and what each package adds (out/size). Not part of make test.
bench-size:
	bench/size.sh

## demo-cluster: three bin/everything instances sharing a redis-server behind a round-robin proxy (bin/rrproxy), and a client session moving across them
demo-cluster: build
	scripts/cluster.sh demo

## bench-cluster: 16 clients through the proxy, stateful and stateless, 1 instance in memory and 1, 2, 3 with Redis: calls/s, p50/p99, Redis commands per call (out/cluster). Not part of make test.
bench-cluster: build
	scripts/cluster.sh bench

FUZZTIME ?= 60s
## fuzz: every fuzz target for FUZZTIME each
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin
