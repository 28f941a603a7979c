package launch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
)

// Keys of the Kerberos tickets handed to steps (docs/security.md).
var (
	// LaunchKerberos says how a step gets a Kerberos ticket.
	LaunchKerberos = action.DeclareSiteKey("gozie.launch.kerberos", "none",
		"Kerberos ticket of the programs actions start: none (they inherit the server's environment, KRB5CCNAME included); keytab (the server's keytab, oozie.service.HadoopAccessorService.keytab.file and .kerberos.principal, is kinit'd into a cache of each step's own, KRB5CCNAME names it and HADOOP_PROXY_USER the job's user); cache (KRB5CCNAME names gozie.launch.kerberos.ccache, HADOOP_PROXY_USER the job's user). Refused with gozie.launch.as.user=true: a step running as its job's user must not hold the server's ticket")
	// LaunchKerberosCache is the ticket cache of gozie.launch.kerberos=cache.
	LaunchKerberosCache = action.DeclareSiteKey("gozie.launch.kerberos.ccache", "",
		"with gozie.launch.kerberos=cache, the ticket cache handed to steps (FILE:/path or a path; kept fresh by whoever kinits it); blank: the server's KRB5CCNAME")
	// LaunchKinit is the kinit program of gozie.launch.kerberos=keytab.
	LaunchKinit = action.DeclareSiteKey("gozie.launch.kinit", "kinit",
		"kinit program (MIT or Heimdal) that puts the server's keytab ticket into each step's cache with gozie.launch.kerberos=keytab")
)

// Oozie's keys of the server's own Kerberos login.
const (
	keyServerKeytab    = "oozie.service.HadoopAccessorService.keytab.file"
	keyServerPrincipal = "oozie.service.HadoopAccessorService.kerberos.principal"
)

// CodeCredentials is the error of a step whose credentials cannot be
// obtained (Oozie's JA020).
const CodeCredentials = "JA020"

// StepCacheFile is the ticket cache of a step with
// gozie.launch.kerberos=keytab, in its work directory (removed with it).
const StepCacheFile = ".gozie-krb5cc"

// kinitTimeout bounds one kinit.
const kinitTimeout = 30 * time.Second

// CheckKerberos refuses a Kerberos hand-off the options cannot make: an
// unknown mode, a keytab mode without a keytab and principal, any mode
// with RunAsUser (a step running as its job's user would hold the
// server's ticket, with which it could act as anyone the server may
// impersonate). The assembly calls it at start.
func CheckKerberos(o Options) error {
	switch mode := o.kerberosMode(); mode {
	case "none":
		return nil
	case "keytab", "cache":
		if o.RunAsUser {
			return fmt.Errorf("%s=%s with gozie.launch.as.user=true: a step running as its job's user would hold the server's Kerberos ticket; leave %s=none (each user's own ticket cache is used)", LaunchKerberos, mode, LaunchKerberos)
		}
		if mode == "keytab" && (o.Setting(keyServerKeytab) == "" || o.Setting(keyServerPrincipal) == "") {
			return fmt.Errorf("%s=keytab needs %s and %s", LaunchKerberos, keyServerKeytab, keyServerPrincipal)
		}
		return nil
	default:
		return fmt.Errorf("%s=%q: want none, keytab or cache", LaunchKerberos, mode)
	}
}

func (o Options) kerberosMode() string {
	m := strings.ToLower(o.Setting(LaunchKerberos))
	if m == "" {
		return "none"
	}
	return m
}

// kerberosEnv gets a step in dir its ticket, as Oozie's launcher gave
// its programs the credentials of the job: KRB5CCNAME names the cache,
// HADOOP_PROXY_USER the job's user, so that Hadoop's tools act for the
// user with the server's login (the cluster's proxy-user rules apply).
// nil when the mode is none.
func (o Options) kerberosEnv(ctx context.Context, dir, user string) ([]string, error) {
	var cache string
	switch o.kerberosMode() {
	case "none":
		return nil, nil
	case "cache":
		cache = o.Setting(LaunchKerberosCache)
		if cache == "" {
			cache = os.Getenv("KRB5CCNAME")
		}
		if cache == "" {
			return nil, action.Errorf(action.NonTransient, CodeCredentials, "%s=cache: no ticket cache (set %s or the server's KRB5CCNAME)", LaunchKerberos, LaunchKerberosCache)
		}
	case "keytab":
		path := filepath.Join(dir, StepCacheFile)
		if err := o.kinit(ctx, path); err != nil {
			return nil, err
		}
		cache = "FILE:" + path
	default:
		return nil, action.Errorf(action.NonTransient, CodeCredentials, "%s=%q: want none, keytab or cache", LaunchKerberos, o.kerberosMode())
	}
	if !strings.Contains(cache, ":") {
		cache = "FILE:" + cache
	}
	env := []string{"KRB5CCNAME=" + cache}
	// A job of the principal's own user acts as itself: Hadoop would make
	// a proxy of the login user for itself, which clusters refuse.
	if user != "" && user != shortName(o.Setting(keyServerPrincipal)) {
		env = append(env, "HADOOP_PROXY_USER="+user)
	}
	return env, nil
}

// kinit puts a ticket of the server's keytab into the cache at path. A
// KDC that does not answer is transient (the start is retried); a bad
// keytab or principal is not.
func (o Options) kinit(ctx context.Context, path string) error {
	kt, principal := o.Setting(keyServerKeytab), o.Setting(keyServerPrincipal)
	if kt == "" || principal == "" {
		return action.Errorf(action.NonTransient, CodeCredentials, "%s=keytab needs %s and %s", LaunchKerberos, keyServerKeytab, keyServerPrincipal)
	}
	principal = hostPrincipal(principal)
	ctx, cancel := context.WithTimeout(ctx, kinitTimeout)
	defer cancel()
	prog := o.Setting(LaunchKinit)
	if prog == "" {
		prog = "kinit"
	}
	cmd := exec.CommandContext(ctx, prog, "-k", "-t", kt, "-c", "FILE:"+path, principal)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		kind := action.NonTransient
		if ctx.Err() != nil || strings.Contains(msg, "Cannot contact any KDC") {
			kind = action.Transient
		}
		return action.Errorf(kind, CodeCredentials, "kinit of %s with keytab %s for the step's ticket cache: %v: %s", principal, kt, err, msg)
	}
	return os.Chmod(path, 0o600)
}

// hostPrincipal replaces Hadoop's _HOST in a principal with this host's
// name, as Hadoop's SecurityUtil does.
func hostPrincipal(p string) string {
	if !strings.Contains(p, "_HOST") {
		return p
	}
	h, err := os.Hostname()
	if err != nil {
		return p
	}
	return strings.ReplaceAll(p, "_HOST", strings.ToLower(h))
}

// shortName is a principal's first component (oozie of
// oozie/host@REALM), the user Hadoop's default auth_to_local rule maps it to.
func shortName(principal string) string {
	name, _, _ := strings.Cut(principal, "@")
	name, _, _ = strings.Cut(name, "/")
	return name
}
