package testservers

import (
	"os"
	"testing"
)

// No NameNode can run on the machines gozie is built and tested on, so the
// HDFS and WebHDFS suites run against a cluster named by an environment
// variable, and are skipped (in CI too) when it is unset. The cluster's
// client settings (HA nameservices, Kerberos) come from the files of
// HADOOP_CONF_DIR, which the tests load with hdfs.LoadConfEnv.

// HDFS returns the root URI under which tests may work on a real HDFS
// cluster, from GOZIE_TEST_HDFS (hdfs://nn:8020/tmp/gozie-test or
// hdfs://nameservice/tmp/gozie-test); t is skipped when it is unset.
func HDFS(t testing.TB) string {
	t.Helper()
	return external(t, "GOZIE_TEST_HDFS", "hdfs://nn.example.com:8020/tmp/gozie-test")
}

// WebHDFS returns the root URI under which tests may work through a real
// WebHDFS endpoint, from GOZIE_TEST_WEBHDFS (webhdfs://nn:9870/tmp/gozie-test,
// or swebhdfs://); t is skipped when it is unset.
func WebHDFS(t testing.TB) string {
	t.Helper()
	return external(t, "GOZIE_TEST_WEBHDFS", "webhdfs://nn.example.com:9870/tmp/gozie-test")
}

func external(t testing.TB, env, example string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		t.Skipf("no cluster to test against: set %s=%s (a directory the test user may write; HADOOP_CONF_DIR for HA or Kerberos settings) to run this suite; see docs/storage.md", env, example)
	}
	return v
}
