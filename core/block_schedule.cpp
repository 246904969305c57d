// The round-robin tournament (circle method) behind the in-memory edge grid; see block_schedule.hpp.
#include "core/block_schedule.hpp"

namespace edgestream {

std::vector<std::vector<BlockTask>> block_pair_schedule(std::uint32_t blocks) {
  // n even; with B odd, block n-1 is a dummy: its partner sits the round out (only its diagonal).
  const std::uint32_t n = blocks + (blocks & 1U);
  std::vector<std::vector<BlockTask>> rounds(n - 1);
  for (std::uint32_t r = 0; r + 1 < n; ++r) {
    auto add = [&](std::uint32_t x, std::uint32_t y) {
      BlockTask task;
      task.a = x < y ? x : y;
      task.b = x < y ? y : x;
      const bool real_pair = task.b < blocks;  // the dummy is n - 1 >= blocks
      if (real_pair) task.cell[task.cells++] = block_cell(task.a, task.b);
      if (r == 0) {
        task.cell[task.cells++] = block_cell(task.a, task.a);
        if (real_pair) task.cell[task.cells++] = block_cell(task.b, task.b);
      }
      if (task.cells > 0) rounds[r].push_back(task);
    };
    // The circle method: n - 1 fixed against r, the others paired around the circle of n - 1.
    add(n - 1, r);
    for (std::uint32_t k = 1; k < n / 2; ++k) add((r + k) % (n - 1), (r + n - 1 - k) % (n - 1));
  }
  return rounds;
}

}  // namespace edgestream
