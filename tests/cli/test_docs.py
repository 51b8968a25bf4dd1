"""The tool's own documentation: every --help ends with an example that
runs, ufjit(1) renders without warnings and names every verb, option, exit
code and environment variable, and the bash completion completes verbs,
options, choices and files."""
import os
import re
import shlex
import shutil
import subprocess
import unittest

import npyfile
from clitest import EXAMPLES, TOOL, TempDir, slurp, ufjit

MAN_PAGE = os.environ.get("UFJIT_MAN_PAGE", "")
COMPLETION = os.environ.get("UFJIT_BASH_COMPLETION", "")
CACHES_DOC = os.environ.get("UFJIT_CACHES_DOC", os.path.join(EXAMPLES, "..", "docs", "guide", "caches.md"))


def subcommands(help_text):
    """The names listed under "Subcommands:" in CLI11's help."""
    names = []
    listing = False
    for line in help_text.splitlines():
        if line.strip() == "Subcommands:":
            listing = True
        elif listing and line.strip():
            names.append(line.split()[0])
        elif listing:
            break
    return names


def every_command():
    """Every command line that has a --help: (), ("run",), ("cache", "list")..."""
    found = [()]
    queue = [()]
    while queue:
        path = queue.pop(0)
        for name in subcommands(ufjit(*path, "--help").stdout):
            found.append(path + (name,))
            queue.append(path + (name,))
    return found


def example_commands(help_text):
    """The commands of the help's closing example section, or None when the
    help does not end with one."""
    lines = help_text.rstrip("\n").splitlines()
    starts = [k for k, line in enumerate(lines) if line.startswith("Example")]
    if not starts:
        return None
    commands = lines[starts[-1] + 1:]
    if not commands or any(not line.startswith("  ufjit ") for line in commands):
        return None
    return [line.strip() for line in commands]


class HelpEndsWithAnExample(TempDir):
    def setUp(self):
        super().setUp()
        os.symlink(os.path.abspath(EXAMPLES), self.path("examples"))
        for name in ("x.npy", "y.npy", "out.npy"):
            npyfile.write(self.path(name), "<f4", (1000,), [k / 1000 for k in range(1000)])
        bin_dir = self.path("bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(TOOL) if os.sep in TOOL else shutil.which(TOOL), os.path.join(bin_dir, "ufjit"))
        self.env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
                        UFJIT_CACHE_DIR=self.path("cache"), UFJIT_CACHE="on")

    def test_every_command_is_found(self):
        commands = every_command()
        for verb in ("check", "compile", "run", "launch", "info", "cache"):
            self.assertIn((verb,), commands)
        for action in ("list", "stats", "verify", "prune", "clear"):
            self.assertIn(("cache", action), commands)

    def test_every_help_ends_with_an_example_that_runs(self):
        for path in every_command():
            with self.subTest(command=" ".join(path)):
                r = ufjit(*path, "--help")
                self.assertEqual(r.returncode, 0, r.stderr)
                commands = example_commands(r.stdout)
                self.assertIsNotNone(commands, "no closing example in:\n" + r.stdout)
                for command in commands:
                    if path:
                        self.assertTrue((command + " ").startswith("ufjit " + " ".join(path) + " "), command)
                    run = subprocess.run(command, shell=True, cwd=self.d, env=self.env, capture_output=True,
                                         text=True, timeout=300)
                    self.assertEqual(run.returncode, 0, command + "\n" + run.stdout + run.stderr)

    def test_the_run_example_writes_its_output(self):
        r = ufjit("run", "--help")
        command = [c for c in example_commands(r.stdout) if "--out" in c][0]
        subprocess.run(command, shell=True, cwd=self.d, env=self.env, check=True, capture_output=True)
        self.assertEqual(npyfile.read(self.path("y.npy"))[1], (1000,))


def groff_warnings(path):
    r = subprocess.run(["groff", "-man", "-ww", "-z", path], capture_output=True, text=True)
    return r.returncode, r.stderr


class ManPage(unittest.TestCase):
    def setUp(self):
        if not MAN_PAGE or not os.path.exists(MAN_PAGE):
            self.skipTest("UFJIT_MAN_PAGE is not set (the build writes build/ufjit.1)")
        self.text = slurp(MAN_PAGE)

    def test_the_built_page_is_what_the_tool_prints(self):
        self.assertEqual(ufjit("--man").stdout, self.text)

    def test_it_renders_without_warnings(self):
        if shutil.which("groff") is None:
            self.skipTest("no groff")
        code, warnings = groff_warnings(MAN_PAGE)
        self.assertEqual(code, 0, warnings)
        self.assertEqual(warnings, "")

    def test_it_has_the_sections_of_a_man_page(self):
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", '"EXIT STATUS"', "ENVIRONMENT",
                        "EXAMPLES", '"SEE ALSO"'):
            self.assertIn("\n.SH " + section + "\n", self.text)
        self.assertTrue(self.text.splitlines()[1].startswith(".TH UFJIT 1 "))

    def test_every_command_and_option_is_described(self):
        for path in every_command()[1:]:
            self.assertRegex(self.text, r'\n\.SS "ufjit ' + re.escape(" ".join(path)) + r'[ "]')
        for option in ("--target", "--emit", "--in", "--out", "--grid", "--out-dir", "--max-bytes", "--remove",
                       "--no-progress", "--verify-diagnostics", "--version"):
            self.assertIn(option.replace("-", "\\-"), self.text)

    def test_every_exit_code_is_listed(self):
        for code in range(4):
            self.assertIn("\n.B %d\n" % code, self.text)

    def test_every_environment_variable_of_the_guide_is_listed(self):
        names = set(re.findall(r"\b(UFJIT_[A-Z_]+|NUMBA_BOUNDSCHECK)\b", slurp(CACHES_DOC)))
        self.assertGreater(len(names), 10)
        environment = self.text.split("\n.SH ENVIRONMENT\n")[1].split("\n.SH ")[0].replace("\\-", "-")
        for name in sorted(names | {"UFJIT_PROGRESS", "UFJIT_PROGRESS_AFTER_MS"}):
            self.assertIn(name, environment)

    def test_it_names_no_build_path(self):
        self.assertNotIn(os.path.dirname(os.path.abspath(MAN_PAGE)), self.text)


class Installed(TempDir):
    def test_install_puts_them_where_man_and_bash_completion_look(self):
        cmake, build = os.environ.get("UFJIT_CMAKE", ""), os.environ.get("UFJIT_BUILD_DIR", "")
        if not cmake or not build:
            self.skipTest("UFJIT_CMAKE and UFJIT_BUILD_DIR are not set")
        prefix = self.path("prefix")
        r = subprocess.run([cmake, "--install", build, "--prefix", prefix], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(slurp(os.path.join(prefix, "share", "man", "man1", "ufjit.1")), slurp(MAN_PAGE))
        self.assertEqual(slurp(os.path.join(prefix, "share", "bash-completion", "completions", "ufjit")),
                         slurp(COMPLETION))


class BashCompletion(TempDir):
    def setUp(self):
        super().setUp()
        if not COMPLETION or not os.path.exists(COMPLETION):
            self.skipTest("UFJIT_BASH_COMPLETION is not set (the build writes build/ufjit-completion.bash)")
        for name in ("a.ufn", "b.npy", "c.txt"):
            open(self.path(name), "w").close()
        os.mkdir(self.path("sub"))

    def complete(self, line):
        """COMPREPLY for the command line `line` with the cursor at its end."""
        words = shlex.split(line) + ([""] if line.endswith(" ") else [])
        script = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ufjit; ' \
                 'printf "%s\\n" "${COMPREPLY[@]}"'
        r = subprocess.run(["bash", "-c", script, "bash", COMPLETION, *words], cwd=self.d, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        return sorted(w for w in r.stdout.splitlines() if w)

    def test_the_built_script_is_what_the_tool_prints(self):
        self.assertEqual(ufjit("--bash-completion").stdout, slurp(COMPLETION))

    def test_it_registers_the_function(self):
        self.assertIn("complete -F _ufjit ufjit", slurp(COMPLETION))

    def test_verbs(self):
        self.assertEqual(self.complete("ufjit la"), ["launch"])
        self.assertEqual(self.complete("ufjit c"), ["cache", "check", "compile"])

    def test_options_of_a_verb(self):
        self.assertEqual(self.complete("ufjit run --ta"), ["--target"])
        self.assertIn("--no-progress", self.complete("ufjit compile --"))
        self.assertEqual(self.complete("ufjit launch --out"), ["--out-dir"])

    def test_choices_of_an_option(self):
        self.assertEqual(self.complete("ufjit run --target "), ["cpu", "cuda"])
        self.assertEqual(self.complete("ufjit compile a.ufn --emit l"), ["llvm"])
        self.assertIn("device-ptx", self.complete("ufjit compile --emit "))

    def test_cache_sub_verbs_and_their_options(self):
        self.assertEqual(self.complete("ufjit cache "), ["clear", "list", "prune", "stats", "verify"])
        self.assertEqual(self.complete("ufjit cache prune --m"), ["--max-bytes"])

    def test_ufn_files_where_a_source_is_expected(self):
        self.assertEqual(self.complete("ufjit run "), ["a.ufn", "sub"])
        self.assertEqual(self.complete("ufjit check "), ["a.ufn", "sub"])

    def test_npy_files_for_arrays(self):
        self.assertEqual(self.complete("ufjit run a.ufn f --in "), ["b.npy", "sub"])
        self.assertEqual(self.complete("ufjit run a.ufn f --in b.npy --out "), ["b.npy", "sub"])

    def test_a_file_name_with_spaces_stays_one_candidate(self):
        open(self.path("my kernels.ufn"), "w").close()
        self.assertEqual(self.complete("ufjit check my"), ["my kernels.ufn"])

    def test_any_file_for_an_output_and_directories_for_out_dir(self):
        self.assertEqual(self.complete("ufjit compile a.ufn -o "), ["a.ufn", "b.npy", "c.txt", "sub"])
        self.assertEqual(self.complete("ufjit launch a.ufn k --out-dir "), ["sub"])

    def test_an_option_value_is_not_a_positional(self):
        # The --target value is skipped: the next word is the file again.
        self.assertEqual(self.complete("ufjit run --target cpu "), ["a.ufn", "sub"])
        self.assertEqual(self.complete("ufjit run a.ufn "), [])  # the ufunc's name: nothing to offer


if __name__ == "__main__":
    unittest.main()
