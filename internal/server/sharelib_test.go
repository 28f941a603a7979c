package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShareLibListAndUpdate is issue 26 point 12: list_sharelib lists the
// libraries under gozie.sharelib.dir (files for lib=), and update_sharelib
// scans again and reports the directory in use: the newest
// lib_<timestamp> of an Oozie share/lib, switching when a newer one is
// installed. Before, the list was always empty and the update refused.
func TestShareLibListAndUpdate(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("lib_20260101000000/pig/pig.jar")
	mk("lib_20260101000000/oozie/oozie-sharelib.jar")
	e := newEnvConfigured(t, map[string]string{"gozie.sharelib.dir": root})
	list := func(query string) []map[string]any {
		t.Helper()
		r := e.do("GET", "/oozie/v2/admin/list_sharelib?user.name=joe"+query, "", "")
		if r.status != http.StatusOK {
			t.Fatalf("list_sharelib%s: %d %s", query, r.status, r.header.Get("oozie-error-message"))
		}
		var v struct {
			ShareLib []map[string]any `json:"sharelib"`
		}
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		return v.ShareLib
	}
	names := func(libs []map[string]any) string {
		var out []string
		for _, l := range libs {
			out = append(out, l["name"].(string))
		}
		return strings.Join(out, ",")
	}
	if got := names(list("")); got != "oozie,pig" {
		t.Errorf("libraries %q, want oozie,pig", got)
	}
	pig := list("&lib=pi.*")
	if len(pig) != 1 || pig[0]["name"] != "pig" {
		t.Fatalf("lib=pi.*: %v", pig)
	}
	files, _ := pig[0]["files"].([]any)
	if len(files) != 1 || files[0] != filepath.Join(root, "lib_20260101000000", "pig", "pig.jar") {
		t.Errorf("files of pig: %v", files)
	}
	if got := list("&lib=pi"); len(got) != 0 {
		t.Errorf("lib=pi matched %v; the whole name must match", got)
	}
	update := func(user string) (int, map[string]any) {
		r := e.do("GET", "/oozie/v2/admin/update_sharelib?allservers=true&user.name="+user, "", "")
		if r.status != http.StatusOK {
			return r.status, nil
		}
		return r.status, r.json(t)["sharelibUpdate"].(map[string]any)
	}
	if status, _ := update("joe"); status != http.StatusUnauthorized {
		t.Errorf("update by a non-admin: %d, want 401", status)
	}
	_, u := update("root")
	first := filepath.Join(root, "lib_20260101000000")
	if u["status"] != "Successful" || u["sharelibDirNew"] != first {
		t.Errorf("first update: %v", u)
	}
	// A newer copy is installed: the update switches to it.
	mk("lib_20260201000000/hive/hive.jar")
	_, u = update("root")
	if u["status"] != "Successful" || u["sharelibDirOld"] != first || u["sharelibDirNew"] != filepath.Join(root, "lib_20260201000000") {
		t.Errorf("second update: %v", u)
	}
	if got := names(list("")); got != "hive" {
		t.Errorf("libraries after the update %q, want hive", got)
	}
}

// TestShareLibUnset: without gozie.sharelib.dir the list is empty and the
// update says why nothing was scanned.
func TestShareLibUnset(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/oozie/v2/admin/list_sharelib?user.name=joe", "", "")
	if r.status != http.StatusOK || strings.TrimSpace(string(r.body)) != `{"sharelib":[]}` {
		t.Errorf("list: %d %s", r.status, r.body)
	}
	r = e.do("GET", "/oozie/v2/admin/update_sharelib?user.name=root", "", "")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "gozie.sharelib.dir is not set") {
		t.Errorf("update: %d %s", r.status, r.body)
	}
}
