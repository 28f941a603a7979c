package gozietest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/gozietest"
)

// TestNewServer: the harness serves the REST API of a started engine.
func TestNewServer(t *testing.T) {
	s := gozietest.NewServer(t, gozietest.Options{})
	res, err := http.Get(s.URL + "/versions")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "2") {
		t.Fatalf("versions: %d %s", res.StatusCode, b)
	}
	if s.Engine == nil || s.Coordinators == nil || s.Store == nil || s.DataDir == "" {
		t.Fatalf("incomplete system: %+v", s.System)
	}
}
