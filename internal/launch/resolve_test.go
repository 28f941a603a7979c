package launch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestResolveExecCache follows a PATH search kept for PathCacheTTL: a
// program found is found again with one stat; one installed meanwhile in
// an earlier directory is found once the entry is older than the TTL; one
// removed is searched for again at once.
func TestResolveExecCache(t *testing.T) {
	now := time.Unix(1000, 0)
	cacheNow = func() time.Time { return now }
	t.Cleanup(func() { cacheNow = time.Now })
	work, early, late := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"PATH=" + early + string(filepath.ListSeparator) + late}
	install := func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "prog"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	install(late)
	steps := []struct {
		name    string
		do      func()
		want    string
		wantErr bool
	}{
		{"found in the later directory", func() {}, late, false},
		{"installed earlier in PATH, within the TTL", func() { install(early) }, late, false},
		{"after the TTL", func() { now = now.Add(PathCacheTTL) }, early, false},
		{"removed: searched again", func() { os.Remove(filepath.Join(early, "prog")) }, late, false},
		{"a file of the work directory first", func() { install(work) }, work, false},
		{"gone everywhere", func() {
			for _, d := range []string{work, late} {
				os.Remove(filepath.Join(d, "prog"))
			}
		}, "", true},
	}
	for _, st := range steps {
		st.do()
		got, err := resolveExec(work, "prog", env)
		if (err != nil) != st.wantErr || (!st.wantErr && got != filepath.Join(st.want, "prog")) {
			t.Errorf("%s: resolveExec = %q, %v; want in %q (error %v)", st.name, got, err, st.want, st.wantErr)
		}
	}
}

// TestProgramEnvShared: steps given the same base environment (the
// supervisor's cached one, decoded with spare capacity) each get their
// own additions.
func TestProgramEnvShared(t *testing.T) {
	base := make([]string, 1, 8)
	base[0] = "PATH=/bin"
	a := programEnv(base, &LaunchSpec{Env: []string{"OOZIE_ACTION_CONF_XML=/a/action.xml"}})
	b := programEnv(base, &LaunchSpec{Env: []string{"OOZIE_ACTION_CONF_XML=/b/action.xml"}})
	if a[1] != "OOZIE_ACTION_CONF_XML=/a/action.xml" || b[1] != "OOZIE_ACTION_CONF_XML=/b/action.xml" {
		t.Errorf("environments = %q and %q; each step's own variable lost", a, b)
	}
	if len(base) != 1 || base[:2][1] != "" {
		t.Errorf("base written to: %q", base[:2])
	}
}
