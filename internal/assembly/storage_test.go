package assembly

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gozie/gozie/internal/server"
)

// The namespace takes the Hadoop configuration directory's keys, the site
// configuration's over them, and the site's mount table.
func TestStorageNamespace(t *testing.T) {
	hadoop := t.TempDir()
	core := `<configuration>
  <property><name>fs.defaultFS</name><value>hdfs://nn1:8020</value></property>
  <property><name>fs.s3a.endpoint</name><value>http://from-core-site</value></property>
  <property><name>fs.s3a.path.style.access</name><value>true</value></property>
</configuration>`
	if err := os.WriteFile(filepath.Join(hadoop, "core-site.xml"), []byte(core), 0o644); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	cfg := server.Config{
		"gozie.hadoop.conf.dir":                     hadoop,
		"fs.s3a.endpoint":                           "http://from-site",
		"gozie.fs.mount.hdfs://localhost:8020/user": local,
	}
	ns, err := StorageNamespace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set := ns.Settings()
	for k, want := range map[string]string{
		"fs.defaultFS":                              "hdfs://nn1:8020",
		"fs.s3a.endpoint":                           "http://from-site", // the site file wins
		"fs.s3a.path.style.access":                  "true",
		"gozie.fs.mount.hdfs://localhost:8020/user": local,
	} {
		if set[k] != want {
			t.Errorf("%s = %q, want %q", k, set[k], want)
		}
	}
	l, isLocal, err := ns.LocalPath(context.Background(), "hdfs://localhost:8020/user/me/examples")
	if err != nil || !isLocal || l != local+"/me/examples" {
		t.Errorf("mounted path = %s %v %v", l, isLocal, err)
	}
	// A broken configuration stops the server at start, naming the key.
	for name, bad := range map[string]server.Config{
		"missing conf dir": {"gozie.hadoop.conf.dir": filepath.Join(hadoop, "nope")},
		"relative mount":   {"gozie.fs.mount.hdfs://nn/x": "relative/dir"},
	} {
		if _, err := StorageNamespace(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
