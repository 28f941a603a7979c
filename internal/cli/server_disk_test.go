package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/testfs"
)

// Fault point 10c at start-up, on a real full disk (a tmpfs, as root): a
// server whose data directory is full stops with one line naming the
// directory and the cause, whether its database is still to be created or
// exists already (SQLite then reports only "disk I/O error").
func TestServerStartOnFullDisk(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "disk")
	testfs.Mount(t, mnt, "2m")
	existing := filepath.Join(mnt, "existing")
	if err := os.MkdirAll(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(existing, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	free := testfs.Fill(t, filepath.Join(mnt, "fill"))
	defer free()
	for _, dir := range []string{filepath.Join(mnt, "fresh"), existing} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg, err := server.LoadConfig("", func(k string) string {
				return map[string]string{"GOZIE_DATA": dir, "GOZIE_HTTP_HOST": "127.0.0.1", "GOZIE_HTTP_PORT": "0"}[k]
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = serve(ctx, cancel, cfg, io.Discard, io.Discard)
			if ctx.Err() != nil {
				t.Fatal("the server started on a full disk and served")
			}
			msg := diskFullError(dir, err).Error()
			if !strings.Contains(msg, dir) || !strings.Contains(msg, "no space left on device") || strings.Contains(msg, "\n") {
				t.Errorf("start-up error %q (from %v); want one line naming %s and the full disk", msg, err, dir)
			}
		})
	}
}

// gozie.launch.as.user needs a root server; without the key nothing is
// checked.
func TestCheckLaunchAsUser(t *testing.T) {
	cases := []struct {
		value   string
		euid    int
		wantErr string
	}{
		{"true", 1000, "needs the server to run as root (it runs as uid 1000)"},
		{"true", 0, ""},
		{"false", 1000, ""},
		{"", 1000, ""},
	}
	for _, c := range cases {
		err := checkLaunchAsUser(server.Config{"gozie.launch.as.user": c.value}, c.euid)
		if (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%q as uid %d: %v; want %q", c.value, c.euid, err, c.wantErr)
		}
	}
}
