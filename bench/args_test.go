package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// argSizes are the sizes of the echo text in BenchmarkToolsCallArgs.
var argSizes = []int{1 << 10, 64 << 10, 1 << 20}

// BenchmarkToolsCallArgs is BenchmarkToolsCall with a larger argument: a
// text of 1 KiB, 64 KiB and 1 MiB that each stack decodes, validates
// against the tool's inputSchema, hands to the handler and echoes back
// (so twice its size crosses the pipe). SetBytes is the text's size.
func BenchmarkToolsCallArgs(b *testing.B) {
	for _, size := range argSizes {
		text := strings.Repeat("abcdefgh", size/8)
		for _, s := range stacks() {
			b.Run(fmt.Sprintf("%dKiB/%s", size>>10, s.name), func(b *testing.B) {
				sess := openSession(b, s, echoArgs(b, text))
				ctx := context.Background()
				got, err := sess.echo(ctx)
				if err != nil {
					b.Fatalf("echo of %d bytes: %v", size, err)
				}
				if got != text {
					b.Fatalf("echo of %d bytes answered %d bytes", size, len(got))
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := sess.echo(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
