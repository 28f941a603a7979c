package azure

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

const (
	key1 = "a2V5LW9uZQ==" // base64 of "key-one"
	key2 = "a2V5LXR3bw==" // base64 of "key-two"
)

// Every key Open reads, per-account and per-container overrides, and the
// messages of missing or unusable credentials.
func TestParseSettings(t *testing.T) {
	type want struct {
		service, key, sas, credKeys, store string
	}
	cases := []struct {
		name string
		uri  string
		conf fsys.MapConfig
		want want
		err  string // a part of the error; "" for none
		cred bool   // the error matches fsys.ErrCredentials
	}{
		{
			name: "abfs with the dfs key",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key.acc.dfs.core.windows.net": key1},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key.acc.dfs.core.windows.net", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "abfs with the blob key",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key.acc.blob.core.windows.net": key2},
			want: want{service: "https://acc.blob.core.windows.net", key: key2, credKeys: "fs.azure.account.key.acc.blob.core.windows.net", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "wasbs with the dfs key",
			uri:  "wasbs://data@acc.blob.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key.acc.dfs.core.windows.net": key1},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key.acc.dfs.core.windows.net", store: "wasbs://data@acc.blob.core.windows.net"},
		},
		{
			name: "the URI's own host spelling wins",
			uri:  "wasb://data@acc.blob.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key.acc.dfs.core.windows.net": key1, "fs.azure.account.key.acc.blob.core.windows.net": key2},
			want: want{service: "https://acc.blob.core.windows.net", key: key2, credKeys: "fs.azure.account.key.acc.blob.core.windows.net", store: "wasb://data@acc.blob.core.windows.net"},
		},
		{
			name: "per-account key over the account-agnostic one",
			uri:  "abfss://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key": key1, "fs.azure.account.key.acc.dfs.core.windows.net": key2},
			want: want{service: "https://acc.blob.core.windows.net", key: key2, credKeys: "fs.azure.account.key.acc.dfs.core.windows.net", store: "abfss://data@acc.dfs.core.windows.net"},
		},
		{
			name: "account-agnostic key",
			uri:  "abfss://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key": key1, "fs.azure.account.key.other.dfs.core.windows.net": key2},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key", store: "abfss://data@acc.dfs.core.windows.net"},
		},
		{
			name: "another cloud's suffix",
			uri:  "abfs://data@acc.dfs.core.chinacloudapi.cn",
			conf: fsys.MapConfig{"fs.azure.account.key.acc.blob.core.chinacloudapi.cn": key1},
			want: want{service: "https://acc.blob.core.chinacloudapi.cn", key: key1, credKeys: "fs.azure.account.key.acc.blob.core.chinacloudapi.cn", store: "abfs://data@acc.dfs.core.chinacloudapi.cn"},
		},
		{
			name: "upper case is lowered",
			uri:  "ABFS://Data@ACC.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key.acc.dfs.core.windows.net": key1},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key.acc.dfs.core.windows.net", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "container SAS when no key",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.sas.data.acc.blob.core.windows.net": "?sv=1&sig=abc", "fs.azure.sas.other.acc.blob.core.windows.net": "sv=2"},
			want: want{service: "https://acc.blob.core.windows.net", sas: "sv=1&sig=abc", credKeys: "fs.azure.sas.data.acc.blob.core.windows.net", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "container SAS under the dfs host",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.sas.data.acc.dfs.core.windows.net": "sv=1"},
			want: want{service: "https://acc.blob.core.windows.net", sas: "sv=1", credKeys: "fs.azure.sas.data.acc.dfs.core.windows.net", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "the key wins over a SAS without an auth type",
			uri:  "wasb://data@acc.blob.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.sas.data.acc.blob.core.windows.net": "sv=1", "fs.azure.account.key.acc.blob.core.windows.net": key1},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key.acc.blob.core.windows.net", store: "wasb://data@acc.blob.core.windows.net"},
		},
		{
			name: "auth type SAS picks the fixed token of the account",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{
				"fs.azure.account.auth.type.acc.dfs.core.windows.net": "SAS",
				"fs.azure.account.key.acc.dfs.core.windows.net":       key1,
				"fs.azure.sas.fixed.token.acc.dfs.core.windows.net":   "sv=3",
				"fs.azure.sas.fixed.token":                            "sv=4",
			},
			want: want{service: "https://acc.blob.core.windows.net", sas: "sv=3", credKeys: "fs.azure.sas.fixed.token.acc.dfs.core.windows.net", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "account-agnostic fixed token",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.auth.type": "sas", "fs.azure.sas.fixed.token": "sv=4"},
			want: want{service: "https://acc.blob.core.windows.net", sas: "sv=4", credKeys: "fs.azure.sas.fixed.token", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "endpoint override",
			uri:  "abfs://data@devstoreaccount1.dfs.core.windows.net",
			conf: fsys.MapConfig{"gozie.fs.azure.endpoint.devstoreaccount1": "http://127.0.0.1:10001/devstoreaccount1/", "fs.azure.account.key": key1},
			want: want{service: "http://127.0.0.1:10001/devstoreaccount1", key: key1, credKeys: "fs.azure.account.key", store: "abfs://data@devstoreaccount1.dfs.core.windows.net"},
		},
		{
			name: "endpoint override for a bare account host",
			uri:  "wasb://data@devstoreaccount1",
			conf: fsys.MapConfig{"gozie.fs.azure.endpoint.devstoreaccount1": "http://localhost:10000/devstoreaccount1", "fs.azure.account.key.devstoreaccount1": key1},
			want: want{service: "http://localhost:10000/devstoreaccount1", key: key1, credKeys: "fs.azure.account.key.devstoreaccount1", store: "wasb://data@devstoreaccount1"},
		},
		{
			name: "emulator by host: its address and development key",
			uri:  "wasb://data@devstoreaccount1.blob.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.storage.emulator.account.name": "devstoreaccount1.blob.core.windows.net"},
			want: want{service: "http://127.0.0.1:10000/devstoreaccount1", key: emulatorKey, credKeys: KeyEmulator, store: "wasb://data@devstoreaccount1.blob.core.windows.net"},
		},
		{
			name: "emulator by account, a configured key and endpoint win",
			uri:  "abfs://data@devstoreaccount1.dfs.core.windows.net",
			conf: fsys.MapConfig{
				"fs.azure.storage.emulator.account.name":                     "devstoreaccount1",
				"fs.azure.account.key.devstoreaccount1.dfs.core.windows.net": key1,
				"gozie.fs.azure.endpoint.devstoreaccount1":                   "http://127.0.0.1:4444/devstoreaccount1",
			},
			want: want{service: "http://127.0.0.1:4444/devstoreaccount1", key: key1, credKeys: "fs.azure.account.key.devstoreaccount1.dfs.core.windows.net", store: "abfs://data@devstoreaccount1.dfs.core.windows.net"},
		},
		{
			name: "the emulator switch names another account",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.storage.emulator.account.name": "devstoreaccount1", "fs.azure.account.key": key1},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "plain HTTP when asked, for abfs",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.always.use.https": "false", "fs.azure.account.key": key1},
			want: want{service: "http://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key", store: "abfs://data@acc.dfs.core.windows.net"},
		},
		{
			name: "never for abfss",
			uri:  "abfss://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.always.use.https": "false", "fs.azure.account.key": key1},
			want: want{service: "https://acc.blob.core.windows.net", key: key1, credKeys: "fs.azure.account.key", store: "abfss://data@acc.dfs.core.windows.net"},
		},
		{
			name: "missing credentials, abfs",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.key.other.dfs.core.windows.net": key1, "fs.azure.sas.data.other.blob.core.windows.net": "sv=1"},
			err:  "set fs.azure.account.key.acc.dfs.core.windows.net (the account key), or a SAS token in fs.azure.sas.data.acc.blob.core.windows.net",
			cred: true,
		},
		{
			name: "missing credentials, wasbs",
			uri:  "wasbs://data@acc.blob.core.windows.net",
			err:  "set fs.azure.account.key.acc.blob.core.windows.net",
			cred: true,
		},
		{
			name: "a key configured but SAS asked for",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.auth.type": "SAS", "fs.azure.account.key": key1},
			err:  "fs.azure.account.auth.type=SAS but no SAS token for container \"data\"",
			cred: true,
		},
		{
			name: "a SAS configured but SharedKey asked for",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.auth.type.acc.dfs.core.windows.net": "SharedKey", "fs.azure.sas.fixed.token": "sv=1"},
			err:  "set fs.azure.account.key.acc.dfs.core.windows.net",
			cred: true,
		},
		{
			name: "OAuth is not supported",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"fs.azure.account.auth.type.acc.dfs.core.windows.net": "OAuth"},
			err:  "fs.azure.account.auth.type.acc.dfs.core.windows.net=OAuth is not supported",
			cred: true,
		},
		{name: "no container", uri: "abfs://acc.dfs.core.windows.net", err: "names no container: use abfs://<container>@<account>.dfs.core.windows.net/path"},
		{name: "no container, wasb", uri: "wasb://acc.blob.core.windows.net", err: "use wasb://<container>@<account>.blob.core.windows.net/path"},
		{name: "a password", uri: "abfs://data:s3cr3t@acc.dfs.core.windows.net", err: "without a password"},
		{name: "a port", uri: "abfs://data@acc.dfs.core.windows.net:443", err: "set gozie.fs.azure.endpoint.<account>"},
		{
			name: "a bare host without endpoint",
			uri:  "abfs://data@acc",
			conf: fsys.MapConfig{"fs.azure.account.key": key1},
			err:  "set gozie.fs.azure.endpoint.acc to the account's Blob service URL",
		},
		{
			name: "a bad endpoint",
			uri:  "abfs://data@acc.dfs.core.windows.net",
			conf: fsys.MapConfig{"gozie.fs.azure.endpoint.acc": "127.0.0.1:10000", "fs.azure.account.key": key1},
			err:  "gozie.fs.azure.endpoint.acc=\"127.0.0.1:10000\" is not an http(s) URL",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.uri)
			if err != nil {
				t.Fatal(err)
			}
			s, err := parseSettings(u, c.conf)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want one containing %q", err, c.err)
				}
				if errors.Is(err, fsys.ErrCredentials) != c.cred {
					t.Fatalf("error = %v: matches ErrCredentials %v, want %v", err, !c.cred, c.cred)
				}
				for _, secret := range []string{key1, key2, "s3cr3t", "sv=1"} {
					if strings.Contains(err.Error(), secret) {
						t.Fatalf("error %v holds a secret", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{service: s.serviceURL, key: s.key, sas: s.sas, credKeys: s.credKeys, store: s.store}
			if got != c.want {
				t.Fatalf("settings = %+v\nwant       %+v", got, c.want)
			}
		})
	}
}

// The tuning keys: defaults, values, and refusals.
func TestTuning(t *testing.T) {
	base := fsys.MapConfig{"fs.azure.account.key": key1}
	u, _ := url.Parse("abfs://data@acc.dfs.core.windows.net")
	s, err := parseSettings(u, base)
	if err != nil {
		t.Fatal(err)
	}
	if s.blockSize != 32<<20 || s.writeSize != 8<<20 || s.listMax != 5000 || s.retries != 3 ||
		s.minBackoff != 800*time.Millisecond || s.maxBackoff != time.Minute || s.connect != 30*time.Second || s.read != 90*time.Second {
		t.Fatalf("defaults: %+v", s)
	}
	set := fsys.MapConfig{
		"fs.azure.account.key":                   key1,
		"fs.azure.block.size":                    "268435456",
		"fs.azure.write.request.size":            "4194304",
		"fs.azure.list.max.results":              "500",
		"fs.azure.io.retry.max.retries":          "0",
		"fs.azure.io.retry.min.backoff.interval": "3000",
		"fs.azure.io.retry.max.backoff.interval": "30000",
		"fs.azure.http.connection.timeout":       "2000",
		"fs.azure.http.read.timeout":             "45000",
	}
	if s, err = parseSettings(u, set); err != nil {
		t.Fatal(err)
	}
	if s.blockSize != 256<<20 || s.writeSize != 4<<20 || s.listMax != 500 || s.retries != 0 ||
		s.minBackoff != 3*time.Second || s.maxBackoff != 30*time.Second || s.connect != 2*time.Second || s.read != 45*time.Second {
		t.Fatalf("set: %+v", s)
	}
	// More than the service gives in a page is the service's maximum.
	if s, err = parseSettings(u, with(base, "fs.azure.list.max.results", "100000")); err != nil || s.listMax != 5000 {
		t.Fatalf("list.max.results=100000: %d, %v", s.listMax, err)
	}
	for _, bad := range [][2]string{
		{"fs.azure.block.size", "32M"},
		{"fs.azure.block.size", "0"},
		{"fs.azure.write.request.size", "10"},
		{"fs.azure.list.max.results", "-1"},
		{"fs.azure.io.retry.max.retries", "many"},
		{"fs.azure.http.read.timeout", "0"},
	} {
		_, err := parseSettings(u, with(base, bad[0], bad[1]))
		if err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%s=%s: error %v, want one naming the key", bad[0], bad[1], err)
		}
	}
}

func with(c fsys.MapConfig, k, v string) fsys.MapConfig {
	out := fsys.MapConfig{k: v}
	for kk, vv := range c {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}

// Open does no I/O (an unreachable endpoint opens fine) and refuses a key
// that is not base64 without printing it.
func TestOpen(t *testing.T) {
	u, _ := url.Parse("abfs://data@acc.dfs.core.windows.net")
	if _, err := Open(t.Context(), u, fsys.MapConfig{"fs.azure.account.key": key1, "gozie.fs.azure.endpoint.acc": "http://192.0.2.1:1/acc"}); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), u, fsys.MapConfig{"fs.azure.account.key.acc.dfs.core.windows.net": "s3cr3t!!"})
	if !errors.Is(err, fsys.ErrCredentials) || !strings.Contains(err.Error(), "fs.azure.account.key.acc.dfs.core.windows.net is not valid base64") || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("a malformed key: %v", err)
	}
	if _, err := Open(t.Context(), u, fsys.MapConfig{"fs.azure.account.key": key1, "fs.azure.block.size": "x"}); err == nil {
		t.Fatal("a bad block size opened")
	}
}
