// Any ATen op by its schema name ("aten::layer_norm", "aten::add.Tensor"), from a contract that
// describes its inputs: an Op that calls it through the c10 dispatcher, items sliced along a dim.
#pragma once

#include <ATen/core/function_schema.h>

#include <memory>

#include "contracts/contract.h"
#include "harness/op.h"

namespace samebits {

// The op of a schema contract (contract.inputs set). Throws ContractError for what the schema
// refuses (harness/ops/schema_binding.h).
std::unique_ptr<Op> make_schema_op(const Contract& contract);

class SchemaCallee;
// The same op over another callee, whose `schema` binds the contract's inputs (a Python callable's
// parameters): the op's one implementation is the callee's. Throws ContractError as above.
std::unique_ptr<Op> make_schema_op(const Contract& contract, const c10::FunctionSchema& schema,
                                   std::shared_ptr<const SchemaCallee> callee);

}  // namespace samebits
