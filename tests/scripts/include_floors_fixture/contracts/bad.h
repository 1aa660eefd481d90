// fixture: floor 1 including floor 4 (the planted upward include)
#pragma once
#include "cli/top.h"
