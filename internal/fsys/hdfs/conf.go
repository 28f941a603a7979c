package hdfs

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2/hadoopconf"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
)

// The configuration keys the backend reads. docs/storage.md lists them
// with examples.
const (
	keyDefaultFS    = "fs.defaultFS"
	keyNameservices = "dfs.nameservices"
	keyHANamenodes  = "dfs.ha.namenodes."        // + <nameservice>
	keyRPCAddress   = "dfs.namenode.rpc-address" // and + ".<nameservice>[.<namenode>]"
	keyAuth         = "hadoop.security.authentication"
	keyNNPrincipal  = "dfs.namenode.kerberos.principal"
	// The server's own Kerberos login, under Oozie's names so that an
	// oozie-site.xml works unchanged.
	keyKeytab    = "oozie.service.HadoopAccessorService.keytab.file"
	keyPrincipal = "oozie.service.HadoopAccessorService.kerberos.principal"
	// Timeouts, under Hadoop's names and with Hadoop's defaults.
	keyConnectTimeout = "ipc.client.connect.timeout" // ms, default 20000
	keyRPCTimeout     = "ipc.client.rpc-timeout.ms"  // ms, default 120000; 0: none
	keySocketTimeout  = "dfs.client.socket-timeout"  // ms, default 60000 (datanodes)
)

// The keys ClientOptionsFromConf of the library reads about datanodes; they
// are handed to it as they are.
var datanodeKeys = []string{"dfs.client.use.datanode.hostname", "dfs.data.transfer.protection", "dfs.encrypt.data.transfer"}

// defaultRPCPort is the NameNode's RPC port when an authority names none.
const defaultRPCPort = "8020"

// LoadConfDir reads core-site.xml then hdfs-site.xml of a Hadoop
// configuration directory (HADOOP_CONF_DIR), the later file overriding the
// earlier unless the earlier marks a property final, as Hadoop loads them.
// ${var} references are expanded against the files and the Java system
// property user.name. A missing file is skipped; dir "" gives an empty
// configuration, a missing dir an error. Errors name the file and line.
func LoadConfDir(dir string) (fsys.MapConfig, error) {
	out := fsys.MapConfig{}
	if dir == "" {
		return out, nil
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("Hadoop configuration directory (HADOOP_CONF_DIR): %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("Hadoop configuration directory (HADOOP_CONF_DIR) %s is not a directory", dir)
	}
	merged := conf.New()
	for _, name := range []string{"core-site.xml", "hdfs-site.xml"} {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c, err := conf.ParseFileBytes(data, p)
		if err != nil {
			return nil, err
		}
		merged.Merge(c)
	}
	merged.SetResolver(conf.MapResolver(map[string]string{"user.name": loginUser()}))
	for k, v := range merged.ExpandedMap() {
		out[k] = v
	}
	return out, nil
}

// LoadConfEnv is LoadConfDir of $HADOOP_CONF_DIR: empty when it is unset.
func LoadConfEnv() (fsys.MapConfig, error) {
	return LoadConfDir(os.Getenv("HADOOP_CONF_DIR"))
}

// settings is what Open makes of the configuration for one store: where
// the NameNodes are and how to authenticate to them.
type settings struct {
	store     string   // hdfs://authority, for errors
	addresses []string // host:port of the NameNodes, in failover order
	kerberos  bool
	spn       string // the NameNode's service principal without realm; _HOST kept
	login     login  // with Kerberos: how the server logs in
	datanode  hadoopconf.HadoopConf
	// Timeouts: dialling a node, a NameNode call, a datanode read or write.
	connectTimeout, rpcTimeout, socketTimeout time.Duration
}

// login says where the server's Kerberos credentials come from: a keytab
// and principal, else a ticket cache.
type login struct {
	keytab, principal string // keytab login when keytab is set
	ccache            string // the ticket cache file otherwise
	krb5conf          string // krb5.conf
}

// environ is what settings read of the process: environment variables and
// the host name, replaced in tests.
type environ struct {
	getenv   func(string) string
	hostname string
	uid      int
}

func osEnviron() environ {
	h, _ := os.Hostname()
	return environ{getenv: os.Getenv, hostname: h, uid: os.Getuid()}
}

// parseSettings reads the settings of the store whose authority is auth
// (lower case, as the namespace hands it; "" for hdfs:///) from c.
func parseSettings(auth string, c fsys.Config, env environ) (*settings, error) {
	s := &settings{store: "hdfs://" + auth, datanode: hadoopconf.HadoopConf{}}
	var err error
	if s.addresses, err = namenodes(auth, c); err != nil {
		return nil, err
	}
	for _, k := range datanodeKeys {
		if v, ok := c.Get(k); ok {
			s.datanode[k] = v
		}
	}
	if s.connectTimeout, err = millis(c, keyConnectTimeout, 20000); err != nil {
		return nil, err
	}
	if s.rpcTimeout, err = millis(c, keyRPCTimeout, 120000); err != nil {
		return nil, err
	}
	if s.socketTimeout, err = millis(c, keySocketTimeout, 60000); err != nil {
		return nil, err
	}
	switch a, _ := c.Get(keyAuth); strings.ToLower(strings.TrimSpace(a)) {
	case "", "simple":
		return s, nil
	case "kerberos":
		s.kerberos = true
	default:
		return nil, fmt.Errorf("%s=%s: gozie knows simple and kerberos", keyAuth, a)
	}
	p, _ := c.Get(keyNNPrincipal)
	if p = strings.TrimSpace(p); p == "" {
		return nil, fmt.Errorf("%w: %s=kerberos needs %s, the NameNode's service principal (e.g. nn/_HOST@EXAMPLE.COM)", fsys.ErrCredentials, keyAuth, keyNNPrincipal)
	}
	// The library substitutes _HOST itself, per NameNode, and wants no realm.
	s.spn, _, _ = strings.Cut(p, "@")
	if s.login, err = parseLogin(c, env); err != nil {
		return nil, err
	}
	return s, nil
}

// millis reads a duration in milliseconds, Hadoop's unit for these keys.
func millis(c fsys.Config, key string, def int64) (time.Duration, error) {
	v, ok := c.Get(key)
	if !ok || strings.TrimSpace(v) == "" {
		return time.Duration(def) * time.Millisecond, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%s: want a number of milliseconds", key, v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// namenodes returns the RPC addresses the authority names: a nameservice's
// NameNodes in the order dfs.ha.namenodes.<ns> lists them, or host:port.
func namenodes(auth string, c fsys.Config) ([]string, error) {
	if auth == "" {
		d, ok := c.Get(keyDefaultFS)
		if !ok || strings.TrimSpace(d) == "" {
			if a, ok := c.Get(keyRPCAddress); ok && strings.TrimSpace(a) != "" {
				return []string{lowerHost(strings.TrimSpace(a))}, nil
			}
			return nil, fmt.Errorf("hdfs:/// names no NameNode: set %s (e.g. hdfs://nn.example.com:8020) or %s", keyDefaultFS, keyRPCAddress)
		}
		u, err := url.Parse(strings.TrimSpace(d))
		if err != nil || u.Scheme != "hdfs" || u.Host == "" {
			return nil, fmt.Errorf("%s=%s is not an hdfs://authority URI", keyDefaultFS, d)
		}
		auth = strings.ToLower(u.Host)
	}
	if ns, ok := nameservice(auth, c); ok {
		return haAddresses(ns, c)
	}
	host, port, err := net.SplitHostPort(auth)
	if err != nil { // no port
		host, port = auth, defaultRPCPort
		if a, ok := c.Get(keyRPCAddress); ok {
			if h, p, err := net.SplitHostPort(strings.TrimSpace(a)); err == nil && strings.EqualFold(h, host) {
				port = p
			}
		}
	}
	return []string{net.JoinHostPort(strings.ToLower(host), port)}, nil
}

// nameservice finds the nameservice the authority names, in the spelling
// of the configuration (the namespace hands authorities in lower case;
// Hadoop's keys keep the case of dfs.nameservices).
func nameservice(auth string, c fsys.Config) (string, bool) {
	if strings.Contains(auth, ":") {
		return "", false // a logical name has no port
	}
	if list, ok := c.Get(keyNameservices); ok {
		for _, ns := range splitList(list) {
			if strings.EqualFold(ns, auth) {
				return ns, true
			}
		}
	}
	if _, ok := c.Get(keyHANamenodes + auth); ok {
		return auth, true
	}
	return "", false
}

// haAddresses returns the RPC addresses of a nameservice's NameNodes.
func haAddresses(ns string, c fsys.Config) ([]string, error) {
	list, ok := c.Get(keyHANamenodes + ns)
	if !ok || len(splitList(list)) == 0 {
		// A federated nameservice without HA has one address.
		if a, ok := c.Get(keyRPCAddress + "." + ns); ok && strings.TrimSpace(a) != "" {
			return []string{lowerHost(strings.TrimSpace(a))}, nil
		}
		return nil, fmt.Errorf("nameservice %s has no NameNodes: set %s%s (e.g. nn1,nn2) and %s.%s.<namenode> for each", ns, keyHANamenodes, ns, keyRPCAddress, ns)
	}
	var out []string
	for _, nn := range splitList(list) {
		key := keyRPCAddress + "." + ns + "." + nn
		a, ok := c.Get(key)
		if !ok || strings.TrimSpace(a) == "" {
			return nil, fmt.Errorf("NameNode %s of nameservice %s has no address: set %s (host:port)", nn, ns, key)
		}
		if _, _, err := net.SplitHostPort(strings.TrimSpace(a)); err != nil {
			return nil, fmt.Errorf("%s=%s: want host:port", key, a)
		}
		out = append(out, lowerHost(strings.TrimSpace(a)))
	}
	return out, nil
}

// lowerHost lower-cases the host of host:port, as Hadoop does before it
// puts a host into a _HOST principal.
func lowerHost(addr string) string {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return strings.ToLower(addr)
	}
	return net.JoinHostPort(strings.ToLower(h), p)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseLogin reads where the server's Kerberos credentials come from.
func parseLogin(c fsys.Config, env environ) (login, error) {
	var l login
	kt, _ := c.Get(keyKeytab)
	pr, _ := c.Get(keyPrincipal)
	kt, pr = strings.TrimSpace(kt), strings.TrimSpace(pr)
	switch {
	case kt != "" && pr == "":
		return l, fmt.Errorf("%w: %s is set but %s is not: set the principal the keytab holds", fsys.ErrCredentials, keyKeytab, keyPrincipal)
	case kt == "" && pr != "":
		return l, fmt.Errorf("%w: %s is set but %s is not: set the keytab file of that principal", fsys.ErrCredentials, keyPrincipal, keyKeytab)
	case kt != "":
		l.keytab, l.principal = kt, hostPrincipal(pr, env.hostname)
	default:
		cc, err := ccachePath(env)
		if err != nil {
			return l, err
		}
		l.ccache = cc
	}
	l.krb5conf = "/etc/krb5.conf"
	if k := env.getenv("KRB5_CONFIG"); k != "" {
		l.krb5conf, _, _ = strings.Cut(k, ":") // MIT allows a list; the first file is read
	}
	return l, nil
}

// hostPrincipal replaces _HOST in a principal's instance by the local host
// name in lower case, as Hadoop's SecurityUtil.getServerPrincipal does.
func hostPrincipal(p, hostname string) string {
	name, realm, hasRealm := strings.Cut(p, "@")
	svc, inst, ok := strings.Cut(name, "/")
	if !ok || inst != "_HOST" {
		return p
	}
	out := svc + "/" + strings.ToLower(hostname)
	if hasRealm {
		out += "@" + realm
	}
	return out
}

// ccachePath returns the ticket cache file: KRB5CCNAME (FILE: caches only),
// else MIT's default /tmp/krb5cc_<uid>.
func ccachePath(env environ) (string, error) {
	cc := env.getenv("KRB5CCNAME")
	if cc == "" {
		return "/tmp/krb5cc_" + strconv.Itoa(env.uid), nil
	}
	if rest, ok := strings.CutPrefix(cc, "FILE:"); ok {
		return rest, nil
	}
	if strings.Contains(cc, ":") && !strings.HasPrefix(cc, "/") {
		return "", fmt.Errorf("%w: KRB5CCNAME=%s: only FILE: ticket caches can be read; use a FILE: cache or set %s and %s", fsys.ErrCredentials, cc, keyKeytab, keyPrincipal)
	}
	return cc, nil
}

// loginUser is who the client acts as when the context names no user and
// the cluster uses simple authentication: HADOOP_USER_NAME, as Hadoop's
// client honours it, else the server's operating-system user.
func loginUser() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "gozie"
}
