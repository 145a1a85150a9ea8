package main

import "runtime/debug"

// Version is the mcpgen version recorded in generated headers: the module
// version when mcpgen is built as a dependency, else "devel".
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		if bi.Main.Path != "github.com/mcpgen/mcpgen" {
			// Run as a tool of another module (go tool mcpgen): mcpgen is a
			// dependency.
			for _, d := range bi.Deps {
				if d.Path == "github.com/mcpgen/mcpgen" {
					v = d.Version
				}
			}
		}
		// v0.0.0 is a local replace, not a release.
		if v != "" && v != "(devel)" && v != "v0.0.0" {
			return v
		}
	}
	return "devel"
}
