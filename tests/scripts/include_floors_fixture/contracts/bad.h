// fixture: floor 0 including floor 3 (the planted upward include)
#pragma once
#include "cli/top.h"
