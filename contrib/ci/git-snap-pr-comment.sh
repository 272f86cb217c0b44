#!/bin/sh
# git-snap-pr-comment.sh: post one comment on a pull request (GitHub) or a
# merge request (GitLab) with `git snap pr`'s summary of the agent sessions
# behind its commits, and update that same comment on every later run. It
# needs no account anywhere: the sessions come from the repository's own
# remote (refs/snap/*, pushed with `git snap push`), the comment is posted
# with the forge's API and the token CI already has.
#
# Needs git (a clone with the range's history: fetch-depth 0), git-snap,
# curl and jq on PATH. Settings, from the environment:
#
#   GIT_SNAP_FORGE     github or gitlab; by default github in GitHub Actions
#                      ($GITHUB_ACTIONS), gitlab in GitLab CI ($GITLAB_CI)
#   GIT_SNAP_REMOTE    the remote the sessions were pushed to (origin)
#   GIT_SNAP_BASE      the range's base (origin/<the target branch>)
#   GIT_SNAP_HEAD      the range's head (HEAD)
#   GIT_SNAP_HTML_DIR  when set, each session's HTML export is written there,
#                      to keep as an artifact
#   GIT_SNAP_COMMENTER the login the token posts as (by default the forge's
#                      /user says; in GitHub Actions, whose token cannot read
#                      it, github-actions[bot])
#   GitHub: GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL
#           (https://api.github.com), GIT_SNAP_PR (the pull request's number;
#           by default read from $GITHUB_EVENT_PATH), GITHUB_BASE_REF
#   GitLab: GIT_SNAP_GITLAB_TOKEN (a token with the api scope), CI_API_V4_URL,
#           CI_PROJECT_ID, CI_MERGE_REQUEST_IID,
#           CI_MERGE_REQUEST_TARGET_BRANCH_NAME
#
# Only a comment the token's own user wrote is ever updated: anyone can
# paste the marker into a comment of theirs, and theirs is left alone.
#
# When there is nothing to say (no session is linked to the commits, the
# range names none, the remote has no sessions) it says so and posts
# nothing: exit status 0. Any other failure is exit status 1.
set -eu

marker='<!-- git-snap pr: this comment is updated on every push -->'
remote=${GIT_SNAP_REMOTE:-origin}
head=${GIT_SNAP_HEAD:-HEAD}

forge=${GIT_SNAP_FORGE:-}
if [ -z "$forge" ]; then
	if [ -n "${GITHUB_ACTIONS:-}" ]; then forge=github
	elif [ -n "${GITLAB_CI:-}" ]; then forge=gitlab
	else echo "git-snap-pr-comment: set GIT_SNAP_FORGE to github or gitlab" >&2; exit 1
	fi
fi

case $forge in
github)
	api=${GITHUB_API_URL:-https://api.github.com}
	: "${GITHUB_TOKEN:?set GITHUB_TOKEN to a token that may comment on pull requests}"
	: "${GITHUB_REPOSITORY:?set GITHUB_REPOSITORY to owner/name}"
	number=${GIT_SNAP_PR:-}
	if [ -z "$number" ] && [ -n "${GITHUB_EVENT_PATH:-}" ]; then
		number=$(jq -r '.pull_request.number // .issue.number // empty' "$GITHUB_EVENT_PATH")
	fi
	: "${number:?set GIT_SNAP_PR to the pull request's number}"
	target=${GITHUB_BASE_REF:-}
	list_url="$api/repos/$GITHUB_REPOSITORY/issues/$number/comments"
	one_url="$api/repos/$GITHUB_REPOSITORY/issues/comments"
	update=PATCH
	set -- -H "Authorization: Bearer $GITHUB_TOKEN" -H "Accept: application/vnd.github+json"
	;;
gitlab)
	api=${CI_API_V4_URL:?set CI_API_V4_URL}
	: "${GIT_SNAP_GITLAB_TOKEN:?set GIT_SNAP_GITLAB_TOKEN to a token with the api scope}"
	: "${CI_PROJECT_ID:?set CI_PROJECT_ID}"
	number=${CI_MERGE_REQUEST_IID:?set CI_MERGE_REQUEST_IID (run the job in merge request pipelines)}
	target=${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:-}
	list_url="$api/projects/$CI_PROJECT_ID/merge_requests/$number/notes"
	one_url=$list_url
	update=PUT
	set -- -H "PRIVATE-TOKEN: $GIT_SNAP_GITLAB_TOKEN"
	;;
*)
	echo "git-snap-pr-comment: GIT_SNAP_FORGE is $forge: choose github or gitlab" >&2
	exit 1
	;;
esac

base=${GIT_SNAP_BASE:-}
if [ -z "$base" ]; then
	: "${target:?set GIT_SNAP_BASE to the range's base (origin/main)}"
	git fetch --quiet "$remote" "+refs/heads/$target:refs/remotes/$remote/$target"
	base="$remote/$target"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sessions: the remote's, fetched into remote-tracking refs.
git-snap fetch "$remote" > /dev/null

status=0
git-snap pr --max-chars 65400 -o "$work/body.md" "$base..$head" 2> "$work/err" || status=$?
case $status in
0) ;;
2)
	echo "git-snap-pr-comment: nothing to post: $(cat "$work/err")"
	exit 0
	;;
*)
	cat "$work/err" >&2
	exit 1
	;;
esac
if [ ! -s "$work/body.md" ]; then
	echo "git-snap-pr-comment: git snap pr wrote nothing: nothing to post"
	exit 0
fi
printf '\n%s\n' "$marker" >> "$work/body.md"

if [ -n "${GIT_SNAP_HTML_DIR:-}" ]; then
	mkdir -p "$GIT_SNAP_HTML_DIR"
	git-snap pr --json "$base..$head" | jq -r '.sessions[] | .name + " " + .snapshot' |
	while read -r name snapshot; do
		git-snap export --format html -o "$GIT_SNAP_HTML_DIR/$name.html" "$snapshot"
	done
fi

# Whom the token posts as, from the forge: a comment of anyone else is
# never updated, whatever it holds.
me=${GIT_SNAP_COMMENTER:-}
if [ -z "$me" ]; then
	if curl -fsS "$@" "$api/user" > "$work/me.json" 2> "$work/err"; then
		me=$(jq -r '.login // .username // empty' "$work/me.json")
	elif [ "$forge" = github ] && [ -n "${GITHUB_ACTIONS:-}" ]; then
		me='github-actions[bot]' # an Actions token may not read /user; it posts as the Actions app
	fi
fi
if [ -z "$me" ]; then
	echo "git-snap-pr-comment: cannot tell whom the token posts as ($api/user: $(cat "$work/err")); set GIT_SNAP_COMMENTER" >&2
	exit 1
fi
case $forge in
github) author='.user.login' ;;
gitlab) author='.author.username' ;;
esac

# The comment this script posted before, if any: the last one of ours
# holding the marker.
id=
page=1
while [ "$page" -le 100 ]; do
	curl -fsS "$@" "$list_url?per_page=100&page=$page" > "$work/page.json"
	[ "$(jq 'length' "$work/page.json")" -gt 0 ] || break
	found=$(jq -r --arg m "$marker" --arg me "$me" \
		"[.[] | select(((.body // \"\") | contains(\$m)) and ($author // \"\") == \$me)] | last | .id // empty" "$work/page.json")
	[ -z "$found" ] || id=$found
	page=$((page + 1))
done

jq -Rs '{body: .}' < "$work/body.md" > "$work/payload.json"
if [ -n "$id" ]; then
	curl -fsS "$@" -X "$update" -H "Content-Type: application/json" --data-binary "@$work/payload.json" "$one_url/$id" > /dev/null
	echo "git-snap-pr-comment: updated comment $id on $forge #$number"
else
	curl -fsS "$@" -X POST -H "Content-Type: application/json" --data-binary "@$work/payload.json" "$list_url" > /dev/null
	echo "git-snap-pr-comment: posted a comment on $forge #$number"
fi
