# fish completion for git-snap and git snap.
# Install: git snap completion fish > ~/.config/fish/conf.d/git-snap.fish
# (conf.d rather than completions/: fish loads completions/git-snap.fish
# only for git-snap, and before fish 3.7 git's completion does not hand
# git snap to it).

# __git_snap_complete lists what the command line's last word may be.
function __git_snap_complete
    set -l words (commandline -opc)
    if test "$words[1]" = git
        set -l i (contains -i -- snap $words)
        set words $words[(math $i + 1)..-1]
    else
        set -e words[1] # git-snap
    end
    set -l out (command git-snap __complete -- $words (commandline -ct) 2>/dev/null)
    if test "$out[1]" = ":files"
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\n' $out
end

# __git_snap_after_git is true on a git command line whose command is snap.
function __git_snap_after_git
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        switch $words[1]
            case -C -c --git-dir --work-tree --namespace
                set -e words[1..2]
            case '-*'
                set -e words[1]
            case snap
                return 0
            case '*'
                return 1
        end
    end
    return 1
end

complete -c git-snap -f -a '(__git_snap_complete)'
complete -c git -f -n __git_snap_after_git -a '(__git_snap_complete)'
