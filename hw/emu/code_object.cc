#include "hw/emu/code_object.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/isa/semantics.h"

namespace kir::emu {
namespace {

template <typename T>
T Get(absl::string_view b, size_t off) {
  T v{};
  if (off + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

template <typename T>
void Put(std::string& b, size_t off, T v) {
  std::memcpy(&b[off], &v, sizeof(T));
}

uint32_t Bits(uint32_t v, int lo, int n) { return (v >> lo) & ((1u << n) - 1); }

int Indent(absl::string_view l) {
  int i = 0;
  while (i < static_cast<int>(l.size()) && l[i] == ' ') ++i;
  return i;
}

std::string Unquote(absl::string_view v) {
  v = absl::StripAsciiWhitespace(v);
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  return std::string(v);
}

}  // namespace

absl::StatusOr<KernelInfo> DecodeKernel(const TargetId& id, absl::string_view kd,
                                        const KernelNotes& notes, absl::string_view yaml) {
  if (kd.size() < 64) return absl::InvalidArgumentError("kernel descriptor shorter than 64 bytes");
  const TargetInfo& t = *id.target;
  KernelInfo k;
  k.name = notes.name;
  k.target = &t;
  k.xnack = id.xnack;
  k.sramecc = id.sramecc;
  k.group_segment_size = Get<uint32_t>(kd, 0);
  k.private_segment_size = Get<uint32_t>(kd, 4);
  k.kernarg_size = Get<uint32_t>(kd, 8);
  k.entry_offset = Get<int64_t>(kd, 16);
  k.rsrc3 = Get<uint32_t>(kd, 44);
  k.rsrc1 = Get<uint32_t>(kd, 48);
  k.rsrc2 = Get<uint32_t>(kd, 52);
  k.properties = Get<uint16_t>(kd, 56);
  k.kernarg_preload = Get<uint16_t>(kd, 58);
  const std::string who = absl::StrCat("kernel '", k.name, "': ");
  if (k.properties & kEnableWavefrontSize32)
    return absl::InvalidArgumentError(who + "wave32 kernels are not emulated (CDNA is wave64)");
  // The emulator keeps 64 lanes' private segments per wave in host memory.
  if (k.private_segment_size > (1u << 17))
    return absl::UnimplementedError(absl::StrCat(who, "uses ", k.private_segment_size,
                                                 " bytes of scratch per work-item; the emulator keeps at most "
                                                 "131072 (128 KiB) per work-item"));
  if (k.group_segment_size > static_cast<uint32_t>(t.lds_bytes))
    return absl::InvalidArgumentError(absl::StrCat(who, "group segment of ", k.group_segment_size,
                                                   " bytes exceeds the ", t.lds_bytes, " bytes of LDS"));
  // User SGPRs, dense from s0 in this order (amdgcn-isa-notes.md 6.1).
  int next = 0;
  auto take = [&](uint16_t bit, int n, int* where) {
    if (k.properties & bit) {
      *where = next;
      next += n;
    }
  };
  take(kEnablePrivateSegmentBuffer, 4, &k.private_segment_buffer_sgpr);
  take(kEnableDispatchPtr, 2, &k.dispatch_ptr_sgpr);
  take(kEnableQueuePtr, 2, &k.queue_ptr_sgpr);
  take(kEnableKernargSegmentPtr, 2, &k.kernarg_ptr_sgpr);
  take(kEnableDispatchId, 2, &k.dispatch_id_sgpr);
  take(kEnableFlatScratchInit, 2, &k.flat_scratch_init_sgpr);
  k.preload_dwords = k.kernarg_preload & 0x7f;
  k.preload_offset_dwords = k.kernarg_preload >> 7;
  if (k.preload_dwords > 0) {
    k.preload_sgpr = next;
    next += k.preload_dwords;
  }
  take(kEnablePrivateSegmentSize, 1, &k.private_segment_size_sgpr);
  k.user_sgpr_count = static_cast<int>(Bits(k.rsrc2, 1, 5));
  if (next > k.user_sgpr_count)
    return absl::InvalidArgumentError(absl::StrCat(
        who, "kernel_code_properties 0x", absl::Hex(k.properties), " enable ", next,
        " user SGPRs but rsrc2 USER_SGPR_COUNT is ", k.user_sgpr_count));
  int sys = k.user_sgpr_count;
  for (int d = 0; d < 3; ++d)
    if (k.rsrc2 & (1u << (7 + d))) k.workgroup_id_sgpr[d] = sys++;
  if (k.rsrc2 & (1u << 10)) k.workgroup_info_sgpr = sys++;
  if (k.rsrc2 & 1u) k.scratch_wave_offset_sgpr = sys++;
  k.workitem_id_enable = static_cast<int>(Bits(k.rsrc2, 11, 2));
  k.packed_workitem_ids = t.packed_workitem_ids;
  const int granules = static_cast<int>(Bits(k.rsrc1, 0, 6)) + 1;
  if (t.unified_vgpr_file) {
    k.unified_vgprs = granules * t.vgpr_granule;
    k.accum_offset = (static_cast<int>(Bits(k.rsrc3, 0, 6)) + 1) * 4;
    k.vgpr_limit = std::min(k.unified_vgprs, 512);
    k.agpr_limit = std::max(0, k.unified_vgprs - k.accum_offset);
  } else {
    k.vgpr_limit = k.agpr_limit = granules * t.vgpr_granule;
  }
  k.sgpr_granted = SgprsGranted(static_cast<int>(Bits(k.rsrc1, 6, 4)));
  k.fp32_denorm_mode = static_cast<int>(Bits(k.rsrc1, 16, 2));
  k.fp16_denorm_mode = static_cast<int>(Bits(k.rsrc1, 18, 2));
  k.float_mode = ModeFromRsrc1(k.rsrc1);
  k.args = notes.args;
  k.kernarg_segment_size = notes.kernarg_segment_size;
  k.reqd_workgroup_size = ReqdWorkgroupSize(yaml, k.name);
  return k;
}

absl::StatusOr<std::string> DescriptorFromDirectives(const TargetId& id,
                                                     const std::map<std::string, int64_t>& d) {
  const TargetInfo& t = *id.target;
  auto get = [&](const char* name, int64_t def) {
    auto it = d.find(name);
    return it == d.end() ? def : it->second;
  };
  for (const char* req : {"next_free_vgpr", "next_free_sgpr"})
    if (!d.count(req)) return absl::InvalidArgumentError(absl::StrCat(".amdhsa_", req, " directive is required"));
  if (t.has_accum_offset && !d.count("accum_offset"))
    return absl::InvalidArgumentError(".amdhsa_accum_offset directive is required");
  if (!t.has_accum_offset && d.count("accum_offset"))
    return absl::InvalidArgumentError(absl::StrCat(".amdhsa_accum_offset directive requires gfx90a+ (target ", t.name, ")"));
  std::string b(64, '\0');
  Put<uint32_t>(b, 0, static_cast<uint32_t>(get("group_segment_fixed_size", 0)));
  Put<uint32_t>(b, 4, static_cast<uint32_t>(get("private_segment_fixed_size", 0)));
  Put<uint32_t>(b, 8, static_cast<uint32_t>(get("kernarg_size", 0)));
  int64_t nfv = get("next_free_vgpr", 0);
  int g = static_cast<int>(std::max<int64_t>(1, (nfv + t.vgpr_granule - 1) / t.vgpr_granule)) - 1;
  uint32_t rsrc1 = static_cast<uint32_t>(g) & 63;
  // SGPRs: next_free_sgpr plus the special SGPRs the reserve_* directives
  // keep (llvm-mc's defaults: VCC and flat scratch reserved; the XNACK mask
  // reserved unless the target ID says xnack-, and llvm-mc refuses any other
  // reserve_xnack_mask).
  const bool xnack_mask = id.xnack != FeatureSetting::kOff;
  if ((get("reserve_xnack_mask", xnack_mask) != 0) != xnack_mask)
    return absl::InvalidArgumentError(absl::StrCat(".amdhsa_reserve_xnack_mask ", get("reserve_xnack_mask", 0),
                                                   " does not match target ID ", id.ToString(),
                                                   " (llvm-mc refuses it too): leave the directive out"));
  const int sgprs_used = static_cast<int>(get("next_free_sgpr", 0)) +
                         ExtraSgprs(t, get("reserve_vcc", 1) != 0, xnack_mask, get("reserve_flat_scratch", 1) != 0);
  rsrc1 |= static_cast<uint32_t>(GranulatedSgprCount(sgprs_used) & 15) << 6;
  rsrc1 |= static_cast<uint32_t>(get("float_round_mode_32", 0) & 3) << 12;
  rsrc1 |= static_cast<uint32_t>(get("float_round_mode_16_64", 0) & 3) << 14;
  rsrc1 |= static_cast<uint32_t>(get("float_denorm_mode_32", 0) & 3) << 16;
  rsrc1 |= static_cast<uint32_t>(get("float_denorm_mode_16_64", 3) & 3) << 18;
  uint16_t props = 0;
  int users = 0;
  auto prop = [&](const char* name, uint16_t bit, int n) {
    if (get(name, 0)) {
      props |= bit;
      users += n;
    }
  };
  prop("user_sgpr_private_segment_buffer", kEnablePrivateSegmentBuffer, 4);
  prop("user_sgpr_dispatch_ptr", kEnableDispatchPtr, 2);
  prop("user_sgpr_queue_ptr", kEnableQueuePtr, 2);
  prop("user_sgpr_kernarg_segment_ptr", kEnableKernargSegmentPtr, 2);
  prop("user_sgpr_dispatch_id", kEnableDispatchId, 2);
  prop("user_sgpr_flat_scratch_init", kEnableFlatScratchInit, 2);
  prop("user_sgpr_private_segment_size", kEnablePrivateSegmentSize, 1);
  if (get("wavefront_size32", 0)) props |= kEnableWavefrontSize32;
  int64_t preload = get("user_sgpr_kernarg_preload_length", 0);
  users += static_cast<int>(preload);
  uint16_t preload_field = static_cast<uint16_t>((preload & 0x7f) |
                                                 (get("user_sgpr_kernarg_preload_offset", 0) << 7));
  uint32_t rsrc2 = 0;
  if (get("enable_private_segment", 0) || get("system_sgpr_private_segment_wavefront_offset", 0)) rsrc2 |= 1;
  rsrc2 |= static_cast<uint32_t>(get("user_sgpr_count", users) & 31) << 1;
  if (get("system_sgpr_workgroup_id_x", 1)) rsrc2 |= 1u << 7;
  if (get("system_sgpr_workgroup_id_y", 0)) rsrc2 |= 1u << 8;
  if (get("system_sgpr_workgroup_id_z", 0)) rsrc2 |= 1u << 9;
  if (get("system_sgpr_workgroup_info", 0)) rsrc2 |= 1u << 10;
  rsrc2 |= static_cast<uint32_t>(get("system_vgpr_workitem_id", 0) & 3) << 11;
  uint32_t rsrc3 = 0;
  if (t.has_accum_offset) {
    int64_t acc = get("accum_offset", 4);
    if (acc < 4 || acc > 256 || acc % 4 != 0)
      return absl::InvalidArgumentError(".amdhsa_accum_offset must be 4..256 in steps of 4");
    rsrc3 = static_cast<uint32_t>(acc / 4 - 1);
  }
  Put<uint32_t>(b, 44, rsrc3);
  Put<uint32_t>(b, 48, rsrc1);
  Put<uint32_t>(b, 52, rsrc2);
  Put<uint16_t>(b, 56, props);
  Put<uint16_t>(b, 58, preload_field);
  return b;
}

std::array<int64_t, 3> ReqdWorkgroupSize(absl::string_view yaml, absl::string_view name) {
  std::array<int64_t, 3> none = {0, 0, 0};
  std::vector<absl::string_view> lines = absl::StrSplit(yaml, '\n');
  size_t i = 0;
  while (i < lines.size() && !absl::StartsWith(absl::StripLeadingAsciiWhitespace(lines[i]), "amdhsa.kernels:")) ++i;
  if (i == lines.size()) return none;
  ++i;
  // Kernel entries: "- " items at the first item's indentation.
  int item = -1;
  std::vector<std::pair<size_t, size_t>> entries;
  for (; i < lines.size(); ++i) {
    absl::string_view l = lines[i];
    absl::string_view s = absl::StripLeadingAsciiWhitespace(l);
    if (s.empty()) continue;
    int ind = Indent(l);
    if (item < 0) {
      if (!absl::StartsWith(s, "- ")) return none;
      item = ind;
    }
    if (ind < item || (ind == item && !absl::StartsWith(s, "- "))) break;
    if (ind == item) entries.push_back({i, i + 1});
    else entries.back().second = i + 1;
  }
  for (const auto& [b, e] : entries) {
    bool match = false;
    std::array<int64_t, 3> r = none;
    for (size_t j = b; j < e; ++j) {
      if (j != b && Indent(lines[j]) != item + 2) continue;  // keys of this kernel only
      absl::string_view s = absl::StripLeadingAsciiWhitespace(lines[j]);
      absl::ConsumePrefix(&s, "- ");
      if (absl::ConsumePrefix(&s, ".name:")) match = Unquote(s) == name;
      if (absl::ConsumePrefix(&s, ".reqd_workgroup_size:")) {
        s = absl::StripAsciiWhitespace(s);
        std::vector<int64_t> v;
        if (absl::ConsumePrefix(&s, "[")) {
          absl::ConsumeSuffix(&s, "]");
          for (absl::string_view x : absl::StrSplit(s, ',')) {
            int64_t n;
            if (absl::SimpleAtoi(absl::StripAsciiWhitespace(x), &n)) v.push_back(n);
          }
        } else {
          for (size_t k = j + 1; k < e && v.size() < 3; ++k) {
            absl::string_view x = absl::StripLeadingAsciiWhitespace(lines[k]);
            int64_t n;
            if (!absl::ConsumePrefix(&x, "- ") || !absl::SimpleAtoi(absl::StripAsciiWhitespace(x), &n)) break;
            v.push_back(n);
          }
        }
        if (v.size() == 3) r = {v[0], v[1], v[2]};
      }
    }
    if (match) return r;
  }
  return none;
}

absl::StatusOr<std::string> ElfSymbolBytes(absl::string_view elf, absl::string_view symbol,
                                           size_t size, uint64_t* vaddr) {
  if (elf.size() < 64 || elf.substr(0, 4) != "\x7f" "ELF" || elf[4] != 2 || elf[5] != 1)
    return absl::InvalidArgumentError("not a little-endian ELF64 file");
  uint64_t shoff = Get<uint64_t>(elf, 0x28);
  uint16_t shentsize = Get<uint16_t>(elf, 0x3a), shnum = Get<uint16_t>(elf, 0x3c);
  if (shentsize < 64 || shoff + uint64_t{shnum} * shentsize > elf.size())
    return absl::InvalidArgumentError("ELF section headers out of the file");
  struct Sec { uint32_t type, link; uint64_t addr, off, size, entsize; };
  std::vector<Sec> secs;
  for (int i = 0; i < shnum; ++i) {
    size_t h = shoff + static_cast<size_t>(i) * shentsize;
    secs.push_back({Get<uint32_t>(elf, h + 4), Get<uint32_t>(elf, h + 40), Get<uint64_t>(elf, h + 16),
                    Get<uint64_t>(elf, h + 24), Get<uint64_t>(elf, h + 32), Get<uint64_t>(elf, h + 56)});
  }
  for (const Sec& s : secs) {
    if ((s.type != 2 && s.type != 11) || s.entsize < 24 || s.link >= secs.size()) continue;
    const Sec& str = secs[s.link];
    if (s.off + s.size > elf.size() || str.off + str.size > elf.size()) continue;
    for (uint64_t o = s.off; o + 24 <= s.off + s.size; o += s.entsize) {
      uint32_t name = Get<uint32_t>(elf, o);
      if (name >= str.size) continue;
      absl::string_view nm(elf.data() + str.off + name);
      if (nm != symbol) continue;
      uint16_t shndx = Get<uint16_t>(elf, o + 6);
      uint64_t value = Get<uint64_t>(elf, o + 8);
      if (shndx == 0 || shndx >= secs.size()) continue;
      const Sec& in = secs[shndx];
      if (value < in.addr || value + size > in.addr + in.size || in.off + (value - in.addr) + size > elf.size())
        return absl::InvalidArgumentError(absl::StrCat("symbol ", symbol, " lies outside its section"));
      *vaddr = value;
      return std::string(elf.substr(in.off + (value - in.addr), size));
    }
  }
  return absl::NotFoundError(absl::StrCat("symbol '", symbol, "' not found in the code object"));
}

}  // namespace kir::emu
