package hdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	gohdfs "github.com/colinmarc/hdfs/v2"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/gozie/gozie/internal/fsys"
)

// remote is a NameNode exception as the library hands it over (its own
// type lives in an internal package; it is known by the interface
// gohdfs.Error).
type remote struct{ class, msg string }

func (r remote) Method() string    { return "getFileInfo" }
func (r remote) Desc() string      { return "ERROR_APPLICATION" }
func (r remote) Exception() string { return r.class }
func (r remote) Message() string   { return r.msg }
func (r remote) Error() string {
	return "getFileInfo call failed with ERROR_APPLICATION (" + r.class + ")"
}

func TestMapErr(t *testing.T) {
	const store, p = "hdfs://nn:8020", "hdfs://nn:8020/data/x"
	lib := func(err error) error { return &os.PathError{Op: "stat", Path: "/data/x", Err: err} }
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cases := []struct {
		name string
		in   error
		is   error  // the error the result must match
		not  error  // an error it must not match
		text string // substring of the message
	}{
		{"not found", lib(os.ErrNotExist), fs.ErrNotExist, fsys.ErrUnavailable, p},
		{"exists", lib(os.ErrExist), fs.ErrExist, nil, p},
		{"permission", lib(os.ErrPermission), fs.ErrPermission, nil, p},
		{"raw FileNotFoundException", remote{"java.io.FileNotFoundException", "File does not exist: /data/x"}, fs.ErrNotExist, nil, "File does not exist: /data/x"},
		{"raw AccessControlException", lib(remote{"org.apache.hadoop.security.AccessControlException", "Permission denied: user=alice, access=WRITE\n\tat org.apache..."}), fs.ErrPermission, nil, "user=alice, access=WRITE)"},
		{"proxy user refused", remote{"org.apache.hadoop.security.authorize.AuthorizationException", "User: oozie is not allowed to impersonate alice"}, fs.ErrPermission, nil, "impersonate"},
		{"already being created", remote{"org.apache.hadoop.hdfs.protocol.AlreadyBeingCreatedException", "lease held"}, fs.ErrExist, nil, ""},
		{"standby", lib(remote{"org.apache.hadoop.ipc.StandbyException", "Operation category READ is not supported in state standby"}), fsys.ErrUnavailable, fs.ErrPermission, "StandbyException: Operation category READ"},
		{"safe mode", remote{"org.apache.hadoop.hdfs.server.namenode.SafeModeException", "Name node is in safe mode."}, fsys.ErrUnavailable, nil, "safe mode"},
		{"retriable", remote{"org.apache.hadoop.ipc.RetriableException", "try again"}, fsys.ErrUnavailable, nil, store},
		{"call queue full", remote{"org.apache.hadoop.ipc.CallQueueManager$CallQueueOverflowException", "Server too busy"}, fsys.ErrUnavailable, nil, ""},
		{"other exception stays permanent", lib(remote{"org.apache.hadoop.hdfs.protocol.QuotaExceededException", "The DiskSpace quota is exceeded"}), nil, fsys.ErrUnavailable, "QuotaExceededException: The DiskSpace quota"},
		{"connection refused", fmt.Errorf("no available namenodes: %s", refused), fsys.ErrUnavailable, nil, "connection refused"},
		{"net error", lib(refused), fsys.ErrUnavailable, nil, ""},
		{"EOF mid-call", io.EOF, fsys.ErrUnavailable, nil, ""},
		{"reset", syscall.ECONNRESET, fsys.ErrUnavailable, nil, ""},
		{"datanodes down", errors.New("no available datanodes"), fsys.ErrUnavailable, nil, ""},
		{"not replicated yet", &os.PathError{Op: "create", Path: "/x", Err: gohdfs.ErrReplicating}, fsys.ErrUnavailable, nil, ""},
		{"Kerberos refused", errors.New("no available namenodes: SASL handshake: [Root cause: KDC_Error] KDC_Error: TGS Exchange Error: KDC_ERR_S_PRINCIPAL_UNKNOWN"), fsys.ErrCredentials, fsys.ErrUnavailable, keyNNPrincipal},
		{"KDC unreachable", errors.New("no available namenodes: SASL handshake: [Root cause: Networking_Error] Networking_Error: TGS Exchange Error"), fsys.ErrUnavailable, fsys.ErrCredentials, ""},
		{"cancelled", context.Canceled, context.Canceled, fsys.ErrUnavailable, ""},
		{"already mapped", &fsys.UnavailableError{Store: store, Err: io.EOF}, fsys.ErrUnavailable, nil, ""},
		{"ours kept as is", &fs.PathError{Op: "rename", Path: "hdfs://nn:8020/dst", Err: fs.ErrExist}, fs.ErrExist, nil, "hdfs://nn:8020/dst"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mapErr(store, "stat", p, c.in)
			if c.is != nil && !errors.Is(got, c.is) {
				t.Errorf("%v does not match %v", got, c.is)
			}
			if c.not != nil && errors.Is(got, c.not) {
				t.Errorf("%v matches %v", got, c.not)
			}
			if c.is == fs.ErrNotExist || c.is == fs.ErrExist || c.is == fs.ErrPermission {
				var pe *fs.PathError
				if !errors.As(got, &pe) || !strings.HasPrefix(pe.Path, "hdfs://") {
					t.Errorf("%#v is not a *fs.PathError naming the URI", got)
				}
			}
			if !strings.Contains(got.Error(), c.text) {
				t.Errorf("%q does not contain %q", got, c.text)
			}
		})
	}
	if mapErr(store, "stat", p, nil) != nil {
		t.Fatal("mapErr(nil) != nil")
	}
}

// The library's NameNode connection and the protocol messages setrep
// sends are where raw.go expects them in the pinned library version.
func TestRawCallShape(t *testing.T) {
	f, ok := reflect.TypeOf(gohdfs.Client{}).FieldByName("namenode")
	if !ok || f.Type.Kind() != reflect.Pointer || !f.Type.Implements(reflect.TypeOf((*executor)(nil)).Elem()) {
		t.Fatalf("hdfs.Client.namenode = %v: not a pointer with Execute(string, proto.Message, proto.Message) error", f.Type)
	}
	if _, err := namenodeOf(&gohdfs.Client{}); !errors.Is(err, errNoRawCall) {
		t.Fatalf("namenodeOf(unconnected client) = %v", err)
	}
	for name, fields := range map[string]map[string]protoreflect.Kind{
		"hadoop.hdfs.SetReplicationRequestProto":  {"src": protoreflect.StringKind, "replication": protoreflect.Uint32Kind},
		"hadoop.hdfs.SetReplicationResponseProto": {"result": protoreflect.BoolKind},
	} {
		m, err := newMessage(name)
		if err != nil {
			t.Fatal(err)
		}
		for field, kind := range fields {
			fd := m.Descriptor().Fields().ByName(protoreflect.Name(field))
			if fd == nil || fd.Kind() != kind {
				t.Fatalf("%s.%s = %v, want a %v field", name, field, fd, kind)
			}
		}
	}
	if _, err := newMessage("hadoop.hdfs.NoSuchProto"); !errors.Is(err, errNoRawCall) {
		t.Fatalf("newMessage(unknown) = %v", err)
	}
}
