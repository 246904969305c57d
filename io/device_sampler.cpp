// DeviceSampler (io/device_sampler.hpp): a thread reading /sys/dev/block/MAJ:MIN/stat every period.
#include "io/device_sampler.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include "io/block_device.hpp"
#include "io/io_options.hpp"
#include "io/timeline.hpp"

namespace edgestream {

namespace {

bool read_stat(const std::string& path, BlockDeviceStat& out) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return in.good() || in.eof() ? parse_block_device_stat(text.str(), out) : false;
}

// How much a device counter grew; a wrapped or reset one counts as no traffic.
std::uint64_t grown(std::uint64_t before, std::uint64_t after) { return after >= before ? after - before : 0; }

}  // namespace

bool parse_block_device_stat(const std::string& text, BlockDeviceStat& out) {
  std::istringstream in(text);
  std::uint64_t field[10];
  for (std::uint64_t& f : field) {
    if (!(in >> f)) return false;
  }
  // read I/Os, read merges, read sectors, read ticks, write I/Os, write merges, write sectors,
  // write ticks, in flight, io_ticks (Documentation/block/stat.rst).
  out.read_sectors = field[2];
  out.write_sectors = field[6];
  out.in_flight = field[8];
  out.busy_ms = field[9];
  return true;
}

DeviceSampler::DeviceSampler(const std::vector<std::filesystem::path>& dirs, std::chrono::milliseconds period)
    : period_(period) {
  for (const auto& dir : dirs) {
    const std::optional<DeviceNumber> number = device_number_of(dir);
    const std::string id = number ? number->text() : std::string();
    bool known = false;
    for (const Device& d : devices_) known = known || d.id == id;
    if (known) continue;
    Device device{id, dir.string(), "/sys/dev/block/" + id + "/stat", {}, {}};
    // Major 0: no block device behind the directory (tmpfs, FUSE, NFS, overlay).
    if (!number || number->major_id == 0 || !read_stat(device.stat_path, device.first)) {
      skipped_.push_back(dir.string());
      continue;
    }
    device.last = device.first;
    devices_.push_back(std::move(device));
  }
  start_ns_ = monotonic_ns();
  stop_ns_ = start_ns_;
  if (devices_.empty()) return;
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error& e) {
    // A thread or process limit: stop() still gives each device's totals, from its first and last
    // statistics; only the samples over time are missing.
    no_samples_ = std::string("the sampling thread could not be started: ") + e.what();
  }
}

DeviceSampler::~DeviceSampler() { stop(); }

void DeviceSampler::loop() {
  timeline::name_thread("device sampler");
  std::uint64_t before = start_ns_;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    const std::uint64_t now = monotonic_ns();
    sample(now, now - before);
    before = now;
  }
}

void DeviceSampler::sample(std::uint64_t now_ns, std::uint64_t elapsed_ns) {
  const double seconds = static_cast<double>(std::max<std::uint64_t>(elapsed_ns, 1)) * 1e-9;
  for (Device& d : devices_) {
    BlockDeviceStat now;
    if (!read_stat(d.stat_path, now)) continue;
    const double read_mb = static_cast<double>(grown(d.last.read_sectors, now.read_sectors)) * 512 / 1e6 / seconds;
    const double write_mb = static_cast<double>(grown(d.last.write_sectors, now.write_sectors)) * 512 / 1e6 / seconds;
    const double busy = std::min(100.0, static_cast<double>(grown(d.last.busy_ms, now.busy_ms)) * 1e-3 / seconds * 100);
    timeline::counter("device " + d.id + " MB/s", now_ns, {{"read", read_mb}, {"write", write_mb}});
    timeline::counter("device " + d.id + " busy %", now_ns, {{"busy", busy}});
    timeline::counter("device " + d.id + " in flight", now_ns, {{"requests", static_cast<double>(now.in_flight)}});
    d.last = now;
  }
}

std::vector<DeviceSampler::Totals> DeviceSampler::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return totals_;
    stop_ns_ = monotonic_ns();
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::vector<Totals>& totals = totals_;
  for (Device& d : devices_) {
    BlockDeviceStat end = d.last;
    read_stat(d.stat_path, end);
    totals.push_back(Totals{d.id, d.dir, grown(d.first.read_sectors, end.read_sectors) * 512,
                            grown(d.first.write_sectors, end.write_sectors) * 512,
                            static_cast<double>(grown(d.first.busy_ms, end.busy_ms)) * 1e-3,
                            static_cast<double>(stop_ns_ - start_ns_) * 1e-9});
  }
  return totals;
}

}  // namespace edgestream
