"""Progress on a terminal: `ufjit run` and `ufjit compile` show their stage
on one line of stderr, overwritten with '\\r' and erased at the end, once the
command has taken longer than UFJIT_PROGRESS_AFTER_MS (1000 by default; the
tests set 0 so that every stage shows at once); nothing at all when stderr
is not a terminal, with --no-progress or with UFJIT_PROGRESS=0."""
import os
import pty
import shutil
import subprocess

import npyfile
from clitest import TOOL, TempDir, example, ufjit

SHOW_AT_ONCE = {"UFJIT_PROGRESS_AFTER_MS": "0"}


def on_terminal(args, env, cwd):
    """Runs the tool with a pseudo-terminal as stderr: (exit code, stdout,
    everything written to the terminal)."""
    master, slave = pty.openpty()
    full_env = dict(os.environ, **env)
    proc = subprocess.Popen([TOOL, *args], stdout=subprocess.PIPE, stderr=slave, cwd=cwd, env=full_env)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the tool closed its end
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    return proc.wait(timeout=300), out, seen.decode()


def shown_at_the_end(text):
    """What a terminal shows on the last line after '\\r' overwrites."""
    last = text.split("\n")[-1]
    screen = ""
    for part in last.split("\r"):
        screen = part + screen[len(part):]
    return screen.strip()


class Progress(TempDir):
    def setUp(self):
        super().setUp()
        npyfile.write(self.path("x.npy"), "<i8", (1000,), list(range(1000)))
        self.run_args = ["run", example("add_ufunc.ufn"), "add_ufunc", "--in", "x.npy", "--in", "1", "--out",
                         "y.npy", "--target", "cpu"]

    def test_run_shows_its_stages_on_a_terminal_and_erases_them(self):
        code, out, terminal = on_terminal(self.run_args, dict(SHOW_AT_ONCE, UFJIT_CACHE="off"), self.d)
        self.assertEqual(code, 0, terminal)
        self.assertEqual(out, "")
        for stage in ("ufjit: loading " + example("add_ufunc.ufn"), "ufjit: reading inputs",
                      "ufjit: running add_ufunc", "ufjit: writing y.npy"):
            self.assertIn("\r" + stage, terminal)
        self.assertNotIn("\n", terminal)  # one line, overwritten
        self.assertEqual(shown_at_the_end(terminal), "")  # erased
        self.assertEqual(npyfile.read(self.path("y.npy"))[3][:3], [1, 2, 3])

    def test_compile_shows_its_stage(self):
        shutil.copy(example("gaussian_pdf.ufn"), self.path("g.ufn"))
        code, _, terminal = on_terminal(["compile", "g.ufn", "-o", "g.ptx"], SHOW_AT_ONCE, self.d)
        self.assertEqual(code, 0, terminal)
        self.assertIn("\rufjit: reading g.ufn", terminal)
        self.assertIn("\rufjit: compiling g.ufn (--emit ptx, sm_90)", terminal)
        self.assertEqual(shown_at_the_end(terminal), "")
        self.assertTrue(os.path.exists(self.path("g.ptx")))

    def test_the_line_is_erased_before_diagnostics(self):
        with open(self.path("bad.ufn"), "w") as f:
            f.write("import math\n\n@vectorize(['float32(float32)'])\ndef f(x):\n    return math.exq(x)\n")
        code, _, terminal = on_terminal(["compile", "bad.ufn"], SHOW_AT_ONCE, self.d)
        self.assertEqual(code, 1)
        progress, diagnostics = terminal.split("bad.ufn:5:", 1)
        self.assertIn("ufjit: compiling bad.ufn", progress)
        self.assertEqual(shown_at_the_end(progress), "")
        self.assertIn("math.exp", diagnostics)
        self.assertNotIn("ufjit: compiling", diagnostics)

    def test_the_line_is_erased_before_printed_results(self):
        args = ["run", example("add_ufunc.ufn"), "add_ufunc", "--in", "2", "--in", "3", "--target", "cpu"]
        code, out, terminal = on_terminal(args, SHOW_AT_ONCE, self.d)
        self.assertEqual((code, out), (0, "5\n"), terminal)
        self.assertEqual(shown_at_the_end(terminal), "")

    def test_nothing_without_a_terminal(self):
        r = ufjit(*self.run_args, cwd=self.d, env=SHOW_AT_ONCE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        r = ufjit("compile", example("gaussian_pdf.ufn"), "-o", self.path("g.ptx"), env=SHOW_AT_ONCE)
        self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_nothing_with_no_progress(self):
        code, _, terminal = on_terminal(self.run_args + ["--no-progress"], SHOW_AT_ONCE, self.d)
        self.assertEqual((code, terminal), (0, ""))
        code, _, terminal = on_terminal(["compile", example("gaussian_pdf.ufn"), "-o", "g.ptx", "--no-progress"],
                                        SHOW_AT_ONCE, self.d)
        self.assertEqual((code, terminal), (0, ""))

    def test_nothing_with_ufjit_progress_0(self):
        code, _, terminal = on_terminal(self.run_args, dict(SHOW_AT_ONCE, UFJIT_PROGRESS="0"), self.d)
        self.assertEqual((code, terminal), (0, ""))

    def test_nothing_with_ufjit_debug_whose_log_it_would_garble(self):
        code, _, terminal = on_terminal(self.run_args, dict(SHOW_AT_ONCE, UFJIT_DEBUG="1"), self.d)
        self.assertEqual(code, 0, terminal)
        self.assertNotIn("\rufjit: ", terminal)

    def test_nothing_for_a_command_quicker_than_the_threshold(self):
        code, _, terminal = on_terminal(self.run_args, {"UFJIT_PROGRESS_AFTER_MS": "600000"}, self.d)
        self.assertEqual((code, terminal), (0, ""))

    def test_the_line_shows_the_time_so_far(self):
        code, _, terminal = on_terminal(self.run_args, {"UFJIT_PROGRESS_AFTER_MS": "1"}, self.d)
        self.assertEqual(code, 0, terminal)
        self.assertRegex(terminal, r"\rufjit: [a-z]+ .*\(\d+\.\d s\)")
        self.assertEqual(shown_at_the_end(terminal), "")

if __name__ == "__main__":
    import unittest

    unittest.main()
