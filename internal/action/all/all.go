// Package all links every built-in action family, each of which registers
// its types with the launch runtime in an init function (as a database/sql
// driver does). Whoever needs the built-in types — the engine's default
// registry, the gozie command, tests — imports it for its side effects:
//
//	import _ "github.com/gozie/gozie/internal/action/all"
//
// A new action type is then one package of its own plus one line here.
package all

import (
	_ "github.com/gozie/gozie/internal/action/custom"
	_ "github.com/gozie/gozie/internal/action/distcp"
	_ "github.com/gozie/gozie/internal/action/email"
	_ "github.com/gozie/gozie/internal/action/fs"
	_ "github.com/gozie/gozie/internal/action/hadoop"
	_ "github.com/gozie/gozie/internal/action/jvm"
	_ "github.com/gozie/gozie/internal/action/shell"
	_ "github.com/gozie/gozie/internal/action/ssh"
)
