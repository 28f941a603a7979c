module github.com/gozie/gozie

go 1.26
