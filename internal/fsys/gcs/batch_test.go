package gcs

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/testservers"
)

// Batch deletes against the emulator: each call's status comes back in
// its place, a missing object is a 404 among successes, and where the
// batch endpoint is not there the objects are deleted one by one.
func TestBatchDelete(t *testing.T) {
	srv := testservers.StartGCS(t)
	s, err := parseSettings(srv.Conf, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put := func(g *gcsFS, names ...string) {
		for _, n := range names {
			if err := g.Create(ctx, g.pathOf(n), strings.NewReader(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	gone := func(g *gcsFS, names ...string) {
		for _, n := range names {
			if _, err := g.Stat(ctx, g.pathOf(n)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s after the delete: %v", n, err)
			}
		}
	}

	g := newFS(srv.Bucket, s)
	names := []string{"a", "dir/b c", "dir/ü+%2F", "missing", "dir/"}
	put(g, names[:3]...)
	codes, err := g.batchDelete(ctx, names[:4])
	if err != nil {
		t.Fatal(err)
	}
	ok := func(c int) bool { return c >= 200 && c < 300 }
	if len(codes) != 4 || !ok(codes[0]) || !ok(codes[1]) || !ok(codes[2]) || codes[3] != 404 {
		t.Fatalf("batch statuses = %v, want three successes and a 404", codes)
	}
	gone(g, names[:3]...)

	// No batch endpoint under this root: deleteObjects falls back.
	s.apiRoot = srv.Endpoint + "no-batch-here/"
	g = newFS(srv.Bucket, s)
	put(g, names[:3]...)
	b, err := g.bucketFor("delete", g.store)
	if err != nil {
		t.Fatal(err)
	}
	n, err := g.deleteObjects(ctx, b, names)
	if err != nil || n != 3 {
		t.Fatalf("deleteObjects without a batch endpoint = %d, %v; want 3", n, err)
	}
	gone(g, names[:3]...)
	if _, err := g.batchDelete(ctx, names); err == nil {
		t.Fatal("a batch to a missing endpoint succeeded")
	}
}
