package webhdfs

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// The bodies below are the examples of the WebHDFS REST API documentation
// (Hadoop 3, WebHDFS.md), made valid JSON where the page's are not (it
// shows // comments and leaves out commas).

const docFileStatus = `{
  "FileStatus":
  {
    "accessTime"      : 0,
    "blockSize"       : 0,
    "group"           : "supergroup",
    "length"          : 0,
    "modificationTime": 1320173277227,
    "owner"           : "webuser",
    "pathSuffix"      : "",
    "permission"      : "777",
    "replication"     : 0,
    "snapshotEnabled" : true,
    "type"            : "DIRECTORY",
    "ecPolicy"        : "RS-6-3-1024k"
  }
}`

const docFileStatuses = `{
  "FileStatuses":
  {
    "FileStatus":
    [
      {
        "accessTime"      : 1320171722771,
        "blockSize"       : 33554432,
        "childrenNum"     : 0,
        "fileId"          : 16388,
        "group"           : "supergroup",
        "length"          : 24930,
        "modificationTime": 1320171722771,
        "owner"           : "webuser",
        "pathSuffix"      : "a.patch",
        "permission"      : "644",
        "replication"     : 1,
        "storagePolicy"   : 0,
        "type"            : "FILE"
      },
      {
        "accessTime"      : 0,
        "blockSize"       : 0,
        "childrenNum"     : 0,
        "fileId"          : 16389,
        "group"           : "supergroup",
        "length"          : 0,
        "modificationTime": 1320895981256,
        "owner"           : "username",
        "pathSuffix"      : "bar",
        "permission"      : "711",
        "replication"     : 0,
        "snapshotEnabled" : true,
        "type"            : "DIRECTORY"
      }
    ]
  }
}`

// LISTSTATUS of a file: one entry, with an empty pathSuffix.
const docListFile = `{
  "FileStatuses":
  {
    "FileStatus":
    [
      {
        "accessTime"      : 1320171722771,
        "blockSize"       : 33554432,
        "childrenNum"     : 0,
        "fileId"          : 16390,
        "group"           : "supergroup",
        "length"          : 1366,
        "modificationTime": 1501770633062,
        "owner"           : "webuser",
        "pathSuffix"      : "",
        "permission"      : "644",
        "replication"     : 1,
        "storagePolicy"   : 0,
        "type"            : "FILE"
      }
    ]
  }
}`

const docContentSummary = `{
  "ContentSummary":
  {
    "directoryCount": 2,
    "ecPolicy"      : "RS-6-3-1024k",
    "fileCount"     : 1,
    "length"        : 24930,
    "quota"         : -1,
    "spaceConsumed" : 24930,
    "spaceQuota"    : -1,
    "typeQuota":
    {
      "ARCHIVE": {"consumed": 500, "quota": 10000},
      "DISK":    {"consumed": 500, "quota": 10000},
      "SSD":     {"consumed": 500, "quota": 10000}
    }
  }
}`

// A listing entry of HttpFS, whose members come in another order and
// which marks a sticky directory (HDFS-14665's example).
const httpfsSticky = `{"FileStatuses":{"FileStatus":[{"pathSuffix":"logs","type":"DIRECTORY","length":0,"owner":"mapred","group":"hadoop","permission":"1777","accessTime":0,"modificationTime":1563893395614,"blockSize":0,"replication":0}]}}`

func TestParseFileStatus(t *testing.T) {
	st, err := parseFileStatus(strings.NewReader(docFileStatus))
	if err != nil {
		t.Fatal(err)
	}
	fi := st.info("webhdfs://nn:9870/d")
	want := fsys.FileInfo{Path: "webhdfs://nn:9870/d", Dir: true, Modified: time.UnixMilli(1320173277227), Perm: 0o777, Owner: "webuser", Group: "supergroup"}
	if *fi != want {
		t.Fatalf("info = %+v\nwant %+v", *fi, want)
	}
	if !fi.Mode().IsDir() || fi.Name() != "d" {
		t.Fatalf("mode %v name %s", fi.Mode(), fi.Name())
	}
	if _, err := parseFileStatus(strings.NewReader(`{"boolean": true}`)); err == nil {
		t.Fatal("a body without FileStatus parsed")
	}
	if _, err := parseFileStatus(strings.NewReader(`<html>`)); err == nil {
		t.Fatal("HTML parsed")
	}
}

func TestParseFileStatuses(t *testing.T) {
	list, err := parseFileStatuses(strings.NewReader(docFileStatuses))
	if err != nil || len(list) != 2 {
		t.Fatalf("%d entries, %v", len(list), err)
	}
	a, bar := list[0].info("webhdfs://nn:9870/d/a.patch"), list[1].info("webhdfs://nn:9870/d/bar")
	wantA := fsys.FileInfo{Path: "webhdfs://nn:9870/d/a.patch", Length: 24930, Modified: time.UnixMilli(1320171722771), Perm: 0o644,
		BlockSize: 33554432, Replication: 1, Owner: "webuser", Group: "supergroup"}
	if *a != wantA {
		t.Errorf("a.patch = %+v\nwant %+v", *a, wantA)
	}
	if list[0].PathSuffix != "a.patch" || list[1].PathSuffix != "bar" || !bar.Dir || bar.Perm != 0o711 || bar.BlockSize != 0 || bar.Owner != "username" {
		t.Errorf("bar = %+v", *bar)
	}

	file, err := parseFileStatuses(strings.NewReader(docListFile))
	if err != nil || len(file) != 1 || file[0].PathSuffix != "" || file[0].Length != 1366 {
		t.Fatalf("listing of a file = %+v, %v", file, err)
	}

	sticky, err := parseFileStatuses(strings.NewReader(httpfsSticky))
	if err != nil || len(sticky) != 1 {
		t.Fatal(err)
	}
	if fi := sticky[0].info("x"); fi.Perm != 0o777|fs.ModeSticky || !fi.Dir {
		t.Errorf("sticky directory: perm %v", fi.Perm)
	}
	empty, err := parseFileStatuses(strings.NewReader(`{"FileStatuses":{"FileStatus":[]}}`))
	if err != nil || len(empty) != 0 {
		t.Errorf("empty directory = %v, %v", empty, err)
	}
}

func TestParseContentSummary(t *testing.T) {
	n, err := parseContentSummary(strings.NewReader(docContentSummary))
	if err != nil || n != 24930 {
		t.Fatalf("length %d, %v", n, err)
	}
	if _, err := parseContentSummary(strings.NewReader(`{}`)); err == nil {
		t.Fatal("an empty object parsed")
	}
}

func TestParseBoolean(t *testing.T) {
	for body, want := range map[string]bool{`{"boolean": true}`: true, `{"boolean": false}`: false, "": true, "\n": true} {
		if got, err := parseBoolean(strings.NewReader(body)); err != nil || got != want {
			t.Errorf("parseBoolean(%q) = %v, %v", body, got, err)
		}
	}
	for _, body := range []string{`{"other": true}`, `true`, `<html>`} {
		if _, err := parseBoolean(strings.NewReader(body)); err == nil {
			t.Errorf("parseBoolean(%q) succeeded", body)
		}
	}
}

func TestAnswerError(t *testing.T) {
	const store, p = "webhdfs://nn:9870", "webhdfs://nn:9870/foo/a.patch"
	remote := func(exception, class, msg string) string {
		return `{"RemoteException":{"exception":"` + exception + `","javaClassName":"` + class + `","message":"` + msg + `"}}`
	}
	cases := []struct {
		name   string
		status int
		auth   string
		body   string
		is     error
		not    error
		text   string
	}{
		// The four examples of the documentation's Error Responses.
		{"illegal argument", 400, "", remote("IllegalArgumentException", "java.lang.IllegalArgumentException", `Invalid value for webhdfs parameter \"permission\": ...`), nil, fsys.ErrUnavailable, `IllegalArgumentException: Invalid value for webhdfs parameter "permission"`},
		{"security", 401, "", remote("SecurityException", "java.lang.SecurityException", "Failed to obtain user group information: ..."), fs.ErrPermission, fsys.ErrCredentials, "Failed to obtain user group information"},
		{"access control", 403, "", remote("AccessControlException", "org.apache.hadoop.security.AccessControlException", "Permission denied: ..."), fs.ErrPermission, nil, "Permission denied"},
		{"file not found", 404, "", remote("FileNotFoundException", "java.io.FileNotFoundException", "File does not exist: /foo/a.patch"), fs.ErrNotExist, nil, "File does not exist: /foo/a.patch"},
		// What NameNodes answer besides.
		{"exists", 403, "", remote("FileAlreadyExistsException", "org.apache.hadoop.fs.FileAlreadyExistsException", "rename destination /b already exists"), fs.ErrExist, nil, "already exists"},
		{"being created", 403, "", remote("AlreadyBeingCreatedException", "org.apache.hadoop.hdfs.protocol.AlreadyBeingCreatedException", "lease"), fs.ErrExist, nil, ""},
		{"proxy user refused", 403, "", remote("AuthorizationException", "org.apache.hadoop.security.authorize.AuthorizationException", "User: oozie is not allowed to impersonate alice"), fs.ErrPermission, nil, "impersonate"},
		{"standby", 403, "", remote("StandbyException", "org.apache.hadoop.ipc.StandbyException", "Operation category READ is not supported in state standby"), fsys.ErrUnavailable, fs.ErrPermission, "state standby"},
		{"retriable", 403, "", remote("RetriableException", "org.apache.hadoop.ipc.RetriableException", "NameNode still not started"), fsys.ErrUnavailable, nil, store},
		{"safe mode", 403, "", remote("SafeModeException", "org.apache.hadoop.hdfs.server.namenode.SafeModeException", "Name node is in safe mode."), fsys.ErrUnavailable, nil, ""},
		{"class name only", 404, "", `{"RemoteException":{"javaClassName":"java.io.FileNotFoundException","message":"gone"}}`, fs.ErrNotExist, nil, "gone"},
		{"other IOException stays permanent", 403, "", remote("QuotaExceededException", "org.apache.hadoop.hdfs.protocol.QuotaExceededException", "quota exceeded"), nil, fsys.ErrUnavailable, "QuotaExceededException: quota exceeded"},
		{"runtime exception", 500, "", remote("NullPointerException", "java.lang.NullPointerException", ""), fsys.ErrUnavailable, nil, "NullPointerException"},
		// Answers without a RemoteException, from proxies and gateways.
		{"SPNEGO asked", 401, "Negotiate", "<html>Authentication required</html>", fsys.ErrCredentials, nil, "hadoop.security.authentication=kerberos"},
		{"unauthorized", 401, "", "", fsys.ErrCredentials, nil, "HTTP 401"},
		{"forbidden", 403, "", "denied", fs.ErrPermission, nil, "denied"},
		{"not found", 404, "", "<html>Not Found</html>", fs.ErrNotExist, nil, "Not Found"},
		{"throttled", 429, "", "", fsys.ErrUnavailable, nil, "429"},
		{"bad gateway", 502, "", "<html>Bad Gateway</html>", fsys.ErrUnavailable, nil, "Bad Gateway"},
		{"unavailable", 503, "", "", fsys.ErrUnavailable, nil, "503"},
		{"bad request", 400, "", "no op", nil, fsys.ErrUnavailable, "HTTP 400 Bad Request: no op"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := answerError(store, "GETFILESTATUS", p, c.status, c.auth, []byte(c.body))
			if err == nil {
				t.Fatal("no error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%v does not match %v", err, c.is)
			}
			if c.not != nil && errors.Is(err, c.not) {
				t.Errorf("%v matches %v", err, c.not)
			}
			if c.is == fs.ErrNotExist || c.is == fs.ErrExist || c.is == fs.ErrPermission {
				var pe *fs.PathError
				if !errors.As(err, &pe) || pe.Path != p {
					t.Errorf("%#v is not a *fs.PathError naming %s", err, p)
				}
			}
			if !strings.Contains(err.Error(), c.text) {
				t.Errorf("%q does not contain %q", err, c.text)
			}
			if isStandby(err) != (c.name == "standby") {
				t.Errorf("isStandby = %v", isStandby(err))
			}
		})
	}
}
