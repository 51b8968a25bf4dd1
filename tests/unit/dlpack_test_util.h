// A DLPack producer for the tests: tensors over a host buffer whose deleter
// counts its calls, so every test can say "the deleter ran exactly once".
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace ufjit::dlpack_testing {

/// DLPack 0.8's kDLBool (Debian 12's header, DLPack 0.6, lacks the name).
inline constexpr uint8_t kBool = 6;

/// What a test asks for; `strides` empty means NULL (C-contiguous).
struct TensorSpec {
  DLDevice device{kDLCPU, 0};
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<int64_t> shape;
  std::optional<std::vector<int64_t>> strides;  // elements
  uint64_t byte_offset = 0;
  std::size_t buffer_bytes = 256;
  bool null_shape = false;  // a 0-d tensor may pass shape == NULL
  bool null_data = false;
  std::optional<int> ndim;  // a producer's ndim that disagrees with `shape`
};

/// The producer's side: the tensor, the buffer and shape it points into, and
/// the counter its deleter bumps before freeing all of it.
struct Produced {
  DLManagedTensor managed{};
  std::vector<unsigned char> buffer;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int *deletions = nullptr;
};

inline void delete_produced(DLManagedTensor *self) {
  auto *p = static_cast<Produced *>(self->manager_ctx);
  ++*p->deletions;
  delete p;
}

/// A new tensor whose buffer holds the bytes 0, 1, 2, ...; `*deletions`
/// counts deleter calls.
inline DLManagedTensor *make_tensor(const TensorSpec &spec, int *deletions) {
  auto *p = new Produced;
  p->deletions = deletions;
  p->buffer.resize(spec.buffer_bytes);
  for (std::size_t i = 0; i < p->buffer.size(); ++i) {
    p->buffer[i] = static_cast<unsigned char>(i);
  }
  p->shape = spec.shape;
  DLTensor &t = p->managed.dl_tensor;
  t.data = spec.null_data ? nullptr : p->buffer.data();
  t.device = spec.device;
  t.ndim = spec.ndim.value_or(static_cast<int>(spec.shape.size()));
  t.dtype = spec.dtype;
  t.shape = spec.null_shape ? nullptr : p->shape.data();
  if (spec.strides) {
    p->strides = *spec.strides;
    t.strides = p->strides.data();
  }
  t.byte_offset = spec.byte_offset;
  p->managed.manager_ctx = p;
  p->managed.deleter = delete_produced;
  return &p->managed;
}

/// The data pointer a tensor describes (data + byte_offset).
inline const void *tensor_data(const DLManagedTensor *t) {
  return static_cast<const char *>(t->dl_tensor.data) + t->dl_tensor.byte_offset;
}

}  // namespace ufjit::dlpack_testing
