package testservers

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/gozie/gozie/internal/fsys"
)

// Azurite's well-known development account and its published key (not a
// secret: every emulator has them).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Azurite is a running Azurite blob service with one container.
type Azurite struct {
	// Endpoint is the account's Blob service URL,
	// http://127.0.0.1:PORT/devstoreaccount1.
	Endpoint string
	// Addr is the host:port the service listens on.
	Addr string
	// Account and Key are the development account and its key.
	Account, Key string
	// Container exists, empty.
	Container string
	// Conf configures gozie's azure backend for the account: the key
	// under both host spellings and the endpoint override.
	Conf fsys.MapConfig

	cmd *exec.Cmd
}

// ABFS returns abfs://<container>@<account>.dfs.core.windows.net + p.
func (a *Azurite) ABFS(p string) string {
	return "abfs://" + a.Container + "@" + a.Account + ".dfs.core.windows.net" + p
}

// WASB returns wasb://<container>@<account>.blob.core.windows.net + p.
func (a *Azurite) WASB(p string) string {
	return "wasb://" + a.Container + "@" + a.Account + ".blob.core.windows.net" + p
}

// StartAzurite runs Azurite's blob service (azurite-blob, from
// .ci/tools.sh) on a free loopback port, with its data in the test's
// temporary directory, until the test ends, and creates container
// "gozie" in it.
func StartAzurite(t testing.TB) *Azurite {
	t.Helper()
	bin := Need(t, "azurite-blob")
	port := FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
		"--location", t.TempDir(), "--skipApiVersionCheck", "--loose", "--silent", "--disableTelemetry")
	Start(t, cmd, addr)
	a := &Azurite{
		Endpoint:  "http://" + addr + "/" + AzuriteAccount,
		Addr:      addr,
		Account:   AzuriteAccount,
		Key:       AzuriteKey,
		Container: "gozie",
		cmd:       cmd,
	}
	a.Conf = fsys.MapConfig{
		"fs.azure.account.key." + a.Account + ".dfs.core.windows.net":  a.Key,
		"fs.azure.account.key." + a.Account + ".blob.core.windows.net": a.Key,
		"gozie.fs.azure.endpoint." + a.Account:                         a.Endpoint,
	}
	if err := a.CreateContainer(a.Container); err != nil {
		t.Fatalf("azurite: creating container %s: %v", a.Container, err)
	}
	return a
}

// ContainerClient returns an SDK client of container name, with the
// account key: tests use it to look at the store behind gozie's back.
func (a *Azurite) ContainerClient(name string) (*container.Client, error) {
	cred, err := container.NewSharedKeyCredential(a.Account, a.Key)
	if err != nil {
		return nil, err
	}
	return container.NewClientWithSharedKeyCredential(a.Endpoint+"/"+name, cred, nil)
}

// ContainerSAS returns a SAS token (without "?") granting read, write,
// delete and list on container name for an hour.
func (a *Azurite) ContainerSAS(name string) (string, error) {
	cc, err := a.ContainerClient(name)
	if err != nil {
		return "", err
	}
	perms := sas.ContainerPermissions{Read: true, Add: true, Create: true, Write: true, Delete: true, List: true}
	u, err := cc.GetSASURL(perms, time.Now().Add(time.Hour), nil)
	if err != nil {
		return "", err
	}
	_, token, _ := strings.Cut(u, "?")
	return token, nil
}

// CreateContainer creates container name.
func (a *Azurite) CreateContainer(name string) error {
	cc, err := a.ContainerClient(name)
	if err != nil {
		return err
	}
	_, err = cc.Create(context.Background(), nil)
	return err
}

// Stop kills the server before the test ends and returns once its port
// refuses connections, so that a test can see a store that is down.
func (a *Azurite) Stop(t testing.TB) {
	t.Helper()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatalf("azurite: kill: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", a.Addr, time.Second)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("azurite: still listening on %s after kill", a.Addr)
		}
		time.Sleep(20 * time.Millisecond) // waiting for the process to go, not for correctness
	}
}
