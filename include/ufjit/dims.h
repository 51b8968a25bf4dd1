// ufjit public API: the dimensions of an array view (its shape or its
// strides).
//
// Dims is a vector of int64_t that keeps up to kInline values inside itself
// and moves to the heap only past that. Every call builds, copies and checks
// a few views; with std::vector each of those copies was two heap
// allocations, the largest part of a small call's host cost
// (docs/PERFORMANCE.md, "Per call"). It has std::vector's interface for what
// views need, converts to and from std::vector<int64_t> implicitly, and
// compares equal to a std::vector with the same values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace ufjit {

class Dims {
 public:
  using value_type = int64_t;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = int64_t &;
  using const_reference = const int64_t &;
  using pointer = int64_t *;
  using const_pointer = const int64_t *;
  using iterator = int64_t *;
  using const_iterator = const int64_t *;

  /// Values held without a heap allocation: arrays of up to 6 dimensions.
  /// Small enough that a call's operand list of four inputs and an output
  /// stays in the allocator's fast per-thread cache (1 KiB).
  static constexpr std::size_t kInline = 6;

  Dims() = default;
  /// `count` copies of `value` (as std::vector's).
  explicit Dims(std::size_t count, int64_t value = 0) { assign(count, value); }
  Dims(std::initializer_list<int64_t> values) { assign(values.begin(), values.end()); }
  Dims(const std::vector<int64_t> &values) { assign(values.begin(), values.end()); }  // NOLINT: implicit by design
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  Dims(It first, It last) {
    assign(first, last);
  }
  Dims(const Dims &other) { copy_from(other); }
  Dims(Dims &&other) noexcept { take(other); }
  Dims &operator=(const Dims &other) {
    if (this != &other) {
      copy_from(other);
    }
    return *this;
  }
  Dims &operator=(Dims &&other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  Dims &operator=(std::initializer_list<int64_t> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~Dims() { release(); }

  /// A std::vector copy, for the interfaces that take one.
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT: implicit
  std::vector<int64_t> to_vector() const { return *this; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  int64_t *data() { return data_; }
  const int64_t *data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  std::reverse_iterator<iterator> rbegin() { return std::reverse_iterator<iterator>(end()); }
  std::reverse_iterator<iterator> rend() { return std::reverse_iterator<iterator>(begin()); }
  std::reverse_iterator<const_iterator> rbegin() const { return std::reverse_iterator<const_iterator>(end()); }
  std::reverse_iterator<const_iterator> rend() const { return std::reverse_iterator<const_iterator>(begin()); }
  int64_t &operator[](std::size_t i) { return data_[i]; }
  const int64_t &operator[](std::size_t i) const { return data_[i]; }
  int64_t &front() { return data_[0]; }
  const int64_t &front() const { return data_[0]; }
  int64_t &back() { return data_[size_ - 1]; }
  const int64_t &back() const { return data_[size_ - 1]; }

  void reserve(std::size_t count) {
    if (count > capacity_) {
      grow(count);
    }
  }
  void clear() { size_ = 0; }
  void push_back(int64_t value) {
    if (size_ == capacity_) {
      grow(capacity_ * 2);
    }
    data_[size_++] = value;
  }
  int64_t &emplace_back(int64_t value) {
    push_back(value);
    return back();
  }
  void pop_back() { --size_; }
  void resize(std::size_t count, int64_t value = 0) {
    reserve(count);
    std::fill(data_ + std::min<std::size_t>(size_, count), data_ + count, value);
    size_ = static_cast<uint32_t>(count);
  }
  void assign(std::size_t count, int64_t value) {
    size_ = 0;
    resize(count, value);
  }
  template <typename It>
  void assign(It first, It last) {
    const auto count = static_cast<std::size_t>(std::distance(first, last));
    size_ = 0;
    reserve(count);
    std::copy(first, last, data_);
    size_ = static_cast<uint32_t>(count);
  }
  iterator insert(const_iterator pos, int64_t value) { return insert(pos, std::size_t{1}, value); }
  iterator insert(const_iterator pos, std::size_t count, int64_t value) {
    const std::size_t at = open_gap(pos, count);
    std::fill(data_ + at, data_ + at + count, value);
    return data_ + at;
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const Dims values(first, last);  // may alias *this
    const std::size_t at = open_gap(pos, values.size());
    std::copy(values.begin(), values.end(), data_ + at);
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<int64_t> values) {
    return insert(pos, values.begin(), values.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    auto *const from = const_cast<int64_t *>(first);
    auto *const to = const_cast<int64_t *>(last);
    std::copy(to, end(), from);
    size_ -= static_cast<uint32_t>(to - from);
    return from;
  }

  /// A plain loop, as copy_from: every call of a ufunc compares its
  /// operands' dims with its last call's (runtime/CallPlan.h).
  friend bool operator==(const Dims &a, const Dims &b) {
    if (a.size_ != b.size_) {
      return false;
    }
    for (std::size_t d = 0; d < a.size_; ++d) {
      if (a.data_[d] != b.data_[d]) {
        return false;
      }
    }
    return true;
  }
  friend bool operator!=(const Dims &a, const Dims &b) { return !(a == b); }
  friend bool operator==(const Dims &a, const std::vector<int64_t> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const std::vector<int64_t> &a, const Dims &b) { return b == a; }
  friend bool operator!=(const Dims &a, const std::vector<int64_t> &b) { return !(a == b); }
  friend bool operator!=(const std::vector<int64_t> &a, const Dims &b) { return !(b == a); }
  friend bool operator<(const Dims &a, const Dims &b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const { return data_ != inline_; }
  void grow(std::size_t wanted) {
    const std::size_t capacity = std::max(wanted, kInline * 2);
    auto *const heap = new int64_t[capacity];
    std::copy(begin(), end(), heap);
    release();
    data_ = heap;
    capacity_ = static_cast<uint32_t>(capacity);
  }
  void release() {
    if (on_heap()) {
      delete[] data_;
    }
    data_ = inline_;
    capacity_ = kInline;
  }
  /// A plain loop: views have a few dims, and a call to memmove costs more
  /// than copying them (every call copies its operands' views).
  void copy_from(const Dims &other) {
    reserve(other.size_);
    for (std::size_t d = 0; d < other.size_; ++d) {
      data_[d] = other.data_[d];
    }
    size_ = other.size_;
  }
  /// Moves `other`'s values here (`this` holds nothing) and leaves it empty.
  void take(Dims &other) {
    size_ = other.size_;
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
      other.capacity_ = kInline;
    } else {
      for (std::size_t d = 0; d < size_; ++d) {
        inline_[d] = other.inline_[d];
      }
    }
    other.size_ = 0;
  }
  /// Makes room for `count` values at `pos`; returns its index.
  std::size_t open_gap(const_iterator pos, std::size_t count) {
    const auto at = static_cast<std::size_t>(pos - data_);
    reserve(size_ + count);
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + count);
    size_ += static_cast<uint32_t>(count);
    return at;
  }

  int64_t *data_ = inline_;
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  int64_t inline_[kInline];  // the first size_ are set (no zeroing: copies are on every call's path)
};

}  // namespace ufjit
