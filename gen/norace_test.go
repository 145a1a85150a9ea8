//go:build !race

package gen_test

// raceDetector reports a test binary built with -race.
const raceDetector = false
