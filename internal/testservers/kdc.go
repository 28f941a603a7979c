package testservers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// KDCRealm is the realm of StartKDC's KDC.
const KDCRealm = "GOZIE.TEST"

// KDC is a real MIT Kerberos KDC (krb5kdc, from Debian's krb5-kdc) on a
// free loopback port, with its database, kdc.conf and a client
// krb5.conf in the test's temporary directory. Principals are added with
// kadmin.local; tickets are obtained with kinit (krb5-user).
type KDC struct {
	t       testing.TB
	realm   string
	dir     string
	port    int
	env     []string
	kadmin  string
	kinit   string
	mu      sync.Mutex
	keytabs int
}

// kdcPrograms are the MIT programs a KDC needs, with the Debian package
// each comes from.
var kdcPrograms = [][2]string{
	{"krb5kdc", "krb5-kdc"},
	{"kdb5_util", "krb5-kdc"},
	{"kadmin.local", "krb5-kdc"},
	{"kinit", "krb5-user"},
}

// findKDCProgram looks for an MIT program on PATH and in /usr/sbin (not
// on a normal user's PATH on Debian).
func findKDCProgram(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	p := filepath.Join("/usr/sbin", name)
	if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// StartKDC starts a KDC for realm KDCRealm that lives until t ends. It
// skips t (fails it under CI=true) when the MIT programs are missing.
func StartKDC(t testing.TB) *KDC {
	t.Helper()
	return StartKDCRealm(t, KDCRealm)
}

// StartKDCRealm is StartKDC for another realm (a second KDC, for
// principals of a realm the server does not trust).
func StartKDCRealm(t testing.TB, realm string) *KDC {
	t.Helper()
	paths := map[string]string{}
	for _, p := range kdcPrograms {
		path := findKDCProgram(p[0])
		if path == "" {
			msg := fmt.Sprintf("%s not found: install MIT Kerberos (apt-get install -y krb5-kdc krb5-admin-server krb5-user; .ci/run does it as root)", p[0])
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		paths[p[0]] = path
	}
	dir := t.TempDir()
	k := &KDC{t: t, realm: realm, dir: dir, port: FreePort(t), kadmin: paths["kadmin.local"], kinit: paths["kinit"]}
	k.env = append(os.Environ(),
		"KRB5_CONFIG="+k.Krb5Conf(),
		"KRB5_KDC_PROFILE="+filepath.Join(dir, "kdc.conf"),
		"KRB5CCNAME=FILE:"+filepath.Join(dir, "unused-ccache"),
		"KRB5RCACHEDIR="+dir,
	)
	if err := k.writeConfigs(); err != nil {
		t.Fatal(err)
	}
	k.run(t, paths["kdb5_util"], "create", "-s", "-r", realm, "-P", "master-password-of-the-test-kdc")
	cmd := exec.Command(paths["krb5kdc"], "-n", "-r", realm, "-P", filepath.Join(dir, "krb5kdc.pid"))
	cmd.Env = k.env
	Start(t, cmd, fmt.Sprintf("127.0.0.1:%d", k.port))
	return k
}

// writeConfigs writes the KDC's kdc.conf and the clients' krb5.conf.
// Clients use TCP only (udp_preference_limit = 1): one port to find free,
// and gokrb5, MIT and Java all speak it.
func (k *KDC) writeConfigs() error {
	kdc := fmt.Sprintf(`[kdcdefaults]
 kdc_ports = %[1]d
 kdc_tcp_ports = %[1]d

[realms]
 %[2]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  kdc_ports = %[1]d
  kdc_tcp_ports = %[1]d
  max_life = 10h
  max_renewable_life = 7d
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }

[logging]
 kdc = FILE:%[3]s/kdc.log
`, k.port, k.realm, k.dir)
	client := fmt.Sprintf(`[libdefaults]
 default_realm = %[2]s
 dns_lookup_realm = false
 dns_lookup_kdc = false
 dns_canonicalize_hostname = false
 rdns = false
 udp_preference_limit = 1
 ticket_lifetime = 10h
 forwardable = true
 default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
 default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
 permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96

[realms]
 %[2]s = {
  kdc = 127.0.0.1:%[1]d
  admin_server = 127.0.0.1:%[1]d
 }

[domain_realm]
 localhost = %[2]s
 127.0.0.1 = %[2]s
`, k.port, k.realm)
	for name, text := range map[string]string{"kdc.conf": kdc, "krb5.conf": client, "kadm5.acl": ""} {
		if err := os.WriteFile(filepath.Join(k.dir, name), []byte(text), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// run runs one MIT program with the KDC's environment, failing t with its
// output when it fails.
func (k *KDC) run(t testing.TB, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = k.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(prog), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Realm is the KDC's realm.
func (k *KDC) Realm() string { return k.realm }

// Addr is the KDC's host:port (TCP and UDP).
func (k *KDC) Addr() string { return fmt.Sprintf("127.0.0.1:%d", k.port) }

// Krb5Conf is the path of a krb5.conf naming this KDC, for KRB5_CONFIG.
func (k *KDC) Krb5Conf() string { return filepath.Join(k.dir, "krb5.conf") }

// Env is the environment a Kerberos client of this KDC needs besides its
// ticket cache: KRB5_CONFIG.
func (k *KDC) Env() []string { return []string{"KRB5_CONFIG=" + k.Krb5Conf()} }

// Log is the KDC's log so far (one line per request: AS_REQ, TGS_REQ,
// with the client, the service asked for, and ISSUE or the error), for a
// test to see which service tickets a client asked for.
func (k *KDC) Log() string {
	b, _ := os.ReadFile(filepath.Join(k.dir, "kdc.log"))
	return string(b)
}

// Qualify adds the realm to a principal name that has none.
func (k *KDC) Qualify(name string) string {
	if strings.Contains(name, "@") {
		return name
	}
	return name + "@" + k.realm
}

// AddPrincipal creates a principal (user or service/host) with a
// password ("" gives it a random key, as a service principal such as
// HTTP/127.0.0.1 has); options are kadmin addprinc options such as
// "-maxlife", "5 seconds". Like Keytab, it fails the test that started
// the KDC when kadmin.local fails, so call it from that test's goroutine.
func (k *KDC) AddPrincipal(name, password string, options ...string) {
	k.t.Helper()
	key := "-randkey"
	if password != "" {
		key = "-pw " + quote(password)
	}
	q := "addprinc " + strings.Join(quoteAll(options), " ") + " " + key + " " + quote(k.Qualify(name))
	k.run(k.t, k.kadmin, "-r", k.realm, "-q", q)
}

// Keytab exports the current keys of principals (without changing them)
// to a new keytab file, mode 0600, and returns its path.
func (k *KDC) Keytab(principals ...string) string {
	t := k.t
	t.Helper()
	k.mu.Lock()
	k.keytabs++
	p := filepath.Join(k.dir, fmt.Sprintf("keytab-%d", k.keytabs))
	k.mu.Unlock()
	for _, name := range principals {
		k.run(t, k.kadmin, "-r", k.realm, "-q", "ktadd -k "+quote(p)+" -norandkey "+quote(k.Qualify(name)))
	}
	return p
}

// Kinit obtains a ticket-granting ticket for principal into a new ticket
// cache and returns the cache's path (for KRB5CCNAME, without the FILE:
// prefix). options are kinit options such as "-l", "10s".
func (k *KDC) Kinit(t testing.TB, principal, password string, options ...string) string {
	t.Helper()
	cc, err := os.CreateTemp(k.dir, "krb5cc-*")
	if err != nil {
		t.Fatal(err)
	}
	cc.Close()
	os.Remove(cc.Name()) // kinit creates it with its own mode
	args := append(append([]string{"-c", "FILE:" + cc.Name()}, options...), k.Qualify(principal))
	cmd := exec.Command(k.kinit, args...)
	cmd.Env = k.env
	cmd.Stdin = strings.NewReader(password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return cc.Name()
}

// quote makes s one word of a kadmin.local query.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// quoteAll quotes every word of ss.
func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}
