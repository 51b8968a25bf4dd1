// Entries of the ufunc methods `reduce` and `accumulate`, for both targets,
// around a binary scalar function whose inputs and result share one dtype T.
//
// requires: `scalar` takes (T, T) and returns T in value types (Lowering.h);
// guarantees: one external entry per call that reads T elements, calls
// `scalar` (inlined later) and stores T elements.
//
// Method ABI (the runtime's runtime/Methods.cpp prepares the operands):
//   parameters, in order: rows int64, len int64, chunks int64, chunk_len
//   int64, in pointer, out pointer. `in` is a C-contiguous [rows, len] array
//   of T; len >= 1 and rows >= 1.
//
//   Reduce: segment s in [0, rows * chunks) folds the elements of row
//   s / chunks from column (s % chunks) * chunk_len, at most chunk_len of
//   them (each segment holds at least one), into out[s]. With chunks == 1
//   that is the reduction of each row; with more, a second call over
//   [rows, chunks] finishes it.
//     GPU: a `.entry` launched with exactly kReduceBlock threads per block;
//     each block takes segments in a grid-stride loop; each thread folds
//     elements tid, tid + kReduceBlock, ... of its segment, then the block
//     combines the threads' values in a fixed tree in shared memory (thread
//     t with t + s, s = 128, 64, ..., 1): deterministic, and an order that
//     needs an associative and commutative function.
//     CPU: `void(int64 begin, int64 end, void *const *params)` over segments
//     [begin, end), each folded left to right.
//   Accumulate: out[r, 0] = in[r, 0]; out[r, j] = f(out[r, j-1], in[r, j]),
//   one GPU thread (grid-stride) or one CPU loop per row; the CPU entry
//   takes rows [begin, end). chunks and chunk_len are unused. `out` may be
//   `in` (each element is read before it is written).
#pragma once

#include <string>

#include "codegen/Codegen.h"
#include "codegen/KernelEntry.h"
#include "codegen/Lowering.h"

namespace ufjit::codegen {

/// Builds the entry of `method` for `kind` named `name`. Throws ufjit::Error
/// when the signature is not (T, T) -> T.
llvm::Function *build_method_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                   MethodKernel method, TargetKind kind, const std::string &name);

}  // namespace ufjit::codegen
