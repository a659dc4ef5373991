#!/bin/sh
# manpages.sh -- the man pages against the programs: every option that
# `ctrace --help' lists is in ctrace(1), every option ctrace-symbolize
# accepts (its --list-options when it has one, else its --help) is in
# ctrace-symbolize(1), every CTRACE_* variable lib/config.c reads (the
# recorder's only reader of the environment) has an entry in
# ctrace-env(7) and that page has no entry config.c does not read; and
# every page renders without a warning.

. "$(dirname "$0")/lib.sh"
test_init manpages
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"

CTRACE_1=$top_srcdir/tools/ctrace.1
SYMBOLIZE_1=$top_srcdir/symbolizer/ctrace-symbolize.1
LIBCTRACE_3=$top_srcdir/lib/libctrace.3
ENV_7=$top_srcdir/lib/ctrace-env.7
CONFIG_C=$top_srcdir/lib/config.c

# page_text PAGE: the page's source with roff's escapes taken out (`\-'
# as `-', no font changes, no zero-width `\&'), so that an option reads
# as it is typed.
page_text() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(CW//g' \
		-e 's/\\&//g' -e 's/\\(dq/"/g' "$1"
}

# page_entries PAGE: the lines of PAGE that document an option: the tag
# of each entry (the line after .TP) and the SYNOPSIS; a mention in
# another option's text or in an example does not count.
page_entries() {
	page_text "$1" | awk '
		/^\.SH/ { syn = ($2 == "SYNOPSIS"); next }
		syn { print; next }
		/^\.TP/ { tag = 1; next }
		tag { tag = 0; print }'
}

# options_in_page PAGE: read options (`--name' or `-x') one a line on
# stdin; fail, naming each, unless every one appears in an entry of PAGE
# (page_entries) as a whole option (not as the start of a longer one).
options_in_page() {
	page_entries "$1" >page.txt
	oip_missing=
	while read -r oip_opt; do
		[ -n "$oip_opt" ] || continue
		grep -q -E -e "(^|[^A-Za-z0-9-])$oip_opt([^A-Za-z0-9-]|\$)" \
			page.txt || oip_missing="$oip_missing $oip_opt"
	done
	[ -z "$oip_missing" ] ||
		fail "$(basename "$1") lacks:$oip_missing"
}

# help_options: the options a --help text on stdin defines: those of
# its option lines (`  -x, --long=ARG  text', `      --long  text') and
# of its usage lines (`Usage: PROG [--a|--b]...'), not the other
# programs' options its text may name.
help_options() {
	cat >help.txt
	sed -n -e 's/^ *\(-[A-Za-z]\), --.*/\1/p' help.txt
	sed -n -e 's/^ *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' \
		help.txt
	grep -E -e '^(Usage:)? +[a-z-]+ ' help.txt | grep -E -e '^(Usage:|  +ctrace)' |
		grep -o -E -e '--[a-z][a-z0-9-]*'
}

case_ctrace() {
	[ -x "$CTRACE_LAUNCHER" ] || skip "$CTRACE_LAUNCHER not built"
	"$CTRACE_LAUNCHER" --help >help.out 2>&1 ||
		fail "ctrace --help failed: $(cat help.out)"
	help_options <help.out | sort -u >options
	[ -s options ] || fail "no option found in ctrace --help"
	options_in_page "$CTRACE_1" <options
	# each command too
	for cmd in record replay report graph dump; do
		grep -q -E -e "^\\.B $cmd\$" "$CTRACE_1" ||
			fail "ctrace.1 has no entry for the command $cmd"
	done
}

# The symbolizer's options: from --list-options (LONG<TAB>SHORT<TAB>ARG<TAB>HELP
# lines) when it has it, else from --help.
case_symbolize() {
	if "$CTRACE_SYMBOLIZE" --list-options >list.out 2>/dev/null &&
		[ -s list.out ]; then
		awk -F '\t' '{
			l = $1; sub(/^-*/, "", l); if (l != "") print "--" l
			s = $2; sub(/^-*/, "", s); if (s != "") print "-" s
		}' list.out | sort -u >options
	else
		"$CTRACE_SYMBOLIZE" --help >help.out 2>&1 ||
			fail "ctrace-symbolize --help failed: $(cat help.out)"
		help_options <help.out | sort -u >options
	fi
	[ -s options ] || fail "no option found in ctrace-symbolize's list"
	options_in_page "$SYMBOLIZE_1" <options
}

# The variables config.c reads: every "CTRACE..." string in it (the
# names given to env(), and the warnings' "NAME=" prefixes).
config_variables() {
	grep -o -E -e '"CTRACE(_[A-Z0-9_]+)?=?"' "$CONFIG_C" |
		tr -d '"=' | sort -u
}

# The variables ctrace-env(7) documents: the tags of its entries (the line
# after each .TP starts with the variable's name).
page_variables() {
	awk '/^\.TP/ { tag = 1; next }
	     tag { tag = 0; if ($2 ~ /^CTRACE(_[A-Z0-9_]+)?$/) print $2 }' \
		"$ENV_7" | sort -u
}

case_env() {
	config_variables >read
	[ -s read ] || fail "no CTRACE variable found in $CONFIG_C"
	page_variables >documented
	missing=$(comm -23 read documented | tr '\n' ' ')
	[ -z "$missing" ] ||
		fail "ctrace-env.7 has no entry for what config.c reads: $missing"
}

case_env_stale() {
	config_variables >read
	page_variables >documented
	[ -s documented ] || fail "no variable entry found in ctrace-env.7"
	stale=$(comm -13 read documented | tr '\n' ' ')
	[ -z "$stale" ] ||
		fail "ctrace-env.7 documents what config.c never reads: $stale"
}

# Each page renders with no warning from groff (-ww: all warnings).
case_render() {
	command -v groff >/dev/null 2>&1 || skip "groff not found"
	for page in "$CTRACE_1" "$SYMBOLIZE_1" "$LIBCTRACE_3" "$ENV_7"; do
		groff -man -Tutf8 -ww -z "$page" >render.out 2>&1 ||
			fail "$page: groff failed: $(cat render.out)"
		[ ! -s render.out ] ||
			fail "$page: groff warns: $(cat render.out)"
	done
}

run_case ctrace-options case_ctrace
run_case symbolize-options case_symbolize
run_case env-variables case_env
run_case env-no-stale-entry case_env_stale
run_case render case_render
test_finish
