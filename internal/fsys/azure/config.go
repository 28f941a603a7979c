package azure

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// Configuration keys. Most are hadoop-azure's own names, so that a
// core-site.xml written for Hadoop works unchanged; the endpoint override
// is gozie's.
const (
	// KeyAccountKey + "<account>.<dfs|blob>.<suffix>": the account's
	// shared key (base64). Either host spelling serves both schemes.
	KeyAccountKey = "fs.azure.account.key"
	// KeyAuthType (optionally + ".<account host>"): SharedKey or SAS.
	KeyAuthType = "fs.azure.account.auth.type"
	// KeySAS + "<container>.<account>.blob.<suffix>": a SAS token for one
	// container (wasb's key).
	KeySAS = "fs.azure.sas"
	// KeyFixedSAS (optionally + ".<account host>"): a SAS token for the
	// whole account (abfs's key).
	KeyFixedSAS = "fs.azure.sas.fixed.token"
	// KeyEmulator names the account host (or account) served by a local
	// storage emulator: http://127.0.0.1:10000/<account> and, without a
	// configured key, the emulator's published development key.
	KeyEmulator = "fs.azure.storage.emulator.account.name"
	// KeyEndpoint + "<account>": gozie's own key, the Blob service URL of
	// the account (Azurite: http://127.0.0.1:10000/devstoreaccount1).
	KeyEndpoint = "gozie.fs.azure.endpoint."
	// KeyAlwaysHTTPS: false lets abfs:// and wasb:// use plain HTTP
	// (abfss:// and wasbs:// always use HTTPS).
	KeyAlwaysHTTPS = "fs.azure.always.use.https"
	// KeyBlockSize is the block size Stat reports (BlockSize in EL).
	KeyBlockSize = "fs.azure.block.size"
	// KeyWriteSize is the size of one uploaded block.
	KeyWriteSize = "fs.azure.write.request.size"
	// KeyListMax is the number of entries asked for in one listing page.
	KeyListMax = "fs.azure.list.max.results"
	// KeyRetries is how often a failed request is retried.
	KeyRetries = "fs.azure.io.retry.max.retries"
	// KeyMinBackoff and KeyMaxBackoff bound the delay between retries,
	// in milliseconds.
	KeyMinBackoff = "fs.azure.io.retry.min.backoff.interval"
	KeyMaxBackoff = "fs.azure.io.retry.max.backoff.interval"
	// KeyConnectTimeout bounds opening a connection and KeyReadTimeout
	// waiting for a response's headers, in milliseconds.
	KeyConnectTimeout = "fs.azure.http.connection.timeout"
	KeyReadTimeout    = "fs.azure.http.read.timeout"
)

// Defaults.
const (
	defaultBlockSize = 32 << 20
	defaultWriteSize = 8 << 20
	defaultListMax   = 5000
	defaultRetries   = 3
	defaultConnect   = 30 * time.Second
	defaultRead      = 90 * time.Second

	// emulatorAccount and emulatorKey are the storage emulator's
	// published development account and key (not a secret: every
	// emulator has them).
	emulatorAccount = "devstoreaccount1"
	emulatorKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// settings is what Open reads from the configuration for one store.
type settings struct {
	store      string // scheme://container@host
	container  string
	account    string
	blobHost   string // <account>.blob.<suffix>, "" for a host without one
	dfsHost    string // <account>.dfs.<suffix>
	serviceURL string // the account's Blob service URL, no trailing slash

	key string // shared key; secret, never printed
	sas string // SAS token without "?"; secret, never printed
	// credKeys names the keys that hold the credential in use (or that
	// would), for error messages.
	credKeys string

	blockSize  int64
	writeSize  int64
	listMax    int32
	retries    int32
	minBackoff time.Duration
	maxBackoff time.Duration
	connect    time.Duration
	read       time.Duration
}

// parseSettings reads the settings of the store uri names (scheme and
// authority: container@account.dfs.core.windows.net) from c. It does no
// I/O. Missing credentials are an error matching fsys.ErrCredentials.
func parseSettings(uri *url.URL, c fsys.Config) (*settings, error) {
	scheme, host := strings.ToLower(uri.Scheme), strings.ToLower(uri.Host)
	if uri.User == nil || uri.User.Username() == "" || uri.Hostname() == "" {
		return nil, fmt.Errorf("azure: store [%s://%s] names no container: use %s://<container>@<account>.%s.core.windows.net/path",
			scheme, host, scheme, hostKind(scheme))
	}
	if _, hasPass := uri.User.Password(); hasPass {
		// Not printed: whatever stands there may be a secret.
		return nil, fmt.Errorf("azure: store on host %s: the authority is <container>@<host>, without a password", host)
	}
	s := &settings{container: strings.ToLower(uri.User.Username())}
	s.store = scheme + "://" + s.container + "@" + host
	if uri.Port() != "" {
		return nil, fmt.Errorf("azure: store [%s]: the host takes no port; set %s<account> to reach another endpoint", s.store, KeyEndpoint)
	}
	s.account, s.blobHost, s.dfsHost = splitHost(host)

	if err := s.readEndpoint(scheme, host, c); err != nil {
		return nil, err
	}
	if err := s.readCredentials(host, c); err != nil {
		return nil, err
	}
	return s, s.readTuning(c)
}

// hostKind is the service label of scheme's host: dfs for abfs, blob for
// wasb.
func hostKind(scheme string) string {
	if strings.HasPrefix(strings.ToLower(scheme), "abfs") {
		return "dfs"
	}
	return "blob"
}

// splitHost splits <account>.<dfs|blob>.<suffix> into the account and
// both spellings of the host. A host without a service label (a bare
// account name, for an emulator or an endpoint override) is its own
// account, with no host spellings.
func splitHost(host string) (account, blobHost, dfsHost string) {
	account, rest, ok := strings.Cut(host, ".")
	if !ok {
		return host, "", ""
	}
	label, suffix, _ := strings.Cut(rest, ".")
	if (label != "dfs" && label != "blob") || suffix == "" {
		return account, host, host
	}
	return account, account + ".blob." + suffix, account + ".dfs." + suffix
}

// hosts returns the host spellings to look keys up under, the URI's own
// first.
func (s *settings) hosts(host string) []string {
	out := []string{host}
	for _, h := range []string{s.dfsHost, s.blobHost} {
		if h != "" && h != host {
			out = append(out, h)
		}
	}
	return out
}

// readEndpoint sets serviceURL: gozie's override, else the emulator's
// address, else the public service of the host.
func (s *settings) readEndpoint(scheme, host string, c fsys.Config) error {
	if v, ok := get(c, KeyEndpoint+s.account); ok {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("azure: %s%s=%q is not an http(s) URL", KeyEndpoint, s.account, v)
		}
		s.serviceURL = strings.TrimSuffix(v, "/")
		return nil
	}
	if s.emulated(host, c) {
		s.serviceURL = "http://127.0.0.1:10000/" + s.account
		return nil
	}
	if s.blobHost == "" {
		return fmt.Errorf("azure: store [%s]: host %q is not <account>.dfs.<suffix> or <account>.blob.<suffix>; set %s%s to the account's Blob service URL",
			s.store, host, KeyEndpoint, s.account)
	}
	proto := "https"
	if v, ok := get(c, KeyAlwaysHTTPS); ok && strings.EqualFold(v, "false") && (scheme == "abfs" || scheme == "wasb") {
		proto = "http"
	}
	s.serviceURL = proto + "://" + s.blobHost
	return nil
}

// emulated reports whether KeyEmulator names this account.
func (s *settings) emulated(host string, c fsys.Config) bool {
	v, ok := get(c, KeyEmulator)
	if !ok {
		return false
	}
	v = strings.ToLower(v)
	return v == s.account || v == host || v == s.blobHost || v == s.dfsHost
}

// readCredentials picks the shared key or a SAS token, as
// KeyAuthType says or, unset, whichever is configured (the key first, as
// wasb does).
func (s *settings) readCredentials(host string, c fsys.Config) error {
	hosts := s.hosts(host)
	auth, authKey := "SharedKey", ""
	for _, k := range append(suffixed(KeyAuthType, hosts), KeyAuthType) {
		if v, ok := get(c, k); ok {
			auth, authKey = v, k
			break
		}
	}
	keyNames := suffixed(KeyAccountKey, hosts)
	// wasb's per-container key is spelled with the blob host; the dfs
	// spelling is accepted too.
	var sasNames []string
	for _, h := range []string{s.blobHost, s.dfsHost, host} {
		if n := KeySAS + "." + s.container + "." + h; h != "" && !slices.Contains(sasNames, n) {
			sasNames = append(sasNames, n)
		}
	}
	sasNames = append(append(sasNames, suffixed(KeyFixedSAS, hosts)...), KeyFixedSAS)
	switch strings.ToLower(auth) {
	case "sharedkey":
		for _, k := range append(keyNames, KeyAccountKey) {
			if v, ok := get(c, k); ok {
				s.key, s.credKeys = v, k
				return nil
			}
		}
		if s.emulated(host, c) {
			s.key, s.credKeys = emulatorKey, KeyEmulator
			return nil
		}
		if authKey == "" && s.readSAS(sasNames, c) {
			return nil
		}
	case "sas":
		if s.readSAS(sasNames, c) {
			return nil
		}
		return fmt.Errorf("%w: %s=SAS but no SAS token for container %q of Azure account %q: set %s (or %s.%s)",
			fsys.ErrCredentials, authKey, s.container, s.account, sasNames[0], KeyFixedSAS, host)
	default:
		return fmt.Errorf("%w: %s=%s is not supported: gozie authenticates to Azure with SharedKey or SAS",
			fsys.ErrCredentials, authKey, auth)
	}
	return fmt.Errorf("%w: no credentials for Azure account %q: set %s (the account key), or a SAS token in %s",
		fsys.ErrCredentials, s.account, keyNames[0], sasNames[0])
}

// readSAS takes the first SAS token set under names.
func (s *settings) readSAS(names []string, c fsys.Config) bool {
	for _, k := range names {
		if v, ok := get(c, k); ok {
			s.sas, s.credKeys = strings.TrimPrefix(v, "?"), k
			return true
		}
	}
	return false
}

// readTuning reads block sizes, page size, retries and timeouts.
func (s *settings) readTuning(c fsys.Config) error {
	var err error
	num := func(key string, def, min int64) int64 {
		v, ok := get(c, key)
		if !ok || err != nil {
			return def
		}
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || n < min {
			err = fmt.Errorf("azure: %s=%q is not a whole number of at least %d", key, v, min)
			return def
		}
		return n
	}
	ms := func(key string, def time.Duration) time.Duration {
		return time.Duration(num(key, int64(def/time.Millisecond), 1)) * time.Millisecond
	}
	s.blockSize = num(KeyBlockSize, defaultBlockSize, 1)
	s.writeSize = num(KeyWriteSize, defaultWriteSize, 1<<10)
	s.listMax = int32(min(num(KeyListMax, defaultListMax, 1), defaultListMax))
	s.retries = int32(min(num(KeyRetries, defaultRetries, 0), 100))
	s.minBackoff = ms(KeyMinBackoff, 800*time.Millisecond)
	s.maxBackoff = ms(KeyMaxBackoff, 60*time.Second)
	s.connect = ms(KeyConnectTimeout, defaultConnect)
	s.read = ms(KeyReadTimeout, defaultRead)
	return err
}

// suffixed returns prefix + "." + h for each host h.
func suffixed(prefix string, hosts []string) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, prefix+"."+h)
	}
	return out
}

// get returns the trimmed value of key, absent when empty.
func get(c fsys.Config, key string) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.Get(key)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}
