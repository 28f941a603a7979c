package hdfs

import (
	"errors"
	"fmt"
	"reflect"

	gohdfs "github.com/colinmarc/hdfs/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// colinmarc/hdfs v2.4.0 has no setReplication. Its NameNode connection
// (Client's unexported field namenode, an *rpc.NamenodeConnection from an
// internal package) has an exported Execute that sends any ClientProtocol
// call, and its generated protocol messages are in the protobuf registry.
// gozie reaches the connection by reflection to send that one call. The
// library version is pinned in go.mod, and TestRawCallShape checks the
// field, the method and the messages, so an upgrade that moves them fails
// the tests rather than setrep at run time.

// executor is the method of the library's NameNode connection gozie uses.
type executor interface {
	Execute(method string, req proto.Message, resp proto.Message) error
}

var errNoRawCall = errors.New("this build's HDFS client library does not expose its NameNode connection")

// namenodeOf returns the NameNode connection of c.
func namenodeOf(c *gohdfs.Client) (executor, error) {
	v := reflect.ValueOf(c).Elem().FieldByName("namenode")
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, errNoRawCall
	}
	// NewAt gives an addressable copy of the pointer that is not marked
	// read-only, so its methods can be called.
	ex, ok := reflect.NewAt(v.Type().Elem(), v.UnsafePointer()).Interface().(executor)
	if !ok {
		return nil, errNoRawCall
	}
	return ex, nil
}

// newMessage returns an empty message of the library's protocol by its
// full name (hadoop.hdfs.SetReplicationRequestProto).
func newMessage(name string) (protoreflect.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(name))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoRawCall, err)
	}
	return mt.New(), nil
}

// setField sets the named field of m, failing when it does not exist.
func setField(m protoreflect.Message, name string, v protoreflect.Value) error {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		return fmt.Errorf("%w: %s has no field %s", errNoRawCall, m.Descriptor().FullName(), name)
	}
	m.Set(fd, v)
	return nil
}

// setReplication sends ClientProtocol.setReplication for hp. It reports
// the NameNode's answer: false for a directory (and, on some versions, a
// missing path), where nothing was changed.
func setReplication(c *gohdfs.Client, hp string, n int16) (bool, error) {
	ex, err := namenodeOf(c)
	if err != nil {
		return false, err
	}
	req, err := newMessage("hadoop.hdfs.SetReplicationRequestProto")
	if err != nil {
		return false, err
	}
	resp, err := newMessage("hadoop.hdfs.SetReplicationResponseProto")
	if err != nil {
		return false, err
	}
	if err := setField(req, "src", protoreflect.ValueOfString(hp)); err != nil {
		return false, err
	}
	if err := setField(req, "replication", protoreflect.ValueOfUint32(uint32(n))); err != nil {
		return false, err
	}
	if err := ex.Execute("setReplication", req.Interface(), resp.Interface()); err != nil {
		return false, err
	}
	fd := resp.Descriptor().Fields().ByName("result")
	if fd == nil {
		return false, fmt.Errorf("%w: SetReplicationResponseProto has no field result", errNoRawCall)
	}
	return resp.Get(fd).Bool(), nil
}
