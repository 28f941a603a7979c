package fsys_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
)

// The local backend passes the suite in each of its spellings: plain
// paths, file:// URIs, and a URI mounted onto a local directory.
func TestLocalBackendSuite(t *testing.T) {
	ns, err := fsys.NewNamespace(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps := fsystest.Caps{Perms: true, Groups: true, Group: strconv.Itoa(os.Getgid()), EmptyDirs: true}
	t.Run("plain", func(t *testing.T) { fsystest.Run(t, ns, t.TempDir()+"/root", caps) })
	t.Run("file-uri", func(t *testing.T) { fsystest.Run(t, ns, "file://"+t.TempDir()+"/root", caps) })
	t.Run("mounted", func(t *testing.T) {
		dir := t.TempDir()
		mns, err := fsys.NewNamespace(nil, []fsys.Mount{{From: "hdfs://localhost:8020/user/me", To: dir}})
		if err != nil {
			t.Fatal(err)
		}
		fsystest.Run(t, mns, "hdfs://localhost:8020/user/me/root", caps)
	})
}
