// The global-memory race rule of one dispatch, shared by the KIR reference
// interpreter (per buffer element, compiler/reference/interpreter.cc) and the strict
// emulator (per argument-buffer byte, hw/emu/strict.h check 5): an access
// races when a thread stores to a location another thread stored or loaded,
// or loads a location another thread stored, in any order. kirc orders no
// threads through global memory within a dispatch (no global fences;
// hardware runs workgroups in any order), so no barrier or fence is
// honoured. A thread's own accesses never race. Atomics (read-modify-writes
// of other generators' code, RecordAtomicAccess) never race with each
// other, whatever the threads; an atomic and a plain store of one location
// by two threads race. A plain load of a location atomics update is no race:
// compare-and-swap loops (LLVM's expansion of atomicrmw, Tensile's atomic
// adds) start from such a load, and the swap checks the value it saw; a
// kernel that uses such a value otherwise is not caught.
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
// A location atomics have accessed has kSeveral in `store` beside the last
// atomic's id A, and in `load`: 0 when every atomic so far is by A's
// thread, the id of an atomic by another thread when there is one (no plain
// store then, or it would have raced), or kSeveral alone when A's thread
// made plain stores too (then only that thread may store or update it).
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
  bool stored;          // the earlier access was a store (else a load)
  bool atomic = false;  // it was an atomic (read-modify-write)
};

// Records access `now` (a store if `write`) of the location `s` by a thread
// for which mine(id) says whether an id is its own; returns the earlier access
// of another thread it races with, or nothing (then `s` records it).
template <typename Id, typename Mine>
std::optional<PriorAccess<Id>> RecordAccess(RaceSlots<Id>& s, Id now, bool write, Mine mine) {
  constexpr Id kSeveral = RaceSlots<Id>::kSeveral;
  if (s.store & kSeveral) {  // atomics accessed it
    if (!write) return std::nullopt;  // a load sees some value (a compare-and-swap loop's guess)
    const Id a = s.store & ~kSeveral;
    if (!mine(a)) return PriorAccess<Id>{a, true, true};
    if (s.load != 0 && s.load != kSeveral) return PriorAccess<Id>{s.load, true, true};
    s.load = kSeveral;  // A's thread, alone, mixes plain stores in
    return std::nullopt;
  }
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

// Records atomic access `now` of the location `s` (as RecordAccess): it
// races only with a plain access by another thread, before or after it.
template <typename Id, typename Mine>
std::optional<PriorAccess<Id>> RecordAtomicAccess(RaceSlots<Id>& s, Id now, Mine mine) {
  constexpr Id kSeveral = RaceSlots<Id>::kSeveral;
  if (s.store & kSeveral) {
    const Id a = s.store & ~kSeveral;
    // a's thread stored to it plainly too: the race is with those stores.
    if (s.load == kSeveral && !mine(a)) return PriorAccess<Id>{a, true, true};
    if (!mine(a)) s.load = a;  // an atomic by another thread than now's
    s.store = now | kSeveral;
    return std::nullopt;
  }
  // Plain accesses so far: a race with another thread's store (loads only:
  // several loaders, whose `store` holds a loader, or one).
  const bool stored = !(s.load & kSeveral) && s.store != 0;
  if (stored && !mine(s.store)) return PriorAccess<Id>{s.store, true};
  s.store = now | kSeveral;
  s.load = stored ? kSeveral : 0;
  return std::nullopt;
}

}  // namespace kir

#endif  // KIRC_COMPILER_IR_GLOBAL_RACES_H_
