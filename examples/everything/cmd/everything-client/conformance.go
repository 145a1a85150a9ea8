package main

import "fmt"

// runScenario acts as the conformance scenario against the server at url.
func runScenario(scenario, url string) error {
	return fmt.Errorf("scenario %s: client conformance needs the HTTP transport (not yet available)", scenario)
}
