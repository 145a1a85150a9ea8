package main

import "runtime/debug"

// Version is the mcpgen version recorded in generated headers: the module
// version when mcpgen is built as a dependency, else "devel".
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
