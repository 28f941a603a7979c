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

// TestActionDefaults: Oozie's server defaults of an action's name-node and
// job-tracker reach the workflow engine, on a server and in a local run.
func TestActionDefaults(t *testing.T) {
	for _, local := range []bool{false, true} {
		cfg := testConfig(t)
		cfg["oozie.actions.default.name-node"] = "hdfs://nn:8020"
		cfg["oozie.actions.default.job-tracker"] = "rm:8032"
		o := Options{Config: cfg, Local: local}
		if !local {
			o.Addr = "127.0.0.1:0"
		}
		sys, err := New(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if nn, jt := sys.Engine.ActionDefaults(); nn != "hdfs://nn:8020" || jt != "rm:8032" {
			t.Errorf("local %v: engine defaults %q %q", local, nn, jt)
		}
		sys.Close()
	}
}
