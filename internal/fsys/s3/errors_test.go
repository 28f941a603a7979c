package s3_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/s3"
	"github.com/gozie/gozie/internal/testservers"
)

// op is one namespace operation on p, for the error tests.
type op struct {
	name string
	do   func(ns *fsys.Namespace, p string) error
}

var ops = []op{
	{"stat", func(ns *fsys.Namespace, p string) error { _, err := ns.Stat(ctx, p); return err }},
	{"list", func(ns *fsys.Namespace, p string) error { _, err := ns.List(ctx, p); return err }},
	{"write", func(ns *fsys.Namespace, p string) error { return ns.WriteFile(ctx, p, []byte("x")) }},
	{"read", func(ns *fsys.Namespace, p string) error { _, err := ns.ReadFileLimit(ctx, p, 0); return err }},
	{"mkdir", func(ns *fsys.Namespace, p string) error { return ns.MkdirAll(ctx, p) }},
	{"delete", func(ns *fsys.Namespace, p string) error { return ns.Delete(ctx, p) }},
	{"rename", func(ns *fsys.Namespace, p string) error { _, err := ns.Rename(ctx, p, p+"-moved"); return err }},
	{"dirsize", func(ns *fsys.Namespace, p string) error { _, err := ns.DirSize(ctx, p); return err }},
	{"walk", func(ns *fsys.Namespace, p string) error {
		r, err := ns.Resolve(ctx, p)
		if err != nil {
			return err
		}
		return r.FS.(fsys.Walker).Walk(ctx, r.Path, func(*fsys.FileInfo) error { return nil })
	}},
}

// noSecrets fails t when err's message holds one of secrets.
func noSecrets(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(strings.ToLower(err.Error()), strings.ToLower(s)) {
			t.Fatalf("a secret is in the error message: %v", err)
		}
	}
}

// A wrong secret key or an unknown access key is refused by the store
// with SignatureDoesNotMatch or InvalidAccessKeyId: every operation then
// fails with an error matching fsys.ErrCredentials (the credentials are
// at fault, which a caller must not take for a missing path) and
// fs.ErrPermission (the store said no), naming the keys to check. A
// HEAD's 403 has no body to tell which refusal it was, so the backend
// asks again with a listing, which has.
func TestRefusedCredentials(t *testing.T) {
	srv := testservers.StartS3(t)
	good := namespace(t, srv.Conf)
	p := "s3a://" + srv.Bucket + "/refused/f"
	write(t, good, p, "data")
	cases := []struct {
		name, key, value, names string
	}{
		{"wrong secret", "fs.s3a.secret.key", "not-the-secret-" + srv.SecretKey[:4], "fs.s3a.access.key and fs.s3a.secret.key"},
		{"unknown access key", "fs.s3a.access.key", "nobody", "fs.s3a.access.key and fs.s3a.secret.key"},
		{"wrong per-bucket secret", "fs.s3a.bucket." + srv.Bucket + ".secret.key", "wrong-for-this-bucket",
			"fs.s3a.access.key and fs.s3a.bucket." + srv.Bucket + ".secret.key"},
	}
	for _, c := range cases {
		ns := namespace(t, srv.Conf, c.key, c.value)
		for _, o := range ops {
			err := o.do(ns, p)
			if !errors.Is(err, fsys.ErrCredentials) || !errors.Is(err, fs.ErrPermission) {
				t.Fatalf("%s: %s = %v, want fsys.ErrCredentials and fs.ErrPermission", c.name, o.name, err)
			}
			if !strings.Contains(err.Error(), c.names) {
				t.Fatalf("%s: %s = %v, want the keys %s named", c.name, o.name, err, c.names)
			}
			noSecrets(t, err, c.value, srv.SecretKey)
		}
	}
	if read(t, good, p) != "data" {
		t.Fatal("the object changed")
	}
}

// A store that does not answer (here: killed) makes every operation fail
// with fsys.ErrUnavailable naming the store; fs.s3a.attempts.maximum is
// the number of retries. Making a backend does not reach the store.
func TestStoppedServer(t *testing.T) {
	srv := testservers.StartS3(t)
	p := "s3a://" + srv.Bucket + "/outage/f"
	write(t, namespace(t, srv.Conf), p, "before")
	srv.Stop(t)
	ns := namespace(t, srv.Conf, "fs.s3a.attempts.maximum", "0")
	if _, err := ns.Resolve(ctx, p); err != nil {
		t.Fatalf("making the backend of a stopped store: %v", err)
	}
	for _, o := range ops {
		err := o.do(ns, p)
		var ue *fsys.UnavailableError
		if !errors.Is(err, fsys.ErrUnavailable) || !errors.As(err, &ue) || ue.Store != "s3a://"+srv.Bucket {
			t.Fatalf("%s on a stopped store = %v, want fsys.ErrUnavailable for s3a://%s", o.name, err, srv.Bucket)
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsys.ErrCredentials) {
			t.Fatalf("%s on a stopped store = %v: not a missing path or credentials", o.name, err)
		}
		noSecrets(t, err, srv.SecretKey)
	}
	for _, retries := range []int{0, 1} {
		ns := namespace(t, srv.Conf, "fs.s3a.attempts.maximum", strconv.Itoa(retries))
		before := s3.Requests()
		if _, err := ns.Stat(ctx, p); !errors.Is(err, fsys.ErrUnavailable) {
			t.Fatal(err)
		}
		if n := s3.Requests().Sub(before)["HeadObject"]; n != int64(retries+1) {
			t.Fatalf("fs.s3a.attempts.maximum=%d: %d attempts", retries, n)
		}
	}
}

// fs.s3a.bucket.<bucket>.<key> replaces fs.s3a.<key> for that bucket
// only, and a job's settings (fsys.WithConf) replace the server's.
func TestPerBucketOverrides(t *testing.T) {
	srv := testservers.StartS3(t)
	srv.AddBucket(t, "other-bucket")
	dead := "http://127.0.0.1:" + strconv.Itoa(testservers.FreePort(t))
	ns := namespace(t, srv.Conf,
		"fs.s3a.secret.key", "wrong",
		"fs.s3a.bucket."+srv.Bucket+".secret.key", srv.SecretKey,
		"fs.s3a.bucket.other-bucket.endpoint", dead,
		"fs.s3a.bucket.other-bucket.attempts.maximum", "0")
	if err := ns.WriteFile(ctx, "s3a://"+srv.Bucket+"/f", []byte("x")); err != nil {
		t.Fatalf("the bucket with its own secret: %v", err)
	}
	// other-bucket has the wrong global secret and an endpoint nothing
	// listens on: the endpoint is what fails.
	if _, err := ns.Stat(ctx, "s3a://other-bucket/f"); !errors.Is(err, fsys.ErrUnavailable) {
		t.Fatalf("the bucket with its own endpoint = %v, want fsys.ErrUnavailable", err)
	}
	third := namespace(t, srv.Conf, "fs.s3a.secret.key", "wrong", "fs.s3a.bucket."+srv.Bucket+".secret.key", srv.SecretKey)
	srv.AddBucket(t, "third-bucket")
	err := third.WriteFile(ctx, "s3a://third-bucket/f", []byte("x"))
	if !errors.Is(err, fsys.ErrCredentials) || strings.Contains(err.Error(), "fs.s3a.bucket.") {
		t.Fatalf("a bucket without overrides = %v, want the global keys refused", err)
	}
	// A job's settings: its own secret over the server's wrong one.
	job := fsys.WithConf(ctx, fsys.MapConfig{"fs.s3a.secret.key": srv.SecretKey})
	if err := third.WriteFile(job, "s3a://third-bucket/f", []byte("x")); err != nil {
		t.Fatalf("with the job's secret: %v", err)
	}
	if err := third.WriteFile(ctx, "s3a://third-bucket/f", []byte("x")); !errors.Is(err, fsys.ErrCredentials) {
		t.Fatalf("without the job's settings again = %v", err)
	}
}

// awsEnv points the AWS default chain at nothing but the environment
// variables: no shared files, no instance role.
func awsEnv(t *testing.T, access, secret string) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": access, "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "",
		"AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "",
	} {
		t.Setenv(k, v)
	}
}

// Without fs.s3a.access.key and fs.s3a.secret.key the AWS default chain
// gives the credentials; when it finds none, the error names the keys and
// variables to set.
func TestDefaultCredentialsChain(t *testing.T) {
	srv := testservers.StartS3(t)
	conf := fsys.MapConfig{}
	for k, v := range srv.Conf {
		if k != "fs.s3a.access.key" && k != "fs.s3a.secret.key" {
			conf[k] = v
		}
	}
	p := "s3a://" + srv.Bucket + "/chain/f"
	awsEnv(t, srv.AccessKey, srv.SecretKey)
	ns := namespace(t, conf)
	write(t, ns, p, "from the environment")
	if read(t, ns, p) != "from the environment" {
		t.Fatal("read back something else")
	}
	awsEnv(t, srv.AccessKey, "wrong-"+srv.SecretKey)
	err := namespace(t, conf).WriteFile(ctx, p, nil)
	if !errors.Is(err, fsys.ErrCredentials) || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Fatalf("a wrong secret from the environment = %v", err)
	}
	noSecrets(t, err, srv.SecretKey)
	awsEnv(t, "", "")
	for _, o := range ops {
		err := o.do(namespace(t, conf), p)
		if !errors.Is(err, fsys.ErrCredentials) || errors.Is(err, fs.ErrPermission) {
			t.Fatalf("%s without credentials = %v, want fsys.ErrCredentials", o.name, err)
		}
		for _, want := range []string{"fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.bucket." + srv.Bucket + ".access.key", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("%s without credentials = %v, want %s named", o.name, err, want)
			}
		}
	}
}

// Settings that cannot work are reported on every operation of the
// store, naming the key, without its secret.
func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name string
		conf fsys.MapConfig
		path string
		want []string
		cred bool
	}{
		{"access key alone", fsys.MapConfig{"fs.s3a.access.key": "AK"}, "s3a://b-1/x",
			[]string{"fs.s3a.access.key is set but fs.s3a.secret.key is not"}, true},
		{"secret alone", fsys.MapConfig{"fs.s3a.secret.key": "TOPSECRET"}, "s3a://b-1/x",
			[]string{"fs.s3a.secret.key is set but fs.s3a.access.key is not"}, true},
		{"per-bucket access key alone", fsys.MapConfig{"fs.s3a.bucket.b-1.access.key": "AK"}, "s3://b-1/x",
			[]string{"fs.s3a.bucket.b-1.access.key is set but fs.s3a.secret.key is not"}, true},
		{"keys in the URI", nil, "s3a://AK:TOPSECRET@b-1/x", []string{"credentials in the URI are not supported"}, true},
		{"bad endpoint", fsys.MapConfig{"fs.s3a.endpoint": "ftp://x"}, "s3a://b-1/x", []string{"fs.s3a.endpoint=ftp://x"}, false},
		{"bad size", fsys.MapConfig{"fs.s3a.bucket.b-1.block.size": "12q"}, "s3a://b-1/x", []string{"fs.s3a.bucket.b-1.block.size=12q"}, false},
		{"small parts", fsys.MapConfig{"fs.s3a.multipart.size": "1M"}, "s3a://b-1/x", []string{"fs.s3a.multipart.size=1M: at least 5242880 bytes"}, false},
		{"bad boolean", fsys.MapConfig{"fs.s3a.path.style.access": "yes please"}, "s3n://b-1/x", []string{"fs.s3a.path.style.access=yes please"}, false},
	}
	for _, c := range cases {
		ns, err := fsys.NewNamespace(c.conf, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range ops[:3] {
			err := o.do(ns, c.path)
			if err == nil || errors.Is(err, fsys.ErrCredentials) != c.cred {
				t.Fatalf("%s: %s = %v (credentials error: want %v)", c.name, o.name, err, c.cred)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%s: %s = %v, want %q", c.name, o.name, err, w)
				}
			}
			noSecrets(t, err, "TOPSECRET")
		}
	}
}

// The errors of versitygw's POSIX backend, which keeps real directories:
// a file where a directory is, or below a file, is fs.ErrExist.
func TestPOSIXRefusals(t *testing.T) {
	srv := testservers.StartS3(t)
	ns := namespace(t, srv.Conf)
	d := "s3a://" + srv.Bucket + "/posix"
	write(t, ns, d+"/dir/f", "x")
	write(t, ns, d+"/file", "x")
	for _, p := range []string{d + "/dir", d + "/file/below"} {
		if err := ns.WriteFile(ctx, p, []byte("x")); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("WriteFile(%s) = %v, want fs.ErrExist", p, err)
		}
	}
}

// A request signed for another region than the store's is refused; the
// error says which keys decide the region (on a HEAD too, whose answer
// has no words of its own).
func TestWrongRegion(t *testing.T) {
	srv := testservers.StartS3(t)
	ns := namespace(t, srv.Conf, "fs.s3a.endpoint.region", "eu-west-1")
	for _, o := range ops[:3] {
		err := o.do(ns, "s3a://"+srv.Bucket+"/f")
		if err == nil || !strings.Contains(err.Error(), "check fs.s3a.endpoint and fs.s3a.endpoint.region") ||
			errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsys.ErrUnavailable) {
			t.Fatalf("%s signed for the wrong region = %v", o.name, err)
		}
	}
}
