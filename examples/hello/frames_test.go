package main

import (
	"regexp"
	"strconv"
	"testing"
)

// TestServingPathFrames keeps the stack frames of the runtime functions
// every request passes through within their budgets, and the reserve of a
// parked stateful worker in place: the serving path must fit in the 8 KiB
// stack its goroutine keeps, or every request pays a stack copy (see
// "Stack depth" in the doc of package streamhttp). It reads the frame
// sizes the compiler prints with -S. A function over budget has an error
// path or a large value inlined into it: move that out (//go:noinline).
func TestServingPathFrames(t *testing.T) {
	out := goBuild(t, "-gcflags=github.com/mcpgen/mcpgen/runtime/...=-S")
	// "pkg.(*T).M STEXT size=... args=0x.. locals=0x.. funcid=..."
	locals := map[string]int64{}
	for _, m := range regexp.MustCompile(`(?m)^(\S+) STEXT.* locals=0x([0-9a-f]+)`).FindAllSubmatch(out.Bytes(), -1) {
		n, _ := strconv.ParseInt(string(m[2]), 16, 64)
		locals[string(m[1])] = n
	}
	const rt = "github.com/mcpgen/mcpgen/runtime/"
	for _, tc := range []struct {
		fn       string
		max, min int64 // bytes of locals
	}{
		{fn: rt + "wire.(*Decoder).Object", max: 256}, // once per level of nesting
		{fn: rt + "wire.(*Decoder).Array", max: 256},
		{fn: rt + "streamhttp.(*Handler).ServeHTTP", max: 256},
		{fn: rt + "streamhttp.(*Handler).servePost", max: 384},
		{fn: rt + "streamhttp.(*Handler).serveStateless", max: 640},
		{fn: rt + "mcp.(*Exchange).Serve", max: 1024},
		{fn: rt + "streamhttp.(*session).start", max: 512}, // a stateful request, on its POST's goroutine
		{fn: rt + "streamhttp.(*session).serveStarted", max: 512},
		{fn: rt + "streamhttp.(*workers).loop", min: 2048}, // the reserve
	} {
		n, ok := locals[tc.fn]
		switch {
		case !ok:
			t.Errorf("%s: not found in the compiler's output", tc.fn)
		case tc.max > 0 && n > tc.max:
			t.Errorf("%s: a frame of %d bytes, over its budget of %d", tc.fn, n, tc.max)
		case n < tc.min:
			t.Errorf("%s: a frame of %d bytes, under the %d of its stack reserve", tc.fn, n, tc.min)
		default:
			t.Logf("%s: %d bytes", tc.fn, n)
		}
	}
}
