#compdef git-snap
# zsh completion for git-snap, and for git snap with zsh's git completion,
# which calls _git-snap for it.
# Install: git snap completion zsh > DIR/_git-snap, DIR on $fpath before
# compinit runs; or source <(git snap completion zsh) after compinit.

_git-snap() {
	local -a lines values
	local line value
	# words[1] is git-snap, or snap when git's completion calls this.
	lines=("${(@f)$(command git-snap __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if [[ ${lines[1]-} == ":files" ]]; then
		_files
		return
	fi
	for line in $lines; do
		[[ -n $line ]] || continue
		value=${line%%$'\t'*}
		if [[ $line == *$'\t'* && -n ${line#*$'\t'} ]]; then
			values+=("${value//:/\\:}:${line#*$'\t'}")
		else
			values+=("${value//:/\\:}")
		fi
	done
	(( $#values )) || return 1
	_describe -t git-snap 'git snap' values
}

if [[ ${funcstack[1]-} == _git-snap ]]; then
	_git-snap "$@"
else
	compdef _git-snap git-snap
fi
