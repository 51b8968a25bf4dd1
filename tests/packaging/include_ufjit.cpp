// Compiled with -fsyntax-only by packaging_cxx17_error (must stop at the
// #error of <ufjit/ufjit.h>) and packaging_cxx20_header (must compile).
#include <ufjit/ufjit.h>

int main() { return ufjit::version().empty() ? 1 : 0; }
