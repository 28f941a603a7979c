package launch

import (
	"context"
	"slices"
	"testing"
)

// TestKerberosEnv: with a configured cache, a step gets KRB5CCNAME (FILE:
// added to a bare path) and HADOOP_PROXY_USER naming its job's user, but
// not when the job's user is the principal's own short name; none gives
// nothing.
func TestKerberosEnv(t *testing.T) {
	site := map[string]string{LaunchKerberos: "cache", LaunchKerberosCache: "/var/run/gozie/cc", keyServerPrincipal: "gozie/host1@GOZIE.TEST"}
	tests := []struct {
		site map[string]string
		user string
		want []string
	}{
		{site, "alice", []string{"KRB5CCNAME=FILE:/var/run/gozie/cc", "HADOOP_PROXY_USER=alice"}},
		{site, "gozie", []string{"KRB5CCNAME=FILE:/var/run/gozie/cc"}},
		{site, "", []string{"KRB5CCNAME=FILE:/var/run/gozie/cc"}},
		{map[string]string{LaunchKerberos: "cache", LaunchKerberosCache: "KEYRING:persistent:0"}, "bob", []string{"KRB5CCNAME=KEYRING:persistent:0", "HADOOP_PROXY_USER=bob"}},
		{map[string]string{}, "alice", nil},
	}
	for _, tt := range tests {
		got, err := Options{Site: tt.site}.kerberosEnv(context.Background(), t.TempDir(), tt.user)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%v as %s: %q %v, want %q", tt.site, tt.user, got, err, tt.want)
		}
	}
}
