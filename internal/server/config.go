package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/kerberos"
	"github.com/gozie/gozie/internal/purge"
	"github.com/gozie/gozie/internal/redact"
)

// ConfigKey is one documented configuration key of gozie-site.xml.
type ConfigKey struct {
	Name    string
	Default string
	Doc     string
}

// ConfigKeys lists every key the server reads, with its default. Each can
// be set in gozie-site.xml, overridden by the environment variable
// EnvName(key), overridden in turn by a command-line flag where one exists.
var ConfigKeys = []ConfigKey{
	{"gozie.http.host", "", "address to listen on (empty: all interfaces)"},
	{"gozie.http.port", "11000", "port to listen on"},
	{"gozie.base.url", "", "public URL of the server including /oozie (default http://<hostname>:<port>/oozie); callback and console URLs start with it"},
	{"gozie.data.dir", "", "data directory: SQLite store, action work directories, auth secret (default $GOZIE_DATA or ~/.gozie)"},
	{"gozie.db", "", "store: empty for SQLite in the data directory, or a postgres://... DSN"},
	{"gozie.db.file", "", "file holding the store DSN, read at start (a regular file of at most 64 KiB), instead of gozie.db: keeps a password off the command line and out of gozie-site.xml"},
	{"gozie.system.id", "", "id segment of job ids (default oozie-<user>, 10 characters at most)"},
	{"gozie.poll.interval.ms", "1000", "how often running actions are checked without a callback"},
	{"gozie.coord.materialization.window.s", "3600", "how far ahead of now coordinator actions are materialized, in seconds"},
	{"gozie.coord.input.check.interval.s", "60", "how often the input dependencies of WAITING coordinator actions are checked, in seconds"},
	{"gozie.coord.batch.size", "10000", "most coordinator actions one materialization run creates"},
	{"gozie.sla.check.interval.s", "30", "how often the SLA tracker decides the SLA events whose deadline came or whose job changed status, in seconds (docs/sla.md)"},
	{"gozie.sla.notification.url", "", "URL fetched (HTTP GET) for every SLA event, with $jobId, $appName, $appType, $eventStatus, $slaStatus, $jobStatus, $nominalTime replaced; empty: none"},
	{"gozie.events.url", "", "message broker the job and SLA events are published to: amqp://user:password@host:5672/vhost (RabbitMQ) or stomp://host:61613; empty: none (docs/events.md)"},
	{"gozie.events.exchange", "amq.topic", "AMQP topic exchange the events are published to (the routing key is the topic)"},
	{"oozie.service.JMSTopicService.topic.name", "default=${username}", "topic of each kind of event, as Oozie's JMSTopicService reads it: WORKFLOW=...,COORDINATOR=...,SLA=...,default=... with ${username} the job's user"},
	{"oozie.service.JMSTopicService.topic.prefix", "", "prefix of every event topic"},
	{"gozie.coord.min.frequency.minutes", "5", "smallest coordinator frequency accepted at submission; negative disables the check"},
	{"gozie.coord.input.check.parallel", "16", "most requests the coordinator input check has in flight to one store (scheme://authority), across all jobs"},
	{"gozie.coord.input.check.timeout.s", "30", "how long one request of the coordinator input check may take before its store counts as unavailable, in seconds"},
	{"gozie.coord.input.check.walk.budget", "10000", "most entries one listing answering a group of done-flags may return before the input check asks for each flag instead; negative: never list"},
	{"gozie.coord.input.check.backoff.max.s", "600", "longest a store that did not answer is left alone by the input check, in seconds (the backoff starts at the input check interval and doubles per failing cycle)"},
	{"gozie.notification.timeout.s", "10", "how long one job/action notification GET may take, in seconds"},
	{"gozie.notification.retries", "3", "how many times a failed notification is sent again; negative: never"},
	{"gozie.notification.retry.interval.s", "60", "wait before the first retry of a notification, doubled for each next one, in seconds"},
	{"gozie.shutdown.timeout.s", "30", "how long a graceful shutdown waits for requests in flight"},
	{"gozie.actions.max.concurrent", "0", "most actions this server runs at a time (sub-workflows not counted); further starts wait with their actions in PREP. 0: no bound"},
	{"gozie.actions.start.settle.ms", "20", "how long a started step may run before its RUNNING state is committed: a step that ends sooner has its start and end committed in one transaction. 0: commit RUNNING at once"},
	{"gozie.server.id", "", "this server's name among several sharing one PostgreSQL store (default <host>:<port>); a server started again under the same id takes its jobs back at once"},
	{"gozie.server.lease.s", "20", "several servers: how long a server's heartbeats may stop before another server takes its jobs over, in seconds"},
	{"gozie.server.spread", "true", "several servers: pass a new submission to a live server with clearly fewer unfinished jobs (false: keep every submission where it arrives)"},
	{"gozie.server.heartbeat.s", "5", "several servers: how often a server renews its lease, in seconds (at most half of gozie.server.lease.s)"},
	{"gozie.server.takeover.hold.s", "60", "several servers: how much longer than the lease to wait before taking over a dead server whose data directory this server cannot see (another host) and which left steps starting or running there, so that restarted meanwhile it takes its jobs back; 0: take it over after the lease"},
	{"gozie.log.level", "info", "level of the server's log lines on stderr (one per request, one per job/action transition): debug (adds the OPTIONS handshakes), info, warn or error; -log-level overrides"},
	{"gozie.authentication.secret", "", "secret the hadoop.auth cookie signing key is derived from; the same on every server behind one load balancer (default: gozie.authentication.secret.file, else <data>/auth-secret, generated once)"},
	{"gozie.authentication.secret.file", "", "file holding the secret the hadoop.auth cookie signing key is derived from: at least 32 bytes, mode 0600 or 0400, the server's or root's; copy it to every server behind one load balancer (default: <data>/auth-secret, generated once)"},
	{"gozie.authentication.token.validity", "36000", "cookie lifetime in seconds"},
	{"gozie.authentication.type", "", "accepted authentication methods, comma list of simple, basic, token, kerberos (default: oozie.authentication.type when set, else basic if a users file is set, token if tokens are, kerberos if a keytab is, simple if none)"},
	{"oozie.authentication.type", "", "Oozie's name for gozie.authentication.type, read when that is blank: simple, kerberos, or hadoop-auth's handler class names (PseudoAuthenticationHandler, KerberosAuthenticationHandler)"},
	{"gozie.authentication.kerberos.principal", "", "HTTP service principal of SPNEGO (HTTP/host@REALM; _HOST is this machine's host name in lower case; * accepts every HTTP/* principal of the keytab); default oozie.authentication.kerberos.principal"},
	{"oozie.authentication.kerberos.principal", "", "Oozie's name for gozie.authentication.kerberos.principal"},
	{"gozie.authentication.kerberos.keytab", "", "keytab holding the HTTP principal's keys (private to the server's user); default oozie.authentication.kerberos.keytab, else oozie.service.HadoopAccessorService.keytab.file as in Oozie"},
	{"oozie.authentication.kerberos.keytab", "", "Oozie's name for gozie.authentication.kerberos.keytab"},
	{"gozie.authentication.kerberos.name.rules", "", "auth_to_local rules mapping Kerberos principals to user names, Hadoop's syntax (RULE:[n:fmt](regex)s/from/to/g/L, DEFAULT); default oozie.authentication.kerberos.name.rules, else DEFAULT"},
	{"oozie.authentication.kerberos.name.rules", "", "Oozie's name for gozie.authentication.kerberos.name.rules"},
	{"gozie.authentication.simple.anonymous.allowed", "", "requests without a user may read (GET); default true when simple is accepted (unless oozie.authentication.simple.anonymous.allowed says otherwise), false otherwise"},
	{"oozie.authentication.simple.anonymous.allowed", "", "Oozie's name for gozie.authentication.simple.anonymous.allowed, read only when simple is accepted (hadoop-auth applies it in its pseudo handler alone)"},
	{"gozie.authentication.anonymous.writes", "false", "requests without a user may also submit and change jobs (with simple off, only if gozie.authentication.simple.anonymous.allowed is true too)"},
	{"gozie.authentication.simple.strict.user", "false", "with simple authentication, refuse submissions without an authenticated user and configurations whose user.name differs from it (default: take user.name from the configuration, replace a different one)"},
	{"gozie.authentication.tokens", "", "static bearer tokens: token=user[,token=user...]"},
	{"gozie.authentication.basic.users.file", "", "file of user:password lines enabling HTTP basic authentication (use with TLS); refused unless private to the server's user (mode 0600)"},
	{"oozie.service.ProxyUserService.proxyuser.<user>.hosts", "", "hosts from which <user> may act for other users (doAs, -doas): * or a comma list of host names, IP addresses and CIDR ranges; needs the .groups key too (docs/security.md)"},
	{"oozie.service.ProxyUserService.proxyuser.<user>.groups", "", "groups whose members <user> may act for: * or a comma list of OS groups of the user acted for; needs the .hosts key too"},
	{"gozie.authorization.enabled", "true", "only a job's owner, its oozie.job.acl users/groups and admins may change it"},
	{"gozie.admin.users", "", "comma list of admin users, besides the OS user running the server"},
	{"gozie.admin.groups", "", "comma list of OS groups whose members are admins"},
	{"gozie.admin.configuration.anonymous.read", "false", "anyone, not only admins, may read admin/configuration, os-env and java-sys-properties"},
	{"gozie.configuration.mask.names", "", "comma list of more secret property names, whose values only a job's owner, its ACL users and groups and admins see: case-insensitive substrings, or globs (* ? [...]) matching the whole name; besides the built-in secret, password, token, credential, ... names"},
	{"gozie.metrics.auth", "false", "/metrics (Prometheus) follows the server's authentication and refuses anonymous requests; false: open to any client that passes the Host check (its series carry no job, user or application names). /health/live and /health/ready are never authenticated (docs/operations.md)"},
	{"gozie.metrics.store.refresh.s", "15", "how long one count of jobs by status and of pending effects in the store serves /metrics scrapes, in seconds; 0: count at every scrape"},
	{"gozie.console.read.only", "false", "the web console (/oozie/console/) shows jobs but no job controls (kill, suspend, resume, rerun), and refuses them"},
	{"gozie.tls.cert", "", "TLS certificate file (PEM); with gozie.tls.key serves HTTPS"},
	{"gozie.tls.key", "", "TLS private key file (PEM)"},
	{"gozie.launch.as.user", "false", "run shell actions as the job's user (the server must run as root; root jobs are refused), and let only a job's owner or an admin change its application or properties on rerun or update; false: every step runs as the server's user"},
	{"gozie.http.max.connections", "1024", "most connections open at once; at the cap the longest idle one is closed to make room (lowered to fit ulimit -n); negative: no cap"},
	{"gozie.http.read.header.timeout.s", "10", "how long a connection may take to send a request's header, the wait for its first byte included"},
	{"gozie.http.read.timeout.s", "120", "how long reading a whole request (body included) may take"},
	{"gozie.http.write.timeout.s", "120", "how long writing a response may take; job logs and action output extend it for every 64 KiB written"},
	{"gozie.http.idle.timeout.s", "60", "how long a keep-alive connection may wait for its next request"},
	{"gozie.http.max.header.bytes", "65536", "largest request line and headers, in bytes (431 above it)"},
	{"gozie.http.allowed.hosts", "", "names, besides IP addresses, localhost, the host's names and the servers' base URL hosts, that requests may carry in their Host header (others are refused with 421, against DNS rebinding): comma list of names and .domains (a domain and every name below it); * allows any Host"},
	{"gozie.definition.max.bytes", "", "largest workflow.xml, coordinator.xml or dataset include file, in bytes (E0736 above it); when blank, oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength, else 100000"},
	{"oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength", "", "Oozie's name for the definition length limit, read when gozie.definition.max.bytes is blank"},
	{"gozie.conf.file.max.bytes", "10485760", "largest config-default.xml or <job-xml> file, in bytes (E0736 above it)"},
	{"gozie.conf.expand.value.max.bytes", "1048576", "largest ${var} expansion of one configuration value, in bytes (E1004 at submission above it)"},
	{"gozie.conf.expand.total.max.bytes", "33554432", "largest sum of the expanded values of one job or action configuration, in bytes (E1004 above it)"},
	{"gozie.fs.mount.<uri-prefix>", "", "mount table: every path under <uri-prefix> (a store URI such as hdfs://localhost:8020/user/me, or an absolute path) is read and written under the value instead (a local directory or another store's URI), as a ViewFs link; the longest matching prefix wins (docs/storage.md)"},
	{"gozie.hadoop.conf.dir", "", "directory of core-site.xml and hdfs-site.xml whose keys (fs.defaultFS, dfs.nameservices, fs.s3a.*, ...) configure the stores; blank: $HADOOP_CONF_DIR, if set. Keys of this file override theirs"},
	{"oozie.actions.default.name-node", "", "name-node of the actions that need one (shell, java, map-reduce, hive, ...) and set none, nor their workflow's <global> (Oozie's key); empty: such a workflow is refused with E0701 \"No name-node defined\""},
	{"oozie.actions.default.job-tracker", "", "job-tracker of the actions that need one and set none (nor <resource-manager>), nor their workflow's <global> (Oozie's key); empty: such a workflow is refused with E0701"},
	{"oozie.credentials.credentialclasses", "", "credential types the workflows' <credentials> may use, as Oozie lists them (type=class,...): when set, only the built-in types it names (hcat, hive2, hbase, filesystem, hdfs, jhs) are offered, the classes are not run; blank: every built-in type (docs/security.md)"},
	{"gozie.credentials.executable.<type>", "", "executable that obtains credentials of a custom <type>: it gets the credential's properties (Java properties) on stdin, GOZIE_CREDENTIAL_NAME, GOZIE_CREDENTIAL_TYPE, GOZIE_JOB_USER, GOZIE_JOB_ID and GOZIE_ACTION_ID in its environment, and prints Java properties that join the action's configuration; a non-zero exit fails the action with E0510"},
	{"gozie.credentials.timeout.s", "60", "how long one credential executable may run, in seconds"},
	{"gozie.action.max.bytes", "2097152", "largest action after EL (its XML, as stored and shown by show=info) and largest coordinator action configuration, in bytes (E1004 above it: the action fails without starting)"},
}

func init() {
	// The purge service's keys, Oozie's PurgeService names.
	for _, k := range purge.Keys {
		ConfigKeys = append(ConfigKeys, ConfigKey{Name: k.Name, Default: k.Default, Doc: k.Doc})
	}
	// The executors' keys (Java, Hadoop, the share library, the tools,
	// the mail server) are declared next to the code that reads them.
	for _, k := range action.SiteKeys() {
		ConfigKeys = append(ConfigKeys, ConfigKey{Name: k.Name, Default: k.Default, Doc: k.Doc})
	}
}

// EnvName is the environment variable overriding a key: GOZIE_ and the
// key without its gozie. prefix, upper-cased, dots as underscores
// (gozie.http.port -> GOZIE_HTTP_PORT).
func EnvName(key string) string {
	return "GOZIE_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(key, "gozie."), ".", "_"))
}

// Config is the server's effective configuration by key.
type Config map[string]string

// alternatives are pairs of keys that give one setting two ways (a value
// or a file holding it). A level of the configuration (site file,
// environment, flags) that sets one of a pair overrides both of a lower
// level; one level setting both is refused as ambiguous.
var alternatives = [][2]string{
	{"gozie.db", "gozie.db.file"},
	{"gozie.authentication.secret", "gozie.authentication.secret.file"},
}

// LoadConfig builds the configuration: defaults, then the keys of site (a
// gozie-site.xml in Hadoop configuration format; "" for none), then the
// environment (getenv). GOZIE_DATA is accepted for gozie.data.dir.
func LoadConfig(site string, getenv func(string) string) (Config, error) {
	c := Config{}
	for _, k := range ConfigKeys {
		c[k.Name] = k.Default
	}
	if site != "" {
		f, err := conf.LoadFile(site)
		if err != nil {
			return nil, err
		}
		for _, p := range f.Properties() {
			v, _ := f.Get(p.Name)
			c[p.Name] = strings.TrimSpace(v)
		}
	}
	if v := getenv("GOZIE_DATA"); v != "" {
		c["gozie.data.dir"] = v
	}
	fromEnv := map[string]bool{}
	for _, k := range ConfigKeys {
		if v := getenv(EnvName(k.Name)); v != "" {
			c[k.Name] = v
			fromEnv[k.Name] = true
		}
	}
	for _, pair := range alternatives {
		a, b := pair[0], pair[1]
		switch {
		case fromEnv[a] && !fromEnv[b]:
			c[b] = ""
		case fromEnv[b] && !fromEnv[a]:
			c[a] = ""
		}
		if c[a] != "" && c[b] != "" {
			return nil, fmt.Errorf("configuration keys %s and %s are both set: set one of them, not both", a, b)
		}
	}
	for _, k := range ConfigKeys {
		if _, err := strconv.Atoi(k.Default); err != nil {
			continue // not a numeric key
		}
		if _, err := strconv.Atoi(strings.TrimSpace(c[k.Name])); err != nil {
			return nil, fmt.Errorf("configuration key %s: %q is not an integer", k.Name, c[k.Name])
		}
	}
	// Integer keys whose default is blank because another key stands in.
	if _, err := c.DefinitionMaxBytes(); err != nil {
		return nil, err
	}
	if c["gozie.data.dir"] == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("no data directory: set gozie.data.dir or GOZIE_DATA (%v)", err)
		}
		c["gozie.data.dir"] = filepath.Join(home, ".gozie")
	}
	return c, nil
}

// maxDSNFile bounds what is read of gozie.db.file.
const maxDSNFile = 64 << 10

// StoreDSN returns the store DSN: gozie.db, or the contents of the file
// gozie.db.file names (a regular file of at most 64 KiB, surrounding
// white space trimmed). warnf is told when that file holds a password
// other users may read.
func (c Config) StoreDSN(warnf func(format string, args ...any)) (string, error) {
	p := c["gozie.db.file"]
	if p == "" {
		return c["gozie.db"], nil
	}
	b, err := fsys.ReadFileLimit(context.Background(), p, maxDSNFile)
	if err != nil {
		return "", fileError("gozie.db.file", p, err)
	}
	dsn := strings.TrimSpace(string(b))
	if dsn == "" {
		return "", fmt.Errorf("gozie.db.file %s: the file is empty; it must hold the store DSN (postgres://...)", p)
	}
	if fi, err := fsys.Stat(context.Background(), p); err == nil && fi.Mode().Perm()&0o077 != 0 && redact.HasPassword(dsn) {
		warnf("gozie: warning: gozie.db.file %s holds a password and its mode %#o lets other users read it; chmod 600 %s", p, fi.Mode().Perm(), p)
	}
	return dsn, nil
}

// DefinitionMaxBytes is the definition length limit:
// gozie.definition.max.bytes when set, else Oozie's
// oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength when set,
// else 100000 bytes (engine.DefinitionMaxBytes).
func (c Config) DefinitionMaxBytes() (int64, error) {
	return engine.DefinitionMaxBytes(func(k string) (string, bool) { v, ok := c[k]; return v, ok })
}

// Bool reads a boolean key; anything but "true" (any case) is false.
func (c Config) Bool(key string) bool { return strings.EqualFold(strings.TrimSpace(c[key]), "true") }

// Int reads an integer key, with def for a blank or malformed value
// (LoadConfig has already refused malformed values of the known keys).
func (c Config) Int(key string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(c[key]))
	if err != nil {
		return def
	}
	return n
}

// List reads a comma list key.
func (c Config) List(key string) []string {
	var out []string
	for _, s := range strings.Split(c[key], ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// AuthFromConfig builds AuthOptions from the configuration, reading the
// basic users file and the cookie secret (see cookieSecret; dataDir holds
// the generated one).
//
// Anonymous requests: with simple authentication accepted, reads follow
// gozie.authentication.simple.anonymous.allowed (default true) and writes
// gozie.authentication.anonymous.writes (default false), as before. With
// simple off, the server was configured for real credentials, so nothing
// is anonymous unless simple.anonymous.allowed is explicitly true; writes
// then need anonymous.writes as well.
func AuthFromConfig(c Config, dataDir string) (AuthOptions, error) {
	a := AuthOptions{
		Authorization:      c.Bool("gozie.authorization.enabled"),
		AdminUsers:         c.List("gozie.admin.users"),
		AdminGroups:        c.List("gozie.admin.groups"),
		AdminInfoAnonymous: c.Bool("gozie.admin.configuration.anonymous.read"),
		StrictSimpleUser:   c.Bool("gozie.authentication.simple.strict.user"),
		ServerUser:         serverUser(),
		Methods:            authMethods(c.alias("gozie.authentication.type", "oozie.authentication.type")),
	}
	a.TokenValidity = secondsOf(c.Int("gozie.authentication.token.validity", 36000))
	secret, err := cookieSecret(c, dataDir)
	if err != nil {
		return a, err
	}
	a.Secret = SigningKey(secret)
	for _, kv := range c.List("gozie.authentication.tokens") {
		tok, u, ok := strings.Cut(kv, "=")
		if !ok || tok == "" || u == "" {
			return a, fmt.Errorf("gozie.authentication.tokens: entry %q is not token=user", kv)
		}
		if a.Tokens == nil {
			a.Tokens = map[string]string{}
		}
		a.Tokens[strings.TrimSpace(tok)] = strings.TrimSpace(u)
	}
	if f := c["gozie.authentication.basic.users.file"]; f != "" {
		// It holds passwords: read only when no other user may read or
		// change it, and within a bound, as the cookie secret file.
		data, err := fsys.ReadPrivateFile(context.Background(), f, maxUsersFile)
		if err != nil {
			return a, fileError("gozie.authentication.basic.users.file", f, err)
		}
		a.BasicUsers = map[string]string{}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			u, p, ok := strings.Cut(line, ":")
			if !ok {
				return a, fmt.Errorf("%s:%d: want user:password", f, i+1)
			}
			a.BasicUsers[u] = p
		}
	}
	if err := kerberosFromConfig(c, &a); err != nil {
		return a, err
	}
	methods, err := resolveMethods(a.Methods, configured{a.BasicUsers != nil, a.Tokens != nil, a.Kerberos != nil})
	if err != nil {
		return a, fmt.Errorf("configuration key gozie.authentication.type: %v", err)
	}
	a.Methods = a.Methods[:0]
	for _, m := range []string{MethodSimple, MethodBasic, MethodToken, MethodKerberos} {
		if methods[m] {
			a.Methods = append(a.Methods, m)
		}
	}
	// Oozie's key is read only with simple on: hadoop-auth applies it in
	// its pseudo handler alone, so an oozie-site.xml copied to a
	// Kerberos-only server does not open reads.
	anon := strings.TrimSpace(c["gozie.authentication.simple.anonymous.allowed"])
	if anon == "" && methods[MethodSimple] {
		anon = strings.TrimSpace(c["oozie.authentication.simple.anonymous.allowed"])
	}
	allowed := strings.EqualFold(anon, "true")
	if methods[MethodSimple] {
		a.AnonymousReads = anon == "" || allowed
		a.AnonymousWrites = c.Bool("gozie.authentication.anonymous.writes")
	} else {
		a.AnonymousReads = allowed
		a.AnonymousWrites = a.AnonymousReads && c.Bool("gozie.authentication.anonymous.writes")
	}
	return a, nil
}

// alias reads a gozie key, or when it is blank the Oozie key of the same
// setting.
func (c Config) alias(key, oozieKey string) string {
	if v := strings.TrimSpace(c[key]); v != "" {
		return v
	}
	return strings.TrimSpace(c[oozieKey])
}

// authMethods splits the authentication type list, reading hadoop-auth's
// handler class names (Oozie's oozie.authentication.type accepts them) as
// the methods they are.
func authMethods(list string) []string {
	var out []string
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		switch {
		case m == "":
			continue
		case strings.HasSuffix(m, ".KerberosAuthenticationHandler"):
			m = MethodKerberos
		case strings.HasSuffix(m, ".PseudoAuthenticationHandler"):
			m = MethodSimple
		}
		out = append(out, m)
	}
	return out
}

// kerberosFromConfig reads the SPNEGO keys: with a keytab (or the type
// naming kerberos) the principal is required and the keytab must be
// private to the server's user, as the basic users file.
func kerberosFromConfig(c Config, a *AuthOptions) error {
	named := slices.ContainsFunc(a.Methods, func(m string) bool { return strings.EqualFold(m, MethodKerberos) })
	keytab := c.alias("gozie.authentication.kerberos.keytab", "oozie.authentication.kerberos.keytab")
	if keytab == "" && named {
		keytab = strings.TrimSpace(c["oozie.service.HadoopAccessorService.keytab.file"])
	}
	if keytab == "" {
		return nil // resolveMethods refuses kerberos named without one
	}
	principal := c.alias("gozie.authentication.kerberos.principal", "oozie.authentication.kerberos.principal")
	if principal == "" {
		return errors.New("configuration key gozie.authentication.kerberos.principal: SPNEGO needs the server's HTTP principal (HTTP/host@REALM, or * for every HTTP/* principal of the keytab)")
	}
	// Its keys let anyone impersonate the server: read only when no other
	// user may read or change it.
	kt, err := fsys.ReadPrivateFile(context.Background(), keytab, maxKeytab)
	if err != nil {
		return fileError("gozie.authentication.kerberos.keytab", keytab, err)
	}
	host, _ := os.Hostname()
	acc, err := kerberos.NewAcceptor(kt, keytab, principal, host, nil)
	if err != nil {
		return fmt.Errorf("configuration keys gozie.authentication.kerberos.keytab and .principal: %v", err)
	}
	realm := kerberos.DefaultRealm(kerberos.Krb5ConfPath(os.Getenv))
	if realm == "" {
		realm = acc.Realm()
	}
	rules, err := kerberos.ParseRules(c.alias("gozie.authentication.kerberos.name.rules", "oozie.authentication.kerberos.name.rules"), realm)
	if err != nil {
		return fmt.Errorf("configuration key gozie.authentication.kerberos.name.rules: %v", err)
	}
	a.Kerberos, a.NameRules = acc, rules
	return nil
}

// serverUser is the name of the OS user running the server, when it is a
// valid user name.
func serverUser() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if !validUserName(name) {
		return ""
	}
	return name
}

func secondsOf(n int) time.Duration { return time.Duration(n) * time.Second }

// maxKeytab bounds what is read of the SPNEGO keytab.
const maxKeytab = 1 << 20

// maxUsersFile bounds the basic users file: a million users fit.
const maxUsersFile = 64 << 20
