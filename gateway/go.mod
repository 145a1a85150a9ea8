module github.com/mcpgen/mcpgen/gateway

go 1.26.0

require (
	github.com/mcpgen/mcpgen v0.0.0
	github.com/spf13/pflag v1.0.10
)

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

tool github.com/mcpgen/mcpgen/cmd/mcpgen

replace github.com/mcpgen/mcpgen => ..
