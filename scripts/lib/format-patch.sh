# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/kernel format-patch [OUTDIR]: the series as it would be mailed, sourced by
# scripts/kernel (uses its TREE, BUILD, ROOT, BASE_TAG, g, say, die).
#
# Writes OUTDIR (default build/series) with git format-patch --cover-letter: 0000 is the cover
# letter, its subject and text from kernel/cover-letter.txt (figures checked against docs/,
# the checkpatch findings kept from kernel/checkpatch-allowed.txt), then git's shortlog and
# diffstat. It then applies the files with git am to the base in a scratch worktree and fails
# unless the result is the same tree as build/linux's HEAD.

# shellcheck source=checkpatch.sh
. "$ROOT/scripts/lib/checkpatch.sh"

cmd_format_patch() {
	local out=${1:-$BUILD/series} cover tmp am n
	[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'scripts/kernel assemble' first"
	[ -z "$(g status --porcelain)" ] || die "$TREE has uncommitted changes; commit them first"
	n=$(g rev-list --count "$BASE_TAG..HEAD")
	[ "$n" -gt 0 ] || die "no commits since $BASE_TAG"
	rm -rf "$out"
	mkdir -p "$out"
	git -C "$TREE" -c user.name="Stackmap Developers" -c user.email=stackmap@localhost \
		format-patch -q --cover-letter --zero-commit --no-signature --thread=shallow \
		-o "$out" "$BASE_TAG..HEAD" >/dev/null
	cover=$(ls "$out"/0000-cover-letter.patch)
	tmp=$(mktemp)
	# The findings checkpatch --strict reports, each with its reason: "N<TAB>finding<TAB>reason".
	local i=0 c subj line why
	for c in $(g rev-list --reverse "$BASE_TAG..HEAD"); do
		i=$((i + 1))
		subj=$(g log -1 --format=%s "$c")
		while IFS= read -r line; do
			why=$(cp_reason "$subj" "$line") ||
				die "checkpatch finding in patch $i ($subj) not in kernel/checkpatch-allowed.txt: $line"
			printf '%s\t%s\t%s\n' "$i" "$(echo "$line" | cut -d: -f1,2)" "$why"
		done < <(cp_findings "$TREE" "$c")
	done >"$tmp"
	python3 - "$ROOT" "$cover" "$tmp" "$(source_version "$TREE")" <<'PY' || die "cover letter: see above"
import re, sys
root, cover, findings, version = sys.argv[1:]
lines = [l for l in open(root + '/kernel/cover-letter.txt').read().split('\n')
         if not l.startswith('#')]
subject, body = lines[0], '\n'.join(lines[1:]).strip('\n')
bad = []
def fig(m):
    path, text, ctx = m.group(1), m.group(2), m.group(3)
    want = ctx if ctx is not None else text
    if ctx is not None and text not in ctx:
        bad.append('%s: "%s" is not inside its context "%s"' % (path, text, ctx))
    try:
        doc = open(root + '/' + path).read()
    except OSError as e:
        bad.append('%s: %s' % (path, e.strerror))
        return text
    if want not in doc:
        bad.append('%s does not contain "%s"' % (path, want))
    return text
body = re.sub(r'\{\{([^|}]+)\|([^|}]+)(?:\|([^}]+))?\}\}', fig, body)
import textwrap
groups = {}
for row in open(findings).read().split('\n'):
    if row:
        num, what, why = row.split('\t', 2)
        key = (what, why)
        if num not in groups.setdefault(key, []):
            groups[key].append(num)
items = []
for (what, why), nums in groups.items():
    head = ' - patch%s %s, %s: ' % ('es' if len(nums) > 1 else '', ', '.join(nums), what)
    items.append(textwrap.fill(head + why, 72, subsequent_indent='   ', break_on_hyphens=False))
body = body.replace('@CHECKPATCH@', '\n'.join(items))
body = body.replace('@BASE@', 'Linux ' + version)
if bad:
    for b in bad:
        print('format-patch: figure not in docs/: ' + b, file=sys.stderr)
    sys.exit(1)
text = open(cover).read()
if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
    sys.exit('format-patch: git did not write the cover letter placeholders')
text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
open(cover, 'w').write(text)
PY
	rm -f "$tmp"
	# git am onto the base in a scratch worktree: the same tree as HEAD, or fail.
	am=$BUILD/check/am
	rm -rf "$am"
	g worktree prune
	g worktree add -q --detach "$am" "$BASE_TAG" || die "cannot create $am"
	if ! git -C "$am" -c user.name="stackmap build" -c user.email=build@localhost \
		am -q $(ls "$out"/*.patch | grep -v '/0000-cover-letter.patch$') 2>"$am.log"; then
		cat "$am.log" >&2
		die "git am of $out onto $BASE_TAG failed"
	fi
	[ "$(git -C "$am" rev-parse 'HEAD^{tree}')" = "$(g rev-parse 'HEAD^{tree}')" ] ||
		die "git am of $out gives another tree than $TREE's HEAD"
	g worktree remove --force "$am"
	say "wrote $out: cover letter + $n patches; git am on Linux $(source_version "$TREE") gives HEAD's tree"
}
