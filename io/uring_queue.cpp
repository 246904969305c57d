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

namespace {

// Waits up to `timeout` for one completion (EINTR retried with the time left). 0 or -errno;
// -ETIME when nothing completed in time.
int wait_cqe_for(io_uring* ring, io_uring_cqe** cqe, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return -ETIME;
    __kernel_timespec ts{};
    ts.tv_sec = static_cast<long long>(left.count() / 1000000000);
    ts.tv_nsec = static_cast<long long>(left.count() % 1000000000);
    const int rc = io_uring_wait_cqe_timeout(ring, cqe, &ts);
    if (rc != -EINTR) return rc;
  }
}

}  // namespace

UringQueue::~UringQueue() {
  if (ring_) {
    // Drain what is still in flight so the kernel does not write into freed buffers. Bounded: after
    // a timed-out wait the requests are cancelled first and given a second to complete; a request
    // that still does not complete is abandoned with the ring (the process is failing by then; the
    // kernel keeps the pages of direct I/O pinned until the request ends).
    if (stuck_ && in_flight_ > 0) {
      io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
      if (sqe != nullptr) {
        io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
        io_uring_sqe_set_data64(sqe, ~std::uint64_t{0});
        if (io_uring_submit(ring_.get()) >= 0) ++in_flight_;  // the cancel request completes too
      }
    }
    const auto per_wait = stuck_ ? std::chrono::milliseconds(1000) : timeout_;
    while (in_flight_ > 0) {
      io_uring_cqe* cqe = nullptr;
      if (wait_cqe_for(ring_.get(), &cqe, per_wait) < 0) break;
      io_uring_cqe_seen(ring_.get(), cqe);
      --in_flight_;
    }
    io_uring_queue_exit(ring_.get());
  }
}

Status UringQueue::init(unsigned entries, std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return invalid_argument("io_uring completion timeout must be positive");
  auto ring = std::make_unique<io_uring>();
  const int rc = io_uring_queue_init(entries, ring.get(), 0);
  if (rc < 0) return {StatusCode::kUnsupported, std::string("io_uring_queue_init: ") + std::strerror(-rc)};
  ring_ = std::move(ring);
  timeout_ = timeout;
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
  const int rc = wait_cqe_for(ring_.get(), &cqe, timeout_);
  if (rc == -ETIME) {
    stuck_ = true;
    const auto ms = timeout_.count();
    const std::string limit = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
    return Status{StatusCode::kIoError, "no I/O completion within " + limit + " (the device or filesystem is not responding)"};
  }
  if (rc < 0) return Status{StatusCode::kIoError, std::string("io_uring_wait_cqe: ") + std::strerror(-rc)};
  Completion c{io_uring_cqe_get_data64(cqe), cqe->res};
  io_uring_cqe_seen(ring_.get(), cqe);
  --in_flight_;
  return c;
}

}  // namespace edgestream
