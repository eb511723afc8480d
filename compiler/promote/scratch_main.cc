#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/promote/promote.h"
#include "compiler/lower/validate.h"
int main(int argc, char** argv) {
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf();
  auto k = kir::ParseKernel(ss.str(), argv[1]);
  if (!k.ok()) { std::cerr << k.status() << "\n"; return 1; }
  auto t = kir::LookupTarget(argc > 2 ? argv[2] : k->target);
  auto T0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) (void)kir::PlanGemm(*k, **t);
  auto T1 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) (void)kir::ValidateKernel(*k, **t);
  auto T2 = std::chrono::steady_clock::now();
  auto pp = kir::PromoteGemm(*k, **t);
  for (int i = 0; i < 10; ++i) (void)kir::ValidateKernel(*pp, **t);
  auto T3 = std::chrono::steady_clock::now();
  std::cerr << "plan " << std::chrono::duration<double>(T1-T0).count()*100 << " ms, validate src " << std::chrono::duration<double>(T2-T1).count()*100 << " ms, validate promoted " << std::chrono::duration<double>(T3-T2).count()*100 << " ms\n";
  auto plan = kir::PlanGemm(*k, **t);
  if (!plan.ok()) { std::cerr << plan.status() << "\n"; return 1; }
  std::cout << plan->Summary();
  auto p = kir::ValidateAndPromote(*k, **t, argv[1]);
  if (!p.ok()) { std::cerr << p.status() << "\n"; return 1; }
  std::cout << kir::PrintKernel(*p);
  auto tr = kir::CountLdsTraffic(*p);
  std::cout << "exact reads " << tr->reads.instructions << " " << tr->reads.conflicts << " writes " << tr->writes.instructions << " " << tr->writes.conflicts << "\n";
}
