// Planted: the report model includes a renderer (reports/model is floor 2, reports/render 3).
#pragma once
#include "reports/render/r.h"
