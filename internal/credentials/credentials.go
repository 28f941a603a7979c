// Package credentials is a workflow's <credentials>: the credentials its
// actions name with cred="a,b", checked at submission and handed to each
// action when it starts, as Oozie's CredentialsProvider types do.
//
// Oozie's types obtain delegation tokens in the server and put them in the
// launcher job. gozie's steps authenticate with a Kerberos ticket of their
// own (gozie.launch.kerberos, internal/launch), so a built-in type hands
// its action the settings its tool needs to use that ticket against the
// service: the metastore's URI and principal (hcat), HiveServer2's
// principal for beeline's JDBC URL (hive2), the extra name nodes
// (filesystem), HBase's and the JobHistoryServer's settings (hbase, jhs).
// Other types run a configured executable whose output joins the action's
// configuration. docs/security.md describes them.
package credentials

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Keys of the server configuration.
const (
	// KeyClasses is Oozie's list of credential types (type=class,...).
	// When set, only the types it names are available; their classes are
	// not run (gozie has none), the type names select the built-ins or
	// the executables below.
	KeyClasses = "oozie.credentials.credentialclasses"
	// KeyExecutablePrefix + <type> names the executable of a custom type.
	KeyExecutablePrefix = "gozie.credentials.executable."
	// KeyTimeout bounds one run of an executable, in seconds.
	KeyTimeout = "gozie.credentials.timeout.s"
)

// Codes of Oozie's JavaActionExecutor.
const (
	// CodeType is a credential whose type cannot be obtained.
	CodeType = "JA020"
	// CodeUndefined is an action naming a credential its workflow does
	// not define.
	CodeUndefined = "JA021"
	// CodeObtain is a credential that could not be obtained (Oozie's
	// E0510, "Unable to get Credential").
	CodeObtain = "E0510"
)

// builtins are the types gozie hands over itself, with the function that
// does it. hdfs is the name Oozie's documentation gives the filesystem
// type in examples.
var builtins = map[string]func(p map[string]string, c *conf.Config, user string) error{
	"hcat":       handHCat,
	"hive2":      handHive2,
	"hbase":      copyAll,
	"filesystem": handFileSystem,
	"hdfs":       handFileSystem,
	"jhs":        copyAll,
}

// Providers are the credential types a server offers.
type Providers struct {
	// types maps each available type to its executable ("" built-in).
	types   map[string]string
	timeout time.Duration
}

// Default offers the built-in types and no executable.
func Default() *Providers {
	p := &Providers{types: map[string]string{}, timeout: time.Minute}
	for t := range builtins {
		p.types[t] = ""
	}
	return p
}

// FromConfig reads the types of a server configuration: the built-ins
// (restricted to those oozie.credentials.credentialclasses names, when it
// is set) and every gozie.credentials.executable.<type>.
func FromConfig(site map[string]string) (*Providers, error) {
	p := Default()
	if v := strings.TrimSpace(site[KeyClasses]); v != "" {
		listed := map[string]bool{}
		for _, e := range strings.Split(v, ",") {
			t, _, _ := strings.Cut(strings.TrimSpace(e), "=")
			if t = strings.TrimSpace(t); t != "" {
				listed[t] = true
			}
		}
		for t := range p.types {
			if !listed[t] {
				delete(p.types, t)
			}
		}
	}
	for k, v := range site {
		t, ok := strings.CutPrefix(k, KeyExecutablePrefix)
		if !ok || strings.Contains(t, "<") {
			continue
		}
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		if t == "" {
			return nil, fmt.Errorf("%s: names no credential type", k)
		}
		p.types[t] = v
	}
	if s := strings.TrimSpace(site[KeyTimeout]); s != "" {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive number of seconds", KeyTimeout, s)
		}
		p.timeout = time.Duration(n) * time.Second
	}
	return p, nil
}

// Types lists the available types, sorted.
func (p *Providers) Types() []string {
	out := make([]string, 0, len(p.types))
	for t := range p.types {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Names splits an action's cred attribute.
func Names(cred string) []string {
	var out []string
	for _, n := range strings.Split(cred, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// find returns the credential named name (case-insensitive, as Oozie
// matches it).
func find(app *workflow.App, name string) *workflow.Credential {
	for i := range app.Credentials {
		if strings.EqualFold(app.Credentials[i].Name, name) {
			return &app.Credentials[i]
		}
	}
	return nil
}

// Check refuses, at submission, an action naming a credential the
// workflow does not define (JA021) and a credential whose type this
// server cannot obtain (JA020), so that no action runs without the
// credentials it asked for.
func (p *Providers) Check(app *workflow.App) error {
	for _, n := range app.Nodes {
		if n.Kind != workflow.ActionNode || n.Action == nil {
			continue
		}
		for _, name := range Names(n.Action.Cred) {
			cr := find(app, name)
			if cr == nil {
				return vocab.Errorf(CodeUndefined, "Could not load credentials with name [%s] for action [%s]: the workflow's <credentials> defines %s",
					name, n.Name, defined(app))
			}
			if _, ok := p.types[cr.Type]; !ok {
				return vocab.Errorf(CodeType, "Could not load credentials of type [%s] with name [%s]; perhaps it was not defined in oozie-site.xml? This server offers %s; a custom type needs %s%s",
					cr.Type, cr.Name, strings.Join(p.Types(), ", "), KeyExecutablePrefix, cr.Type)
			}
		}
	}
	return nil
}

// defined lists the credential names of app for a message.
func defined(app *workflow.App) string {
	if len(app.Credentials) == 0 {
		return "none"
	}
	var names []string
	for _, c := range app.Credentials {
		names = append(names, "["+c.Name+"]")
	}
	return strings.Join(names, ", ")
}

// Info is what an executable learns of the action it obtains for.
type Info struct {
	User, JobID, ActionID string
}

// Apply hands the credentials cred names to an action whose
// configuration is c, at its start. Names and values of the credential's
// properties have their ${var} references expanded as c's own values
// (Oozie evaluates them against the job's properties). Errors are coded: JA021/JA020 for a
// definition that changed since submission, E0510 for a credential that
// could not be obtained.
func (p *Providers) Apply(ctx context.Context, app *workflow.App, cred string, c *conf.Config, info Info) error {
	for _, name := range Names(cred) {
		cr := find(app, name)
		if cr == nil {
			return vocab.Errorf(CodeUndefined, "Could not load credentials with name [%s]", name)
		}
		exe, ok := p.types[cr.Type]
		if !ok {
			return vocab.Errorf(CodeType, "Could not load credentials of type [%s] with name [%s]; perhaps it was not defined in oozie-site.xml?", cr.Type, cr.Name)
		}
		props := map[string]string{}
		for _, pr := range cr.Properties {
			props[c.Expand(pr.Name)] = c.Expand(pr.Value)
		}
		var err error
		if exe != "" {
			err = p.run(ctx, exe, cr, props, c, info)
		} else {
			err = builtins[cr.Type](props, c, info.User)
		}
		if err != nil {
			return vocab.Errorf(CodeObtain, "Unable to get Credential [%s] of type [%s]: %v", cr.Name, cr.Type, err)
		}
	}
	return nil
}

// copyAll puts every property of the credential in the configuration.
func copyAll(p map[string]string, c *conf.Config, _ string) error {
	for k, v := range p {
		c.Set(k, v)
	}
	return nil
}

// first returns the first non-blank property of names.
func first(p map[string]string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(p[n]); v != "" {
			return v
		}
	}
	return ""
}

// handHCat gives the action the metastore to reach with its ticket, under
// Hive's names, as HCatCredentialHelper configures its client.
func handHCat(p map[string]string, c *conf.Config, user string) error {
	principal := first(p, "hcat.metastore.principal", "hive.metastore.kerberos.principal")
	if principal == "" {
		return fmt.Errorf("hcat.metastore.principal is required to get hcat credential")
	}
	uri := first(p, "hcat.metastore.uri", "hive.metastore.uris")
	if uri == "" {
		return fmt.Errorf("hcat.metastore.uri is required to get hcat credential")
	}
	copyAll(p, c, user)
	c.Set("hive.metastore.uris", uri)
	c.Set("hive.metastore.kerberos.principal", principal)
	c.Set("hive.metastore.sasl.enabled", "true")
	return nil
}

// Hive2Principal is the configuration key the hive2 credential hands to
// the hive2 action: beeline's JDBC URL gets ;principal= from it.
const Hive2Principal = "hive2.server.principal"

// handHive2 checks and hands over HiveServer2's principal; the hive2
// action adds it to beeline's JDBC URL (hadoop/hive.go).
func handHive2(p map[string]string, c *conf.Config, user string) error {
	if first(p, "hive2.jdbc.url") == "" {
		return fmt.Errorf("hive2.jdbc.url is required to get hive server 2 credential")
	}
	if first(p, Hive2Principal) == "" {
		return fmt.Errorf("%s is required to get hive server 2 credential", Hive2Principal)
	}
	return copyAll(p, c, user)
}

// handFileSystem adds the credential's file systems to Hadoop's list of
// name nodes a job needs tokens for (mapreduce.job.hdfs-servers).
func handFileSystem(p map[string]string, c *conf.Config, _ string) error {
	paths := first(p, "filesystem.path")
	if paths == "" {
		return fmt.Errorf("filesystem.path property is required to get filesystem type credential")
	}
	const key = "mapreduce.job.hdfs-servers"
	var all []string
	if v, ok := c.Get(key); ok {
		all = Names(v)
	}
	for _, fs := range Names(paths) {
		if !slices.Contains(all, fs) { // a start performed again adds nothing twice
			all = append(all, fs)
		}
	}
	c.Set(key, strings.Join(all, ","))
	c.Set("filesystem.path", paths)
	return nil
}

// maxOutput bounds what an executable may print.
const maxOutput = 1 << 20

// run obtains a custom credential: the executable gets the credential's
// properties as Java properties on stdin and GOZIE_CREDENTIAL_NAME,
// GOZIE_CREDENTIAL_TYPE, GOZIE_JOB_USER, GOZIE_JOB_ID, GOZIE_ACTION_ID in
// its environment; what it prints (Java properties) joins the action's
// configuration. A non-zero exit fails the action's start.
func (p *Providers) run(ctx context.Context, exe string, cr *workflow.Credential, props map[string]string, c *conf.Config, info Info) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	in := conf.New()
	for k, v := range props {
		in.Set(k, v)
	}
	var stdin bytes.Buffer
	if err := in.WriteProperties(&stdin); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Stdin = &stdin
	cmd.Env = append(os.Environ(), "GOZIE_CREDENTIAL_NAME="+cr.Name, "GOZIE_CREDENTIAL_TYPE="+cr.Type,
		"GOZIE_JOB_USER="+info.User, "GOZIE_JOB_ID="+info.JobID, "GOZIE_ACTION_ID="+info.ActionID)
	var out, errOut limitedBuffer
	out.max, errOut.max = maxOutput, 4096
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%s did not finish within %s", exe, p.timeout)
		}
		return fmt.Errorf("%s: %v: %s", exe, err, strings.TrimSpace(errOut.b.String()))
	}
	if out.over {
		return fmt.Errorf("%s printed more than %d bytes", exe, maxOutput)
	}
	got, err := conf.ParseProperties(bytes.NewReader(out.b.Bytes()), exe)
	if err != nil {
		return fmt.Errorf("%s: its output is not Java properties: %v", exe, err)
	}
	for _, pr := range got.Properties() {
		v, _ := got.Get(pr.Name)
		c.Set(pr.Name, v)
	}
	return nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room < len(p) {
		l.over = true
		if room > 0 {
			l.b.Write(p[:room])
		}
		return len(p), nil
	}
	return l.b.Write(p)
}
