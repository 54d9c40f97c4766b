# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# The reference has one source: the options each verb's --help lists (its
# option table) and the options the man page describes must be the same
# set, so neither can gain an option the other does not know.
# Sourced by tests/e2e/run.sh, whose helpers (fail, assert_eq) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $DOCS_TESTS"

# shellcheck disable=SC2034 # read by run.sh
DOCS_TESTS="test_man_options"

# help_opts VERB...: the long options the verbs' --help lists, one a line.
help_opts()
{
	local v

	for v in "$@"; do
		"$BLOOMWALL" "$v" --help | sed -n '/^Options:/,/^$/p' |
			grep -oE -- '^ +(-[a-zA-Z], )?--[a-z-]+' |
			grep -oE -- '--[a-z-]+'
	done | sort -u
}

test_man_options()
{
	local man=$TOP/user/bloomwall.8 verbs v o missing="" helps mentioned defs

	# Every verb the global --help names, and no other.
	verbs=$("$BLOOMWALL" --help | sed -n '/^Verbs:/,/^$/p' |
		awk 'NR > 1 && NF { print $1 }')
	[ -n "$verbs" ] || fail "no verb in bloomwall --help"
	for v in $verbs; do
		grep -q "^\\.B bloomwall $v\\b" "$man" ||
			missing="$missing $v"
	done
	assert_eq "$missing" "" "verbs of --help missing from the man page's synopsis"

	# Each verb's options are in the man page (roff writes - as \-).
	mentioned=$(sed 's/\\-/-/g' "$man" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
	for v in $verbs; do
		for o in $(help_opts "$v"); do
			grep -qx -- "$o" <<<"$mentioned" || missing="$missing $v:$o"
		done
	done
	assert_eq "$missing" "" "options of --help the man page does not describe"

	# Each option the man page defines (a .TP item) is some verb's, or a
	# global one.
	# shellcheck disable=SC2086 # one verb a word
	helps=$({
		help_opts $verbs
		"$BLOOMWALL" --help | grep -oE -- '--[a-z][a-z-]+'
	} | sort -u)
	defs=$(awk '/^\.TP/ { getline; print }' "$man" | sed 's/\\-/-/g' |
		grep -oE -- '--[a-z][a-z-]+' | sort -u)
	[ "$(wc -l <<<"$defs")" -gt 20 ] || fail "too few option items read from the man page"
	for o in $defs; do
		grep -qx -- "$o" <<<"$helps" || missing="$missing $o"
	done
	assert_eq "$missing" "" "options the man page defines that no --help lists"
}
