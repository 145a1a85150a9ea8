module github.com/mcpgen/mcpgen

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/spf13/pflag v1.0.10
	golang.org/x/tools v0.52.0
)
