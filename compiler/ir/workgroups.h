// A box of workgroups of a grid: `kirc run --workgroups` runs only these, on
// the device and in the reference interpreter (issue 18).
#ifndef KIRC_COMPILER_IR_WORKGROUPS_H_
#define KIRC_COMPILER_IR_WORKGROUPS_H_

#include <array>
#include <cstdint>

namespace kir {

// Workgroup ids [begin[d], end[d]) in each dimension d (x, y, z). The
// default (end 0 everywhere) means the whole grid; end[d] = -1 means "to the
// grid's end" in dimension d (`--workgroups=0:4` leaves y and z whole).
struct WorkgroupRange {
  std::array<int64_t, 3> begin{0, 0, 0};
  std::array<int64_t, 3> end{0, 0, 0};
  bool whole() const { return end[0] == 0 && end[1] == 0 && end[2] == 0; }
  // The range over a grid: the whole grid when whole(), else this box.
  WorkgroupRange Over(const std::array<int64_t, 3>& grid) const {
    WorkgroupRange r = *this;
    if (whole()) r.end = grid;
    for (int d = 0; d < 3; ++d)
      if (r.end[d] == -1) r.end[d] = grid[d];
    return r;
  }
  // Workgroups in the box.
  int64_t count() const { return (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]); }
};

}  // namespace kir

#endif  // KIRC_COMPILER_IR_WORKGROUPS_H_
