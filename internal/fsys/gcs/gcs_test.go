package gcs_test

import (
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/gcs"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/testservers"
)

// newNS returns a namespace configured by conf.
func newNS(t *testing.T, conf fsys.MapConfig) *fsys.Namespace {
	t.Helper()
	ns, err := fsys.NewNamespace(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// The backend passes the behaviour suite against fake-gcs-server.
func TestSuite(t *testing.T) {
	srv := testservers.StartGCS(t)
	fsystest.Run(t, newNS(t, srv.Conf), "gs://"+srv.Bucket+"/suite", fsystest.Caps{EmptyDirs: true})
}
