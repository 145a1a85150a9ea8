# mcpgen — see README.md. `make demo` runs the main job, `make test` every test.

SPEC_ROOT ?= ../shared/mcp-schema
GO        ?= go
REVISIONS := 2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28 draft

# Tests find the official schemas here.
export MCPGEN_SPEC_ROOT := $(abspath $(SPEC_ROOT))

.PHONY: all build test vet demo clean

all: build

build:
	$(GO) build -o bin/mcpgen ./cmd/mcpgen

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

test: vet
	$(GO) test -race ./...
	cd spectest && $(GO) generate ./... && $(GO) vet ./... && $(GO) test -race ./...

demo: build
	bin/mcpgen --spec $(SPEC_ROOT)/2026-07-28 --dump-model

clean:
	rm -rf bin
