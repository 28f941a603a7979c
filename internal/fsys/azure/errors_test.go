package azure_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/azure"
	"github.com/gozie/gozie/internal/testservers"
)

// noSecret fails t when err's message holds secret.
func noSecret(t *testing.T, err error, secret string) {
	t.Helper()
	if err != nil && secret != "" && strings.Contains(err.Error(), secret) {
		t.Fatalf("the error message holds a secret: %v", err)
	}
}

// Refused and missing credentials, against the real server: a wrong key
// and a forged SAS are refused (Azurite answers 403 AuthorizationFailure:
// the error matches both fs.ErrPermission and fsys.ErrCredentials and
// names the key to check); a missing or malformed key is
// fsys.ErrCredentials on every operation. No message holds a secret.
func TestCredentialErrors(t *testing.T) {
	a := testservers.StartAzurite(t)
	ctx := context.Background()
	keyName := "fs.azure.account.key." + a.Account + ".dfs.core.windows.net"
	p := a.ABFS("/secret/f")
	if _, err := fsys.Stat(ctx, p); !errors.Is(err, fsys.ErrCredentials) {
		t.Fatalf("the default namespace without settings = %v, want ErrCredentials", err)
	}
	if err := namespace(t, a.Conf).WriteFile(ctx, p, []byte("x")); err != nil {
		t.Fatal(err)
	}

	wrongKey := base64.StdEncoding.EncodeToString([]byte("a wrong key, well formed, 32 bytes!"))
	token, err := a.ContainerSAS(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(token, "sig=", "sig=AAAA", 1)
	cases := []struct {
		name   string
		conf   fsys.MapConfig
		secret string
		perm   bool   // fs.ErrPermission too
		names  string // a key the message names
	}{
		{"wrong key", fsys.MapConfig{keyName: wrongKey, azure.KeyEndpoint + a.Account: a.Endpoint}, wrongKey, true, keyName},
		{"forged SAS", fsys.MapConfig{
			azure.KeySAS + "." + a.Container + "." + a.Account + ".blob.core.windows.net": forged,
			azure.KeyEndpoint + a.Account: a.Endpoint,
		}, forged[strings.Index(forged, "sig="):], true, azure.KeySAS + "." + a.Container},
		{"missing key", fsys.MapConfig{azure.KeyEndpoint + a.Account: a.Endpoint}, "", false, keyName},
		{"malformed key", fsys.MapConfig{keyName: "not base64 at all: s3cr3t!", azure.KeyEndpoint + a.Account: a.Endpoint}, "s3cr3t", false, keyName},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t, c.conf)
			ops := map[string]func() error{
				"stat":   func() error { _, err := ns.Stat(ctx, p); return err },
				"list":   func() error { _, err := ns.List(ctx, a.ABFS("/secret")); return err },
				"read":   func() error { _, err := ns.ReadFileLimit(ctx, p, 0); return err },
				"write":  func() error { return ns.WriteFile(ctx, a.ABFS("/secret/g"), []byte("y")) },
				"delete": func() error { return ns.Delete(ctx, p) },
			}
			for op, f := range ops {
				err := f()
				if !errors.Is(err, fsys.ErrCredentials) {
					t.Fatalf("%s = %v, want fsys.ErrCredentials", op, err)
				}
				if c.perm && !errors.Is(err, fs.ErrPermission) {
					t.Fatalf("%s = %v, want fs.ErrPermission too", op, err)
				}
				if errors.Is(err, fsys.ErrUnavailable) || errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s = %v: a refusal is neither unavailable nor missing", op, err)
				}
				if !strings.Contains(err.Error(), c.names) {
					t.Fatalf("%s = %v, want the message to name %s", op, err, c.names)
				}
				noSecret(t, err, c.secret)
			}
		})
	}
	// Nothing was changed by the refused calls.
	if b, err := namespace(t, a.Conf).ReadFileLimit(ctx, p, 0); err != nil || string(b) != "x" {
		t.Fatalf("after refused calls: %q, %v", b, err)
	}
}

// A store that stops answering is fsys.ErrUnavailable (transient) for
// every operation, not a missing path; the server is killed for real.
func TestStoppedServer(t *testing.T) {
	a := testservers.StartAzurite(t)
	ctx := context.Background()
	token, err := a.ContainerSAS(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	sasConf := fsys.MapConfig{
		azure.KeySAS + "." + a.Container + "." + a.Account + ".blob.core.windows.net": token,
		azure.KeyEndpoint + a.Account: a.Endpoint,
		azure.KeyRetries:              "0",
	}
	keyNS := namespace(t, with(a.Conf, azure.KeyRetries, "0"))
	sasNS := namespace(t, sasConf)
	if err := keyNS.WriteFile(ctx, a.ABFS("/d/f"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := sasNS.Stat(ctx, a.ABFS("/d/f")); err != nil {
		t.Fatal(err)
	}
	a.Stop(t)
	for name, ns := range map[string]*fsys.Namespace{"key": keyNS, "sas": sasNS} {
		ops := map[string]func() error{
			"stat":    func() error { _, err := ns.Stat(ctx, a.ABFS("/d/f")); return err },
			"exists":  func() error { _, err := ns.Exists(ctx, a.ABFS("/d/f")); return err },
			"list":    func() error { _, err := ns.List(ctx, a.ABFS("/d")); return err },
			"read":    func() error { _, err := ns.ReadFileLimit(ctx, a.ABFS("/d/f"), 0); return err },
			"write":   func() error { return ns.WriteFile(ctx, a.ABFS("/d/g"), []byte("y")) },
			"mkdir":   func() error { return ns.MkdirAll(ctx, a.ABFS("/d/e")) },
			"touchz":  func() error { return ns.Touchz(ctx, a.ABFS("/d/f")) },
			"delete":  func() error { return ns.Delete(ctx, a.ABFS("/d")) },
			"rename":  func() error { _, err := ns.Rename(ctx, a.ABFS("/d"), a.ABFS("/e")); return err },
			"dirsize": func() error { _, err := ns.DirSize(ctx, a.ABFS("/d")); return err },
		}
		for op, f := range ops {
			err := f()
			var ue *fsys.UnavailableError
			if !errors.Is(err, fsys.ErrUnavailable) || !errors.As(err, &ue) || errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s %s on a stopped server = %v, want fsys.ErrUnavailable", name, op, err)
			}
			if want := "abfs://" + a.Container + "@" + a.Account + ".dfs.core.windows.net"; ue.Store != want {
				t.Fatalf("%s %s: Store = %q, want %q", name, op, ue.Store, want)
			}
			if name == "sas" {
				noSecret(t, err, token[strings.Index(token, "sig="):])
			}
		}
	}
}
