// ufjit(1) in roff, from the CLI11 app: NAME and DESCRIPTION from the app's
// description, SYNOPSIS and COMMANDS from every verb's positionals, options
// and example footer, EXIT STATUS from kExitCodes, ENVIRONMENT from the table
// below (tests/cli/test_docs.py checks it names every variable of
// docs/guide/caches.md).
#include <iostream>
#include <sstream>

#include "CliDocs.h"
#include "Progress.h"
#include "Tool.h"
#include "ufjit/runtime.h"

namespace ufjit::tool {
namespace {

struct EnvironmentDoc {
  const char *name;
  const char *meaning;
};

constexpr EnvironmentDoc kEnvironment[] = {
    {"UFJIT_TARGET=cpu|cuda",
     "the default target of ufjit run and ufjit launch (default: cuda where a GPU is present)"},
    {"UFJIT_DEVICE=N", "the CUDA device ordinal"},
    {"UFJIT_DEVICES=all|0,1,...",
     "the set of CUDA devices a Runtime computes on, the first being the default"},
    {"UFJIT_CACHE_DIR=DIR", "the disk cache (default: $XDG_CACHE_HOME/ufjit or ~/.cache/ufjit)"},
    {"UFJIT_CACHE=off", "no disk cache, neither read nor written"},
    {"UFJIT_CACHE_MAX_BYTES=N",
     "the disk cache's cap in bytes, K, M, G or T allowed (default 1 GiB; least recently used entries go "
     "first)"},
    {"UFJIT_DEBUG=0..3", "log each compile step, and where a first GPU call's time goes, to standard error"},
    {"UFJIT_CPU_VECTOR_MATH=none|sleef|libmvec", "the CPU target's vector math library"},
    {"UFJIT_CPU_STREAM_BYTES=N",
     "CPU calls moving at least N bytes write their output with streaming stores"},
    {"UFJIT_LIBDEVICE, UFJIT_NVJITLINK", "paths, when the CUDA toolkit is not at /usr/local/cuda"},
    {"UFJIT_TIERING=0", "GPU kernels compiled fully optimised at the first call"},
    {"UFJIT_WARMUP=0", "no compiler or context warm-up"},
    {"UFJIT_PREFETCH=0", "no loading of disk-cached kernels while a source is typed"},
    {"UFJIT_LIBDEVICE_SLICES=0", "each GPU compile parses libdevice lazily"},
    {"UFJIT_DONE_FLAGS=0", "tiny synchronous GPU calls wait with cuStreamSynchronize"},
    {"UFJIT_PROGRESS=0", "no progress line on a terminal (as --no-progress)"},
    {"UFJIT_PROGRESS_AFTER_MS=N",
     "show the progress line of run and compile after N milliseconds instead of 1000 (0: at once)"},
    {"NUMBA_BOUNDSCHECK=1|0", "every array index checked, or none (unset: as the decorators say)"},
    {"OMPI_COMM_WORLD_SIZE, PMI_SIZE",
     "set by mpirun: above 1, ufjit run splits its call across the ranks, each binding the GPU of its "
     "OMPI_COMM_WORLD_LOCAL_RANK modulo the host's GPUs (a build with MPI; docs/guide/mpi.md)"},
    {"UFJIT_CHECK=1", "every kernel compiled checked: indices bounds-checked, shared-memory races reported (CPU)"},
};

/// Text for roff: backslashes and minus signs escaped, a leading '.' or '\''
/// (a request) neutralised.
std::string roff(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string positional_label(const CLI::Option &option) {
  const std::string kind = value_kind(option);
  if (kind != "TEXT") return kind;
  std::string name = option.get_name(true);
  for (char &c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

/// "cuda|cpu" or "FILE.npy": what follows an option's name.
std::string value_label(const CLI::Option &option) {
  const std::vector<std::string> choices = option_choices(option);
  if (choices.empty()) return value_kind(option);
  std::string text;
  for (const std::string &c : choices) text += (text.empty() ? "" : "|") + c;
  return text;
}

/// "\fB\-o\fR, \fB\-\-output\fR \fIFILE\fR"
std::string option_label(const CLI::Option &option) {
  std::string names;
  for (const std::string &s : option.get_snames())
    names += (names.empty() ? "" : ", ") + ("\\fB\\-" + s + "\\fR");
  for (const std::string &l : option.get_lnames()) {
    names += (names.empty() ? "" : ", ") + ("\\fB" + roff("--" + l) + "\\fR");
  }
  const std::string value = value_label(option);
  return value.empty() ? names : names + " \\fI" + roff(value) + "\\fR";
}

bool is_help(const CLI::App &app, const CLI::Option *option) {
  return option == app.get_help_ptr();
}

/// "ufjit run FILE.ufn FUNC --in FILE.npy|NUMBER [OPTIONS]"
std::string synopsis(const CLI::App &app) {
  std::string line = command_path(app);
  std::vector<const CLI::App *> subs = visible_subcommands(app);
  if (!subs.empty()) {
    std::string names;
    for (const CLI::App *sub : subs) names += (names.empty() ? "" : "|") + sub->get_name();
    line += " " + names;
  }
  for (const CLI::Option *option : visible_options(app)) {
    if (option->get_positional()) line += " " + positional_label(*option);
  }
  for (const CLI::Option *option : visible_options(app)) {
    if (!option->get_positional() && option->get_required()) {
      line += " --" + option->get_lnames().front() + " " + value_label(*option);
    }
  }
  return line + " [OPTIONS]";
}

/// The closing example section of a footer: from its last line that starts
/// with "Example" to the end.
std::string example_part(const std::string &footer) {
  std::size_t start = footer.rfind("\nExample");
  return start == std::string::npos ? footer : footer.substr(start + 1);
}

/// A footer: its indented lines (commands) verbatim, the others as text.
void write_footer(std::ostream &out, const std::string &footer) {
  std::istringstream lines(footer);
  std::string line;
  bool literal = false;
  while (std::getline(lines, line)) {
    const bool command = line.rfind("  ", 0) == 0;
    if (command != literal) out << (command ? ".PP\n.RS 4\n.nf\n" : ".fi\n.RE\n");
    literal = command;
    if (line.empty()) continue;
    out << (command ? "" : ".PP\n") << roff(command ? line.substr(2) : line) << "\n";
  }
  if (literal) out << ".fi\n.RE\n";
}

void write_options(std::ostream &out, const CLI::App &app) {
  for (const CLI::Option *option : visible_options(app)) {
    if (is_help(app, option)) continue;
    out << ".TP\n"
        << (option->get_positional() ? "\\fI" + roff(positional_label(*option)) + "\\fR"
                                     : option_label(*option))
        << "\n";
    std::string text = option->get_description();
    const std::string fallback = option->get_default_str();
    if (!fallback.empty() && text.find("default") == std::string::npos)
      text += " (default: " + fallback + ")";
    out << roff(text) << "\n";
  }
}

void write_command(std::ostream &out, const CLI::App &app) {
  out << ".SS \"" << roff(synopsis(app)) << "\"\n" << roff(app.get_description()) << "\n";
  write_options(out, app);
  write_footer(out, app.get_footer());
  for (const CLI::App *sub : visible_subcommands(app)) write_command(out, *sub);
}

void write_synopsis(std::ostream &out, const CLI::App &app) {
  for (const CLI::App *verb : visible_subcommands(app)) {
    if (visible_subcommands(*verb).empty()) {
      out << roff(synopsis(*verb)) << "\n.br\n";
      continue;
    }
    for (const CLI::App *sub : visible_subcommands(*verb)) out << roff(synopsis(*sub)) << "\n.br\n";
  }
}

std::string name_line(const CLI::App &app) {
  std::string text = app.get_description();
  const std::string prefix = "ufjit: ";
  if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
  return text;
}

void write_tables(std::ostream &out) {
  out << ".SH \"EXIT STATUS\"\n";
  for (const ExitCodeDoc &doc : kExitCodes) {
    out << ".TP\n.B " << static_cast<int>(doc.code) << "\n" << roff(doc.meaning) << "\n";
  }
  out << ".SH ENVIRONMENT\n";
  for (const EnvironmentDoc &doc : kEnvironment) {
    out << ".TP\n.B " << roff(doc.name) << "\n" << roff(doc.meaning) << "\n";
  }
}

}  // namespace

std::string man_page(const CLI::App &app) {
  std::ostringstream out;
  out << ".\\\" Generated by `ufjit --man` from the tool's own command-line definitions.\n"
      << ".TH UFJIT 1 \"\" \"ufjit " << version().substr(0, version().find(' ')) << "\" \"User Commands\"\n"
      << ".nh\n"  // no hyphens inserted into option names and paths
      << ".SH NAME\nufjit \\- " << roff(name_line(app)) << "\n"
      << ".SH SYNOPSIS\n.ad l\n";
  write_synopsis(out, app);
  out << ".ad\n.SH DESCRIPTION\n"
      << roff(
             "ufjit checks, compiles and runs .ufn sources: ufuncs (@vectorize, @guvectorize) with run, "
             "explicit kernels (@cuda.jit) with launch, on .npy files and numbers, on a GPU (--target cuda) "
             "or "
             "the CPU (--target cpu). Each verb has its own options; 'ufjit VERB --help' lists them.")
      << "\n.PP\nOn a terminal, a run or compile that takes longer than a second shows its stage on standard "
      << "error, on one line erased at the end; nothing when standard error is not a terminal.\n"
      << ".SH COMMANDS\n";
  for (const CLI::App *verb : visible_subcommands(app)) write_command(out, *verb);
  out << ".SH OPTIONS\n";
  for (const CLI::Option *option : visible_options(app)) {
    out << ".TP\n" << option_label(*option) << "\n" << roff(option->get_description()) << "\n";
  }
  write_tables(out);
  out << ".SH EXAMPLES\n";
  write_footer(out, example_part(app.get_footer()));
  out << ".PP\nEach command above ends with its own examples, as its --help does.\n";
  out << ".SH \"SEE ALSO\"\n"
      << roff(
             "The user guide in the source tree: docs/guide/cli.md (this tool), docs/guide/caches.md (caches "
             "and environment variables), docs/LANGUAGE.md (the .ufn language).")
      << "\n";
  return out.str();
}

std::vector<const CLI::Option *> visible_options(const CLI::App &app) {
  return app.get_options([](const CLI::Option *option) { return !option->get_group().empty(); });
}

std::vector<const CLI::App *> visible_subcommands(const CLI::App &app) {
  return app.get_subcommands([](const CLI::App *sub) { return !sub->get_group().empty(); });
}

std::vector<std::string> option_choices(const CLI::Option &option) {
  const std::string type = option.get_type_name();
  const std::size_t open = type.find(":{");
  const std::size_t close = type.find('}', open);
  std::vector<std::string> choices;
  if (open == std::string::npos || close == std::string::npos) return choices;
  std::istringstream words(type.substr(open + 2, close - open - 2));
  std::string word;
  while (std::getline(words, word, ',')) choices.push_back(word);
  return choices;
}

std::string value_kind(const CLI::Option &option) {
  if (option.get_type_size() == 0) return "";
  const std::string type = option.get_type_name();
  return type.substr(0, type.find(':'));
}

std::string command_path(const CLI::App &app) {
  const CLI::App *parent = app.get_parent();
  return parent == nullptr ? "ufjit" : command_path(*parent) + " " + app.get_name();
}

void add_doc_flags(CLI::App &app) {
  app.add_flag_callback("--man",
                        [&app] {
                          std::cout << man_page(app);
                          throw CLI::Success();
                        })
      ->group("");
  app.add_flag_callback("--bash-completion",
                        [&app] {
                          std::cout << bash_completion(app);
                          throw CLI::Success();
                        })
      ->group("");
}

}  // namespace ufjit::tool
