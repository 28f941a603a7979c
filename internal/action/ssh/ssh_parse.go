package ssh

import (
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// Reading an <ssh> body: the remote user and host, the command and its
// arguments, and the names the run has on the remote host.

// sshAction is a parsed <ssh> body.
type sshAction struct {
	host    string
	argv    []string // command words and arguments, passed as they are
	capture bool
}

func (s *sshExecutor) parse(a *action.Context) (sshAction, error) {
	var p sshAction
	body := a.Element
	if body == nil {
		return p, action.Errorf(action.ErrorKindError, launch.CodeSchema, "ssh action without body")
	}
	p.host = body.ChildText("host")
	cmd := body.ChildText("command")
	if p.host == "" || cmd == "" {
		return p, action.Errorf(action.ErrorKindError, launch.CodeSchema, "ssh action needs <host> and <command>")
	}
	args, arg := body.ChildrenNamed("args"), body.ChildrenNamed("arg")
	if len(args) > 0 && len(arg) > 0 {
		return p, action.Errorf(action.ErrorKindError, launch.CodeSchema, "ssh action has both <args> and <arg>; use one kind")
	}
	// Oozie hands the command to the remote shell unquoted, so its words
	// are split at white space; so are <args> (schema 0.1: "Hello World"
	// is two arguments, even quoted), while each <arg> (0.2) is one
	// argument. A pair of quotes around an <arg> is dropped, as Oozie's
	// remote shell drops it.
	p.argv = strings.Fields(cmd)
	for _, e := range args {
		p.argv = append(p.argv, strings.Fields(e.TrimText())...)
	}
	for _, e := range arg {
		p.argv = append(p.argv, unquoteArg(e.TrimText()))
	}
	p.capture = body.Child("capture-output") != nil
	host, err := s.userHost(p.host, a.User)
	if err != nil {
		return p, err
	}
	p.host = host
	return p, nil
}

// unquoteArg drops one pair of matching quotes around an argument.
func unquoteArg(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// userHost applies Oozie's rule for <host>: without "user@" the job's user
// is the remote user; with gozie.ssh.allow.user.at.host false (the default
// with RunAsUser) only the job's user may be named.
func (s *sshExecutor) userHost(host, jobUser string) (string, error) {
	if strings.HasPrefix(host, "-") || strings.ContainsAny(host, " \t\n/") {
		// ssh would read a leading "-" as an option.
		return "", action.Errorf(action.ErrorKindError, launch.CodeSchema, "invalid ssh host [%s]", host)
	}
	allow := !strings.EqualFold(s.opts.Setting(sshAllowUserAtHostKey), "false")
	if s.opts.Setting(sshAllowUserAtHostKey) == "" {
		// The server's ssh identity serves every job: when the server
		// acts for each job's user, a job may reach only its own user's
		// accounts with it unless the operator says otherwise.
		allow = !s.opts.RunAsUser
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		if !allow && jobUser != "" && host[:i] != jobUser {
			return "", action.Errorf(action.ErrorKindError, CodeSSHUserMismatch, "user mismatch between the job's user [%s] and ssh host [%s]", jobUser, host)
		}
		return host, nil
	}
	if jobUser != "" {
		return jobUser + "@" + host, nil
	}
	return host, nil
}

// remoteDir is the action's directory relative to the remote home.
func remoteDir(a *action.Context) string {
	id := []byte(a.ActionID)
	for i, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '@') {
			id[i] = '_'
		}
	}
	if len(id) == 0 || id[0] == '.' {
		id = append([]byte("_"), id...)
	}
	return sshDirRoot + "/" + string(id) + "/" + strconv.Itoa(a.Attempt)
}

// The external id is ssh://<[user@]host>/<dir relative to the home>.
func sshExternalID(host, dir string) string { return "ssh://" + host + "/" + dir }

func parseSSHExternalID(id string) (host, dir string, ok bool) {
	rest, ok := strings.CutPrefix(id, "ssh://")
	if !ok {
		return "", "", false
	}
	host, dir, ok = strings.Cut(rest, "/")
	return host, dir, ok && host != "" && strings.HasPrefix(dir, sshDirRoot+"/")
}

// shQuote quotes s for a POSIX shell: inside single quotes nothing is
// special but the quote itself, which is closed, escaped and reopened.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
