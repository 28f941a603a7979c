package s3_test

import (
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	_ "github.com/gozie/gozie/internal/fsys/s3"
	"github.com/gozie/gozie/internal/testservers"
)

func TestSuite(t *testing.T) {
	srv := testservers.StartS3(t)
	ns, err := fsys.NewNamespace(srv.Conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("s3a", func(t *testing.T) { fsystest.Run(t, ns, "s3a://"+srv.Bucket+"/suite", fsystest.Caps{EmptyDirs: true}) })
}
