# assemble.awk: expand an update script template (src/sql/*.sql.in).  A
# line "\ir FILE" becomes the contents of FILE, read from the template's
# directory (dir=...), between two comment lines naming it; every other
# line is copied.  A missing FILE stops the build.
/^\\ir[ \t]+/ {
	file = dir "/" $2
	print "-- begin " $2
	while ((status = (getline line < file)) > 0)
		print line
	if (status < 0) {
		print "assemble.awk: cannot read " file > "/dev/stderr"
		exit 1
	}
	close(file)
	print "-- end " $2
	next
}
{ print }
