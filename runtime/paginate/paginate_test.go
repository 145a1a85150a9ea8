package paginate

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestPageAndPages(t *testing.T) {
	items := []int{1, 2, 3, 4, 5, 6, 7}
	for _, size := range []int{0, 1, 3, 7, 10} {
		fetch := func(_ context.Context, cursor string) ([]int, string, error) { return Page(items, cursor, size) }
		var got []int
		for v, err := range Pages(context.Background(), fetch) {
			if err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			got = append(got, v)
		}
		if !slices.Equal(got, items) {
			t.Errorf("size %d: walked %v", size, got)
		}
	}
	for _, bad := range []string{"x", "cDE6OTk", "cDE6LTE"} { // garbage, offset 99, offset -1
		if _, _, err := Page(items, bad, 2); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
	loop := func(context.Context, string) ([]int, string, error) { return []int{1}, "same", nil }
	var last error
	for _, err := range Pages(context.Background(), loop) {
		last = err
	}
	if last == nil {
		t.Error("a repeated cursor did not stop the walk")
	}
	boom := errors.New("boom")
	for _, err := range Pages(context.Background(), func(context.Context, string) ([]int, string, error) { return nil, "", boom }) {
		if !errors.Is(err, boom) {
			t.Errorf("fetch error: %v", err)
		}
	}
}
