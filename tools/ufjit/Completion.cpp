// The bash completion script, from the CLI11 app: for every command path
// ("ufjit", "ufjit run", "ufjit cache prune") its sub-verbs, options and
// positionals, and for every option that takes a value what completes it
// (its IsMember choices, or files by the value kind of CliDocs.h). The
// function itself is fixed text; only the two lookup functions are written
// from the app, so a new option completes by itself. No bash-completion
// package is needed.
#include <sstream>

#include "CliDocs.h"

namespace ufjit::tool {
namespace {

/// What completes a value of this kind: "=a,b" (these words), "ufn" or
/// "npy" (files with that extension), "file", "dir" or "none"; "flag" for
/// an option without a value.
std::string completion_kind(const CLI::Option &option) {
  const std::vector<std::string> choices = option_choices(option);
  if (!choices.empty()) {
    std::string words = "=";
    for (const std::string &c : choices) words += (words.size() == 1 ? "" : ",") + c;
    return words;
  }
  const std::string kind = value_kind(option);
  if (kind.empty()) return "flag";
  if (kind == kUfnFile) return "ufn";
  if (kind == kNpyFile || kind == kNpyOrNumber) return "npy";
  if (kind == kAnyFile) return "file";
  if (kind == kDirectory) return "dir";
  return "none";
}

std::string joined(const std::vector<std::string> &words) {
  std::string text;
  for (const std::string &w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

/// One `case` arm of _ufjit_spec: the sub-verbs, options and positional
/// kinds of `app`; then those of its sub-verbs.
void write_spec(std::ostream &out, const CLI::App &app) {
  std::vector<std::string> subs;
  for (const CLI::App *sub : visible_subcommands(app)) subs.push_back(sub->get_name());
  std::vector<std::string> options;
  std::vector<std::string> positionals;
  for (const CLI::Option *option : visible_options(app)) {
    if (option->get_positional()) {
      positionals.push_back(completion_kind(*option));
      continue;
    }
    for (const std::string &s : option->get_snames()) options.push_back("-" + s);
    for (const std::string &l : option->get_lnames()) options.push_back("--" + l);
  }
  out << "    '" << command_path(app) << "') subs='" << joined(subs) << "' opts='" << joined(options)
      << "' positionals='" << joined(positionals) << "' ;;\n";
  for (const CLI::App *sub : visible_subcommands(app)) write_spec(out, *sub);
}

/// The `case` arms of _ufjit_value_kind: one per option taking a value.
void write_value_kinds(std::ostream &out, const CLI::App &app) {
  for (const CLI::Option *option : visible_options(app)) {
    const std::string kind = completion_kind(*option);
    if (option->get_positional() || kind == "flag") continue;
    std::string patterns;
    for (const std::string &s : option->get_snames()) {
      patterns += (patterns.empty() ? "" : "|") + ("'" + command_path(app) + " -" + s + "'");
    }
    for (const std::string &l : option->get_lnames()) {
      patterns += (patterns.empty() ? "" : "|") + ("'" + command_path(app) + " --" + l + "'");
    }
    out << "    " << patterns << ") echo '" << kind << "' ;;\n";
  }
  for (const CLI::App *sub : visible_subcommands(app)) write_value_kinds(out, *sub);
}

constexpr const char *kCompletionFunctions = R"(
# Completes a value of kind $1 (see _ufjit_value_kind) from the word $2; one
# candidate a line, so that file names with spaces stay whole.
_ufjit_complete_value() {
  local kind=$1 cur=$2 IFS=$'\n'
  case $kind in
    =*)
      local words=${kind#=}
      COMPREPLY+=($(compgen -W "${words//,/$'\n'}" -- "$cur")) ;;
    none | flag) ;;
    dir)
      compopt -o filenames 2>/dev/null
      COMPREPLY+=($(compgen -d -- "$cur")) ;;
    file)
      compopt -o filenames 2>/dev/null
      COMPREPLY+=($(compgen -f -- "$cur")) ;;
    *)
      compopt -o filenames 2>/dev/null
      COMPREPLY+=($(compgen -f -X "!*.$kind" -- "$cur") $(compgen -d -- "$cur")) ;;
  esac
}

_ufjit() {
  local cur=${COMP_WORDS[COMP_CWORD]} path=ufjit npos=0 i word kind subs opts positionals
  COMPREPLY=()
  _ufjit_spec "$path"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == -* ]]; then
      kind=$(_ufjit_value_kind "$path $word")
      [[ $kind == flag ]] && continue
      if ((i + 1 == COMP_CWORD)); then
        _ufjit_complete_value "$kind" "$cur"
        return 0
      fi
      i=$((i + 1))
    elif [[ " $subs " == *" $word "* ]]; then
      path="$path $word"
      npos=0
      _ufjit_spec "$path"
    else
      npos=$((npos + 1))
    fi
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return 0
  fi
  if [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    return 0
  fi
  local kinds=($positionals)
  _ufjit_complete_value "${kinds[npos]:-none}" "$cur"
  return 0
}
complete -F _ufjit ufjit
)";

}  // namespace

std::string bash_completion(const CLI::App &app) {
  std::ostringstream out;
  out << "# bash completion for ufjit, generated by `ufjit --bash-completion` from the tool's own\n"
      << "# command-line definitions. Installed as share/bash-completion/completions/ufjit;\n"
      << "# or: source <(ufjit --bash-completion)\n\n"
      << "# Sets subs (sub-verbs), opts (options) and positionals (their value kinds) of the command $1.\n"
      << "_ufjit_spec() {\n  case $1 in\n";
  write_spec(out, app);
  out << "    *) subs='' opts='' positionals='' ;;\n  esac\n}\n\n"
      << "# The kind of value the option in \"$1\" (the command and the option) takes.\n"
      << "_ufjit_value_kind() {\n  case $1 in\n";
  write_value_kinds(out, app);
  out << "    *) echo flag ;;\n  esac\n}\n" << kCompletionFunctions;
  return out.str();
}

}  // namespace ufjit::tool
