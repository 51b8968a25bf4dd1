// A vector of trivially copyable values that holds its first N elements
// inline, for the per-call path (runtime/Call.cpp, KernelParams): a tiny
// call on the GPU is a few microseconds, and each heap allocation and free
// costs about 150 instructions (docs/PERFORMANCE.md "Per-call floor").
// Past N elements it moves everything to the heap and keeps working, so
// callers need no limit on operand counts.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <vector>

namespace ufjit::runtime {

template <typename T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable values");

 public:
  SmallVector() = default;
  /// Pointers into the inline storage would dangle in a copy.
  SmallVector(const SmallVector &) = delete;
  SmallVector &operator=(const SmallVector &) = delete;

  void push_back(const T &value) {
    if (heap_.empty() && size_ < N) {
      new (inline_ + size_ * sizeof(T)) T(value);
      ++size_;
      return;
    }
    if (heap_.empty()) {
      heap_.assign(inline_data(), inline_data() + size_);
    }
    heap_.push_back(value);
    ++size_;
  }
  /// A new last element, left uninitialised, for the caller to fill.
  T &append_uninitialised() {
    if (heap_.empty() && size_ < N) {
      return inline_data()[size_++];
    }
    push_back(T{});
    return data()[size_ - 1];
  }
  /// `count` default values (zeroed).
  void resize(std::size_t count) {
    while (size_ < count) {
      push_back(T{});
    }
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T *data() { return heap_.empty() ? inline_data() : heap_.data(); }
  const T *data() const { return heap_.empty() ? const_cast<SmallVector *>(this)->inline_data() : heap_.data(); }
  T &operator[](std::size_t i) { return data()[i]; }
  const T &operator[](std::size_t i) const { return data()[i]; }
  T &front() { return data()[0]; }
  const T &front() const { return data()[0]; }
  T *begin() { return data(); }
  T *end() { return data() + size_; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + size_; }

 private:
  T *inline_data() { return std::launder(reinterpret_cast<T *>(inline_)); }

  // Left uninitialised: zeroing N elements would cost more than the call
  // saves (KernelParams holds 16 slots of 64 bytes).
  alignas(T) unsigned char inline_[N * sizeof(T)];
  std::vector<T> heap_;  // every element once past N
  std::size_t size_ = 0;
};

}  // namespace ufjit::runtime
