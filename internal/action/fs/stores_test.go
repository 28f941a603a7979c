package fs

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/s3" // s3a:// only: the other tests here take hdfs:// as a scheme this binary does not serve
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// The fs action's failures on stores take Oozie's paths: a store that does
// not answer is transient (retried), an unknown scheme or an operation the
// store lacks is E0904, and chmod on an object store is refused rather than
// pretended.
func TestFSOnStoresErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	// The job's settings point the bucket at a port nothing listens on.
	jobConf := conf.FromMap(map[string]string{
		"fs.s3a.endpoint": "http://" + dead, "fs.s3a.access.key": "k", "fs.s3a.secret.key": "s",
		"fs.s3a.path.style.access": "true", "fs.s3a.attempts.maximum": "0",
	})
	tests := []struct {
		name, body string
		kind       action.ErrorKind
		code       string
	}{
		{"store not answering", "<mkdir path='s3a://b/x'/>", action.Transient, launch.CodeIO},
		{"unknown scheme", "<mkdir path='foo://b/x'/>", action.ErrorKindError, launch.CodeUnsupportedFS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &action.Context{Element: launchtest.ActionBody(t, "<fs>"+tt.body+"</fs>"), WorkDir: t.TempDir(), JobConf: jobConf, User: "joe"}
			_, err := NewFS().Start(context.Background(), a)
			var xe *action.ExecError
			if !errors.As(err, &xe) || xe.Kind != tt.kind || xe.Code != tt.code {
				t.Fatalf("err = %#v, want kind %v code %s", err, tt.kind, tt.code)
			}
			if tt.kind == action.Transient && !errors.Is(err, fsys.ErrUnavailable) {
				t.Errorf("a transient failure that is not the store's: %v", err)
			}
		})
	}
}
