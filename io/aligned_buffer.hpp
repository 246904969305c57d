// A heap buffer aligned for direct I/O (O_DIRECT needs the address, size and offset of every
// request aligned to the device's logical block; we use 4096 everywhere).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace edgestream {

inline constexpr std::size_t kIoAlignment = 4096;

constexpr std::size_t round_up(std::size_t n, std::size_t alignment) { return (n + alignment - 1) / alignment * alignment; }
constexpr std::size_t round_down(std::size_t n, std::size_t alignment) { return n / alignment * alignment; }

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  /// Allocates `size` bytes (rounded up to kIoAlignment) aligned to kIoAlignment. Throws
  /// std::bad_alloc when memory is exhausted. Contents are uninitialised unless `zero`.
  explicit AlignedBuffer(std::size_t size, bool zero = false) : size_(round_up(size, kIoAlignment)) {
    if (size_ == 0) return;
    data_ = static_cast<std::byte*>(std::aligned_alloc(kIoAlignment, size_));
    if (data_ == nullptr) throw std::bad_alloc();
    if (zero) std::memset(data_, 0, size_);
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~AlignedBuffer() { std::free(data_); }

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  /// The allocated size: a multiple of kIoAlignment.
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace edgestream
