// fixture: the other half of the planted cycle
#pragma once
#include "cases/x.h"
