package azure_test

import (
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/azure"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/testservers"
)

// caps: no permissions, no groups; MkdirAll writes markers.
var caps = fsystest.Caps{EmptyDirs: true}

func TestSuite(t *testing.T) {
	a := testservers.StartAzurite(t)
	ns, err := fsys.NewNamespace(a.Conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("abfs", func(t *testing.T) { fsystest.Run(t, ns, a.ABFS("/suite"), caps) })
}
