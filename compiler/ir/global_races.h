// The global-memory race rule of one dispatch, shared by the KIR reference
// interpreter (per buffer element, compiler/reference/interpreter.cc) and the strict
// emulator (per argument-buffer byte, hw/emu/strict.h check 5): an access
// races when a thread stores to a location another thread stored or loaded,
// or loads a location another thread stored, in any order. kirc orders no
// threads through global memory within a dispatch (no global fences or
// atomics; hardware runs workgroups in any order), so no barrier or fence
// is honoured. A thread's own accesses never race.
#ifndef KIRC_COMPILER_IR_GLOBAL_RACES_H_
#define KIRC_COMPILER_IR_GLOBAL_RACES_H_

#include <optional>
#include <type_traits>

namespace kir {

// One location's record: the access ids of its last store and last load, 0
// for none (value-initialize; all-zero bytes are valid, e.g. from calloc).
// Ids are the caller's (thread, op) numbers, below kSeveral. A location loaded
// by two threads or more (and so never stored without a race) has kSeveral in
// `load` beside one loader's id, and another loader's id in `store`: a later
// store by either of them still finds a thread that is not itself.
template <typename Id>
struct RaceSlots {
  static_assert(std::is_unsigned_v<Id>);
  static constexpr Id kSeveral = Id{1} << (sizeof(Id) * 8 - 1);
  Id store;
  Id load;
};

// The earlier access a new one races with.
template <typename Id>
struct PriorAccess {
  Id id;
  bool stored;  // the earlier access was a store (else a load)
};

// Records access `now` (a store if `write`) of the location `s` by a thread
// for which mine(id) says whether an id is its own; returns the earlier access
// of another thread it races with, or nothing (then `s` records it).
template <typename Id, typename Mine>
std::optional<PriorAccess<Id>> RecordAccess(RaceSlots<Id>& s, Id now, bool write, Mine mine) {
  constexpr Id kSeveral = RaceSlots<Id>::kSeveral;
  if (s.load & kSeveral) {
    const Id last = s.load & ~kSeveral;
    // One of the two recorded loaders is another thread.
    if (write) return PriorAccess<Id>{mine(last) ? s.store : last, false};
    if (!mine(last)) s.store = last;
    s.load = now | kSeveral;
    return std::nullopt;
  }
  // Once stored (without a race), a location is loaded by its storer only.
  if (s.store != 0 && !mine(s.store)) return PriorAccess<Id>{s.store, true};
  if (write) {
    if (s.load != 0 && !mine(s.load)) return PriorAccess<Id>{s.load, false};
    s.store = now;
  } else if (s.load == 0 || mine(s.load)) {
    s.load = now;
  } else {  // a second thread loads it: keep both
    s.store = s.load;
    s.load = now | kSeveral;
  }
  return std::nullopt;
}

}  // namespace kir

#endif  // KIRC_COMPILER_IR_GLOBAL_RACES_H_
