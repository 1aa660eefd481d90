// What samebits.run() and samebits.render() ask of the engine, in plain C++ (no Python, no ATen):
// the request `samebits run` builds from its options, run through the same plan_run / execute_run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace samebits {

struct Contract;
class OpRegistry;

// samebits.run()'s arguments, as `samebits run`'s options of the same names.
struct EngineCall {
  std::vector<std::string> contracts;  // files, folders or reports; none: the embedded suite
  std::string device = "cpu";          // auto, cpu, cuda
  std::string filter;                  // --filter
  std::string case_id;                 // --case
  std::uint64_t seed = 0;
  std::string capture = "auto";           // auto, on, off
  int jobs = 0;                           // 0: auto, else 1 to 256
  bool progress = false;                  // a progress bar (or lines) on stderr
  std::string report;                     // where to write the JSON report; "": nowhere
  std::vector<std::string> observations;  // --observations, before the embedded ones
};

struct EngineResult {
  std::string report_json;   // the report, as `samebits run` writes it
  int exit_code = 0;         // as `samebits run` exits (0 as expected, 1 unexpected, 3 errors)
  bool interrupted = false;  // a signal (Ctrl-C) stopped the run after the case under way
};

// Loads `call.contracts` and runs them with `ops` (OpRegistry::builtin() for samebits.run).
// Throws ContractError for unusable contracts, options or output paths (before any case runs),
// InfrastructureError for a device that is not there or a report that could not be written.
EngineResult run_engine(const EngineCall& call, const OpRegistry& ops);

// The same with contracts already made (a later samebits.check() builds its contract and an op
// for the Python callable, and runs them here): `call.contracts` then only names them for the
// report's command line.
EngineResult run_engine(const EngineCall& call,
                        const std::vector<std::unique_ptr<Contract>>& contracts,
                        const OpRegistry& ops);

// `samebits report render REPORT --<format> OUT`: format html, markdown or junit. Throws
// ContractError for an unknown format or a report that cannot be read, std::runtime_error for an
// output that cannot be written.
void render_report_file(const std::string& report_path, const std::string& format,
                        const std::string& out);

// This samebits' version ("0.1.0"), the CLI's.
std::string engine_version();

}  // namespace samebits
