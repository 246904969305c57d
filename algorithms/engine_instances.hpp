// The engine compiled once per program: for the programs that code outside their algorithm's source
// also runs (the tests of keyed streams and of mcst), the algorithm's source holds the explicit
// instantiation of run_engine (and so of Engine<P>), and this header declares it extern, so that
// another translation unit that includes it links to that copy instead of compiling the whole
// engine again (each engine costs ~6-15 s of compile per build, and CI builds three times).
// Include it before the first call of run_engine with one of these programs.
#pragma once

#include "algorithms/cc.hpp"
#include "algorithms/mcst.hpp"
#include "algorithms/scc.hpp"
#include "algorithms/sssp.hpp"
#include "core/engine.hpp"

namespace edgestream {

// Defined in algorithms/cc.cpp, mcst.cpp, scc.cpp and sssp.cpp.
extern template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const CcProgram&,
                                              const FinalStateVisitor<CcProgram::Vertex>&);
extern template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const McstProgram&,
                                              const FinalStateVisitor<McstProgram::Vertex>&);
extern template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const SccProgram&,
                                              const FinalStateVisitor<SccProgram::Vertex>&);
extern template Expected<RunStats> run_engine(const GraphInfo&, const EngineOptions&, const SsspProgram&,
                                              const FinalStateVisitor<SsspProgram::Vertex>&);

}  // namespace edgestream
