// The man page ufjit(1) and the bash completion script, both written from
// the CLI11 definitions of the verbs (their descriptions, options, value
// kinds, choices and example footers), so that neither can drift from the
// tool: a new option appears in both by itself. The build writes them with
// the hidden flags `ufjit --man` and `ufjit --bash-completion`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ufjit::tool {

/// Value kinds of options and positionals, set as their CLI11 type name:
/// shown in --help and the man page, and read by the completion script
/// (kUfnFile completes .ufn files, kNpyFile and kNpyOrNumber .npy files,
/// kAnyFile any file, kDirectory directories).
inline constexpr const char *kUfnFile = "FILE.ufn";
inline constexpr const char *kNpyFile = "FILE.npy";
inline constexpr const char *kNpyOrNumber = "FILE.npy|NUMBER";
inline constexpr const char *kAnyFile = "FILE";
inline constexpr const char *kDirectory = "DIR";

/// Adds the hidden --man and --bash-completion flags to the top-level app;
/// each prints its text on stdout and ends the parse (exit 0).
void add_doc_flags(CLI::App &app);

/// The roff source of ufjit(1).
std::string man_page(const CLI::App &app);

/// A bash script defining and registering the completion function `_ufjit`.
std::string bash_completion(const CLI::App &app);

/// The options shown to users (not the hidden ones), positionals included.
std::vector<const CLI::Option *> visible_options(const CLI::App &app);

/// The verbs and sub-verbs shown to users.
std::vector<const CLI::App *> visible_subcommands(const CLI::App &app);

/// The words an option's value is checked against (CLI::IsMember), from its
/// type name ("TEXT:{cuda,cpu}" -> cuda, cpu); empty when any value goes.
std::vector<std::string> option_choices(const CLI::Option &option);

/// The option's value kind: its type name without the choices ("FILE.npy",
/// "TEXT", "UINT"); empty for a flag.
std::string value_kind(const CLI::Option &option);

/// "ufjit", "ufjit run", "ufjit cache prune": the command line that reaches
/// `app` (the tool's own name, whatever argv[0] was).
std::string command_path(const CLI::App &app);

}  // namespace ufjit::tool
