// fixture: the top floor including a lower one (allowed)
#pragma once
#include "contracts/base.h"
