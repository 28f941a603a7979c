package all

import _ "github.com/gozie/gozie/internal/fsys/hcat"
