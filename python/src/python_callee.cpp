// A Python callable as a schema op's callee: the stack's values become fn's arguments (tensors as
// torch.Tensor, dtypes as torch.dtype), fn's tensors go back on the stack, and whatever fn raises
// or returns that is no tensor becomes the case's error, in words that name it.
#include "python/src/python_callee.h"

#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/autograd/python_variable.h>

#include <stdexcept>
#include <utility>

namespace py = pybind11;

namespace samebits {
namespace {

// "int", "numpy.ndarray": a value's type as Python spells it (builtins without their module).
std::string type_name(const py::handle& value) {
  const py::handle type = py::type::handle_of(value);
  const auto name = type.attr("__qualname__").cast<std::string>();
  const auto module = py::getattr(type, "__module__", py::str("builtins")).cast<std::string>();
  return module == "builtins" ? name : module + "." + name;
}

bool is_dtype_argument(const c10::Argument& a) {
  c10::TypePtr t = a.real_type();
  if (t->kind() == c10::TypeKind::OptionalType)
    t = t->castRaw<c10::OptionalType>()->getElementType();
  return t->kind() == c10::TypeKind::ScalarTypeType;
}

py::object to_python(const c10::IValue& v, const c10::Argument& a) {
  if (v.isNone()) return py::none();
  if (v.isTensor()) return py::reinterpret_steal<py::object>(THPVariable_Wrap(v.toTensor()));
  if (is_dtype_argument(a) && v.isInt()) {
    return py::reinterpret_borrow<py::object>(
        reinterpret_cast<PyObject*>(torch::getTHPDtype(static_cast<c10::ScalarType>(v.toInt()))));
  }
  if (v.isBool()) return py::bool_(v.toBool());
  if (v.isInt()) return py::int_(v.toInt());
  if (v.isDouble()) return py::float_(v.toDouble());
  if (v.isString()) return py::str(v.toStringRef());
  if (v.isIntList()) {
    py::list out;
    for (const auto e : v.toIntVector()) out.append(e);
    return std::move(out);
  }
  throw std::invalid_argument(
      fmt::format("argument \"{}\": a {} cannot be passed to Python", a.name(), v.tagKind()));
}

// "ValueError: bad shape (at model.py:12)": the exception and the innermost line that raised it.
std::string describe(const py::error_already_set& e) {
  std::string out = fmt::format("{}: {}", e.type().attr("__name__").cast<std::string>(),
                                py::str(e.value()).cast<std::string>());
  py::handle tb = e.trace();
  if (!tb || tb.is_none()) return out;
  while (!tb.attr("tb_next").is_none()) tb = tb.attr("tb_next");
  return fmt::format("{} (at {}:{})", out,
                     tb.attr("tb_frame").attr("f_code").attr("co_filename").cast<std::string>(),
                     tb.attr("tb_lineno").cast<int>());
}

}  // namespace

PythonCallee::PythonCallee(py::object fn, c10::FunctionSchema schema)
    : fn_(std::move(fn)), schema_(std::move(schema)) {}

PythonCallee::~PythonCallee() {
  const py::gil_scoped_acquire gil;
  fn_ = py::object();
}

ImplSpec PythonCallee::implementation() const {
  return {"python", "the Python callable given to samebits.check", true, true};
}

void PythonCallee::call(torch::jit::Stack& stack) const {
  const std::string& name = schema_.name();
  const py::gil_scoped_acquire gil;
  // Autograd only where a gradient check asks for it (an input requires a gradient): then the
  // outputs keep their graph back to the inputs; every other call runs and returns without one.
  bool wants_grad = false;
  for (const auto& v : stack)
    wants_grad = wants_grad || (v.isTensor() && v.toTensor().requires_grad());
  const c10::AutoGradMode grad_mode(wants_grad);
  const auto& arguments = schema_.arguments();
  py::list positional;
  py::dict keywords;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    py::object value = to_python(stack.at(i), arguments[i]);
    if (arguments[i].kwarg_only())
      keywords[py::str(arguments[i].name())] = std::move(value);
    else
      positional.append(std::move(value));
  }
  py::object result;
  try {
    result = fn_(*positional, **keywords);
  } catch (py::error_already_set& e) {
    throw std::runtime_error(fmt::format("{} raised {}", name, describe(e)));
  }
  const std::size_t expected = schema_.returns().size();
  std::vector<py::object> returned;
  if (THPVariable_Check(result.ptr())) {
    returned.push_back(result);
  } else if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    for (const auto& e : result) returned.push_back(py::reinterpret_borrow<py::object>(e));
    for (std::size_t i = 0; i < returned.size(); ++i) {
      if (!THPVariable_Check(returned[i].ptr())) {
        throw std::runtime_error(fmt::format("{} returned a {} whose item {} is a {}, not a tensor",
                                             name, type_name(result), i, type_name(returned[i])));
      }
    }
  } else {
    throw std::runtime_error(fmt::format(
        "{} returned a {}, not a tensor or a tuple or list of tensors", name, type_name(result)));
  }
  if (returned.size() != expected) {
    throw std::runtime_error(fmt::format(
        "{} returned {} tensor{}; the check compares {} (name its outputs with outputs=[...])",
        name, returned.size(), returned.size() == 1 ? "" : "s", expected));
  }
  stack.clear();
  for (const auto& r : returned) {
    const at::Tensor& t = THPVariable_Unpack(r.ptr());
    stack.emplace_back(wants_grad ? t : t.detach());
  }
}

}  // namespace samebits
