#!/usr/bin/perl
# assemble.pl: expand a script template (src/sql/*.sql.in) into an
# install or update script.
#
#   perl assemble.pl DIR TEMPLATE > SCRIPT
#
# A line "\ir FILE" becomes the whole of DIR/FILE.  A line
# "\ir FILE PREFIX" becomes the one statement of DIR/FILE (with the
# comment above it) whose text starts with PREFIX, compared with runs of
# white space as one blank: so an update script takes a changed function
# from the source it is written in, never a copy.  A missing file, or a
# PREFIX that matches no statement or more than one, stops the build.
# Every other line is copied.
use strict;
use warnings;

my ($dir, $template) = @ARGV;
die "usage: assemble.pl DIR TEMPLATE\n" unless defined $template;

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or die "assemble.pl: cannot read $path: $!\n";
	local $/;
	my $text = <$fh>;
	close($fh);
	return $text;
}

# Split SQL text into statements, each with the comments and blank lines
# before it and the rest of its last line.  Quotes, dollar quotes and
# comments hide semicolons; a psql backslash command is one line.
sub statements {
	my ($text) = @_;
	my @out;
	my $start = 0;
	pos($text) = 0;
	while (pos($text) < length($text)) {
		if ($text =~ /\G--[^\n]*\n?/gc) { next; }
		if ($text =~ /\G\/\*/gc) {
			my $depth = 1;
			while ($depth > 0) {
				if ($text =~ /\G\/\*/gc) { $depth++; }
				elsif ($text =~ /\G\*\//gc) { $depth--; }
				elsif ($text =~ /\G[^\/*]+|\G./gcs) { }
				else { die "assemble.pl: unterminated comment\n"; }
			}
			next;
		}
		if ($text =~ /\G'(?:[^']|'')*'/gc) { next; }
		if ($text =~ /\G"[^"]*"/gc) { next; }
		if ($text =~ /\G(?<![\w\$])(\$[A-Za-z_]*\$)/gc) {
			my $tag = $1;
			my $end = index($text, $tag, pos($text));
			die "assemble.pl: unterminated $tag quote\n" if $end < 0;
			pos($text) = $end + length($tag);
			next;
		}
		if ((pos($text) == 0 || substr($text, pos($text) - 1, 1) eq "\n")
			&& $text =~ /\G\\[^\n]*\n?/gc) {
			push @out, substr($text, $start, pos($text) - $start);
			$start = pos($text);
			next;
		}
		if ($text =~ /\G;[ \t]*\n?/gc) {
			push @out, substr($text, $start, pos($text) - $start);
			$start = pos($text);
			next;
		}
		$text =~ /\G[^-\/'"\$\\;]+|\G./gcs;
	}
	push @out, substr($text, $start) if substr($text, $start) =~ /\S/;
	return @out;
}

sub squeeze {
	my ($s) = @_;
	$s =~ s/\s+/ /g;
	$s =~ s/^ | $//g;
	return $s;
}

# The statement's own text: without the comments and blank lines above it.
sub body {
	my ($s) = @_;
	while ($s =~ s/^\s+// || $s =~ s/^--[^\n]*\n?// || $s =~ s/^\/\*.*?\*\///s ) { }
	return $s;
}

my $text = slurp($template);
for my $line (split /^/, $text) {
	unless ($line =~ /^\\ir[ \t]+(\S+)(?:[ \t]+(.*?))?\s*$/) {
		print $line;
		next;
	}
	my ($file, $prefix) = ($1, $2);
	my $source = slurp("$dir/$file");
	if (!defined $prefix) {
		print "-- begin $file\n", $source, "-- end $file\n";
		next;
	}
	my $want = squeeze($prefix);
	my @stmts = statements($source);
	my @hits = grep { index(squeeze(body($stmts[$_])), $want) == 0 } 0 .. $#stmts;
	die "assemble.pl: no statement of $file starts with \"$prefix\"\n" unless @hits;
	die "assemble.pl: " . scalar(@hits) . " statements of $file start with \"$prefix\"\n" if @hits > 1;
	my $stmt = $stmts[$hits[0]];
	# the file's own header is not the statement's comment
	$stmt =~ s/^\s*\/\*.*?\*\/\s*\n//s if $hits[0] == 0;
	$stmt =~ s/^\n+//;
	print $stmt;
}
