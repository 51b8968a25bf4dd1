// UFJIT_API marks the symbols libufjit.so exports; everything else, LLVM
// included, is hidden so that a host program's own LLVM is unaffected.
#pragma once

#define UFJIT_API __attribute__((visibility("default")))
