// A buffer aligned for direct I/O (O_DIRECT needs the address, size and offset of every request
// aligned to the device's logical block; we use 4096 everywhere). Buffers are mapped with mmap and
// unmapped when freed, so their memory goes back to the system at once: with malloc, glibc's
// adaptive mmap threshold would keep freed multi-megabyte stream buffers in the heap and the
// process's RSS would exceed the --physical_memory budget.
//
// The vertex states, read at random by the scatter, can ask for transparent huge pages
// (AlignedBuffer::huge): with 4 KiB pages the second-level TLB covers 8 MiB here, so random reads
// of a larger state array pay a page walk each. The mapping never grows: RSS stays within the size.
#pragma once

#include <cstddef>
#include <cstdint>
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
  /// As above, with transparent huge pages asked for (madvise MADV_HUGEPAGE) when the buffer holds
  /// at least one whole 2 MiB page: the mapping starts on a 2 MiB boundary. Where the kernel gives
  /// no huge pages (THP disabled), an ordinary buffer.
  static AlignedBuffer huge(std::size_t size) {
    if (round_up(size, kIoAlignment) < kHugePage) return AlignedBuffer(size);
    AlignedBuffer b;
    b.size_ = round_up(size, kIoAlignment);
    // Map a huge page more, then unmap the head and tail around the aligned start (virtual only:
    // nothing was touched).
    const std::size_t mapped = b.size_ + kHugePage;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<std::byte*>(p);
    const auto address = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t head = round_up(address, kHugePage) - address;
    if (head > 0) ::munmap(base, head);
    const std::size_t tail = mapped - head - b.size_;
    if (tail > 0) ::munmap(base + head + b.size_, tail);
    b.data_ = base + head;
    (void)::madvise(b.data_, b.size_, MADV_HUGEPAGE);  // advice only: without THP, 4 KiB pages
    return b;
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

  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace edgestream
