package testservers

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// S3Server is an S3 server started for one test: versitygw with its POSIX
// backend, every directory of Dir being a bucket.
type S3Server struct {
	// Endpoint is the server's URL (plain HTTP on loopback).
	Endpoint string
	// AccessKey and SecretKey are the root account's credentials (the
	// secret is random for each server).
	AccessKey, SecretKey string
	// Region is the region the server signs for.
	Region string
	// Bucket exists and is empty.
	Bucket string
	// Dir holds the buckets.
	Dir string
	// Conf sets the fs.s3a.* keys that reach the server: endpoint,
	// region, path-style access, access and secret key.
	Conf fsys.MapConfig

	cmd  *exec.Cmd
	addr string
}

// StartS3 starts versitygw (on PATH: .ci/tools.sh installs it) for the
// test, on a free loopback port, with a bucket "gozie-test"; it is
// stopped when the test ends.
func StartS3(t testing.TB) *S3Server {
	t.Helper()
	bin := Need(t, "versitygw")
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	s := &S3Server{
		AccessKey: "gozietest",
		SecretKey: hex.EncodeToString(secret),
		Region:    "us-east-1",
		Bucket:    "gozie-test",
		Dir:       filepath.Join(t.TempDir(), "s3"),
	}
	s.addr = "127.0.0.1:" + strconv.Itoa(FreePort(t))
	s.Endpoint = "http://" + s.addr
	s.AddBucket(t, s.Bucket)
	// The keys go through the environment, not the command line, where
	// any process could read them.
	s.cmd = exec.Command(bin, "--port", s.addr, "--region", s.Region, "--quiet", "posix", s.Dir)
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.SecretKey)
	Start(t, s.cmd, s.addr)
	s.Conf = fsys.MapConfig{
		"fs.s3a.endpoint":          s.Endpoint,
		"fs.s3a.endpoint.region":   s.Region,
		"fs.s3a.path.style.access": "true",
		"fs.s3a.access.key":        s.AccessKey,
		"fs.s3a.secret.key":        s.SecretKey,
	}
	return s
}

// AddBucket creates another bucket (a directory of Dir, which is how the
// POSIX backend keeps buckets).
func (s *S3Server) AddBucket(t testing.TB, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(s.Dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Stop kills the server and returns once its port refuses connections:
// what a store that went away looks like to its clients.
func (s *S3Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatalf("stopping versitygw: %v", err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("versitygw still listens on %s a minute after being killed", s.addr)
		}
		time.Sleep(20 * time.Millisecond) // polling for the exit, not timing a result
	}
}

// String names the server in test logs.
func (s *S3Server) String() string {
	return fmt.Sprintf("versitygw at %s (bucket %s)", s.Endpoint, s.Bucket)
}
