module github.com/mcpgen/mcpgen/runtime/store/redis

go 1.26.0

require (
	github.com/mcpgen/mcpgen v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/mcpgen/mcpgen => ../../..
