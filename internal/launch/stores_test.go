package launch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/s3"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
	"github.com/gozie/gozie/internal/testservers"
	"github.com/gozie/gozie/internal/vocab"
)

// An application in a bucket: its <file>, <archive>, lib/ jars and an
// oozie.libpath directory are fetched into the working directory, under
// their link names, and the jars reach the class path.
func TestStagingFromAStore(t *testing.T) {
	s3 := testservers.StartS3(t)
	ns, err := fsys.NewNamespace(s3.Conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := fsys.SetDefault(ns)
	t.Cleanup(func() { fsys.SetDefault(old) })
	ctx := context.Background()
	b := "s3a://" + s3.Bucket
	local := t.TempDir()
	launchtest.ZipFile(t, filepath.Join(local, "data.zip"), map[string]string{"inner/x.txt": "unzipped"})
	zip, err := os.ReadFile(filepath.Join(local, "data.zip"))
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string]string{
		b + "/app/scripts/run.sh": "#!/bin/sh\necho ran\n",
		b + "/app/data.zip":       string(zip),
		b + "/app/lib/a.jar":      "jar a",
		b + "/app/lib/notes.txt":  "a library file that is not a jar",
		b + "/extra/b.jar":        "jar b",
	} {
		if err := ns.WriteFile(ctx, p, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	a := &action.Context{
		JobID: "0000001-gozie-W", ActionID: "0000001-gozie-W@sh", Name: "sh", Type: "shell", User: "alice",
		AppPath: b + "/app",
		Element: launchtest.ActionBody(t, `<shell `+launchtest.ShellNS+`><exec>run.sh</exec>`+
			`<file>scripts/run.sh</file><archive>`+b+`/app/data.zip#unz</archive></shell>`),
		Conf:    conf.New(),
		JobConf: conf.FromMap(map[string]string{"oozie.libpath": b + "/extra"}),
	}
	dir := t.TempDir()
	appDir, err := launch.StageFiles(dir, a, "run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if appDir != b+"/app" {
		t.Errorf("application directory %q, want the bucket's", appDir)
	}
	fi, err := os.Stat(filepath.Join(dir, "run.sh"))
	if err != nil || fi.Mode()&0o100 == 0 {
		t.Fatalf("run.sh is not an executable in the work directory: %v %v", fi, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "unz", "inner", "x.txt")); err != nil || string(data) != "unzipped" {
		t.Fatalf("the archive from the bucket was not unpacked under its link name: %q %v", data, err)
	}
	cp, err := launch.AppClassPath(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	var jars []string
	for _, p := range cp[1:] {
		data, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(p, dir) {
			t.Fatalf("class path entry %s is not a fetched local copy: %v", p, err)
		}
		jars = append(jars, filepath.Base(p)+"="+string(data))
	}
	if !slices.Equal(jars, []string{"a.jar=jar a", "b.jar=jar b"}) {
		t.Errorf("class path jars %q, want lib/a.jar then oozie.libpath's b.jar", jars)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || !strings.Contains(string(data), "not a jar") {
		t.Errorf("lib/'s other files are not in the work directory: %v", err)
	}
	// A missing <file> on the store is the job's mistake, not a retry.
	a.Element = launchtest.ActionBody(t, `<shell `+launchtest.ShellNS+`><exec>x</exec><file>nope.sh</file></shell>`)
	_, err = launch.StageFiles(t.TempDir(), a, "x")
	if xe := vocab.Classified(err); xe == nil || xe.Code != launch.CodeFileNotFound || xe.Kind == action.Transient {
		t.Errorf("a missing file in the bucket: %v, want a non-transient %s", err, launch.CodeFileNotFound)
	}
}
