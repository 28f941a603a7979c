package testservers

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestKDC starts a KDC, adds a user and a service, exports the service's
// keytab and kinits the user: what the Kerberos tests of the server, the
// CLI and the stores build on.
func TestKDC(t *testing.T) {
	kdc := StartKDC(t)
	kdc.AddPrincipal("alice", "alice-pw")
	kdc.AddPrincipal("HTTP/127.0.0.1", "")
	kt := kdc.Keytab("HTTP/127.0.0.1")
	if fi, err := os.Stat(kt); err != nil || fi.Size() == 0 {
		t.Fatalf("keytab %s: %v", kt, err)
	}
	cc := kdc.Kinit(t, "alice", "alice-pw")
	cmd := exec.Command(findKDCProgram("klist"), "-c", "FILE:"+cc)
	cmd.Env = append(os.Environ(), kdc.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "alice@"+kdc.Realm()) || !strings.Contains(string(out), "krbtgt/"+kdc.Realm()) {
		t.Fatalf("klist: %v\n%s", err, out)
	}
}
