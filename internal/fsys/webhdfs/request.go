package webhdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// call is one WebHDFS request before it has a NameNode and a user: the
// method, the operation, the HDFS path and the operation's parameters.
type call struct {
	method string
	op     string
	hp     string
	args   url.Values
}

// The calls of each operation gozie uses (the WebHDFS REST API's names).

func statCall(hp string) call    { return newCall(http.MethodGet, "GETFILESTATUS", hp) }
func listCall(hp string) call    { return newCall(http.MethodGet, "LISTSTATUS", hp) }
func openCall(hp string) call    { return newCall(http.MethodGet, "OPEN", hp) }
func summaryCall(hp string) call { return newCall(http.MethodGet, "GETCONTENTSUMMARY", hp) }
func mkdirCall(hp string) call   { return newCall(http.MethodPut, "MKDIRS", hp) }

// createCall is the first step of a create: no data; the NameNode answers
// with the datanode to send it to.
func createCall(hp string) call { return newCall(http.MethodPut, "CREATE", hp, "overwrite", "true") }

func deleteCall(hp string) call {
	return newCall(http.MethodDelete, "DELETE", hp, "recursive", "true")
}

// renameCall asks for rename2 (renameoptions), which refuses an existing
// destination (NONE) or replaces it (OVERWRITE) and says why it failed,
// where plain RENAME moves into an existing directory and answers false.
func renameCall(src, dst string, overwrite bool) call {
	opt := "NONE"
	if overwrite {
		opt = "OVERWRITE"
	}
	return newCall(http.MethodPut, "RENAME", src, "destination", dst, "renameoptions", opt)
}

// chmodCall sets the permission bits, in octal, with the sticky bit.
func chmodCall(hp string, mode fs.FileMode) call {
	perm := uint32(mode.Perm())
	if mode&fs.ModeSticky != 0 {
		perm |= 0o1000
	}
	return newCall(http.MethodPut, "SETPERMISSION", hp, "permission", strconv.FormatUint(uint64(perm), 8))
}

// chgrpCall sets the group only: without owner, the NameNode keeps it.
func chgrpCall(hp, group string) call {
	return newCall(http.MethodPut, "SETOWNER", hp, "group", group)
}

func setrepCall(hp string, n int16) call {
	return newCall(http.MethodPut, "SETREPLICATION", hp, "replication", strconv.Itoa(int(n)))
}

// touchCall sets the modification time and leaves the access time (-1),
// as Oozie's touchz does.
func touchCall(hp string, t time.Time) call {
	return newCall(http.MethodPut, "SETTIMES", hp, "modificationtime", strconv.FormatInt(t.UnixMilli(), 10), "accesstime", "-1")
}

func newCall(method, op, hp string, kv ...string) call {
	c := call{method: method, op: op, hp: hp, args: url.Values{}}
	for i := 0; i+1 < len(kv); i += 2 {
		c.args.Set(kv[i], kv[i+1])
	}
	return c
}

// identity is who a request acts as: user.name, and doas when the server
// authenticates as itself and acts for someone else.
type identity struct{ userName, doAs string }

// url returns the request URL of c on the NameNode at base.
func (c call) url(base string, who identity) string {
	q := url.Values{}
	for k, v := range c.args {
		q[k] = v
	}
	q.Set("op", c.op)
	if who.userName != "" {
		q.Set("user.name", who.userName)
	}
	if who.doAs != "" {
		q.Set("doas", who.doAs)
	}
	return base + "/webhdfs/v1" + escapePath(c.hp) + "?" + q.Encode()
}

// escapePath escapes each element of an HDFS path for a URL path: spaces,
// '%', '?', '#' and also ';', which Jetty would take for a parameter.
func escapePath(hp string) string {
	parts := strings.Split(hp, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// send runs c on the NameNodes, starting with the one that answered last:
// a NameNode that refuses the connection or is standby passes the call to
// the next. It returns the response of a 2xx or 3xx answer (the caller
// closes its body) and the mapped error of any other.
func (f *FS) send(ctx context.Context, c call, who identity, p string) (*http.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := len(f.set.bases)
	start := int(f.active.Load())
	var last error
	for i := range n {
		k := (start + i) % n
		resp, err := f.sendTo(ctx, f.set.bases[k], c, who)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			last = err
			if notConnected(err) {
				continue
			}
			return nil, unavailable(f.set.store, c.op, p, err)
		}
		if resp.StatusCode < 400 {
			f.active.Store(int32(k))
			return resp, nil
		}
		rerr := responseError(f.set.store, c.op, p, resp)
		if isStandby(rerr) {
			last = rerr
			continue
		}
		return nil, rerr
	}
	var ue *fsys.UnavailableError
	if errors.As(last, &ue) { // every NameNode standby
		return nil, last
	}
	return nil, unavailable(f.set.store, c.op, p, last)
}

// sendTo sends c to one NameNode.
func (f *FS) sendTo(ctx context.Context, base string, c call, who identity) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, c.method, c.url(base, who), nil)
	if err != nil {
		return nil, err
	}
	f.csrfHeader(req)
	if f.set.krb != nil {
		if err := f.set.krb.authenticate(req, base, f.set.store); err != nil {
			return nil, err
		}
	}
	return f.client.Do(req)
}

// csrfHeader adds the CSRF-prevention header where the cluster wants it.
func (f *FS) csrfHeader(req *http.Request) {
	if f.set.csrf != "" && !f.set.csrfIgnore[req.Method] {
		req.Header.Set(f.set.csrf, "\"\"")
	}
}

// notConnected reports a request that never reached the NameNode, so that
// trying the next one cannot run an operation twice.
func notConnected(err error) bool {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return true
	}
	var de *net.DNSError
	return errors.As(err, &de)
}

// putData is the second step of a create: the data, to the URL the
// NameNode redirected to (a datanode, or HttpFS itself).
func (f *FS) putData(ctx context.Context, loc string, r io.Reader, p string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, loc, r)
	if err != nil {
		return fmt.Errorf("create %s: bad redirect %q: %v", p, loc, err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	f.csrfHeader(req)
	if base := f.nameNodeOf(loc); base != "" && f.set.krb != nil {
		// HttpFS takes the data itself: it wants SPNEGO again. A
		// datanode's URL carries the NameNode's delegation token instead.
		if err := f.set.krb.authenticate(req, base, f.set.store); err != nil {
			return err
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return unavailable(f.set.store, "CREATE", p, err)
	}
	defer drain(resp)
	if resp.StatusCode >= 300 {
		return responseError(f.set.store, "CREATE", p, resp)
	}
	return nil
}

// drain reads what is left of a small body and closes it, so that the
// connection can be used again.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// nameNodeOf returns the NameNode base URL loc points at, "" for another
// host (a datanode).
func (f *FS) nameNodeOf(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return ""
	}
	for _, b := range f.set.bases {
		if bu, err := url.Parse(b); err == nil && strings.EqualFold(bu.Host, u.Host) {
			return b
		}
	}
	return ""
}
