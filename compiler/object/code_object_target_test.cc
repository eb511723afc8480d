// ReadElfTarget and CodeObjectTargetId on ELF headers written by hand (the
// e_flags values are AMDGPUUsage's, written out here, not taken from
// TargetId::ElfFlags) and on code objects LLVM 22 assembled.
#include "compiler/object/code_object_target.h"

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

#define EXPECT_HAS_SUBSTR(s, sub) EXPECT_TRUE(absl::StrContains(s, sub)) << "in: " << (s)

// A 64-byte ELF64 little-endian header: EM_AMDGPU (224), ABI version `abi`
// (1 = v3, 2 = v4, 3 = v5, 4 = v6) and e_flags `flags`.
std::string Header(uint32_t flags, int abi = 3, uint16_t machine = 224) {
  std::string h(64, '\0');
  std::memcpy(h.data(), "\x7f" "ELF", 4);
  h[4] = 2;   // ELFCLASS64
  h[5] = 1;   // ELFDATA2LSB
  h[6] = 1;   // EV_CURRENT
  h[7] = 64;  // ELFOSABI_AMDGPU_HSA
  h[8] = static_cast<char>(abi);
  std::memcpy(h.data() + 18, &machine, 2);
  std::memcpy(h.data() + 48, &flags, 4);
  return h;
}

TargetId Id(const char* s) {
  absl::StatusOr<TargetId> t = ParseTargetId(s);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : TargetId{};
}

TEST(ReadElfTarget, DecodesV4V5Features) {
  // AMDGPUUsage: EF_AMDGPU_MACH_AMDGCN_GFX942 = 0x04c; XNACK_V4 any 0x100,
  // off 0x200, on 0x300; SRAMECC_V4 any 0x400, off 0x800, on 0xc00.
  struct Case {
    uint32_t flags;
    const char* id;
  } cases[] = {{0x54c, "gfx942"},
               {0xa4c, "gfx942:sramecc-:xnack-"},
               {0xe4c, "gfx942:sramecc+:xnack-"},
               {0x73f, "gfx90a:xnack+"},
               {0x630, "gfx908:xnack-"},
               {0xd30, "gfx908:sramecc+"}};
  for (const Case& c : cases) {
    absl::StatusOr<ElfTarget> t = ReadElfTarget(Header(c.flags));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->id.ToString(), c.id) << std::hex << c.flags;
    EXPECT_EQ(t->e_flags, c.flags);
  }
  EXPECT_EQ(ReadElfTarget(Header(0xe4c))->Describe(),
            "e_flags 0xe4c (code object v5: EF_AMDGPU_MACH 0x04c = gfx942, xnack-, sramecc+)");
  EXPECT_EQ(ReadElfTarget(Header(0x54c))->Describe(),
            "e_flags 0x54c (code object v5: EF_AMDGPU_MACH 0x04c = gfx942, xnack any, sramecc any)");
}

TEST(ReadElfTarget, DecodesV3Features) {
  // v3: EF_AMDGPU_FEATURE_XNACK_V3 0x100, EF_AMDGPU_FEATURE_SRAMECC_V3 0x200, set = on.
  EXPECT_EQ(ReadElfTarget(Header(0x03f, 1))->id.ToString(), "gfx90a:sramecc-:xnack-");
  EXPECT_EQ(ReadElfTarget(Header(0x13f, 1))->id.ToString(), "gfx90a:sramecc-:xnack+");
  EXPECT_EQ(ReadElfTarget(Header(0x23f, 1))->id.ToString(), "gfx90a:sramecc+:xnack-");
}

TEST(ReadElfTarget, RefusesWhatItCannotRead) {
  EXPECT_HAS_SUBSTR(std::string(ReadElfTarget("garbage").status().message()), "not an ELF file");
  EXPECT_HAS_SUBSTR(std::string(ReadElfTarget(Header(0x54c, 3, 62)).status().message()),
                    "e_machine is 62, not EM_AMDGPU (224)");
  EXPECT_HAS_SUBSTR(std::string(ReadElfTarget(Header(0x54c, 0)).status().message()), "ELF ABI version is 0");
  // gfx1100 is EF_AMDGPU_MACH 0x041.
  EXPECT_HAS_SUBSTR(std::string(ReadElfTarget(Header(0x541)).status().message()),
                    "EF_AMDGPU_MACH 0x041 (e_flags 0x541), not gfx908 (0x030), gfx90a (0x03f), gfx942 (0x04c) or gfx950 (0x04f)");
  // v6 generic: gfx9-4-generic is EF_AMDGPU_MACH 0x05f with a generic version in bits 24-31.
  EXPECT_HAS_SUBSTR(std::string(ReadElfTarget(Header(0x0100055f, 4)).status().message()),
                    "generic processor");
  EXPECT_HAS_SUBSTR(std::string(ReadElfTarget(Header(0x44c)).status().message()),
                    "e_flags 0x44c do not encode gfx942's xnack and sramecc settings");
}

TEST(CodeObjectTargetId, WithoutMetadataTargetTheHeaderDecides) {
  const std::string h = Header(0xe4c);  // gfx942:sramecc+:xnack-
  absl::StatusOr<TargetId> t = CodeObjectTargetId(h, "", Id("gfx942:sramecc+:xnack-"), TargetMatch::kExact);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ToString(), "gfx942:sramecc+:xnack-");
  // The whole target ID must match for kirc run.
  absl::Status st = CodeObjectTargetId(h, "", Id("gfx942"), TargetMatch::kExact).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(st.message()),
            "its metadata has no amdhsa.target, so its target comes from its ELF header: e_flags 0xe4c (code object "
            "v5: EF_AMDGPU_MACH 0x04c = gfx942, xnack-, sramecc+) is gfx942:sramecc+:xnack-, not gfx942 (use "
            "--mcpu=gfx942:sramecc+:xnack- or a code object built for gfx942)");
  // The loader and kirc verify take a bare processor for any features.
  t = CodeObjectTargetId(h, "", Id("gfx942"), TargetMatch::kFeaturesRequested);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ToString(), "gfx942:sramecc+:xnack-");
  EXPECT_FALSE(CodeObjectTargetId(h, "", Id("gfx942:xnack+"), TargetMatch::kFeaturesRequested).ok());
  st = CodeObjectTargetId(h, "", Id("gfx90a"), TargetMatch::kFeaturesRequested).status();
  EXPECT_HAS_SUBSTR(std::string(st.message()),
                    "is gfx942:sramecc+:xnack-, not gfx90a (use --mcpu=gfx942:sramecc+:xnack-");
}

// Review 9 F4: code for "any" (kirc's default target ID) runs on a device
// whose features are set, as AMDGPUUsage's target-ID rule says; code for a set
// feature does not run as the other setting, nor as "any" under kirc run.
TEST(CodeObjectTargetId, AnyFeatureCodeRunsOnADeviceWithTheFeatureSet) {
  const std::string any = Header(0x54c);  // gfx942, xnack any (bits 8-9 = 1), sramecc any (bits 10-11 = 1)
  for (TargetMatch m : {TargetMatch::kExact, TargetMatch::kFeaturesRequested})
    for (const char* device : {"gfx942", "gfx942:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc-"}) {
      absl::StatusOr<TargetId> t = CodeObjectTargetId(any, "", Id(device), m);
      ASSERT_TRUE(t.ok()) << device << ": " << t.status();
      EXPECT_EQ(t->ToString(), "gfx942") << device;
    }
  const std::string off = Header(0xe4c);  // gfx942:sramecc+:xnack-
  EXPECT_FALSE(CodeObjectTargetId(off, "", Id("gfx942:xnack+"), TargetMatch::kExact).ok());
  EXPECT_FALSE(CodeObjectTargetId(off, "", Id("gfx942"), TargetMatch::kExact).ok());
  EXPECT_TRUE(CodeObjectTargetId(off, "", Id("gfx942:sramecc+:xnack-"), TargetMatch::kExact).ok());
}

TEST(CodeObjectTargetId, MetadataTargetMustAgreeWithTheHeader) {
  EXPECT_TRUE(CodeObjectTargetId(Header(0x73f), "gfx90a:xnack+", Id("gfx90a:xnack+"), TargetMatch::kExact).ok());
  absl::Status st =
      CodeObjectTargetId(Header(0x73f), "gfx90a:xnack-", Id("gfx90a:xnack-"), TargetMatch::kExact).status();
  EXPECT_HAS_SUBSTR(std::string(st.message()),
                    "its metadata's amdhsa.target says gfx90a:xnack- but its ELF header's e_flags 0x73f");
  st = CodeObjectTargetId(Header(0x63f), "gfx90a:xnack-", Id("gfx90a"), TargetMatch::kExact).status();
  EXPECT_EQ(std::string(st.message()),
            "it is for gfx90a:xnack-, not gfx90a (use --mcpu=gfx90a:xnack- or a code object built for gfx90a)");
  st = CodeObjectTargetId(Header(0x63f), "gfx1234", Id("gfx90a"), TargetMatch::kExact).status();
  EXPECT_HAS_SUBSTR(std::string(st.message()), "its metadata's amdhsa.target names 'gfx1234'");
}

TEST(CodeObjectTargetId, CodeObjectsLlvmAssembled) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  std::ifstream f("compiler/object/testdata/add_one_buffer_gfx942.s");
  std::stringstream ss;
  ss << f.rdbuf();
  ASSERT_FALSE(ss.str().empty());
  // llvm-mc writes the ID's features into e_flags; the .s names gfx942 (any).
  absl::StatusOr<std::string> obj = BuildCodeObject(*bin, ss.str(), "gfx942");
  ASSERT_TRUE(obj.ok()) << obj.status();
  absl::StatusOr<ElfTarget> t = ReadElfTarget(*obj);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->e_flags, 0x54cu);
  EXPECT_EQ(t->abi_version, 3);  // code object v5
  EXPECT_TRUE(CodeObjectTargetId(*obj, "gfx942", Id("gfx942"), TargetMatch::kExact).ok());
}

}  // namespace
}  // namespace kir
