// A renderer, which the model below it must not include.
#pragma once
#include "reports/model/ok.h"
