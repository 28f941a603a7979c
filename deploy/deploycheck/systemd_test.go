package deploycheck

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/server"
)

// unitKeys reads the [Service] settings of a unit file or drop-in: key to
// its values in order (an empty assignment is kept: it resets a list).
func unitKeys(t *testing.T, file string) map[string][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		case section == "Service":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Errorf("%s: %q is not key=value", file, line)
			}
			keys[k] = append(keys[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestSystemdUnitHardening: the unit sets what the hardening of
// docs/operations.md promises, and keeps the launch supervisor across
// restarts; the run-as-user drop-in undoes only what running steps as
// their users needs.
func TestSystemdUnitHardening(t *testing.T) {
	unit := unitKeys(t, filepath.Join(root, "deploy/systemd/gozie.service"))
	for _, c := range []struct{ key, want string }{
		{"User", "gozie"},
		{"StateDirectory", "gozie"},
		{"ProtectSystem", "strict"},
		{"ProtectHome", "yes"},
		{"PrivateTmp", "yes"},
		{"PrivateDevices", "yes"},
		{"NoNewPrivileges", "yes"},
		{"CapabilityBoundingSet", ""},
		{"AmbientCapabilities", ""},
		{"RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6"},
		{"SystemCallFilter", "@system-service"},
		{"SystemCallArchitectures", "native"},
		{"MemoryDenyWriteExecute", "yes"},
		{"RestrictSUIDSGID", "yes"},
		{"RestrictNamespaces", "yes"},
		{"LockPersonality", "yes"},
		{"ProtectKernelTunables", "yes"},
		{"ProtectControlGroups", "yes"},
		// The supervisor outlives a restart on purpose (docs/server.md).
		{"KillMode", "process"},
	} {
		v := unit[c.key]
		if len(v) == 0 || v[len(v)-1] != c.want {
			t.Errorf("gozie.service: %s=%q, want %q", c.key, v, c.want)
		}
	}
	exec := unit["ExecStart"]
	if len(exec) != 1 || !strings.HasPrefix(exec[0], "/usr/local/bin/gozie server ") {
		t.Errorf("gozie.service: ExecStart=%q, want /usr/local/bin/gozie server ...", exec)
	}
	if stop, err := strconv.Atoi(unit["TimeoutStopSec"][0]); err != nil || stop <= 30 {
		t.Errorf("gozie.service: TimeoutStopSec=%q, want more than gozie.shutdown.timeout.s (30)", unit["TimeoutStopSec"])
	}

	dropIn := unitKeys(t, filepath.Join(root, "deploy/systemd/run-as-user.conf"))
	for _, c := range []struct{ key, want string }{
		{"User", "root"},
		{"Environment", "GOZIE_LAUNCH_AS_USER=true"},
		{"StateDirectoryMode", "0755"},
		{"ProtectHome", "read-only"},
		// launch.GroupAlive reads other users' /proc entries.
		{"ProtectProc", "default"},
	} {
		if v := dropIn[c.key]; len(v) == 0 || v[len(v)-1] != c.want {
			t.Errorf("run-as-user.conf: %s=%q, want %q", c.key, v, c.want)
		}
	}
	caps := strings.Fields(dropIn["CapabilityBoundingSet"][0])
	for _, c := range []string{"CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_KILL"} {
		if !strings.Contains(" "+strings.Join(caps, " ")+" ", " "+c+" ") {
			t.Errorf("run-as-user.conf: CapabilityBoundingSet lacks %s: %q", c, caps)
		}
	}
	for _, c := range caps {
		if c == "CAP_SYS_ADMIN" || c == "CAP_NET_ADMIN" {
			t.Errorf("run-as-user.conf grants %s, which running steps as users does not need", c)
		}
	}
	// The drop-in must not give back what it does not need.
	for _, k := range []string{"NoNewPrivileges", "ProtectSystem", "SystemCallFilter", "PrivateTmp"} {
		if _, ok := dropIn[k]; ok {
			t.Errorf("run-as-user.conf changes %s", k)
		}
	}
}

// TestSystemdAnalyzeVerify runs `systemd-analyze verify` on the unit, alone
// and with the run-as-user drop-in, and `systemd-analyze security
// --offline` for its exposure score. verify needs ExecStart's binary to
// exist: a copy of the unit names this test's own executable instead
// (verify checks that the file is executable; it runs nothing). Any line
// verify prints about the unit (an unknown key or value is only a
// warning, exit status 0) fails the test.
func TestSystemdAnalyzeVerify(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("no systemd-analyze on PATH (Debian: package systemd); .ci/run installs it")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "deploy/systemd/gozie.service"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	unit := filepath.Join(dir, "gozie.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(data), "/usr/local/bin/gozie", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	verify := func(what string) {
		out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput()
		if err != nil {
			t.Errorf("systemd-analyze verify (%s): %v\n%s", what, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "gozie.service") || strings.Contains(line, "run-as-user.conf") {
				t.Errorf("systemd-analyze verify (%s): %s", what, line)
			}
		}
		out, err = exec.Command("systemd-analyze", "security", "--offline=yes", "--no-pager", unit).CombinedOutput()
		if err != nil {
			t.Logf("systemd-analyze security --offline (%s): %v (older systemd?)", what, err)
			return
		}
		if m := regexp.MustCompile(`Overall exposure level for gozie.service: ([0-9.]+)`).FindSubmatch(out); m != nil {
			score, _ := strconv.ParseFloat(string(m[1]), 64)
			t.Logf("systemd-analyze security (%s): exposure %.1f (0 is best, 10 unconfined)", what, score)
			if limit := 3.0; score > limit {
				t.Errorf("systemd-analyze security (%s): exposure %.1f, want at most %.1f", what, score, limit)
			}
		}
	}
	verify("gozie.service")
	dropIns := filepath.Join(dir, "gozie.service.d")
	if err := os.Mkdir(dropIns, 0o755); err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(filepath.Join(root, "deploy/systemd/run-as-user.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropIns, "run-as-user.conf"), conf, 0o644); err != nil {
		t.Fatal(err)
	}
	verify("with run-as-user.conf")
}

// TestExampleConfiguration: the example gozie-site.xml and environment
// file of deploy/systemd set only keys the server reads, and load.
func TestExampleConfiguration(t *testing.T) {
	env := knownEnv()
	site := filepath.Join(root, "deploy/systemd/gozie-site.xml")
	checkSiteFile(t, site)
	if _, err := server.LoadConfig(site, func(string) string { return "" }); err != nil {
		t.Errorf("%s: %v", site, err)
	}
	data, err := os.ReadFile(filepath.Join(root, "deploy/systemd/gozie.env"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		// Assignments, commented out or not: #GOZIE_DB=...
		name, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "#"), "=")
		if !ok || strings.ContainsAny(name, " \t") || !strings.HasPrefix(name, "GOZIE_") {
			continue
		}
		n++
		if !env[name] {
			t.Errorf("gozie.env: %s is no key's variable", name)
		}
	}
	if n == 0 {
		t.Error("gozie.env: no GOZIE_ variables")
	}
}
