package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/server"
)

func TestServerCommandErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"-data", dir, "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"-data", dir, "-config", dir + "/missing.xml"}, exitUsage, "missing.xml"},
		{[]string{"-data", dir, "-db", "mysql://x"}, exitFail, "unsupported DSN"},
		{[]string{"-nope"}, exitUsage, "-nope"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if got := runServer(c.args, &out, &errb); got != c.status || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("server %v = %d, stderr %q; want %d and %q", c.args, got, errb.String(), c.status, c.stderr)
		}
	}
}

// TestServeUntilCancelled starts the real server command on a free port,
// talks to it, and stops it as a signal would.
func TestServeUntilCancelled(t *testing.T) {
	cfg, err := server.LoadConfig("", func(k string) string {
		return map[string]string{"GOZIE_DATA": t.TempDir(), "GOZIE_HTTP_HOST": "127.0.0.1", "GOZIE_HTTP_PORT": "0"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cancel, cfg, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v (%v)", err, <-done)
	}
	// "gozie server listening on 127.0.0.1:PORT (http://...), data in DIR"
	addr := strings.Fields(line)[4]
	go io.Copy(io.Discard, pr)
	res, err := http.Get("http://" + addr + "/oozie/v2/admin/configuration")
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]string
	err = json.NewDecoder(res.Body).Decode(&conf)
	res.Body.Close()
	if err != nil || conf["gozie.data.dir"] != cfg["gozie.data.dir"] || !strings.HasSuffix(conf["gozie.base.url"], "/oozie") {
		t.Fatalf("configuration: %v %v", conf, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/oozie/versions"); err == nil {
		t.Errorf("still serving after shutdown")
	}
}
