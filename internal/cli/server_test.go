package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/server"
)

func TestServerCommandErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args    []string
		env     map[string]string
		status  int
		stderr  string
		notInIt string // a secret the message must not show
	}{
		{args: []string{"-data", dir, "extra"}, status: exitUsage, stderr: `unexpected argument "extra"`},
		{args: []string{"-data", dir, "-config", dir + "/missing.xml"}, status: exitUsage, stderr: "missing.xml"},
		{args: []string{"-data", dir, "-db", "mysql://x"}, status: exitFail, stderr: "unsupported DSN"},
		{args: []string{"-data", dir, "-db", "mysql://gozie:s3cret@db/gozie"}, status: exitFail,
			stderr: "mysql://gozie:*****@db/gozie", notInIt: "s3cret"},
		{args: []string{"-nope"}, status: exitUsage, stderr: "-nope"},
		{args: []string{"-data", dir}, env: map[string]string{"GOZIE_AUTHENTICATION_TYPE": "kerberos"}, status: exitFail,
			stderr: "configuration key gozie.authentication.type: authentication method kerberos needs a keytab (gozie.authentication.kerberos.keytab) and its HTTP principal (gozie.authentication.kerberos.principal)"},
		{args: []string{"-data", dir}, env: map[string]string{"GOZIE_AUTHENTICATION_TYPE": "ntlm"}, status: exitFail,
			stderr: `configuration key gozie.authentication.type: unknown authentication method "ntlm"`},
		{args: []string{"-data", dir}, env: map[string]string{"GOZIE_AUTHENTICATION_TYPE": "simple,token"}, status: exitFail,
			stderr: "configuration key gozie.authentication.type: authentication method token needs tokens"},
	}
	for _, c := range cases {
		t.Run(c.stderr, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			var out, errb bytes.Buffer
			if got := runServer(c.args, &out, &errb); got != c.status || !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("server %v = %d, stderr %q; want %d and %q", c.args, got, errb.String(), c.status, c.stderr)
			}
			if c.notInIt != "" && strings.Contains(errb.String(), c.notInIt) {
				t.Errorf("stderr shows the secret: %q", errb.String())
			}
		})
	}
}

// TestServeUntilCancelled starts the real server command on a free port,
// talks to it, and stops it as a signal would.
func TestServeUntilCancelled(t *testing.T) {
	cfg, err := server.LoadConfig("", func(k string) string {
		return map[string]string{"GOZIE_DATA": t.TempDir(), "GOZIE_HTTP_HOST": "127.0.0.1", "GOZIE_HTTP_PORT": "0",
			"GOZIE_ADMIN_USERS": "root", "GOZIE_HTTP_ALLOWED_HOSTS": "lb.example.net"}[k]
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
	// admin/configuration is for admins.
	if res, err := http.Get("http://" + addr + "/oozie/v2/admin/configuration"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous admin/configuration: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	res, err := http.Get("http://" + addr + "/oozie/v2/admin/configuration?user.name=root")
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]string
	err = json.NewDecoder(res.Body).Decode(&conf)
	res.Body.Close()
	if err != nil || conf["gozie.data.dir"] != cfg["gozie.data.dir"] || !strings.HasSuffix(conf["gozie.base.url"], "/oozie") {
		t.Fatalf("configuration: %v %v", conf, err)
	}
	// The Host check: the base URL's host (the host name, by default) and
	// gozie.http.allowed.hosts are answered, other names refused.
	base, _ := url.Parse(conf["gozie.base.url"])
	for _, c := range []struct {
		host string
		want int
	}{
		{base.Host, http.StatusOK},
		{"lb.example.net", http.StatusOK},
		{"evil.example:" + base.Port(), http.StatusMisdirectedRequest},
	} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/oozie/versions", nil)
		req.Host = c.host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Host %s: %d, want %d", c.host, res.StatusCode, c.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/oozie/versions"); err == nil {
		t.Errorf("still serving after shutdown")
	}
}
