package webhdfs

import (
	"context"
	"io/fs"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// Every operation's request: method, path under /webhdfs/v1 and query.
func TestCallURLs(t *testing.T) {
	const base = "http://nn.example.com:9870"
	alice := identity{userName: "alice"}
	proxy := identity{userName: "oozie", doAs: "alice"}
	at := time.UnixMilli(1700000000123)
	cases := []struct {
		name   string
		c      call
		who    identity
		method string
		url    string
	}{
		{"stat", statCall("/user/alice/in"), alice, "GET", base + "/webhdfs/v1/user/alice/in?op=GETFILESTATUS&user.name=alice"},
		{"stat of the root", statCall("/"), alice, "GET", base + "/webhdfs/v1/?op=GETFILESTATUS&user.name=alice"},
		{"list", listCall("/data"), alice, "GET", base + "/webhdfs/v1/data?op=LISTSTATUS&user.name=alice"},
		{"open", openCall("/data/part-0"), alice, "GET", base + "/webhdfs/v1/data/part-0?op=OPEN&user.name=alice"},
		{"create", createCall("/data/f._COPYING_"), alice, "PUT", base + "/webhdfs/v1/data/f._COPYING_?op=CREATE&overwrite=true&user.name=alice"},
		{"mkdirs", mkdirCall("/data/a/b"), alice, "PUT", base + "/webhdfs/v1/data/a/b?op=MKDIRS&user.name=alice"},
		{"delete", deleteCall("/data/old"), alice, "DELETE", base + "/webhdfs/v1/data/old?op=DELETE&recursive=true&user.name=alice"},
		{"rename", renameCall("/data/a", "/data/b c", false), alice, "PUT", base + "/webhdfs/v1/data/a?destination=%2Fdata%2Fb+c&op=RENAME&renameoptions=NONE&user.name=alice"},
		{"rename over", renameCall("/d/f._COPYING_", "/d/f", true), alice, "PUT", base + "/webhdfs/v1/d/f._COPYING_?destination=%2Fd%2Ff&op=RENAME&renameoptions=OVERWRITE&user.name=alice"},
		{"chmod", chmodCall("/d/f", 0o640), alice, "PUT", base + "/webhdfs/v1/d/f?op=SETPERMISSION&permission=640&user.name=alice"},
		{"chmod sticky", chmodCall("/tmp", 0o777|fs.ModeSticky|fs.ModeDir), alice, "PUT", base + "/webhdfs/v1/tmp?op=SETPERMISSION&permission=1777&user.name=alice"},
		{"chmod 0", chmodCall("/d/f", 0), alice, "PUT", base + "/webhdfs/v1/d/f?op=SETPERMISSION&permission=0&user.name=alice"},
		{"chgrp", chgrpCall("/d/f", "analysts"), alice, "PUT", base + "/webhdfs/v1/d/f?group=analysts&op=SETOWNER&user.name=alice"},
		{"setrep", setrepCall("/d/f", 2), alice, "PUT", base + "/webhdfs/v1/d/f?op=SETREPLICATION&replication=2&user.name=alice"},
		{"touchz", touchCall("/d/_SUCCESS", at), alice, "PUT", base + "/webhdfs/v1/d/_SUCCESS?accesstime=-1&modificationtime=1700000000123&op=SETTIMES&user.name=alice"},
		{"content summary", summaryCall("/d"), alice, "GET", base + "/webhdfs/v1/d?op=GETCONTENTSUMMARY&user.name=alice"},
		{"proxy user", statCall("/d"), proxy, "GET", base + "/webhdfs/v1/d?doas=alice&op=GETFILESTATUS&user.name=oozie"},
		{"no user", statCall("/d"), identity{}, "GET", base + "/webhdfs/v1/d?op=GETFILESTATUS"},
		{"odd names", statCall("/d/name with spaces=and+signs;v=1%?#ü.txt"), alice, "GET",
			base + "/webhdfs/v1/d/name%20with%20spaces=and+signs%3Bv=1%25%3F%23%C3%BC.txt?op=GETFILESTATUS&user.name=alice"},
		{"user with odd characters", statCall("/d"), identity{userName: "a b&c"}, "GET", base + "/webhdfs/v1/d?op=GETFILESTATUS&user.name=a+b%26c"},
	}
	for _, c := range cases {
		if c.c.method != c.method {
			t.Errorf("%s: method %s, want %s", c.name, c.c.method, c.method)
		}
		if got := c.c.url(base, c.who); got != c.url {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.url)
		}
		if _, err := http.NewRequest(c.c.method, c.c.url(base, c.who), nil); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// Who a request acts as, by gozie.webhdfs.doas and the context's user.
func TestIdentity(t *testing.T) {
	t.Setenv("HADOOP_USER_NAME", "oozie")
	ctx := context.Background()
	cases := []struct {
		doas bool
		user string
		want identity
	}{
		{false, "alice", identity{userName: "alice"}},
		{false, "", identity{userName: "oozie"}},
		{true, "alice", identity{userName: "oozie", doAs: "alice"}},
		{true, "", identity{userName: "oozie"}},
		{true, "oozie", identity{userName: "oozie"}},
	}
	for _, c := range cases {
		conf := fsys.MapConfig{}
		if c.doas {
			conf[keyDoAs] = "true"
		}
		f, err := open(mustURL(t, "webhdfs://nn:9870"), conf)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.who(fsys.WithUser(ctx, c.user)); got != c.want {
			t.Errorf("doas=%v user=%q: %+v, want %+v", c.doas, c.user, got, c.want)
		}
	}
}

// Paths the backend is handed map to HDFS paths of its store only.
func TestHPath(t *testing.T) {
	f, err := open(mustURL(t, "webhdfs://nn:9870"), fsys.MapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"webhdfs://nn:9870":        "/",
		"webhdfs://nn:9870/":       "/",
		"webhdfs://nn:9870/a/b c":  "/a/b c",
		"webhdfs://NN:9870/x":      "/x",
		"webhdfs://nn:98700/x":     "",
		"webhdfs://other:9870/x":   "",
		"swebhdfs://nn:9870/x":     "",
		"webhdfs://nn:9870x/a/b/c": "",
	} {
		got, err := f.hpath("stat", in)
		if want == "" {
			if err == nil {
				t.Errorf("hpath(%s) = %s, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("hpath(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
