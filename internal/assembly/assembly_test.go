package assembly

import (
	"context"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/server"
)

func testConfig(t *testing.T) server.Config {
	cfg, err := server.LoadConfig("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg["gozie.data.dir"] = t.TempDir()
	return cfg
}

// TestLocal: gozie run's assembly is a workflow engine on SQLite, with
// no coordinators, cluster or server.
func TestLocal(t *testing.T) {
	sys, err := New(context.Background(), Options{Config: testConfig(t), Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	if sys.Engine == nil || sys.Coordinators != nil || sys.Server != nil || sys.Member != nil || sys.Listener != nil {
		t.Fatalf("local system: %+v", sys)
	}
	if err := sys.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestServerDefaults: a server listens, derives its base URL from the
// port, and refuses a DSN it cannot open.
func TestServerDefaults(t *testing.T) {
	cfg := testConfig(t)
	sys, err := New(context.Background(), Options{Config: cfg, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if sys.Server == nil || sys.Coordinators == nil || !strings.HasSuffix(sys.BaseURL, "/oozie") || cfg["gozie.base.url"] != sys.BaseURL {
		t.Errorf("server system: %+v, base %q", sys, cfg["gozie.base.url"])
	}
	sys.Close()
	cfg = testConfig(t)
	cfg["gozie.db"] = "mysql://x"
	if _, err := New(context.Background(), Options{Config: cfg, Addr: "127.0.0.1:0"}); err == nil || !strings.Contains(err.Error(), "unsupported DSN") {
		t.Errorf("mysql DSN: %v", err)
	}
}
