module github.com/mcpgen/mcpgen

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/spf13/pflag v1.0.10
	golang.org/x/tools v0.52.0
)

require (
	github.com/dave/jennifer v1.7.1
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
