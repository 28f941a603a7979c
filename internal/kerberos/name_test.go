package kerberos

import (
	"strings"
	"testing"
)

// hadoopRules are the rules of Hadoop's own KerberosName test.
const hadoopRules = `RULE:[1:$1@$0](.*@YAHOO\.COM)s/@.*//
RULE:[2:$1](johndoe)s/^.*$/guest/
RULE:[2:$1;$2](^.*;admin$)s/;admin$//
RULE:[2:$2](root)
DEFAULT`

// lowerRules are the /L rules of the same test.
const lowerRules = `RULE:[1:$1]/L
RULE:[2:$1]/L
RULE:[2:$1;$2](^.*;admin$)s/;admin$///L
RULE:[2:$1;$2](^.*;guest$)s/;guest$//g/L
DEFAULT`

// secureModeRules are Hadoop's documented service mappings (SecureMode:
// auth_to_local).
const secureModeRules = `RULE:[2:$1/$2@$0]([ndj]n/.*@REALM\.TLD)s/.*/hdfs/
RULE:[2:$1/$2@$0]([rn]m/.*@REALM\.TLD)s/.*/yarn/
RULE:[2:$1/$2@$0](jhs/.*@REALM\.TLD)s/.*/mapred/
DEFAULT`

func TestShortName(t *testing.T) {
	for _, c := range []struct {
		rules, realm, principal, want, err string
	}{
		{hadoopRules, "EXAMPLE.COM", "omalley@EXAMPLE.COM", "omalley", ""},
		{hadoopRules, "EXAMPLE.COM", "hdfs/10.0.0.1@EXAMPLE.COM", "hdfs", ""},
		{hadoopRules, "EXAMPLE.COM", "oom@YAHOO.COM", "oom", ""},
		{hadoopRules, "EXAMPLE.COM", "johndoe/zoo@FOO.COM", "guest", ""},
		{hadoopRules, "EXAMPLE.COM", "joe/admin@FOO.COM", "joe", ""},
		{hadoopRules, "EXAMPLE.COM", "joe/root@FOO.COM", "root", ""},
		// Hadoop's default mechanism refuses what no rule maps.
		{hadoopRules, "EXAMPLE.COM", "foo@ACME.COM", "", "no auth_to_local rule applies to foo@ACME.COM"},
		{hadoopRules, "EXAMPLE.COM", "root/joe@FOO.COM", "", "no auth_to_local rule applies"},
		{hadoopRules, "EXAMPLE.COM", "owen/owen/owen@FOO.COM", "", "malformed Kerberos name"},
		{hadoopRules, "EXAMPLE.COM", "owen@foo/bar.com", "", "malformed Kerberos name"},
		{hadoopRules, "EXAMPLE.COM", "alice", "alice", ""},
		{lowerRules, "EXAMPLE.COM", "Joe@FOO.COM", "joe", ""},
		{lowerRules, "EXAMPLE.COM", "Joe/root@FOO.COM", "joe", ""},
		{lowerRules, "EXAMPLE.COM", "Joe/admin@FOO.COM", "joe", ""},
		{lowerRules, "EXAMPLE.COM", "Joe/guestguest@FOO.COM", "joe", ""},
		{secureModeRules, "REALM.TLD", "nn/host1.realm.tld@REALM.TLD", "hdfs", ""},
		{secureModeRules, "REALM.TLD", "dn/host2.realm.tld@REALM.TLD", "hdfs", ""},
		{secureModeRules, "REALM.TLD", "rm/host1.realm.tld@REALM.TLD", "yarn", ""},
		{secureModeRules, "REALM.TLD", "jhs/host1.realm.tld@REALM.TLD", "mapred", ""},
		{secureModeRules, "REALM.TLD", "oozie/host1.realm.tld@REALM.TLD", "oozie", ""},
		{secureModeRules, "REALM.TLD", "alice@REALM.TLD", "alice", ""},
		{"", "GOZIE.TEST", "alice@GOZIE.TEST", "alice", ""},
		{"DEFAULT", "GOZIE.TEST", "HTTP/127.0.0.1@GOZIE.TEST", "HTTP", ""},
		{"DEFAULT", "GOZIE.TEST", "alice@OTHER.TEST", "", "no auth_to_local rule applies"},
		// A rule leaving '@' or '/' in the result is an error.
		{`RULE:[1:$1@$0]`, "GOZIE.TEST", "alice@OTHER.TEST", "", "non-simple name alice@OTHER.TEST"},
		{`RULE:[1:$1$3]`, "GOZIE.TEST", "alice@OTHER.TEST", "", "outside of the valid range 0 to 1"},
		{`RULE:[2:$2-$1](.*)s/\./_/g`, "X", "svc/a.b.c@X", "a_b_c-svc", ""},
		{`RULE:[2:$2-$1](.*)s/\./_/`, "X", "svc/a.b.c@X", "a_b.c-svc", ""},
		{`RULE:[1:$1](.*)s/^(.*)$/u_$1/`, "X", "bob@Y", "u_bob", ""},
	} {
		rs, err := ParseRules(c.rules, c.realm)
		if err != nil {
			t.Fatalf("ParseRules(%q): %v", c.rules, err)
		}
		got, err := rs.ShortName(c.principal)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s with %q: got %q, %v; want error %q", c.principal, c.rules, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s with %q: got %q, %v; want %q", c.principal, c.rules, got, err, c.want)
		}
	}
}

func TestParseRulesRefused(t *testing.T) {
	for _, text := range []string{
		"RULE:1:$1",
		"RULE:[3:$1]",
		"RULE:[:$1]",
		"RULE:[1:$1](a(b)",
		"NOTARULE",
	} {
		if _, err := ParseRules(text, "X"); err == nil {
			t.Errorf("ParseRules(%q) accepted", text)
		}
	}
}
