package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/testfs"
)

type sqliteErr int

func (e sqliteErr) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e sqliteErr) Code() int     { return int(e) }

type pgErr string

func (e pgErr) Error() string    { return "pg error " + string(e) }
func (e pgErr) SQLState() string { return string(e) }

// Store errors that mean a full disk become 503 E0603 "disk full"; other
// store errors stay runtime errors.
func TestDiskFullError(t *testing.T) {
	cases := []struct {
		name string
		err  error
		full bool
	}{
		{"ENOSPC", fmt.Errorf("commit: %w", &fs.PathError{Op: "write", Path: "gozie.db-wal", Err: syscall.ENOSPC}), true},
		{"EDQUOT", fmt.Errorf("commit: %w", syscall.EDQUOT), true},
		{"SQLITE_FULL", fmt.Errorf("store: %w", sqliteErr(13)), true},
		{"SQLITE_IOERR", fmt.Errorf("store: %w", sqliteErr(10)), false},
		{"SQLITE_FULL text", errors.New("database or disk is full (13)"), true},
		{"postgres disk_full", fmt.Errorf("store: %w", pgErr("53100")), true},
		{"postgres unique", fmt.Errorf("store: %w", pgErr("23505")), false},
		{"other", errors.New("boom"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ae := toAPIError(c.err)
			if full := ae.code == "E0603" && ae.status == http.StatusServiceUnavailable && strings.Contains(ae.msg, "disk full"); full != c.full {
				t.Errorf("toAPIError = %d %s %q; disk full %v", ae.status, ae.code, ae.msg, c.full)
			}
		})
	}
}

// Fault point 10c on a real full disk (a tmpfs, as root): reads answer,
// writes are refused with 503 E0603 "disk full", and once space is freed
// writes work again.
func TestServerOnFullDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	testfs.Mount(t, dir, "4m")
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, dir, st)
	appDir := e.app("full")
	id := e.submit("joe", "", "oozie.wf.application.path", appDir)

	free := testfs.Fill(t, filepath.Join(dir, "fill"))
	// SQLite may still fit a few commits in room it holds already (the
	// WAL is reused after a checkpoint); the disk shows within a few.
	var refused resp
	for i := 0; i < 200; i++ {
		r := e.do("POST", "/oozie/v2/jobs?user.name=joe", "application/xml", confXML("oozie.wf.application.path", appDir))
		if r.status != http.StatusCreated {
			refused = r
			t.Logf("submission %d refused: %s", i+1, r.header.Get("oozie-error-message"))
			break
		}
	}
	if refused.status != http.StatusServiceUnavailable || refused.header.Get("oozie-error-code") != "E0603" ||
		!strings.Contains(refused.header.Get("oozie-error-message"), "disk full") {
		t.Fatalf("submission on a full disk = %d %s %s", refused.status, refused.header.Get("oozie-error-code"), refused.body)
	}
	for _, path := range []string{"/oozie/v2/jobs?len=5", "/oozie/v2/job/" + id + "?show=info", "/oozie/v2/admin/status"} {
		if r := e.do("GET", path, "", ""); r.status != http.StatusOK {
			t.Errorf("GET %s on a full disk = %d %s", path, r.status, r.body)
		}
	}
	free()
	if _, err := os.Stat(filepath.Join(dir, "gozie.db")); err != nil {
		t.Fatal(err)
	}
	e.submit("joe", "", "oozie.wf.application.path", appDir)
}
