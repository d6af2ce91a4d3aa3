# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# scripts/kernel format-patch [--am-on GITDIR:REV]... [OUTDIR]: the series as it would be
# mailed, sourced by scripts/kernel (uses its TREE, BUILD, ROOT, BASE_TAG, g, say, die).
#
# Writes OUTDIR (default build/series; KVER=7.3: build/series-7.3, the mainline series) with
# git format-patch --cover-letter: 0000 is the cover
# letter, its subject and text from kernel/cover-letter.txt (figures checked against docs/,
# the checkpatch findings kept from kernel/checkpatch-allowed.txt), then git's shortlog and
# diffstat. It then applies the files with git am to the base in a scratch worktree and fails
# unless the result is the same tree as build/linux's HEAD.
#
# The series' commits carry the project's placeholder identity (PLACEHOLDER below); a mailable
# series never does: the author, the Signed-off-by lines and the MAINTAINERS entry (as M:) are
# the sender's, from git config user.name and user.email of this repository or
# STACKMAP_SENDER='Name <email>', and format-patch refuses to write the series without one.
#
# A commit at the start of the series whose message has a Fixes: trailer fixes a bug of the base
# that the series only found: it is mailed on its own, as OUTDIR/fixes/0001-*.patch ("[PATCH]",
# no cover letter, for stable), and the numbered series with its cover letter starts after it.
#
# --am-on GITDIR:REV (repeatable) also applies the patches with git am to REV of the git
# repository GITDIR (another tree of the same KVER.y, e.g. a stable tag), and fails unless every patch
# applies and the files the series adds come out as in HEAD (see am_on). The cover letter's
# @ALSO@ names the versions it applied to.

# shellcheck source=checkpatch.sh
. "$ROOT/scripts/lib/checkpatch.sh"

# am_on GITDIR REV PATCHES...: git am onto the files the series touches, as REV of GITDIR has
# them, in a scratch repository that holds only those files (and the Makefile, for the
# version): git am applies a patch by its own files' context alone, and a mirror need not hold
# every blob of its tree. Echoes the tree's version.
am_on() {
	local repo=$1 rev=$2 am=$BUILD/check$KSUFFIX/am-on f ver
	shift 2
	git -C "$repo" rev-parse -q --verify "$rev^{commit}" >/dev/null ||
		die "--am-on: no revision $rev in $repo"
	rm -rf "$am"
	git init -q "$am"
	for f in Makefile $(g diff --name-only --diff-filter=MD "$BASE_TAG" HEAD); do
		mkdir -p "$am/$(dirname "$f")"
		git -C "$repo" cat-file blob "$rev:$f" >"$am/$f" 2>/dev/null ||
			die "--am-on: $repo $rev has no $f, which the series changes"
	done
	ver=$(source_version "$am")
	case $ver in "$KVER".*) ;; *) die "--am-on: $repo $rev is Linux $ver, not $KVER.y" ;; esac
	git -C "$am" add -A
	git -C "$am" -c user.name="stackmap build" -c user.email=build@localhost \
		commit -q -m "Linux $ver: the files the series touches"
	if ! git -C "$am" -c user.name="stackmap build" -c user.email=build@localhost \
		am -q "$@" 2>"$am.log"; then
		cat "$am.log" >&2
		die "git am onto Linux $ver ($repo $rev) failed"
	fi
	for f in $(g diff --name-only --diff-filter=A "$BASE_TAG" HEAD); do
		cmp -s <(g show "HEAD:$f") "$am/$f" ||
			die "git am onto Linux $ver ($repo $rev): $f differs from HEAD's"
	done
	rm -rf "$am" "$am.log"
	echo "$ver"
}

PLACEHOLDER="Stackmap Developers <stackmap@localhost>"

# The sender's "Name <email>", or a refusal that says how to give it.
sender_identity() {
	local who=${STACKMAP_SENDER:-} name email
	if [ -z "$who" ]; then
		name=$(git -C "$ROOT" config user.name || true)
		email=$(git -C "$ROOT" config user.email || true)
		[ -n "$name" ] && [ -n "$email" ] && who="$name <$email>"
	fi
	[ -n "$who" ] || die "format-patch: no sender: set git config user.name and user.email" \
		"(or STACKMAP_SENDER='Name <email>'); the series is not mailed under the" \
		"placeholder $PLACEHOLDER"
	if [ "$who" = "$PLACEHOLDER" ] ||
		! echo "$who" | grep -Eq '^[^<>]+ <[^<>@ ]+@[^<>@ ]+\.[^<>@ ]+>$'; then
		die "format-patch: '$who' is not a sender's 'Name <email>' (a mail domain with a dot;" \
			"not the placeholder $PLACEHOLDER)"
	fi
	echo "$who"
}

cmd_format_patch() {
	local out="" cover tmp am n also=() spec sender
	while [ $# -gt 0 ]; do
		case $1 in
		--am-on)
			case ${2:-} in *:?*) also+=("$2") ;; *) die "format-patch: --am-on needs GITDIR:REV" ;; esac
			shift 2 ;;
		-*) die "format-patch: unknown option '$1' (--am-on GITDIR:REV)" ;;
		*) [ -z "$out" ] || die "format-patch: one output directory only"; out=$1; shift ;;
		esac
	done
	out=${out:-$BUILD/series$KSUFFIX}
	sender=$(sender_identity) || exit 1
	[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'scripts/kernel assemble' first"
	[ -z "$(g status --porcelain)" ] || die "$TREE has uncommitted changes; commit them first"
	n=$(g rev-list --count "$BASE_TAG..HEAD")
	[ "$n" -gt 0 ] || die "no commits since $BASE_TAG"
	rm -rf "$out"
	mkdir -p "$out"
	local email=${sender##*<} first=$BASE_TAG
	# The leading fixes (see the top of this file): the series starts after them.
	for c in $(g rev-list --reverse "$BASE_TAG..HEAD"); do
		g log -1 --format=%B "$c" | grep -q '^Fixes: [0-9a-f]\{12\}' || break
		g log -1 --format=%B "$c" | grep -q '^Cc: stable@vger.kernel.org' ||
			die "format-patch: $(g log -1 --format=%s "$c"): a Fixes: commit without Cc: stable"
		first=$c
	done
	n=$(g rev-list --count "$first..HEAD")
	[ "$n" -gt 0 ] || die "no commits after the fixes"
	if [ "$first" != "$BASE_TAG" ]; then
		git -C "$TREE" -c user.name="${sender% <*}" -c user.email="${email%>}" \
			format-patch -q --zero-commit --no-signature -o "$out/fixes" \
			"$BASE_TAG..$first" >/dev/null
	fi
	git -C "$TREE" -c user.name="${sender% <*}" -c user.email="${email%>}" \
		format-patch -q --cover-letter --zero-commit --no-signature --thread=shallow \
		-o "$out" "$first..HEAD" >/dev/null
	cover=$(ls "$out"/0000-cover-letter.patch)
	# The sender in place of the placeholder: author, sign-off, and maintainer (R: -> M:).
	# shellcheck disable=SC2046 # format-patch's names have no spaces
	python3 - "$PLACEHOLDER" "$sender" "$out"/*.patch $(ls "$out"/fixes/*.patch 2>/dev/null) \
		<<'PY' || die "format-patch: cannot set the sender"
import sys
ph, who = sys.argv[1], sys.argv[2]
for f in sys.argv[3:]:
    t = open(f).read()
    t = t.replace('From: ' + ph + '\n', 'From: ' + who + '\n')
    t = t.replace('Signed-off-by: ' + ph + '\n', 'Signed-off-by: ' + who + '\n')
    t = t.replace('+R:\t' + ph + '\n', '+M:\t' + who + '\n')
    if ph in t:
        sys.exit('format-patch: %s still names the placeholder %s' % (f, ph))
    open(f, 'w').write(t)
PY
	# The other trees first: the cover letter names those the series applied to.
	local versions=() patches
	# shellcheck disable=SC2010 # format-patch's names have no spaces
	patches="$(ls "$out"/fixes/*.patch 2>/dev/null) $(ls "$out"/*.patch | grep -v '/0000-cover-letter.patch$')"
	for spec in "${also[@]}"; do
		# shellcheck disable=SC2086
		versions+=("$(am_on "${spec%:*}" "${spec##*:}" $patches)") || exit 1
		say "git am onto Linux ${versions[-1]} (${spec}): every patch applies"
	done
	tmp=$(mktemp)
	# The findings checkpatch --strict reports, each with its reason: "N<TAB>finding<TAB>reason".
	local i=0 c subj line why
	for c in $(g rev-list --reverse "$first..HEAD"); do
		i=$((i + 1))
		subj=$(g log -1 --format=%s "$c")
		while IFS= read -r line; do
			why=$(cp_reason "$subj" "$line") ||
				die "checkpatch finding in patch $i ($subj) not in kernel/checkpatch-allowed.txt: $line"
			printf '%s\t%s\t%s\n' "$i" "$(echo "$line" | cut -d: -f1,2)" "$why"
		done < <(cp_findings "$TREE" "$c")
	done >"$tmp"
	python3 - "$ROOT" "$cover" "$tmp" "$KVER" "$(source_version "$TREE")" "${versions[@]}" <<'PY' || die "cover letter: see above"
import re, sys
root, cover, findings, kver, version = sys.argv[1:6]
also = sys.argv[6:]
lines = []
for l in open(root + '/kernel/cover-letter.txt').read().split('\n'):
    if l.startswith('#'):
        continue
    # "@6.12@ text" or "@7.3@ text": a line of that kernel's letter only.
    m = re.match(r'@([0-9.]+)@ ?(.*)$', l)
    if m:
        if m.group(1) != kver:
            continue
        l = m.group(2)
    lines.append(l)
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
said = ''
if also:
    names = ['Linux ' + v for v in also]
    said = names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]
    said = ' It also applies with git am to ' + said + '.'
paras = body.split('\n\n')
for k, para in enumerate(paras):
    if '@ALSO@' in para:
        paras[k] = textwrap.fill(' '.join(para.replace('@ALSO@', said).split()), 72,
                                 break_on_hyphens=False)
body = '\n\n'.join(paras)
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
	am=$BUILD/check$KSUFFIX/am
	mkdir -p "$BUILD/check$KSUFFIX"
	rm -rf "$am"
	g worktree prune
	g worktree add -q --detach "$am" "$BASE_TAG" || die "cannot create $am"
	# shellcheck disable=SC2086
	if ! git -C "$am" -c user.name="stackmap build" -c user.email=build@localhost \
		am -q $patches 2>"$am.log"; then
		cat "$am.log" >&2
		die "git am of $out onto $BASE_TAG failed"
	fi
	# HEAD's tree but for MAINTAINERS, where the sender maintains what the placeholder reviewed
	g diff --quiet "$(git -C "$am" rev-parse HEAD)" HEAD -- . ':(exclude)MAINTAINERS' ||
		die "git am of $out gives another tree than $TREE's HEAD"
	cmp -s <(g show HEAD:MAINTAINERS | sed "s|^R:\t$PLACEHOLDER\$|M:\t$sender|") \
		"$am/MAINTAINERS" ||
		die "git am of $out: MAINTAINERS is not HEAD's with the sender as maintainer"
	g worktree remove --force "$am"
	[ "$first" = "$BASE_TAG" ] ||
		say "wrote $out/fixes: $(g rev-list --count "$BASE_TAG..$first") fix(es) mailed on their own"
	say "wrote $out: cover letter + $n patches from $sender; git am on Linux" \
		"$(source_version "$TREE") gives HEAD's tree (MAINTAINERS: the sender as M:)"
}
