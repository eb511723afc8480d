#include "compiler/ir/gemm.h"

namespace kir {

std::string GemmOpText(const GemmOp& g) {
  std::string s = "gemm " + g.c + " = ";
  for (const std::string& f : g.factors) s += f + " * ";
  s += g.a + (g.a_km ? ".km" : ".mk") + " * " + g.b + (g.b_kn ? ".kn" : ".nk");
  if (g.has_beta()) s += " + " + g.beta + " * " + g.c_in;
  else if (g.adds_c()) s += " + " + g.c_in;
  if (g.has_tile())
    s += " tile " + std::to_string(g.tile[0]) + "x" + std::to_string(g.tile[1]) + "x" +
         std::to_string(g.tile[2]);
  if (g.has_waves()) s += " waves " + std::to_string(g.waves[0]) + "x" + std::to_string(g.waves[1]);
  if (!g.mfma.empty()) s += " mfma " + g.mfma;
  if (g.double_buffer.has_value()) s += *g.double_buffer ? " double_buffer on" : " double_buffer off";
  if (g.lds_dma.has_value()) s += *g.lds_dma ? " lds_dma on" : " lds_dma off";
  return s;
}

}  // namespace kir
