package conf

import "testing"

// TestAppPaths: joining and taking the directory of plain paths and URIs,
// whose scheme://authority stays whole.
func TestAppPaths(t *testing.T) {
	joins := []struct{ dir, name, want string }{
		{"/apps/x", "bundle.xml", "/apps/x/bundle.xml"},
		{"/apps/x/", "bundle.xml", "/apps/x/bundle.xml"},
		{"hdfs://nn:8020/apps/x", "coordinator.xml", "hdfs://nn:8020/apps/x/coordinator.xml"},
		{"hdfs://nn:8020/apps/x/", "coordinator.xml", "hdfs://nn:8020/apps/x/coordinator.xml"},
		{"s3a://bucket", "bundle.xml", "s3a://bucket/bundle.xml"},
	}
	for _, r := range joins {
		if got := JoinAppPath(r.dir, r.name); got != r.want {
			t.Errorf("JoinAppPath(%q, %q) = %q, want %q", r.dir, r.name, got, r.want)
		}
	}
	dirs := []struct{ p, want string }{
		{"/apps/x/bundle.xml", "/apps/x"},
		{"bundle.xml", "."},
		{"hdfs://nn:8020/apps/x/bundle.xml", "hdfs://nn:8020/apps/x"},
		{"hdfs://nn:8020/bundle.xml", "hdfs://nn:8020/"},
		{"s3a://bucket", "s3a://bucket"},
	}
	for _, r := range dirs {
		if got := AppPathDir(r.p); got != r.want {
			t.Errorf("AppPathDir(%q) = %q, want %q", r.p, got, r.want)
		}
	}
}
