//go:build !race

package apidiff_test

// raceDetector reports a test binary built with -race.
const raceDetector = false
