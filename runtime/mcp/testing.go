package mcp

import "testing"

// inTest reports a test binary (go test), where ValidateResultsAuto
// validates results.
func inTest() bool { return testing.Testing() }
