module github.com/mcpgen/mcpgen/examples/everything

go 1.26.0

require (
	github.com/mcpgen/mcpgen v0.0.0
	github.com/mcpgen/mcpgen/runtime/store/redis v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

tool github.com/mcpgen/mcpgen/cmd/mcpgen

replace github.com/mcpgen/mcpgen => ../..

replace github.com/mcpgen/mcpgen/runtime/store/redis => ../../runtime/store/redis
