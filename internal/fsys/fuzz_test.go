package fsys

import (
	"context"
	"testing"
)

// FuzzResolve: any path a job or a user writes resolves to a backend or a
// clear error, through a mount table, and maps back, without a panic;
// a glob of garbage on the local store errs or matches, never panics.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"hdfs://nn:8020/user/me/x", "file:///tmp/x", "/tmp/{a,b", "s3a://", "x://[::1", "dirtest://b/../../x",
		"hdfs://NN:8020/user/me", "file://host/x", ":::", "", "a/b/../c", "hdfs://nn:8020/user/me/lake/{a,b}/*"} {
		f.Add(s)
	}
	ns, err := NewNamespace(nil, []Mount{{From: "hdfs://nn:8020/user/me", To: f.TempDir()}, {From: "hdfs://nn:8020/user/me/lake", To: "dirtest://fuzz/x"}})
	if err != nil {
		f.Fatal(err)
	}
	dirRoots.Store("fuzz", f.TempDir())
	f.Fuzz(func(t *testing.T, p string) {
		ctx := context.Background()
		r, err := ns.Resolve(ctx, p)
		if err != nil {
			return
		}
		_ = r.Back(r.Path)
		if _, ok := r.Local(); ok {
			_, _ = ns.Glob(ctx, p)
		}
	})
}
