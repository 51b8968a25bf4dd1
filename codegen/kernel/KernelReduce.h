// Entries of the ufunc methods `reduce` and `accumulate`, for both targets,
// around a binary scalar function whose inputs and result share one dtype T.
//
// requires: `scalar` takes (T, T) and returns T in value types (Lowering.h);
// guarantees: one external entry per call that reads T elements, calls
// `scalar` (inlined later) and stores T elements.
//
// Method ABI (the runtime's runtime/Methods.cpp prepares the operands):
//   the parameters are the Method rows of codegen/kernel/KernelABI.h's table
//   (kernel_params(make_method_spec(...))), which the entry builder, the
//   runtime's packer (KernelParams of a MethodArgs) and both backends read:
//   rows int64, len int64, chunks int64, chunk_len int64, in pointer, out
//   pointer, aux pointer, out_has pointer, then the error flag (a uint32
//   pointer) only when the module can raise.
//   `in` is a C-contiguous [rows, len] array of T; len >= 1 and rows >= 1.
//   Segment s in [0, rows * chunks) is the elements of row s / chunks from
//   column (s % chunks) * chunk_len, at most chunk_len of them (each segment
//   holds at least one).
//
//   Reduce (aux, out_has unused): folds each segment into out[s]. With chunks == 1
//     that is the reduction of each row; with more, a second call over
//     [rows, chunks] finishes it.
//     GPU: a `.entry` launched with exactly kReduceBlock threads per block;
//     blocks take segments in a grid-stride loop; each thread folds its share
//     of the segment (16-byte vector loads over the 16-byte aligned middle of
//     the segment, two in flight per thread, scalar loads for the head and
//     tail; scalar loads only when the function is expensive), then the
//     block combines the threads' values in a fixed tree in shared memory
//     (thread t with t + s, s = 128, 64, ..., 1): deterministic, and an order
//     that needs an associative and commutative function.
//     CPU: `void(int64 begin, int64 end, void *const *params)` over segments
//     [begin, end), each folded left to right.
//   ReduceWhere (aux: a bool [rows, len] mask, 1 = take the element): as
//     Reduce, skipping masked-out elements; the first element of every row
//     must be taken (the runtime puts the initial value there), so every row
//     has a value. CPU: chunks == 1 only. GPU: chunks may be more; a segment
//     without a taken element leaves out[s] as it is, and when out_has is not
//     null out_has[s] (bool) says whether the segment took one, so that a
//     second ReduceWhere over [rows, chunks] with out_has as its mask
//     finishes the rows (chunk 0 holds the row's first element).
//   Accumulate: out[r, 0] = in[r, 0]; out[r, j] = f(out[r, j-1], in[r, j]).
//     `out` may be `in`.
//     CPU: one loop per row, rows [begin, end); chunks, chunk_len, aux unused.
//     GPU: one block per segment (grid-stride), a block-level scan over
//     tiles of kReduceBlock * K elements (K consecutive elements per thread,
//     a thread-local scan, a Hillis-Steele scan of the threads' totals in
//     shared memory, the tile's carry to the next tile): deterministic, needs
//     an associative function. A segment of chunk c > 0 starts from
//     aux[s - 1] (the inclusive result of the row's previous chunks); aux
//     is unused when chunks == 1.
//   AccumulateRows (GPU): one thread per row (grid-stride over rows), for
//     many short rows; on the CPU the same entry as Accumulate.
#pragma once

#include <string>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelEntry.h"
#include "codegen/lower/Lowering.h"

namespace ufjit::codegen {

/// Builds the entry of `method` for `kind` named `name`. Throws ufjit::Error
/// when the signature is not (T, T) -> T.
llvm::Function *build_method_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                   MethodKernel method, TargetKind kind, const std::string &name);

}  // namespace ufjit::codegen
