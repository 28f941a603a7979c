package fsys

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/el"
)

// tree creates files (names ending in "/" are directories) under a new
// temporary directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in, prefix, local string
		unsupported, bad  bool
	}{
		{in: "/a/b", local: "/a/b"},
		{in: "rel/b", local: "rel/b"},
		{in: "file:///a/b", prefix: "file://", local: "/a/b"},
		{in: "file:/a/b", prefix: "file:", local: "/a/b"},
		{in: "file://localhost/a", prefix: "file://localhost", local: "/a"},
		{in: "file://", prefix: "file://", local: "/"},
		{in: "file://otherhost/a", bad: true},
		{in: "hdfs://foo:8020/usr/tucu", unsupported: true},
		{in: "s3a://bucket/x", unsupported: true},
		{in: "", bad: true},
	}
	for _, tt := range tests {
		prefix, local, err := split(tt.in)
		switch {
		case tt.unsupported:
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("split(%q) err = %v, want unsupported", tt.in, err)
			}
		case tt.bad:
			if err == nil {
				t.Errorf("split(%q) succeeded, want error", tt.in)
			}
		case err != nil || prefix != tt.prefix || local != tt.local:
			t.Errorf("split(%q) = %q, %q, %v; want %q, %q", tt.in, prefix, local, err, tt.prefix, tt.local)
		}
	}
	if got := Authority("hdfs://foo:8020/usr"); got != "foo:8020" {
		t.Errorf("Authority = %q", got)
	}
	if err := (&UnsupportedError{Scheme: "hdfs", Path: "hdfs://x/y"}).Error(); !strings.Contains(err, "Scheme [hdfs] not supported") {
		t.Errorf("message %q", err)
	}
}

func TestGlob(t *testing.T) {
	root := tree(t, map[string]string{
		"in/a.txt": "a", "in/b.txt": "bb", "in/c.log": "c", "in/.hidden": "",
		"in/sub/d.txt": "d", "2024/01/x": "", "2024/02/x": "", "2025/01/x": "",
		"lit{1}/f": "", "q/a1": "", "q/a2": "", "q/b1": "",
	})
	tests := []struct {
		pattern string
		want    []string
	}{
		{"in/*.txt", []string{"in/a.txt", "in/b.txt"}},
		{"in/?.log", []string{"in/c.log"}},
		{"in/[ab].txt", []string{"in/a.txt", "in/b.txt"}},
		{"in/[^a].txt", []string{"in/b.txt"}},
		{"in/[a-b].*", []string{"in/a.txt", "in/b.txt"}},
		{"in/*", []string{"in/.hidden", "in/a.txt", "in/b.txt", "in/c.log", "in/sub"}},
		{"in/{a,c}.*", []string{"in/a.txt", "in/c.log"}},
		{"{2024/0{1,2},2025/01}/x", []string{"2024/01/x", "2024/02/x", "2025/01/x"}},
		{"*/01/x", []string{"2024/01/x", "2025/01/x"}},
		{"in/*/d.txt", []string{"in/sub/d.txt"}},
		{"q/{a,b}1", []string{"q/a1", "q/b1"}},
		{`lit\{1\}/f`, []string{"lit{1}/f"}},
		{"in/a.txt", []string{"in/a.txt"}},
		{"in/missing", nil},
		{"nothere/*", nil},
		{"in/*.csv", nil},
	}
	for _, tt := range tests {
		got, err := Glob(ctx, filepath.Join(root, tt.pattern))
		if err != nil {
			t.Errorf("Glob(ctx, %q): %v", tt.pattern, err)
			continue
		}
		var rel []string
		for _, g := range got {
			r, _ := filepath.Rel(root, g)
			rel = append(rel, r)
		}
		if !reflect.DeepEqual(rel, tt.want) {
			t.Errorf("Glob(ctx, %q) = %q, want %q", tt.pattern, rel, tt.want)
		}
	}
	// Results keep the URI form of the pattern.
	got, err := Glob(ctx, "file://"+root+"/in/a.*")
	if err != nil || len(got) != 1 || got[0] != "file://"+root+"/in/a.txt" {
		t.Errorf("file:// glob = %q, %v", got, err)
	}
	for _, bad := range []string{"in/{a,b", "in/a}", "in/[a"} {
		if _, err := Glob(ctx, filepath.Join(root, bad)); err == nil {
			t.Errorf("Glob(ctx, %q) succeeded, want error", bad)
		}
	}
	if _, err := Glob(ctx, "hdfs://nn/x/*"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("hdfs glob err = %v", err)
	}
	if _, err := Glob(ctx, root+strings.Repeat("/{a,b,c,d,e,f,g,h,i,j}", 5)); err == nil {
		t.Error("brace bomb accepted")
	}
	if got := GlobBase("/a/b/c*/d"); got != "/a/b" {
		t.Errorf("GlobBase = %q", got)
	}
}

func TestParsePermission(t *testing.T) {
	tests := []struct {
		in   string
		want fs.FileMode
		bad  bool
	}{
		{in: "755", want: 0o755},
		{in: "644", want: 0o644},
		{in: "000", want: 0},
		{in: "1777", want: 0o777 | fs.ModeSticky},
		{in: "-rwxrw-rw-", want: 0o766}, // the spec's example
		{in: "-rwxr-xr-x", want: 0o755},
		{in: "drwxr-x---", want: 0o750},
		{in: "rwxr-xr-x", want: 0o755},
		{in: "rwxrwxrwt", want: 0o777 | fs.ModeSticky},
		{in: "rwxrwxrwT", want: 0o776 | fs.ModeSticky},
		{in: "789", bad: true},
		{in: "75", bad: true},
		{in: "rwxrwxrwz", bad: true},
		{in: "-wrxr-xr-x", bad: true},
		{in: "", bad: true},
	}
	for _, tt := range tests {
		got, err := ParsePermission(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParsePermission(%q) = %v, want error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParsePermission(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestOperations(t *testing.T) {
	root := tree(t, map[string]string{"a/f1": "12345", "a/b/f2": "123", "a/empty/": "", "dst/": "", "file": "xx"})
	p := func(s string) string { return filepath.Join(root, s) }

	if err := MkdirAll(ctx, p("new/x/y")); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(ctx, p("new/x/y")); err != nil {
		t.Errorf("mkdir of existing dir: %v", err)
	}
	if err := MkdirAll(ctx, p("file")); err == nil {
		t.Error("mkdir over a file succeeded")
	}
	if ok, _ := IsDir(ctx, "file://"+p("new/x")); !ok {
		t.Error("IsDir(ctx, new/x) false")
	}
	if ok, _ := Exists(ctx, p("nope")); ok {
		t.Error("Exists(ctx, nope) true")
	}
	if n, err := DirSize(ctx, p("a")); err != nil || n != 8 {
		t.Errorf("DirSize = %d, %v; want 8", n, err)
	}
	if _, err := DirSize(ctx, p("file")); err == nil {
		t.Error("DirSize of a file succeeded")
	}
	if n, err := FileSize(ctx, p("a/f1")); err != nil || n != 5 {
		t.Errorf("FileSize = %d, %v", n, err)
	}
	if n, err := BlockSize(ctx, p("a/f1")); err != nil || n != LocalBlockSize {
		t.Errorf("BlockSize = %d, %v", n, err)
	}
	list, err := List(ctx, p("a"))
	if err != nil || !reflect.DeepEqual(list, []string{p("a/b"), p("a/empty"), p("a/f1")}) {
		t.Errorf("List = %q, %v", list, err)
	}

	// Rename: into an existing directory, to a new name, refusals.
	if got, err := Rename(ctx, p("a/f1"), p("dst")); err != nil || got != p("dst/f1") {
		t.Errorf("Rename into dir = %q, %v", got, err)
	}
	if got, err := Rename(ctx, p("dst/f1"), p("dst/renamed")); err != nil || got != p("dst/renamed") {
		t.Errorf("Rename to new name = %q, %v", got, err)
	}
	if _, err := Rename(ctx, p("a/b/f2"), p("file")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Rename onto file err = %v", err)
	}
	if _, err := Rename(ctx, p("a/b/f2"), p("noparent/x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Rename without parent err = %v", err)
	}
	if _, err := Rename(ctx, p("missing"), p("dst")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Rename of missing err = %v", err)
	}

	// Touchz creates, touches, refuses directories.
	if err := Touchz(ctx, p("t")); err != nil {
		t.Fatal(err)
	}
	if err := Touchz(ctx, p("file")); err != nil {
		t.Errorf("touchz of existing file: %v", err)
	}
	if b, _ := os.ReadFile(p("file")); string(b) != "xx" {
		t.Errorf("touchz changed contents: %q", b)
	}
	if err := Touchz(ctx, p("a")); err == nil {
		t.Error("touchz of a directory succeeded")
	}

	mode, _ := ParsePermission("-rwxrw-rw-")
	if err := Chmod(ctx, p("t"), mode); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p("t")); fi.Mode().Perm() != 0o766 {
		t.Errorf("mode = %v", fi.Mode())
	}
	gid := os.Getgid()
	if err := Chgrp(ctx, p("t"), strconv.Itoa(gid)); err != nil {
		t.Errorf("Chgrp to own group: %v", err)
	}
	if err := Chgrp(ctx, p("t"), "no-such-group-gozie"); err == nil {
		t.Error("Chgrp to unknown group succeeded")
	}

	if err := Delete(ctx, p("a")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Exists(ctx, p("a")); ok {
		t.Error("a still exists")
	}
	if err := Delete(ctx, p("a")); err != nil {
		t.Errorf("delete of missing path: %v", err)
	}
	for _, f := range []func(context.Context, string) error{MkdirAll, Delete, Touchz} {
		if err := f(ctx, "hdfs://nn:8020/x"); !errors.Is(err, ErrUnsupported) {
			t.Errorf("hdfs op err = %v", err)
		}
	}
}

func TestELFunctions(t *testing.T) {
	root := tree(t, map[string]string{"d/f": "12345", "d/sub/g": "1234567", "e/": ""})
	r := el.Basic()
	RegisterELFunctions(r)
	ev := &el.Evaluator{Funcs: r}
	tests := []struct {
		expr string
		want any
	}{
		{"${fs:exists('" + root + "/d/f')}", true},
		{"${fs:exists('file://" + root + "/d/f')}", true},
		{"${fs:exists('" + root + "/d/nope')}", false},
		{"${fs:exists('" + root + "/d/*')}", true},
		{"${fs:exists('" + root + "/d/*.csv')}", false},
		{"${fs:isDir('" + root + "/d')}", true},
		{"${fs:isDir('" + root + "/d/f')}", false},
		{"${fs:isDir('" + root + "/nope')}", false},
		{"${fs:dirSize('" + root + "/d')}", int64(12)},
		{"${fs:dirSize('" + root + "/e')}", int64(0)},
		{"${fs:dirSize('" + root + "/d/f')}", int64(-1)},
		{"${fs:dirSize('" + root + "/nope')}", int64(-1)},
		{"${fs:fileSize('" + root + "/d/f')}", int64(5)},
		{"${fs:fileSize('" + root + "/d')}", int64(-1)},
		{"${fs:fileSize('" + root + "/nope')}", int64(-1)},
		{"${fs:blockSize('" + root + "/d/f')}", LocalBlockSize},
		{"${fs:blockSize('" + root + "/d')}", int64(-1)},
		{"${fs:blockSize('" + root + "/nope')}", int64(-1)},
		{"${fs:fileSize('" + root + "/d/f') gt 4 * KB}", false},
	}
	for _, tt := range tests {
		got, err := ev.Eval(tt.expr)
		if err != nil || got != tt.want {
			t.Errorf("%s = %v (%T), %v; want %v", tt.expr, got, got, err, tt.want)
		}
	}
	for _, expr := range []string{"${fs:exists('hdfs://nn:8020/x')}", "${fs:fileSize('hdfs://nn:8020/x')}", "${fs:isDir('hdfs://nn/x')}"} {
		if _, err := ev.Eval(expr); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s err = %v, want unsupported", expr, err)
		}
	}
}

var ctx = context.Background()
