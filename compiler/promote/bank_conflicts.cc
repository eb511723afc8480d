#include "compiler/promote/bank_conflicts.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/index_expr.h"

namespace kir {
namespace {

// A lean evaluator of index expressions for the lanes of a wave (wg = 0):
// kir::Evaluate goes through std::function callbacks and overflow checks,
// which dominated layout searches. Values here stay far below 2^62 (indices of
// validated or promotion-built kernels), so plain int64 arithmetic suffices.
struct LaneEnv {
  int64_t tid[3] = {0, 0, 0};
  const Kernel* kernel = nullptr;
  const std::map<std::string, int64_t>* loop_vars = nullptr;
};

std::optional<int64_t> Eval(const IndexExpr* e, const LaneEnv& env) {
  if (e == nullptr) return std::nullopt;
  switch (e->kind) {
    case IndexKind::kConst:
      return e->value;
    case IndexKind::kTid:
      return e->dim >= 0 && e->dim < 3 ? std::optional<int64_t>(env.tid[e->dim]) : std::nullopt;
    case IndexKind::kWg:
      return 0;
    case IndexKind::kNamed: {
      const NamedConst* c = env.kernel->FindConst(e->name);
      if (c == nullptr) return std::nullopt;
      return c->value;
    }
    case IndexKind::kLoopVar: {
      auto it = env.loop_vars->find(e->name);
      if (it == env.loop_vars->end()) return std::nullopt;
      return it->second;
    }
    default:
      break;
  }
  std::optional<int64_t> a = Eval(e->lhs.get(), env);
  if (!a) return std::nullopt;
  std::optional<int64_t> b = Eval(e->rhs.get(), env);
  if (!b) return std::nullopt;
  switch (e->kind) {
    case IndexKind::kAdd:
      return *a + *b;
    case IndexKind::kSub:
      return *a - *b;
    case IndexKind::kMul:
      return *a * *b;
    case IndexKind::kFloorDiv:
      if (*b <= 0) return std::nullopt;
      return FloorDiv(*a, *b);
    case IndexKind::kMod:
      if (*b <= 0) return std::nullopt;
      return FloorMod(*a, *b);
    default:
      return std::nullopt;
  }
}

bool UsesTid(const IndexExpr* e) {
  if (e == nullptr) return false;
  if (e->kind == IndexKind::kTid) return true;
  return UsesTid(e->lhs.get()) || UsesTid(e->rhs.get());
}

// An index expression compiled for evaluation over many lanes: postfix steps
// in which every subtree without tid (constants, names, loop variables, wg)
// is one folded constant. Run gives what Eval gives for the same lane.
class LaneProgram {
 public:
  // False when Eval would fail for every lane (a missing operand, an unknown
  // name, a constant divisor that is not positive).
  bool Compile(const IndexExpr* e, const LaneEnv& env) {
    steps_.clear();
    if (!Emit(e, env)) return false;
    stack_.resize(steps_.size());
    return true;
  }

  // Runs the program for the kLanes lanes whose thread ids are tid[d][lane],
  // writing each lane's value to out[lane]. False when Eval would fail for
  // some lane (a divisor that is not positive).
  static constexpr int kLanes = 64;
  using Lanes = std::array<int64_t, kLanes>;
  bool Run(const Lanes tid[3], Lanes& out) const {
    size_t sp = 0;
    for (const Step& st : steps_) {
      switch (st.kind) {
        case IndexKind::kConst:
          stack_[sp++].fill(st.value);
          continue;
        case IndexKind::kTid:
          stack_[sp++] = tid[st.dim];
          continue;
        default:
          break;
      }
      const Lanes& b = stack_[--sp];
      Lanes& a = stack_[sp - 1];
      switch (st.kind) {
        case IndexKind::kAdd:
          for (int l = 0; l < kLanes; ++l) a[l] += b[l];
          break;
        case IndexKind::kSub:
          for (int l = 0; l < kLanes; ++l) a[l] -= b[l];
          break;
        case IndexKind::kMul:
          for (int l = 0; l < kLanes; ++l) a[l] *= b[l];
          break;
        case IndexKind::kFloorDiv:
        case IndexKind::kMod: {
          const bool div = st.kind == IndexKind::kFloorDiv;
          const int64_t d = b[0];
          bool uniform = d > 0;
          for (int l = 1; l < kLanes && uniform; ++l) uniform = b[l] == d;
          if (uniform && (d & (d - 1)) == 0) {
            // A power of two: the arithmetic shift and the mask are floor
            // division and floor modulo for negative values too.
            const int sh = __builtin_ctzll(static_cast<uint64_t>(d));
            if (div)
              for (int l = 0; l < kLanes; ++l) a[l] >>= sh;
            else
              for (int l = 0; l < kLanes; ++l) a[l] &= d - 1;
            break;
          }
          for (int l = 0; l < kLanes; ++l) {
            if (b[l] <= 0) return false;
            a[l] = div ? FloorDiv(a[l], b[l]) : FloorMod(a[l], b[l]);
          }
          break;
        }
        default:
          return false;
      }
    }
    if (sp != 1) return false;
    out = stack_[0];
    return true;
  }

 private:
  struct Step {
    IndexKind kind;
    int64_t value;
    int dim;
  };

  bool Emit(const IndexExpr* e, const LaneEnv& env) {
    if (e == nullptr) return false;
    if (!UsesTid(e)) {
      std::optional<int64_t> v = Eval(e, env);
      if (!v) return false;
      steps_.push_back({IndexKind::kConst, *v, 0});
      return true;
    }
    if (e->kind == IndexKind::kTid) {
      if (e->dim < 0 || e->dim >= 3) return false;
      steps_.push_back({IndexKind::kTid, 0, e->dim});
      return true;
    }
    switch (e->kind) {
      case IndexKind::kAdd:
      case IndexKind::kSub:
      case IndexKind::kMul:
      case IndexKind::kFloorDiv:
      case IndexKind::kMod:
        break;
      default:
        return false;
    }
    if (!Emit(e->lhs.get(), env) || !Emit(e->rhs.get(), env)) return false;
    steps_.push_back({e->kind, 0, 0});
    return true;
  }

  std::vector<Step> steps_;
  mutable std::vector<Lanes> stack_;
};

// Cycles and groups of one instruction.
struct GroupCost {
  int cycles = 0;
  int groups = 0;
};

int ClampBanks(int banks) { return std::clamp(banks, 1, kMaxLdsBanks); }

GroupCost Cost(absl::Span<const int64_t> addrs, int bytes, int banks) {
  banks = ClampBanks(banks);
  const int g = LdsLanesPerCycle(bytes, banks);
  const int64_t span = (std::max(bytes, 1) + kLdsBankBytes - 1) / kLdsBankBytes + 1;  // dwords a lane may touch
  // The dwords of one group of lanes; a bank's cost is its distinct dwords.
  std::array<int64_t, 256> small;
  std::vector<int64_t> large;
  int64_t* dwords = small.data();
  if (g * span > static_cast<int64_t>(small.size())) {
    large.resize(static_cast<size_t>(g * span));
    dwords = large.data();
  }
  GroupCost c;
  for (size_t start = 0; start < addrs.size(); start += g) {
    size_t n = 0;
    for (size_t l = start; l < std::min(addrs.size(), start + g); ++l) {
      if (addrs[l] < 0) continue;
      const int64_t first = addrs[l] / kLdsBankBytes;
      const int64_t last = (addrs[l] + std::max(bytes, 1) - 1) / kLdsBankBytes;
      for (int64_t d = first; d <= last; ++d) dwords[n++] = d;
    }
    if (n == 0) continue;
    std::sort(dwords, dwords + n);
    const size_t distinct = static_cast<size_t>(std::unique(dwords, dwords + n) - dwords);
    std::array<int, kMaxLdsBanks> per_bank{};
    int worst = 1;
    for (size_t i = 0; i < distinct; ++i) worst = std::max(worst, ++per_bank[static_cast<size_t>(dwords[i] % banks)]);
    c.cycles += worst;
    ++c.groups;
  }
  return c;
}

// The value types of SSA names, enough to size LDS stores.
class Types {
 public:
  void Walk(const std::vector<Op>& body) {
    for (const Op& op : body) {
      switch (op.kind) {
        case OpKind::kLoad:
        case OpKind::kConst:
        case OpKind::kZero:
        case OpKind::kCvt:
        case OpKind::kSlice:
        case OpKind::kConcat:
        case OpKind::kMfma:
          if (!op.results.empty()) t_[op.results[0]] = op.type;
          break;
        case OpKind::kAdd:
        case OpKind::kMul:
        case OpKind::kFma: {
          ValueType w{ElemType::kF32, 0};
          for (const Operand& o : op.operands) {
            auto it = t_.find(o.name);
            if (!o.is_arg && it != t_.end() && it->second.width > w.width) w = it->second;
          }
          if (!op.results.empty() && w.width > 0) t_[op.results[0]] = w;
          break;
        }
        case OpKind::kFor:
          for (size_t i = 0; i < op.operands.size() && i < op.iter_args.size(); ++i) {
            auto it = t_.find(op.operands[i].name);
            if (it == t_.end()) continue;
            t_[op.iter_args[i]] = it->second;
            if (i < op.results.size()) t_[op.results[i]] = it->second;
          }
          Walk(op.body);
          break;
        default:
          break;
      }
    }
  }
  std::optional<ValueType> Get(const std::string& n) const {
    auto it = t_.find(n);
    if (it == t_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, ValueType> t_;
};

absl::Status Walk(const Kernel& k, const std::vector<Op>& body, const Types& types,
                  std::map<std::string, int64_t>& loop_vars, int banks, KernelLdsTraffic& out) {
  for (const Op& op : body) {
    if (op.kind == OpKind::kFor) {
      loop_vars[op.ivar] = op.lo;
      absl::Status s = Walk(k, op.body, types, loop_vars, banks, out);
      loop_vars.erase(op.ivar);
      if (!s.ok()) return s;
      continue;
    }
    if (op.kind != OpKind::kLoad && op.kind != OpKind::kStore) continue;
    if (k.FindLds(op.mem) == nullptr) continue;
    ValueType vt = op.type;
    if (op.kind == OpKind::kStore) {
      std::optional<ValueType> t =
          op.operands.empty() ? std::nullopt : types.Get(op.operands[0].name);
      if (!t) return absl::InvalidArgumentError("store of a value of unknown type");
      vt = *t;
    }
    absl::StatusOr<LdsTraffic> t = LdsOpTraffic(k, op, vt, loop_vars, banks);
    if (!t.ok()) return t.status();
    if (op.kind == OpKind::kLoad) {
      out.reads += *t;
      out.reads_by_alloc[op.mem] += *t;
    } else {
      out.writes += *t;
      out.writes_by_alloc[op.mem] += *t;
    }
  }
  return absl::OkStatus();
}

}  // namespace

int LdsLanesPerCycle(int bytes_per_lane, int banks) {
  const int dwords = std::max(1, bytes_per_lane / kLdsBankBytes);
  return std::clamp(ClampBanks(banks) / dwords, 1, 64);
}

int BankConflicts(absl::Span<const int64_t> lane_byte_addrs, int bytes_per_lane, int banks) {
  GroupCost c = Cost(lane_byte_addrs, bytes_per_lane, banks);
  return c.cycles - c.groups;
}

int LdsCycles(absl::Span<const int64_t> lane_byte_addrs, int bytes_per_lane, int banks) {
  return Cost(lane_byte_addrs, bytes_per_lane, banks).cycles;
}

absl::StatusOr<LdsTraffic> LdsOpTraffic(const Kernel& k, const Op& op, ValueType vt,
                                        const std::map<std::string, int64_t>& loop_vars, int banks,
                                        int first_wave, int waves) {
  if (banks < 1 || banks > kMaxLdsBanks)
    return absl::InvalidArgumentError(absl::StrCat("LDS bank count ", banks, " of ", op.mem,
                                                   "'s target is outside the model's 1..",
                                                   kMaxLdsBanks));
  const LdsAlloc* l = k.FindLds(op.mem);
  if (l == nullptr) return absl::InvalidArgumentError(absl::StrCat(op.mem, " is not LDS"));
  LdsLayout layout = LayoutLds(k);
  int64_t base = 0;
  for (size_t i = 0; i < k.lds.size(); ++i)
    if (&k.lds[i] == l) base = layout.offsets[i];
  const std::vector<int64_t> strides = l->Strides();
  const int rank = static_cast<int>(l->shape.size());
  if (static_cast<int>(op.index.size()) != rank || op.along < 0 || op.along >= rank)
    return absl::InvalidArgumentError("malformed LDS access");
  const int64_t eb = ElemBytes(l->elem);
  const int64_t threads = k.WorkgroupThreads();
  const int total_waves = static_cast<int>(threads / 64);
  if (waves < 0) waves = total_waves - first_wave;

  // The instructions: (first element, bytes, element stride within).
  struct Chunk {
    int first_elem;
    int bytes;
  };
  std::vector<Chunk> chunks;
  const bool contiguous = strides[op.along] == 1 && vt.width > 1;
  if (contiguous) {
    int total = vt.width * static_cast<int>(eb);
    int chunk = std::min(16, total);
    for (int off = 0; off < total; off += chunk) chunks.push_back({off / static_cast<int>(eb), chunk});
  } else {
    for (int e = 0; e < vt.width; ++e) chunks.push_back({e, static_cast<int>(eb)});
  }

  LaneEnv env;
  env.kernel = &k;
  env.loop_vars = &loop_vars;

  std::vector<LaneProgram> programs(rank);
  for (int d = 0; d < rank; ++d) {
    if (op.index[d] == nullptr) return absl::InvalidArgumentError("missing index");
    if (!programs[d].Compile(op.index[d].get(), env))
      return absl::InvalidArgumentError(absl::StrCat("cannot evaluate index ", d, " of an access to ", op.mem));
  }

  LdsTraffic t;
  using Lanes = LaneProgram::Lanes;
  std::vector<Lanes> idx(rank);
  std::vector<std::vector<int64_t>> addrs(chunks.size(), std::vector<int64_t>(64, -1));
  Lanes tid[3];
  for (int w = first_wave; w < first_wave + waves && w < total_waves; ++w) {
    for (int lane = 0; lane < 64; ++lane) {
      int64_t lin = int64_t{w} * 64 + lane;
      tid[0][lane] = lin % k.workgroup[0];
      tid[1][lane] = lin / k.workgroup[0] % k.workgroup[1];
      tid[2][lane] = lin / (k.workgroup[0] * k.workgroup[1]);
    }
    for (int d = 0; d < rank; ++d)
      if (!programs[d].Run(tid, idx[d]))
        return absl::InvalidArgumentError(
            absl::StrCat("cannot evaluate index ", d, " of an access to ", op.mem));
    for (int lane = 0; lane < 64; ++lane) {
      for (size_t c = 0; c < chunks.size(); ++c) {
        bool in = true;
        int64_t off = 0;
        for (int d = 0; d < rank; ++d) {
          int64_t i = idx[d][lane] + (d == op.along ? chunks[c].first_elem : 0);
          if (i < 0 || i >= l->shape[d]) in = false;
          off += i * strides[d];
        }
        if (!in && !op.guarded)
          return absl::InvalidArgumentError(
              absl::StrCat("an unguarded access to ", op.mem, " leaves its shape"));
        addrs[c][lane] = in ? base + off * eb : -1;
      }
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      GroupCost g = Cost(addrs[c], chunks[c].bytes, banks);
      ++t.instructions;
      t.cycles += g.cycles;
      t.conflicts += g.cycles - g.groups;
    }
  }
  return t;
}

absl::StatusOr<KernelLdsTraffic> CountLdsTraffic(const Kernel& k, const TargetInfo& t) {
  Types types;
  types.Walk(k.body);
  KernelLdsTraffic out;
  std::map<std::string, int64_t> loop_vars;
  absl::Status s = Walk(k, k.body, types, loop_vars, t.lds_banks, out);
  if (!s.ok()) return s;
  return out;
}

}  // namespace kir
