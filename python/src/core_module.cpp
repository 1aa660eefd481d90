// samebits._core: the pybind11 module under the Python package. Loading it registers
// torch.ops.samebits.* (the kernels' bindings it links); run() and render() call the CLI's engine,
// check() runs a contract whose op calls a Python callable (python/src/check_call.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>

#include "common/errors.h"
#include "harness/device_choice.h"
#include "harness/op_registry.h"
#include "python/src/check_call.h"
#include "python/src/engine_call.h"
#include "python/src/localize_call.h"

namespace py = pybind11;

namespace {

samebits::EngineResult run(std::vector<std::string> contracts, std::string device,
                           std::string filter, std::string case_id, std::uint64_t seed,
                           std::string capture, int jobs, bool progress, std::string report,
                           std::vector<std::string> observations) {
  samebits::EngineCall call;
  call.contracts = std::move(contracts);
  call.device = std::move(device);
  call.filter = std::move(filter);
  call.case_id = std::move(case_id);
  call.seed = seed;
  call.capture = std::move(capture);
  call.jobs = jobs;
  call.progress = progress;
  call.report = std::move(report);
  call.observations = std::move(observations);
  const samebits::OpRegistry ops = samebits::OpRegistry::builtin();
  return samebits::run_engine(call, ops);
}

samebits::CheckOutcome check(const py::object& fn, std::string contract_json, std::string schema,
                             std::string source, std::string device, std::uint64_t seed,
                             bool progress, std::string report) {
  samebits::CheckCall call;
  call.contract_json = std::move(contract_json);
  call.schema = std::move(schema);
  call.run.contracts = {std::move(source)};
  call.run.device = std::move(device);
  call.run.seed = seed;
  call.run.progress = progress;
  call.run.report = std::move(report);
  return samebits::run_check(fn, call);
}

// (tokens, offset, length, sequences, sequence, padded_rows): localize::RowMap's fields.
using RowMapTuple =
    std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
samebits::localize::RowMap row_map(const RowMapTuple& t) {
  samebits::localize::RowMap m;
  std::tie(m.tokens, m.offset, m.length, m.sequences, m.sequence, m.padded_rows) = t;
  return m;
}

std::string localize(const py::object& a, const std::vector<py::object>& b,
                     const py::object& format_stack, std::optional<double> plain_ms,
                     const RowMapTuple& a_map, const std::vector<RowMapTuple>& b_maps,
                     std::string call_name, std::string a_name, std::string b_name,
                     std::string subject_json, bool capture_kernels, std::string report,
                     std::string html, std::string rerun_contract) {
  samebits::LocalizeCall call;
  call.a_map = row_map(a_map);
  for (const auto& m : b_maps) call.b_maps.push_back(row_map(m));
  call.call_name = std::move(call_name);
  call.a_name = std::move(a_name);
  call.b_name = std::move(b_name);
  call.subject_json = std::move(subject_json);
  call.rerun_contract = std::move(rerun_contract);
  call.capture_kernels = capture_kernels;
  call.report = std::move(report);
  call.html = std::move(html);
  return samebits::run_localize(a, b, format_stack, plain_ms, call);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "samebits' C++ engine (the CLI's): run contracts, render reports";
  m.attr("__version__") = samebits::engine_version();

  // A contract, an argument or an input file that cannot be used: `samebits run`'s exit 2.
  py::register_exception<samebits::ContractError>(m, "ContractError", PyExc_ValueError)
      .attr("__doc__") =
      "A contract, an argument or an input file that cannot be used (samebits run's exit 2).";
  // A device that is not there, an output that could not be written: exit 3.
  py::register_exception<samebits::InfrastructureError>(m, "InfrastructureError",
                                                        PyExc_RuntimeError)
      .attr("__doc__") = "A device that is not there, or an output that could not be written.";

  py::class_<samebits::EngineResult>(m, "EngineResult")
      .def_readonly("report_json", &samebits::EngineResult::report_json)
      .def_readonly("exit_code", &samebits::EngineResult::exit_code)
      .def_readonly("interrupted", &samebits::EngineResult::interrupted);

  m.def("run", &run, py::arg("contracts"), py::kw_only(), py::arg("device"), py::arg("filter"),
        py::arg("case_id"), py::arg("seed"), py::arg("capture"), py::arg("jobs"),
        py::arg("progress"), py::arg("report"), py::arg("observations"),
        py::call_guard<py::gil_scoped_release>(),
        "Plans, runs and judges contracts (none: the embedded suite) as `samebits run` does.");
  py::class_<samebits::CheckFailure>(m, "CheckFailure")
      .def_readonly("check", &samebits::CheckFailure::check)
      .def_readonly("kind", &samebits::CheckFailure::kind)
      .def_readonly("outcome", &samebits::CheckFailure::outcome)
      .def_readonly("headline", &samebits::CheckFailure::headline)
      .def_readonly("detail", &samebits::CheckFailure::detail);
  py::class_<samebits::CheckOutcome>(m, "CheckOutcome")
      .def_readonly("result", &samebits::CheckOutcome::result)
      .def_readonly("failures", &samebits::CheckOutcome::failures);

  // Holds the GIL: the callable's object is taken here; run_check lets go of the GIL for the run.
  m.def("check", &check, py::arg("fn"), py::arg("contract_json"), py::arg("schema"), py::kw_only(),
        py::arg("source"), py::arg("device"), py::arg("seed"), py::arg("progress"),
        py::arg("report"),
        "Runs a contract whose op (\"python::NAME\", with `schema`) calls fn, as `samebits run` "
        "runs any contract.");
  // Holds the GIL throughout: the recorder's callbacks are the calling thread's, and call Python.
  m.def("localize", &localize, py::arg("a"), py::arg("b"), py::arg("format_stack"),
        py::arg("plain_ms"), py::kw_only(), py::arg("a_map"), py::arg("b_maps"),
        py::arg("call_name"), py::arg("a_name"), py::arg("b_name"), py::arg("subject_json"),
        py::arg("capture_kernels"), py::arg("report"), py::arg("html"), py::arg("rerun_contract"),
        "Records a() and b's calls op by op and compares them on the item's rows: the finding's "
        "JSON.");
  m.def("render", &samebits::render_report_file, py::arg("report_path"), py::arg("format"),
        py::arg("out"), py::call_guard<py::gil_scoped_release>(),
        "Writes a report's html, markdown or junit rendering to `out`.");
}
