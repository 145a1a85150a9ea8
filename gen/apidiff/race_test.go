//go:build race

package apidiff_test

// raceDetector reports a test binary built with -race: tests of plain
// generator logic that take ten times longer with it run without it (make
// test-go runs them so).
const raceDetector = true
