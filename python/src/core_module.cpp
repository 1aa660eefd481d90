// samebits._core: the pybind11 module under the Python package. Loading it registers
// torch.ops.samebits.* (the kernels' bindings it links); run() and render() call the CLI's engine,
// check() runs a contract whose op calls a Python callable (python/src/check_call.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "common/errors.h"
#include "harness/device_choice.h"
#include "harness/op_registry.h"
#include "python/src/check_call.h"
#include "python/src/engine_call.h"

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
  m.def("render", &samebits::render_report_file, py::arg("report_path"), py::arg("format"),
        py::arg("out"), py::call_guard<py::gil_scoped_release>(),
        "Writes a report's html, markdown or junit rendering to `out`.");
}
