package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/schedule"
)

// exitRemote is the status of every failed server command: the oozie
// command exits with -1, which a shell sees as 255 (cli.md §0.5).
const exitRemote = 255

// ruler separates the blocks of every table the oozie command prints.
var ruler = strings.Repeat("-", 132)

// connectRetries is how often a refused connection is retried, and
// retrySleep how the wait is done: the Java client's default of 4 retries
// rides out a server restart. Tests replace retrySleep.
var (
	connectRetries = 4
	retrySleep     = time.Sleep
)

// localZone is the zone the oozie command calls "JVM default" (-localtime,
// bundle kickoff time, coordinator action lists). Tests pin it.
var localZone = func() *time.Location { return time.Local }

// remoteFlags are the options shared by job, jobs and admin.
type remoteFlags struct {
	oozie, auth, username, password, token, doas string
	timezone                                     string
	localtime, asJSON, verbose, insecure, debug  bool
}

// addRemoteFlags registers the server and output flags on fs. Output flags
// (-timezone, -localtime, -verbose) are registered only when dates says so.
func addRemoteFlags(fs *flag.FlagSet, dates bool) *remoteFlags {
	r := &remoteFlags{}
	fs.StringVar(&r.oozie, "oozie", "", "server base URL, e.g. http://localhost:11000/oozie (default $OOZIE_URL; one of the two is required)")
	fs.StringVar(&r.auth, "auth", "", "authentication: SIMPLE (default), BASIC, TOKEN or KERBEROS (kinit's tickets) (default $OOZIE_AUTH)")
	fs.StringVar(&r.username, "username", "", "user name for BASIC authentication")
	fs.StringVar(&r.password, "password", "", "password for BASIC authentication")
	fs.StringVar(&r.token, "token", "", "bearer token for TOKEN authentication (default $GOZIE_TOKEN)")
	fs.StringVar(&r.doas, "doas", "", "act for this user (proxy user): sent as doAs=USER; the server allows it only to proxy users (oozie.service.ProxyUserService.proxyuser.<user>.hosts and .groups), E1400 otherwise")
	fs.BoolVar(&r.asJSON, "json", false, "print the server's JSON answer instead of the formatted output")
	fs.BoolVar(&r.insecure, "insecure", false, "do not verify the server's TLS certificate")
	fs.BoolVar(&r.debug, "debug", false, "print each request (method, URL, configuration sent) on stderr")
	if dates {
		fs.StringVar(&r.timezone, "timezone", "", "time zone of printed dates (default $OOZIE_TIMEZONE, else GMT)")
		fs.BoolVar(&r.localtime, "localtime", false, "print dates in the local time zone")
		fs.BoolVar(&r.verbose, "verbose", false, "verbose output: every field, TAB-separated tables, seconds in dates")
	}
	return r
}

// submitUser is the user.name preset in submitted configurations; ""
// presets none: with KERBEROS the server's auth_to_local rules decide who
// the ticket's principal is, which the local account need not be.
func (r *remoteFlags) submitUser() string {
	if r.doas != "" {
		return r.doas
	}
	if r.username != "" {
		return r.username
	}
	if strings.EqualFold(r.authType(), client.AuthKerberos) {
		return ""
	}
	return currentUser()
}

// authUser is the user the server will take this command for: the proxy
// user, else the BASIC user, else (SIMPLE) the local user; "" when a
// token decides.
func (r *remoteFlags) authUser() string {
	switch {
	case r.doas != "":
		return r.doas
	case r.username != "":
		return r.username
	case r.token != "" || os.Getenv("GOZIE_TOKEN") != "" || strings.EqualFold(r.auth, client.AuthToken),
		strings.EqualFold(r.authType(), client.AuthKerberos):
		return ""
	}
	return currentUser()
}

// authType is the -auth value, else $OOZIE_AUTH.
func (r *remoteFlags) authType() string {
	if r.auth != "" {
		return r.auth
	}
	return os.Getenv("OOZIE_AUTH")
}

// errNoURL is the oozie command's refusal to guess a server: it fails at
// once rather than trying a default address and retrying for seconds.
var errNoURL = errors.New("Oozie URL is not available neither in command option or in the environment: give -oozie http://HOST:11000/oozie or set OOZIE_URL")

// client builds the REST client the flags describe; retry notices go to
// stderr.
func (r *remoteFlags) client(stderr io.Writer) (*client.Client, error) {
	base := r.oozie
	if base == "" {
		base = os.Getenv("OOZIE_URL")
	}
	if base == "" {
		return nil, errNoURL
	}
	auth := r.auth
	if auth == "" {
		auth = os.Getenv("OOZIE_AUTH")
	}
	token := r.token
	if token == "" {
		token = os.Getenv("GOZIE_TOKEN")
	}
	switch {
	case r.username != "" && r.password == "":
		return nil, errors.New("No password specified, it is required, if username is set!")
	case r.password != "" && r.username == "":
		return nil, errors.New("No username specified, it is required, if password is set!")
	}
	auth = strings.ToUpper(auth)
	if auth == "" {
		switch {
		case r.username != "":
			auth = client.AuthBasic
		case token != "":
			auth = client.AuthToken
		default:
			auth = client.AuthSimple
		}
	}
	opts := client.Options{Auth: auth, DoAs: r.doas, User: currentUser(),
		Retries: connectRetries, Sleep: retrySleep, RetryLog: stderr}
	// OOZIE_DEBUG, an integer level, overrides -debug as in the oozie command.
	debug := r.debug
	if v := os.Getenv("OOZIE_DEBUG"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(stderr, "WARN: OOZIE_DEBUG [%s] is not an integer, debug off\n", v)
		}
		debug = n > 0
	}
	if debug {
		opts.Debug = stderr
		fmt.Fprintf(stderr, " Auth type : %s\n", auth)
	}
	if r.insecure {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} // asked for by -insecure
		opts.HTTP = &http.Client{Transport: tr}
	}
	switch auth {
	case client.AuthSimple:
	case client.AuthBasic:
		if r.username == "" {
			return nil, errors.New("BASIC authentication requires -username and -password to set!")
		}
		opts.User, opts.Password = r.username, r.password
	case client.AuthToken:
		if token == "" {
			return nil, errors.New("TOKEN authentication requires -token or GOZIE_TOKEN")
		}
		opts.Token = token
	case client.AuthKerberos:
		// The ticket cache and krb5.conf come from KRB5CCNAME and
		// KRB5_CONFIG, read at the first request.
	default:
		return nil, fmt.Errorf("Invalid options provided for auth: %s, (SIMPLE, BASIC, TOKEN or KERBEROS expected.)", auth)
	}
	return client.New(base, opts), nil
}

// zone is where dates are printed: -localtime, else -timezone, else
// OOZIE_TIMEZONE, else GMT; an id gozie does not know means GMT, as the
// Java client silently does.
func (r *remoteFlags) zone() *time.Location {
	if r.localtime {
		return localZone()
	}
	id := r.timezone
	if id == "" {
		id = os.Getenv("OOZIE_TIMEZONE")
	}
	if id == "" {
		id = "GMT"
	}
	loc, err := schedule.LoadZone(id)
	if err != nil {
		loc, _ = schedule.LoadZone("GMT")
	}
	return loc
}

// dates renders the dates of one command's output.
type dates struct {
	loc     *time.Location
	verbose bool
}

func (r *remoteFlags) dates() dates { return dates{loc: r.zone(), verbose: r.verbose} }

// mask is the oozie command's maskDate: "-" for no date, minutes (seconds
// when verbose) and the zone's short name otherwise.
func (d dates) mask(t client.Time) string {
	return maskDate(t, d.loc, d.verbose)
}

func maskDate(t client.Time, loc *time.Location, verbose bool) string {
	if t.IsZero() {
		return "-"
	}
	layout := "2006-01-02 15:04 MST"
	if verbose {
		layout = "2006-01-02 15:04:05 MST"
	}
	s := t.In(loc).Format(layout)
	// A custom offset zone prints as "-07:00", not "GMT-07:00".
	if i := strings.LastIndex(s, " GMT"); i >= 0 && len(s) > i+4 {
		s = s[:i+1] + s[i+4:]
	}
	return s
}

// maskIfNull is the oozie command's "-" for an absent string.
func maskIfNull[S ~string](s S) string {
	if s == "" {
		return "-"
	}
	return string(s)
}

// nullText is Java's rendering of a possibly null string with "+".
func nullText[S ~string](s S) string {
	if s == "" {
		return "null"
	}
	return string(s)
}

// parseRemote parses the flags of job, jobs or admin. Errors are worded as
// the oozie command's parse errors and give exitRemote; -help prints the
// flags (fs must come from newFlagSet with stdout) and gives exitOK. done reports that the command should return code.
func parseRemote(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (rest []string, code int, done bool) {
	if code, done := refuseUnsupported(args, stderr); done {
		return nil, code, true
	}
	fs.SetOutput(io.Discard)
	help := fs.Usage
	fs.Usage = func() {} // the flag package would print it for every error
	rest, err := parseInterspersed(fs, args)
	fs.Usage = help
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		help()
		return nil, exitOK, true
	}
	if err != nil {
		return nil, invalidSubCommand(stderr, err.Error()), true
	}
	return rest, 0, false
}

// invalidSubCommand prints a command-line error the way the oozie command
// does.
func invalidSubCommand(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "Invalid sub-command: %s\n\nuse 'help [sub-command]' for help details\n", msg)
	return exitRemote
}

// fail prints err as "Error: <code> : <message>" (server errors) or
// "Error: <message>" and returns exitRemote.
func fail(stderr io.Writer, err error) int {
	var ce *client.CallError
	if !errors.As(err, &ce) && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		fmt.Fprintf(stderr, "Error: %s\n", client.PlainError(err))
		return exitRemote
	}
	fmt.Fprintf(stderr, "Error: %s\n", err)
	return exitRemote
}

// writeRaw prints a raw JSON answer for -json, ending with a newline.
func writeRaw(w io.Writer, raw []byte) {
	w.Write(raw)
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		fmt.Fprintln(w)
	}
}

// byPosition orders flag names as they first appear in args, so that a
// conflict names the options in the order the user typed them.
func byPosition(names []string, args []string) {
	pos := func(name string) int {
		for i, a := range args {
			a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
			if a == name || strings.HasPrefix(a, name+"=") {
				return i
			}
		}
		return len(args)
	}
	sort.SliceStable(names, func(i, j int) bool { return pos(names[i]) < pos(names[j]) })
}

// tabRow joins verbose table fields with TABs.
func tabRow(w io.Writer, fields ...string) {
	fmt.Fprintln(w, strings.Join(fields, "\t"))
}

// remoteValidate is `gozie validate -oozie URL FILE`: the oozie command's
// server-side validation (cli.md §5). A local file is uploaded; an hdfs://
// path is named for the server to read. A server without the validate
// resource (404) prints nothing, as the oozie command does.
func remoteValidate(oozie string, files []string, stdout, stderr io.Writer) int {
	if len(files) != 1 {
		fmt.Fprintln(stderr, "Error: One file must be specified")
		return exitRemote
	}
	file := strings.TrimPrefix(files[0], "file://")
	var body []byte
	if !strings.Contains(file, "://") {
		abs, err := filepath.Abs(file)
		if err == nil {
			body, err = readLocalFile(abs)
		}
		if errors.Is(err, fsys.ErrTooLarge) || errors.Is(err, fsys.ErrNotRegular) {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitRemote
		}
		if err != nil {
			fmt.Fprintf(stderr, "Error: File does not exist : %s\n", abs)
			return exitRemote
		}
		file = abs
	}
	r := &remoteFlags{oozie: oozie}
	c, err := r.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	verdict, err := c.Validate(context.Background(), file, body)
	var e *client.CallError
	switch {
	case errors.As(err, &e) && e.Status == http.StatusNotFound:
		return exitOK
	case errors.As(err, &e) && e.Status != 0 && !strings.HasPrefix(e.Code, "HTTP error code"):
		fmt.Fprintf(stderr, "Error: %s\n", e.Message) // the message already names the code
		return exitRemote
	case err != nil:
		return fail(stderr, err)
	}
	fmt.Fprintln(stdout, verdict)
	return exitOK
}
