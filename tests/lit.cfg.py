# lit configuration for ufjit's golden tests (tests/lit/**.ufn) and annotated
# diagnostics tests (tests/diagnostics/**.ufn). Each file carries `# RUN:`
# lines; %ufjit is the tool, %FileCheck LLVM's FileCheck, %ptxas the CUDA
# toolkit's ptxas (for checking emitted PTX).
import os
import lit.formats

config.name = "ufjit"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ufn"]
config.test_source_root = os.path.dirname(__file__)
# lit writes each test's Output/ under the exec root: keep it in the build tree
# (UFJIT_LIT_EXEC_ROOT, set by CTest, one per test so that parallel lit runs
# never share a .lit_test_times.txt) so that running the tests never touches
# tracked files; a bare lit run falls back to a temporary folder.
config.test_exec_root = os.environ.get("UFJIT_LIT_EXEC_ROOT") or os.path.join(
    __import__("tempfile").gettempdir(), "ufjit-lit")
config.excludes = ["unit", "api", "gpu", "fuzz", "cli"]

ufjit = os.environ.get("UFJIT_TOOL", "ufjit")
filecheck = os.environ.get("UFJIT_FILECHECK", "FileCheck")
ptxas = os.environ.get("UFJIT_PTXAS", "ptxas")
config.substitutions.append(("%ufjit", ufjit))
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("%ptxas", ptxas))
config.environment["UFJIT_CACHE"] = "off"
for var in ("UFJIT_LIBDEVICE", "UFJIT_NVJITLINK", "HOME", "LD_LIBRARY_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
