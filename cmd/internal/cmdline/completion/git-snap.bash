# bash completion for git-snap, and for git snap with git's completion.
# Install: git snap completion bash > ~/.local/share/bash-completion/completions/git-snap
# (bash-completion loads it for git-snap, and for git snap through git's
# completion), or source it from ~/.bashrc.

# __git_snap_reply SUFFIX WORD…: COMPREPLY for the last WORD, the words
# being those after git-snap (or git snap), each candidate followed by
# SUFFIX.
__git_snap_reply() {
	local IFS=$'\n' line suffix=$1
	local -a out
	shift
	out=($(command git-snap __complete -- "$@" 2>/dev/null))
	COMPREPLY=()
	if [[ ${out[0]-} == ":files" ]]; then
		COMPREPLY=($(compgen -f -- "${@: -1}"))
		compopt -o filenames 2>/dev/null
		return 0
	fi
	# Candidates are quoted as the shell reads them back (printf %q):
	# bash inserts a reply as it is, so a name holding $(…) or ; would
	# run when the line is entered.
	local value
	for line in "${out[@]}"; do
		printf -v value '%q' "${line%%$'\t'*}"
		COMPREPLY+=("$value$suffix")
	done
}

# _git_snap is what git's completion calls for git snap.
_git_snap() {
	local i=${__git_cmd_idx-}
	if [[ -z $i ]]; then
		for ((i = 1; i < cword; i++)); do
			[[ ${words[i]} == snap ]] && break
		done
	fi
	# git's completion adds no space after a word itself (-o nospace)
	__git_snap_reply " " "${words[@]:i+1:cword-i}"
}

# __git_snap_bash completes git-snap run by its own name.
__git_snap_bash() {
	local cur words cword
	if declare -F _get_comp_words_by_ref >/dev/null; then
		_get_comp_words_by_ref -n =: cur words cword
	else
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	__git_snap_reply "" "${words[@]:1:cword}"
}

complete -F __git_snap_bash git-snap
