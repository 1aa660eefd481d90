// fixture: one half of the planted cycle
#pragma once
#include "cases/y.h"
