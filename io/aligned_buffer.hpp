// A buffer aligned for direct I/O (O_DIRECT needs the address, size and offset of every request
// aligned to the device's logical block; we use 4096 everywhere). Buffers are mapped with mmap and
// unmapped when freed, so their memory goes back to the system at once: with malloc, glibc's
// adaptive mmap threshold would keep freed multi-megabyte stream buffers in the heap and the
// process's RSS would exceed the --physical_memory budget.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <span>
#include <utility>

namespace edgestream {

inline constexpr std::size_t kIoAlignment = 4096;

constexpr std::size_t round_up(std::size_t n, std::size_t alignment) { return (n + alignment - 1) / alignment * alignment; }
constexpr std::size_t round_down(std::size_t n, std::size_t alignment) { return n / alignment * alignment; }

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  /// Maps `size` bytes (rounded up to kIoAlignment), page aligned and zero-filled; pages become
  /// resident only when touched. Throws std::bad_alloc when memory is exhausted.
  explicit AlignedBuffer(std::size_t size, bool zero = false) : size_(round_up(size, kIoAlignment)) {
    if (size_ == 0) return;
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<std::byte*>(p);
    (void)zero;  // fresh anonymous mappings are zero-filled
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~AlignedBuffer() { release(); }

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  /// The allocated size: a multiple of kIoAlignment.
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_, size_}; }

 private:
  void release() {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = nullptr;
  }

 public:

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace edgestream
