package fsys

import (
	"fmt"
	"io/fs"
	"strconv"
)

// ParsePermission reads a permission mask in the forms the fs action
// accepts: octal ("755", or four digits with the sticky bit, "1777") and
// Unix symbolic ("-rwxr-xr-x" as ls prints it, the first character being
// ignored as Hadoop does, or the nine-character "rwxr-xr-x"). In symbolic
// form the last character may be t or T for the sticky bit, as in Hadoop.
func ParsePermission(s string) (fs.FileMode, error) {
	switch len(s) {
	case 3, 4:
		v, err := strconv.ParseUint(s, 8, 32)
		if err != nil || v > 0o1777 || len(s) == 4 && s[0] != '0' && s[0] != '1' {
			return 0, fmt.Errorf("invalid permissions mask [%s]", s)
		}
		mode := fs.FileMode(v & 0o777)
		if v&0o1000 != 0 {
			mode |= fs.ModeSticky
		}
		return mode, nil
	case 10:
		return parseSymbolic(s, s[1:])
	case 9:
		return parseSymbolic(s, s)
	}
	return 0, fmt.Errorf("invalid permissions mask [%s]", s)
}

func parseSymbolic(orig, s string) (fs.FileMode, error) {
	const letters = "rwxrwxrwx"
	var mode fs.FileMode
	for i := 0; i < 9; i++ {
		c := s[i]
		bit := fs.FileMode(1) << (8 - i)
		switch {
		case c == letters[i]:
			mode |= bit
		case c == '-':
		case i == 8 && c == 't':
			mode |= bit | fs.ModeSticky
		case i == 8 && c == 'T':
			mode |= fs.ModeSticky
		default:
			return 0, fmt.Errorf("invalid permissions mask [%s]", orig)
		}
	}
	return mode, nil
}
