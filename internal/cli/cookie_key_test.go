package cli

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store/postgres"
)

// startServe runs serve in this process with the environment env (on top
// of a fresh data directory, loopback and a free port) and returns its
// address; the server stops when the test ends.
func startServe(t *testing.T, env map[string]string) string {
	t.Helper()
	return startServeIn(t, t.TempDir(), env, io.Discard)
}

// startServeIn is startServe on the data directory data, the server's
// log lines going to stderr.
func startServeIn(t *testing.T, data string, env map[string]string, stderr io.Writer) string {
	t.Helper()
	cfg, err := server.LoadConfig("", func(k string) string {
		switch k {
		case "GOZIE_DATA":
			return data
		case "GOZIE_HTTP_HOST":
			return "127.0.0.1"
		case "GOZIE_HTTP_PORT":
			return "0"
		}
		return env[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cancel, cfg, pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no startup line: %v (%v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	// "gozie server listening on 127.0.0.1:PORT (http://...), data in DIR"
	return strings.Fields(line)[4]
}

// loginCookie is the hadoop.auth cookie a server issues to user.
func loginCookie(t *testing.T, addr, user string) string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/oozie/v2/admin/status?user.name=" + user)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, h := range res.Header.Values("Set-Cookie") {
		if v, ok := strings.CutPrefix(h, "hadoop.auth="); ok {
			v, _, _ = strings.Cut(v, ";")
			return v
		}
	}
	t.Fatalf("no hadoop.auth cookie from %s: %v", addr, res.Header)
	return ""
}

// adminStatus is the status of an admin-only request carrying only the
// cookie: 200 when the server takes the cookie for an admin's, 401 when
// it ignores it.
func adminStatus(t *testing.T, addr, cookie string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/oozie/v2/admin/configuration", nil)
	req.Header.Set("Cookie", "hadoop.auth="+cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// forge signs a cookie for user with key, as hadoop-auth's format says.
func forge(key []byte, user string, expires time.Time) string {
	fields := fmt.Sprintf("u=%s&p=%s&t=simple&e=%d", user, user, expires.UnixMilli())
	m := hmac.New(sha256.New, key)
	m.Write([]byte(fields))
	return `"` + fields + "&s=" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)) + `"`
}

// databaseValues returns every distinct value of every text or binary
// column of the store's schema: what a reader of the database sees.
func databaseValues(t *testing.T, dsn string) [][]byte {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'character', 'bytea')`)
	if err != nil {
		t.Fatal(err)
	}
	var cols [][2]string
	for rows.Next() {
		var c [2]string
		if err := rows.Scan(&c[0], &c[1]); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	var out [][]byte
	for _, c := range cols {
		rows, err := db.Query(fmt.Sprintf(`SELECT DISTINCT %q FROM %q WHERE %q IS NOT NULL`, c[1], c[0], c[1]))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v []byte
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		rows.Close()
	}
	return out
}

// Issue 23 point 6: servers sharing PostgreSQL kept the cookie signing
// secret in clear in the database, so anyone who could read the database
// forged an admin's cookie. Now the key is derived from a secret that
// lives only on the servers: servers given the same secret file accept
// each other's cookies, servers given different ones do not, and no value
// in the database signs a cookie any server accepts.
func TestClusterCookieKey(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	dsn := postgres.TestDSN(t)
	dir := t.TempDir()
	secret := func(name, v string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one, two := secret("one", strings.Repeat("1", 64)), secret("two", strings.Repeat("2", 64))
	env := func(id, file string) map[string]string {
		e := map[string]string{"GOZIE_DB": dsn, "GOZIE_SERVER_ID": id, "GOZIE_ADMIN_USERS": "ops", "GOZIE_POLL_INTERVAL_MS": "250"}
		if file != "" {
			e["GOZIE_AUTHENTICATION_SECRET_FILE"] = file
		}
		return e
	}
	a := startServe(t, env("a", one))
	b := startServe(t, env("b", one))
	c := startServe(t, env("c", two))
	g := startServe(t, env("g", "")) // its own generated secret

	fromA, fromC := loginCookie(t, a, "ops"), loginCookie(t, c, "ops")
	for _, tc := range []struct {
		name, cookie, at string
		want             int
	}{
		{"a's cookie at a", fromA, a, http.StatusOK},
		{"a's cookie at b (same secret file)", fromA, b, http.StatusOK},
		{"a's cookie at c (another secret file)", fromA, c, http.StatusUnauthorized},
		{"c's cookie at a", fromC, a, http.StatusUnauthorized},
		{"a's cookie at g (generated secret)", fromA, g, http.StatusUnauthorized},
	} {
		if got := adminStatus(t, tc.at, tc.cookie); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}

	// What a reader of the database could sign with: every value, as it
	// is, hex-decoded, and put through the servers' own derivation.
	values := databaseValues(t, dsn)
	if len(values) == 0 {
		t.Fatal("read nothing from the database")
	}
	exp := time.Now().Add(time.Hour)
	tried := 0
	for _, v := range values {
		keys := [][]byte{v}
		if h, err := hex.DecodeString(strings.TrimSpace(string(v))); err == nil && len(h) > 0 {
			keys = append(keys, h)
		}
		for _, k := range keys {
			keys = append(keys, server.SigningKey(k))
		}
		for _, k := range keys {
			tried++
			for _, at := range []string{a, c, g} {
				if got := adminStatus(t, at, forge(k, "ops", exp)); got != http.StatusUnauthorized {
					t.Fatalf("a cookie signed with the database value %q was accepted by %s (%d)", v, at, got)
				}
			}
		}
	}
	t.Logf("%d values of the database, %d keys tried, none accepted", len(values), tried)
}
