// UringQueue: a thin, error-checked wrapper over liburing for one stream's requests.
#include "io/uring_queue.hpp"

#include <cstring>
#include <string>

#include "io/file.hpp"

namespace edgestream {

bool uring_available() {
  static const bool available = [] {
    io_uring ring{};
    const int rc = io_uring_queue_init(2, &ring, 0);
    if (rc < 0) {
      warn_once("no-uring", std::string("io_uring is unavailable (") + std::strerror(-rc) +
                                "); falling back to synchronous pread/pwrite");
      return false;
    }
    io_uring_queue_exit(&ring);
    return true;
  }();
  return available;
}

UringQueue::~UringQueue() {
  if (ring_) {
    // Drain what is still in flight so the kernel does not write into freed buffers.
    while (in_flight_ > 0) {
      io_uring_cqe* cqe = nullptr;
      if (io_uring_wait_cqe(ring_.get(), &cqe) < 0) break;
      io_uring_cqe_seen(ring_.get(), cqe);
      --in_flight_;
    }
    io_uring_queue_exit(ring_.get());
  }
}

Status UringQueue::init(unsigned entries) {
  auto ring = std::make_unique<io_uring>();
  const int rc = io_uring_queue_init(entries, ring.get(), 0);
  if (rc < 0) return {StatusCode::kUnsupported, std::string("io_uring_queue_init: ") + std::strerror(-rc)};
  ring_ = std::move(ring);
  return Status::ok();
}

Status UringQueue::submit(io_uring_sqe* sqe) {
  (void)sqe;
  int rc = 0;
  do {
    rc = io_uring_submit(ring_.get());
  } while (rc == -EINTR || rc == -EAGAIN);
  if (rc < 0) return {StatusCode::kIoError, std::string("io_uring_submit: ") + std::strerror(-rc)};
  ++in_flight_;
  return Status::ok();
}

Status UringQueue::submit_read(int fd, void* buffer, std::size_t length, std::uint64_t offset, std::uint64_t tag) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) return internal_error("io_uring submission queue full");
  io_uring_prep_read(sqe, fd, buffer, static_cast<unsigned>(length), offset);
  io_uring_sqe_set_data64(sqe, tag);
  return submit(sqe);
}

Status UringQueue::submit_write(int fd, const void* buffer, std::size_t length, std::uint64_t offset,
                                std::uint64_t tag) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) return internal_error("io_uring submission queue full");
  io_uring_prep_write(sqe, fd, buffer, static_cast<unsigned>(length), offset);
  io_uring_sqe_set_data64(sqe, tag);
  return submit(sqe);
}

Expected<UringQueue::Completion> UringQueue::wait() {
  io_uring_cqe* cqe = nullptr;
  int rc = 0;
  do {
    rc = io_uring_wait_cqe(ring_.get(), &cqe);
  } while (rc == -EINTR);
  if (rc < 0) return Status{StatusCode::kIoError, std::string("io_uring_wait_cqe: ") + std::strerror(-rc)};
  Completion c{io_uring_cqe_get_data64(cqe), cqe->res};
  io_uring_cqe_seen(ring_.get(), cqe);
  --in_flight_;
  return c;
}

}  // namespace edgestream
