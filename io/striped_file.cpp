// Striped files: the stripe arithmetic and the striped parts of File (opening one file per member,
// and read_at/write_at split at stripe boundaries so every error names the member file and offset).
#include "io/striped_file.hpp"

#include <algorithm>

#include "io/aligned_buffer.hpp"
#include "io/file.hpp"

namespace edgestream {

StripeLocation locate_stripe(std::uint64_t offset, std::size_t members, std::uint64_t unit) {
  const std::uint64_t stripe = offset / unit;
  const std::uint64_t within = offset % unit;
  return {static_cast<std::size_t>(stripe % members), stripe / members * unit + within, unit - within};
}

std::uint64_t stripe_member_length(std::uint64_t logical_size, std::size_t member, std::size_t members,
                                   std::uint64_t unit) {
  const std::uint64_t full = logical_size / unit;  // complete stripes
  const std::uint64_t rest = logical_size % unit;
  std::uint64_t length = full / members * unit;
  const std::uint64_t last = full % members;  // member holding the partial stripe
  if (member < last) length += unit;
  if (member == last) length += rest;
  return length;
}

Expected<File> File::open_striped(const StripeLayout& layout, OpenMode mode, bool direct) {
  if (layout.members.empty()) return invalid_argument("a striped file needs at least one member");
  if (layout.unit == 0 || layout.unit % kIoAlignment != 0) {
    return invalid_argument("stripe unit " + std::to_string(layout.unit) + " must be a positive multiple of " +
                            std::to_string(kIoAlignment));
  }
  auto stripes = std::make_shared<Stripes>();
  stripes->unit = layout.unit;
  File file;
  for (const StripeMember& m : layout.members) {
    if (m.io.read_chunk == 0 || m.io.read_chunk % kIoAlignment != 0 || m.io.write_chunk == 0 ||
        m.io.write_chunk % kIoAlignment != 0 || m.io.depth == 0) {
      return invalid_argument("volume settings of " + m.path.string() +
                              ": read/write chunks must be positive multiples of 4096 and the depth at least 1");
    }
    ES_ASSIGN_OR_RETURN(File member, File::open(m.path, mode, direct));
    file.direct_ = file.direct_ || member.use_direct_io();
    stripes->files.push_back(std::move(member));
    stripes->io.push_back(m.io);
    stripes->counters.push_back(m.counters);
  }
  file.path_ = layout.members.front().path.string();
  file.stripes_ = std::move(stripes);
  return file;
}

Expected<std::size_t> File::striped_read_at(std::uint64_t offset, std::span<std::byte> buffer) const {
  std::size_t done = 0;
  while (done < buffer.size()) {
    const FileSegment seg = segment(offset + done);
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size() - done, seg.contiguous));
    ES_ASSIGN_OR_RETURN(const std::size_t n, seg.file->read_at(seg.offset, buffer.subspan(done, want)));
    if (VolumeCounters* c = stripes_->counters[seg.member]) {
      c->bytes_read.fetch_add(n, std::memory_order_relaxed);
      c->requests.fetch_add(1, std::memory_order_relaxed);
    }
    done += n;
    if (n < want) break;  // end of the member file: end of the stream
  }
  return done;
}

Status File::striped_write_at(std::uint64_t offset, std::span<const std::byte> data) const {
  std::size_t done = 0;
  while (done < data.size()) {
    const FileSegment seg = segment(offset + done);
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(data.size() - done, seg.contiguous));
    ES_RETURN_IF_ERROR(seg.file->write_at(seg.offset, data.subspan(done, want)));
    if (VolumeCounters* c = stripes_->counters[seg.member]) {
      c->bytes_written.fetch_add(want, std::memory_order_relaxed);
      c->requests.fetch_add(1, std::memory_order_relaxed);
    }
    done += want;
  }
  return Status::ok();
}

}  // namespace edgestream
